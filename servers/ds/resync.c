// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Catching up from a peer.  Repair never destroys first.  A copy is
 * queued here when it is behind (marked stale: a FORWARD with a version
 * gap), damaged (a checksum mismatch: marked stale by the job, its bytes
 * kept) or doubted (a reader asks for a newer version than it has: a
 * claim only, which marks nothing).  One thread takes the jobs in turn
 * and, for each member of the chunk's group:
 *
 *   1. CHUNK_READs the peer's copy from offset 0, AIFS_MAX_IO at a time,
 *      every piece of the same version (else it starts again), asking
 *      for no version (a claim of ours would make the peer doubt its own
 *      copy in turn); a copy older than the job needs is no source;
 *   2. writes it into a side copy beside the chunk (ds_side_open(): fresh
 *      CRCs), the chunk itself untouched;
 *   3. under the chunk's lock, checks that the pulled copy may replace
 *      ours (ds_resync_takes()), stamps the side sidecar with the peer's
 *      version and length, the fence, no stale mark, and swaps it in
 *      (ds_side_swap(): rename, directory synced).
 *
 * The peer's CRCs were checked by its read, ours are computed anew: the
 * data is verified end to end.  A copy no peer can replace keeps its
 * bytes: a stale one stays stale (reads and forwards answer ESTALE)
 * and its job stays queued, tried again later (every DS_RESYNC_RETRY_MS,
 * doubling), so it is repaired once a source is back; a doubted one was
 * fine.  A damaged EC fragment has no copy to pull: it is decoded again
 * from the rest of its stripe, in place (ec.c).  Nothing is held locked
 * while waiting on the network, so the primary's lock (held while it
 * forwards) never waits on us.
 */
#include <stdlib.h>

#include "ds.h"

/* Attempts when the peer's copy changes while we read it. */
#define DS_RESYNC_ATTEMPTS	3

/* A stale copy no peer could replace is tried again after this, doubling */
#define DS_RESYNC_RETRY_MS	1000
#define DS_RESYNC_RETRY_MAX_MS	30000

struct ds_resync_job {
	struct ds_resync_job *next;
	struct aifs_chunk_id id;
	u64 min_version;	/* a source's copy is at least this new */
	u64 heard;		/* the newest min_version asked for */
	u32 chunk_size;
	u32 fence;		/* of the inode on the peers: meta.fence */
	u32 nr_peers;
	u32 peers[DS_MAX_PEERS];
	u64 settle;		/* not 0: the want of a stale copy no peer has,
				 * which this pull ends (ds_resync_settle()) */
	bool mark;		/* damaged: mark it stale first */
	bool exact;		/* a sync: the group's copy, even if older */
	u64 seen;		/* a sync: the version of ours it compared
				 * (0: none), which alone the group's may
				 * replace with an older one */
	bool held;		/* no source last time: tried again at @due */
	u64 due;		/* aifs_now_ms() */
	u32 tries;
};

struct ds_resync {
	pthread_t thread;
	pthread_mutex_t lock;	/* protects what follows */
	pthread_cond_t wake;
	pthread_cond_t ended;	/* a job ended */
	struct ds_resync_job *head;
	struct ds_resync_job **tail;
	struct ds_resync_job *running;
	u32 nr;
	bool stop;
	/*
	 * A job was left out of the full queue: the marked chunks are
	 * queued again from their marks (ds_repair_requeue()) once no job
	 * is due: at once if a chunk was made whole since they last were,
	 * or a peer is back; else DS_RESYNC_RETRY_MAX_MS after
	 */
	bool dropped;
	u64 marks_read;		/* aifs_now_ms() they last were */
	u64 marks_resynced;	/* @resynced then */
	u64 resynced;		/* chunks made whole */
	u64 failed;		/* attempts that found no source */
	u64 window_start;	/* aifs_now_ms() the rate's window opened */
	u64 window_bytes;	/* pulled since */
};

/**
 * ds_sleep_until - sleep until aifs_now_ms() is @due, or a stop
 * @lock: held; let go while asleep
 * @wake: signalled to stop (or for other reasons: it sleeps on)
 * @stop: set under @lock to stop
 *
 * Return: false when stopped.
 */
bool ds_sleep_until(pthread_mutex_t *lock, pthread_cond_t *wake,
		    const bool *stop, u64 due)
{
	struct timespec until;
	u64 now;

	while (!*stop && (now = aifs_now_ms()) < due) {
		aifs_time_after_ms(CLOCK_REALTIME, due - now, &until);
		pthread_cond_timedwait(wake, lock, &until);
	}
	return !*stop;
}

/*
 * Keep the pulls under resync_rate_mib (0: no bound): sleep until the
 * bytes pulled since the window opened are due.  A window idle for a
 * second opens anew.  False when the server stops.
 */
static bool ds_resync_throttle(struct ds *ds, u32 bytes)
{
	struct ds_resync *rs = ds->resync;
	u64 rate = (u64)ds->cfg.resync_rate_mib << 20, now = aifs_now_ms();
	bool go_on;

	if (!rate)
		return true;
	pthread_mutex_lock(&rs->lock);
	if (now > rs->window_start + rs->window_bytes * 1000 / rate + 1000) {
		rs->window_start = now;
		rs->window_bytes = 0;
	}
	rs->window_bytes += bytes;
	go_on = ds_sleep_until(&rs->lock, &rs->wake, &rs->stop,
			       rs->window_start +
			       rs->window_bytes * 1000 / rate);
	pthread_mutex_unlock(&rs->lock);
	return go_on;
}

void ds_resync_counts(struct ds *ds, u64 *resynced, u64 *failed)
{
	struct ds_resync *rs = ds->resync;

	pthread_mutex_lock(&rs->lock);
	*resynced = rs->resynced;
	*failed = rs->failed;
	pthread_mutex_unlock(&rs->lock);
}

/* Chunks waiting for resync or being resynced now. */
u64 ds_resync_queued(struct ds *ds)
{
	struct ds_resync *rs = ds->resync;
	u64 nr;

	pthread_mutex_lock(&rs->lock);
	nr = rs->nr;
	pthread_mutex_unlock(&rs->lock);
	return nr;
}

/* The job of @id, queued or running, or NULL.  Lock held. */
static struct ds_resync_job *ds_resync_find(struct ds_resync *rs,
					    const struct aifs_chunk_id *id)
{
	struct ds_resync_job *job;

	if (rs->running && !memcmp(&rs->running->id, id, sizeof(*id)))
		return rs->running;
	for (job = rs->head; job; job = job->next)
		if (!memcmp(&job->id, id, sizeof(*id)))
			return job;
	return NULL;
}

/*
 * The queue is full: a job waiting for a source (held) goes, if there is
 * one, to make room; it is stale, so marked, and comes back from its mark.
 * Lock held.
 */
static void ds_resync_make_room(struct ds_resync *rs)
{
	struct ds_resync_job **pp, *job;

	if (!rs->dropped)
		aifs_warn("resync queue full (%u chunks): chunks marked for repair are queued again from their marks",
			  rs->nr);
	rs->dropped = true;
	for (pp = &rs->head; (job = *pp); pp = &job->next) {
		if (!job->held)
			continue;
		*pp = job->next;
		if (rs->tail == &job->next)
			rs->tail = pp;
		free(job);
		rs->nr--;
		return;
	}
}

/*
 * Queue @tmpl, or fold it into the job of its chunk already queued: that
 * job then takes a source that would do for either (the lower
 * min_version), and a sync's is the sync's pull (exact, over our copy
 * as it compared it, under the fence it listed).  A held job is tried
 * at once for a sync, or for a version newer than any asked for so far
 * (a forward brought it: its primary has it); a request that tells
 * nothing new leaves it waiting, else two stale copies asking each
 * other would pull in a loop.
 */
static void ds_resync_add(struct ds *ds, const struct ds_resync_job *tmpl)
{
	struct ds_resync *rs = ds->resync;
	struct ds_resync_job *job, *same;

	job = malloc(sizeof(*job));
	if (!job)
		return;
	*job = *tmpl;
	job->heard = tmpl->min_version;
	pthread_mutex_lock(&rs->lock);
	same = ds_resync_find(rs, &tmpl->id);
	if (same && same != rs->running) {
		if (tmpl->exact || tmpl->min_version > same->heard) {
			same->held = false;
			pthread_cond_signal(&rs->wake);
		}
		if (same->heard < tmpl->min_version)
			same->heard = tmpl->min_version;
		if (same->min_version > tmpl->min_version)
			same->min_version = tmpl->min_version;
		same->mark |= tmpl->mark;
		if (tmpl->exact) {
			same->exact = true;
			same->seen = tmpl->seen;
			same->fence = tmpl->fence;
		}
	}
	if (!same && !rs->stop && rs->nr >= (u32)ds->cfg.resync_queue)
		ds_resync_make_room(rs);
	if (rs->stop || rs->nr >= (u32)ds->cfg.resync_queue || same) {
		free(job);
	} else {
		*rs->tail = job;
		rs->tail = &job->next;
		rs->nr++;
		pthread_cond_signal(&rs->wake);
	}
	pthread_mutex_unlock(&rs->lock);
}

/*
 * The version a source must have for @c, queued for @why: what a stale
 * copy missed (want), a damaged one's own, one newer than a doubted one.
 * A reader's claim is never taken at its word: any client may send one.
 */
static u64 ds_resync_min_version(const struct ds_chunk *c,
				 enum ds_resync_why why)
{
	switch (why) {
	case DS_RESYNC_STALE:
		return c->meta.want;
	case DS_RESYNC_DAMAGED:
		return c->meta.version;
	default:
		return c->meta.version + 1;
	}
}

void ds_resync_queue(struct ds *ds, const struct ds_chunk *c,
		     enum ds_resync_why why)
{
	struct ds_resync_job job = {
		.id = c->id, .chunk_size = c->meta.chunk_size,
		.min_version = ds_resync_min_version(c, why),
		.mark = why == DS_RESYNC_DAMAGED,
		.nr_peers = c->meta.nr_peers,
	};

	/* an EC fragment has no copy: it is decoded (ds_resync_run()) */
	if (!c->meta.nr_peers && !c->id.fragment) {
		aifs_warn("%s: damaged or behind, and no peer known to resync from",
			  c->path);
		return;
	}
	memcpy(job.peers, c->meta.peers, sizeof(job.peers));
	ds_resync_add(ds, &job);
}

void ds_resync_request(struct ds *ds, const struct aifs_chunk_id *id,
		       u32 chunk_size, u64 min_version, u64 seen, u32 fence,
		       const u32 *peers, u32 nr_peers)
{
	struct ds_resync_job job = {
		.id = *id, .chunk_size = chunk_size,
		.min_version = min_version, .fence = fence, .exact = true,
		.seen = seen,
		.nr_peers = nr_peers < DS_MAX_PEERS ? nr_peers : DS_MAX_PEERS,
	};

	memcpy(job.peers, peers, job.nr_peers * sizeof(*peers));
	ds_resync_add(ds, &job);
}

/*
 * A damaged copy is marked stale before anything is pulled, durably, its
 * bytes kept: reads go to another copy, forwards are refused and record
 * what they brought (want), so that only a copy at least that new
 * replaces it.
 */
static int ds_resync_mark(struct ds *ds, const struct ds_resync_job *job)
{
	struct ds_lock lock;
	struct ds_chunk c;
	int err;

	ds_chunk_lock(ds, &job->id, true, &lock);
	err = ds_chunk_open(ds, &job->id, 0, &c);
	if (!err) {
		c.meta.flags |= DS_META_STALE;
		if (c.meta.want < c.meta.version)
			c.meta.want = c.meta.version;
		err = ds_meta_store(&c);
		if (!err)
			err = ds_chunk_sync(&c);
		ds_chunk_close(&c, err);
	}
	ds_chunk_unlock(ds, &lock);
	return err;
}

struct ds_resync_end {
	u64 version;
	u32 length;
	u32 fence;
};

/*
 * Whether the pulled copy @end may replace ours, @m: a stale copy only
 * by one with the newest version a forward brought (which this copy
 * answered ESTALE, not holding it; else -ERANGE: the peer's copy is
 * older than needed, whatever the job asked for, a sync's older version
 * too, so that a version no peer has is settled, ds_resync_settle()),
 * a whole copy never by an older one, unless a sync asks for the group's
 * copy as it is over ours as it compared it.  A forward ours took since
 * (the pass read the peer before it) is a write acknowledged or to be:
 * the pass starts over (-EAGAIN).
 */
static int ds_resync_takes(const struct ds_resync_job *job,
			   const struct ds_meta *m,
			   const struct ds_resync_end *end)
{
	if (m->flags & DS_META_STALE && job->settle && m->want == job->settle)
		return end->version >= job->min_version ? 0 : -EAGAIN;
	if (m->flags & DS_META_STALE)
		return end->version >= m->want ? 0 : -ERANGE;
	return end->version >= m->version ||
	       (job->exact && m->version == job->seen) ? 0 : -EAGAIN;
}

/*
 * Whether a sync's pull may take the peer's copy: not if this server made
 * a truncation of the inode, or is making one, that the peer had not made
 * when the sync listed it; its copy may hold bytes that cut removed here
 * (-EAGAIN: the pass starts over, and the sync too).  Under the inode's
 * lock, which a truncation holds while it cuts.
 */
static int ds_resync_uncut(struct ds *ds, const struct ds_resync_job *job)
{
	struct ds_inode_rec rec;
	int err;

	if (!job->exact)
		return 0;
	err = ds_inode_load(ds, le64_to_cpu(job->id.ino), &rec);
	if (err)
		return err;
	return job->fence < rec.fence || job->fence < rec.cutting ? -EAGAIN :
								   0;
}

/*
 * The side copy @side, whole at the peer's version, takes the chunk's
 * place, under the inode's and the chunk's locks.  It keeps the chunk's
 * group and fence, raised to the job's.  Only a sync creates a chunk
 * absent here: other jobs were for a copy that was deleted meanwhile.
 */
static int ds_resync_install(struct ds *ds, const struct ds_resync_job *job,
			     struct ds_chunk *side,
			     const struct ds_resync_end *end)
{
	struct ds_lock ilock, lock;
	struct ds_chunk c;
	int err;

	ds_inode_lock(ds, le64_to_cpu(job->id.ino), &ilock);
	ds_chunk_lock(ds, &job->id, true, &lock);
	err = ds_resync_uncut(ds, job);
	if (!err)
		err = ds_chunk_open(ds, &job->id, 0, &c);
	if (!err) {
		err = ds_resync_takes(job, &c.meta, end);
		side->meta.nr_peers = c.meta.nr_peers;
		memcpy(side->meta.peers, c.meta.peers, sizeof(c.meta.peers));
		side->meta.fence = c.meta.fence;
		ds_chunk_close(&c, 0);
	} else if (err == -ENOENT && job->exact) {
		err = 0;
	}
	if (job->nr_peers) {
		side->meta.nr_peers = job->nr_peers;
		memcpy(side->meta.peers, job->peers, sizeof(job->peers));
	}
	if (side->meta.fence < end->fence)
		side->meta.fence = end->fence;
	side->meta.version = end->version;
	side->meta.length = end->length;
	if (!err)
		err = ds_meta_store(side);
	if (!err)
		err = ds_side_swap(side);
	else
		ds_side_drop(side);
	ds_chunk_unlock(ds, &lock);
	ds_chunk_unlock(ds, &ilock);
	return err;
}

/* Read [@offset, +AIFS_MAX_IO) of the peer's copy into @reply. */
static int ds_resync_read(struct ds *ds, const struct ds_resync_job *job,
			  u32 peer, u32 offset, struct aifs_reply *reply,
			  struct aifs_chunk_read_rep *rep, struct aifs_span *data)
{
	u32 len = job->chunk_size - offset;
	struct aifs_chunk_read_req req = {
		.id = job->id,
		.offset = cpu_to_le32(offset),
		.length = cpu_to_le32(len < AIFS_MAX_IO ? len : AIFS_MAX_IO),
	};
	struct iovec iov = { &req, sizeof(req) };
	int err;

	err = ds_peer_call(ds, peer, AIFS_OP_CHUNK_READ, &iov, 1, reply);
	if (err)
		return err;
	if (reply->status)
		return -(int)reply->status;
	err = aifs_decode_chunk_read_rep(reply->payload, reply->len, rep, data);
	if (!err && le32_to_cpu(rep->chunk_len) > job->chunk_size)
		err = -EBADMSG;
	return err;
}

/* The ds.resync.pause fail point: false when the server stops meanwhile. */
static bool ds_resync_fail_pause(struct ds *ds)
{
	struct ds_resync *rs = ds->resync;
	bool go_on;
	u32 ms;

	if (!aifs_fail(AIFS_FAIL_DS_RESYNC_PAUSE, 0, &ms))
		return true;
	pthread_mutex_lock(&rs->lock);
	go_on = ds_sleep_until(&rs->lock, &rs->wake, &rs->stop,
			       aifs_now_ms() + (ms ? ms : 1000));
	pthread_mutex_unlock(&rs->lock);
	return go_on;
}

/*
 * Piece @offset of the pull: its reply in @rep, checked against the
 * first piece's version and length (*@end, set by the first): -EAGAIN
 * when the peer's copy changed under us, -ERANGE when it is older than
 * the job needs (no source; end->version says how old).
 */
static int ds_resync_check(const struct ds_resync_job *job, u32 offset,
			   const struct aifs_chunk_read_rep *rep,
			   struct ds_resync_end *end)
{
	if (!offset) {
		end->version = le64_to_cpu(rep->version);
		end->length = le32_to_cpu(rep->chunk_len);
		return end->version < job->min_version ? -ERANGE : 0;
	}
	return le64_to_cpu(rep->version) != end->version ||
	       le32_to_cpu(rep->chunk_len) != end->length ? -EAGAIN : 0;
}

/*
 * One pass over the peer's copy into a side copy, which then replaces
 * ours: -EAGAIN if the peer's copy changed under us, or ours may not be
 * replaced by it yet; -ERANGE with the peer's version in *@older when
 * its copy is older than the job needs or ours wants, -ENOENT when it
 * has none.
 */
static int ds_resync_pass(struct ds *ds, const struct ds_resync_job *job,
			  u32 peer, u64 *older)
{
	struct ds_resync_end end = { .fence = job->fence };
	struct aifs_chunk_read_rep rep;
	struct aifs_reply reply;
	struct aifs_span data;
	struct ds_chunk side;
	u32 offset = 0;
	int err;

	err = ds_side_open(ds, &job->id, job->chunk_size, &side);
	if (err)
		return err;
	do {
		reply = (struct aifs_reply){ 0 };
		err = ds_resync_read(ds, job, peer, offset, &reply, &rep,
				     &data);
		if (!err)
			err = ds_resync_check(job, offset, &rep, &end);
		if (!err)
			err = ds_data_write(&side, offset, data.data,
					    data.len);
		aifs_reply_free(&reply);
		if (!err && !ds_resync_throttle(ds, data.len))
			err = -ESHUTDOWN;
		offset += data.len;
	} while (!err && data.len && offset < end.length);
	if (!err && !ds_resync_fail_pause(ds))
		err = -ESHUTDOWN;
	*older = end.version;
	if (err) {
		ds_side_drop(&side);
		return err;
	}
	return ds_resync_install(ds, job, &side, &end);
}

static int ds_resync_from(struct ds *ds, const struct ds_resync_job *job,
			  u32 peer, u64 *older)
{
	int attempt, err = -EAGAIN;

	for (attempt = 0; attempt < DS_RESYNC_ATTEMPTS && err == -EAGAIN;
	     attempt++)
		err = ds_resync_pass(ds, job, peer, older);
	return err;
}

/* What every peer of a pull that found no source answered. */
struct ds_resync_none {
	bool all;		/* each had a copy older than needed, or none */
	u64 newest;		/* the newest of those copies */
	u32 peer;		/* who has it; 0: no peer has a copy */
};

/*
 * Ours, a stale copy of @job's chunk, wants a version (meta.want) no
 * peer has: every peer answered with an older copy, or none.  An
 * acknowledged write is on every copy of the group (or its copy is
 * counted out, and then it answers nothing), so that version, which a
 * forward brought from a primary that crashed before it was durable
 * there or from a hostile one, was never acknowledged: the newest copy of the group stands,
 * ours or a peer's (pulled as for any job, but only while no newer
 * forward came).  Else the copy would wait for a source that never
 * comes, and its chunk's writes with it (a primary refuses them while a
 * replica UP is behind).  A damaged copy (it wants its own version) is
 * not settled: its bytes are not to be kept.  Whether it is whole now.
 */
static bool ds_resync_settle(struct ds *ds, const struct ds_resync_job *job,
			     const struct ds_resync_none *none,
			     const char *name)
{
	struct ds_resync_job settle = *job;
	struct ds_lock lock;
	struct ds_chunk c;
	u64 older, ours;
	bool kept = false;
	int err;

	ds_chunk_lock(ds, &job->id, true, &lock);
	err = ds_chunk_open(ds, &job->id, 0, &c);
	if (err) {
		ds_chunk_unlock(ds, &lock);
		return false;
	}
	settle.settle = c.meta.want;
	ours = c.meta.version;
	if (!(c.meta.flags & DS_META_STALE) || c.meta.want <= ours) {
		settle.settle = 0;
	} else if (none->newest <= ours) {
		aifs_warn("%s: no copy of its group has version %llu, which a forward brought: never acknowledged; ours (%llu) is the newest and stands",
			  name, (unsigned long long)c.meta.want,
			  (unsigned long long)ours);
		c.meta.flags &= ~DS_META_STALE;
		c.meta.want = 0;
		err = ds_meta_store(&c) ?: ds_chunk_sync(&c);
		kept = !err;
	}
	ds_chunk_close(&c, 0);
	ds_chunk_unlock(ds, &lock);
	if (kept || !settle.settle || none->newest <= ours)
		return kept;
	aifs_warn("%s: no copy of its group has version %llu, which a forward brought: never acknowledged; the newest, ds %u's (%llu), is taken",
		  name, (unsigned long long)settle.settle, none->peer,
		  (unsigned long long)none->newest);
	settle.min_version = none->newest;
	return !ds_resync_from(ds, &settle, none->peer, &older);
}

/* Whether the chunk of @job is whole again. */
static bool ds_resync_run(struct ds *ds, const struct ds_resync_job *job,
			  const char *name)
{
	struct ds_resync_none none = { .all = true };
	u64 older;
	u32 i;
	int err = 0;

	if (job->id.fragment) {
		/* an EC fragment has no copy: it is decoded, in place */
		err = ds_ec_repair(ds, &job->id);
		if (err)
			aifs_err("%s: not repaired by decoding: %s", name,
				 strerror(-err));
		else
			aifs_info("%s: repaired by decoding", name);
		return !err;
	}
	if (job->mark)
		err = ds_resync_mark(ds, job);
	for (i = 0; !err && i < job->nr_peers; i++) {
		older = 0;
		err = ds_resync_from(ds, job, job->peers[i], &older);
		if (!err) {
			aifs_info("%s: resynced from ds %u", name,
				  job->peers[i]);
			return true;
		}
		if (err == -ERANGE)
			aifs_dbg("%s: not resynced from ds %u: its copy (version %llu) is older than needed",
				 name, job->peers[i],
				 (unsigned long long)older);
		else
			aifs_dbg("%s: not resynced from ds %u: %s", name,
				 job->peers[i], strerror(-err));
		none.all &= err == -ERANGE || err == -ENOENT;
		if (err == -ERANGE && older >= none.newest)
			none = (struct ds_resync_none){
				none.all, older, job->peers[i],
			};
		err = 0;
	}
	return i && none.all && ds_resync_settle(ds, job, &none, name);
}

/*
 * Whether the copy of @job is (still) stale: it waits for a source (an
 * EC fragment behind, for members to decode it from).
 */
static bool ds_resync_stale(struct ds *ds, const struct ds_resync_job *job)
{
	struct ds_lock lock;
	struct ds_chunk c;
	bool stale = false;

	ds_chunk_lock(ds, &job->id, false, &lock);
	if (!ds_chunk_open(ds, &job->id, 0, &c)) {
		stale = c.meta.flags & DS_META_STALE;
		ds_chunk_close(&c, 0);
	}
	ds_chunk_unlock(ds, &lock);
	return stale;
}

/*
 * A job that made nothing whole: a stale copy keeps its bytes and waits,
 * held, for a source to come back; a doubted one was as new as any.
 * Whether it is held (lock held).
 */
static bool ds_resync_hold(struct ds_resync *rs, struct ds_resync_job *job,
			   bool stale, const char *name)
{
	u64 wait = DS_RESYNC_RETRY_MS << (job->tries < 5 ? job->tries : 5);

	if (!stale || rs->stop) {
		if (!job->id.fragment)
			aifs_info("%s: no peer had a copy to take: ours kept as it is",
				  name);
		return false;
	}
	if (wait > DS_RESYNC_RETRY_MAX_MS)
		wait = DS_RESYNC_RETRY_MAX_MS;
	if (!job->tries)
		aifs_err("%s: stale, and no peer has a copy to take: it keeps its bytes; tried again every %u s at most",
			 name, DS_RESYNC_RETRY_MAX_MS / 1000);
	job->tries++;
	job->held = true;
	job->due = aifs_now_ms() + wait;
	*rs->tail = job;
	rs->tail = &job->next;
	return true;
}

/*
 * The first job due (unlinked), or NULL with the time the first held one
 * is due in *@due (0: none is held).
 */
static struct ds_resync_job *ds_resync_next(struct ds_resync *rs, u64 *due)
{
	struct ds_resync_job **pp, *job;
	u64 now = aifs_now_ms();

	*due = 0;
	for (pp = &rs->head; (job = *pp); pp = &job->next) {
		if (!job->held || job->due <= now) {
			*pp = job->next;
			if (rs->tail == &job->next)
				rs->tail = pp;
			job->next = NULL;
			job->held = false;
			return job;
		}
		if (!*due || job->due < *due)
			*due = job->due;
	}
	return NULL;
}

/*
 * A peer serves again: the held jobs, which may have it as a source, now,
 * and the marked chunks a full queue left out.
 */
void ds_resync_retry_held(struct ds *ds)
{
	struct ds_resync *rs = ds->resync;
	struct ds_resync_job *job;
	u64 now = aifs_now_ms();

	if (!rs)
		return;	/* not started: nothing is held */
	pthread_mutex_lock(&rs->lock);
	rs->marks_read = 0;
	for (job = rs->head; job; job = job->next)
		if (job->held && job->due > now)
			job->due = now;
	pthread_cond_signal(&rs->wake);
	pthread_mutex_unlock(&rs->lock);
}

/*
 * The copies waiting for a source (held): their number, and the first
 * @max of them into @list (*@listed).
 */
u64 ds_resync_held(struct ds *ds, struct aifs_repair_entry *list,
		   unsigned int max, unsigned int *listed)
{
	struct ds_resync *rs = ds->resync;
	struct ds_resync_job *job;
	u64 held = 0;

	*listed = 0;
	if (!rs)
		return 0;
	pthread_mutex_lock(&rs->lock);
	for (job = rs->head; job; job = job->next) {
		if (!job->held)
			continue;
		if (*listed < max)
			ds_repair_entry(&job->id, AIFS_REPAIR_NO_SOURCE,
					&list[(*listed)++]);
		held++;
	}
	pthread_mutex_unlock(&rs->lock);
	return held;
}

/*
 * With no job due: whether to queue the marked chunks again now (a full
 * queue left some out); else *@due moved up to when that will be.  Lock
 * held.
 */
static bool ds_resync_marks_due(struct ds_resync *rs, u64 *due)
{
	u64 at = rs->marks_read + DS_RESYNC_RETRY_MAX_MS;

	if (!rs->dropped)
		return false;
	if (rs->resynced > rs->marks_resynced || at <= aifs_now_ms()) {
		rs->dropped = false;
		rs->marks_read = aifs_now_ms();
		rs->marks_resynced = rs->resynced;
		return true;
	}
	if (!*due || at < *due)
		*due = at;
	return false;
}

static void ds_resync_idle(struct ds_resync *rs, u64 due)
{
	struct timespec until;
	u64 now = aifs_now_ms();

	if (!due) {
		pthread_cond_wait(&rs->wake, &rs->lock);
		return;
	}
	aifs_time_after_ms(CLOCK_REALTIME, due > now ? due - now : 0, &until);
	pthread_cond_timedwait(&rs->wake, &rs->lock, &until);
}

static void *ds_resync_thread(void *arg)
{
	struct ds *ds = arg;
	struct ds_resync *rs = ds->resync;
	struct ds_resync_job *job;
	bool whole, stale;
	char name[64];
	u64 due;

	pthread_mutex_lock(&rs->lock);
	while (!rs->stop) {
		job = ds_resync_next(rs, &due);
		if (!job && ds_resync_marks_due(rs, &due)) {
			pthread_mutex_unlock(&rs->lock);
			ds_repair_requeue(ds);
			pthread_mutex_lock(&rs->lock);
			continue;
		}
		if (!job) {
			ds_resync_idle(rs, due);
			continue;
		}
		rs->running = job;
		pthread_mutex_unlock(&rs->lock);
		snprintf(name, sizeof(name), "chunk %llx.%x.%x",
			 (unsigned long long)le64_to_cpu(job->id.ino),
			 le32_to_cpu(job->id.index),
			 le16_to_cpu(job->id.fragment));
		whole = ds_resync_run(ds, job, name);
		stale = !whole && ds_resync_stale(ds, job);
		pthread_mutex_lock(&rs->lock);
		rs->resynced += whole;
		rs->failed += !whole;
		rs->running = NULL;
		if (whole || !ds_resync_hold(rs, job, stale, name)) {
			free(job);
			rs->nr--;
		}
		pthread_cond_broadcast(&rs->ended);
	}
	pthread_mutex_unlock(&rs->lock);
	return NULL;
}

int ds_resync_start(struct ds *ds)
{
	struct ds_resync *rs;
	int err;

	rs = calloc(1, sizeof(*rs));
	if (!rs)
		return -ENOMEM;
	pthread_mutex_init(&rs->lock, NULL);
	pthread_cond_init(&rs->wake, NULL);
	pthread_cond_init(&rs->ended, NULL);
	rs->tail = &rs->head;
	ds->resync = rs;
	err = -pthread_create(&rs->thread, NULL, ds_resync_thread, ds);
	if (err) {
		ds->resync = NULL;
		free(rs);
	}
	return err;
}

/*
 * Whether a chunk of inode @ino is queued or being pulled (held jobs,
 * waiting for a source, are not).  The pull then ends with the peer's
 * copy in place of ours: a truncation must wait (ds_fenced()), since a
 * cut made to ours meanwhile would be undone by the swap, the peer's copy
 * stamped with the peer's count of truncations.
 */
bool ds_resync_pulling(struct ds *ds, u64 ino)
{
	struct ds_resync *rs = ds->resync;
	struct ds_resync_job *job;
	bool pulling;

	pthread_mutex_lock(&rs->lock);
	pulling = rs->running && le64_to_cpu(rs->running->id.ino) == ino;
	for (job = rs->head; job && !pulling; job = job->next)
		pulling = !job->held && le64_to_cpu(job->id.ino) == ino;
	pthread_mutex_unlock(&rs->lock);
	return pulling;
}

/*
 * Wait until no resync of @id is queued or running, or it is held for
 * want of a source (or the thread stops).
 */
void ds_resync_wait(struct ds *ds, const struct aifs_chunk_id *id)
{
	struct ds_resync *rs = ds->resync;
	struct ds_resync_job *job;

	pthread_mutex_lock(&rs->lock);
	while (!rs->stop && (job = ds_resync_find(rs, id)) && !job->held)
		pthread_cond_wait(&rs->ended, &rs->lock);
	pthread_mutex_unlock(&rs->lock);
}

/* What is queued is dropped: a stale copy is found stale again later. */
void ds_resync_stop(struct ds *ds)
{
	struct ds_resync *rs = ds->resync;
	struct ds_resync_job *job;

	if (!rs)
		return;
	pthread_mutex_lock(&rs->lock);
	rs->stop = true;
	pthread_cond_signal(&rs->wake);
	pthread_cond_broadcast(&rs->ended);
	pthread_mutex_unlock(&rs->lock);
	pthread_join(rs->thread, NULL);
	while ((job = rs->head)) {
		rs->head = job->next;
		free(job);
	}
	pthread_mutex_destroy(&rs->lock);
	pthread_cond_destroy(&rs->wake);
	pthread_cond_destroy(&rs->ended);
	free(rs);
	ds->resync = NULL;
}
