// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Catching up from a peer.  A copy that is behind (a FORWARD with a
 * version gap, a read asking for a newer version) or damaged (a checksum
 * mismatch) is queued here; one thread pulls the whole chunk from the
 * first member of its group that has a good copy at least as new:
 *
 *   1. mark the local copy stale and empty it: it answers ESTALE, so
 *      readers go to another replica and forwards skip it, until it is
 *      whole again;
 *   2. CHUNK_READ the peer's copy from offset 0, AIFS_MAX_IO at a time,
 *      every piece of the same version (else start again), and write it
 *      locally (fresh CRCs);
 *   3. cut the local copy to the peer's length, take its version, clear
 *      the stale mark, fsync.
 *
 * The peer's CRCs were checked by its read, ours are computed anew: the
 * data is verified end to end.  A damaged EC fragment has no copy to pull:
 * it is decoded again from the rest of its stripe, in place (ec.c).  Nothing is held locked while waiting on
 * the network, so the primary's lock (held while it forwards) never waits
 * on us.
 */
#include <stdlib.h>

#include "ds.h"

/* Attempts when the peer's copy changes while we read it. */
#define DS_RESYNC_ATTEMPTS	3

/* Chunks waiting; beyond this they are dropped (the next read asks again). */
#define DS_RESYNC_QUEUE_MAX	4096

struct ds_resync_job {
	struct ds_resync_job *next;
	struct aifs_chunk_id id;
	u64 min_version;
	u32 chunk_size;
	u32 fence;		/* of the inode on the peers: meta.fence */
	u32 nr_peers;
	u32 peers[DS_MAX_PEERS];
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
	u64 resynced;		/* chunks made whole */
	u64 failed;		/* chunks no peer could make whole */
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

void ds_resync_queue(struct ds *ds, const struct ds_chunk *c, u64 min_version)
{
	/* an EC fragment has no copy: it is decoded (ds_resync_run()) */
	if (!c->meta.nr_peers && !c->id.fragment) {
		aifs_warn("%s: damaged or behind, and no peer known to resync from",
			  c->path);
		return;
	}
	ds_resync_request(ds, &c->id, c->meta.chunk_size, min_version, 0,
			  c->meta.peers, c->meta.nr_peers);
}

void ds_resync_request(struct ds *ds, const struct aifs_chunk_id *id,
		       u32 chunk_size, u64 min_version, u32 fence,
		       const u32 *peers, u32 nr_peers)
{
	struct ds_resync *rs = ds->resync;
	struct ds_resync_job *job, *same;

	job = calloc(1, sizeof(*job));
	if (!job)
		return;
	*job = (struct ds_resync_job){
		.id = *id, .chunk_size = chunk_size,
		.min_version = min_version, .fence = fence,
		.nr_peers = nr_peers < DS_MAX_PEERS ? nr_peers : DS_MAX_PEERS,
	};
	memcpy(job->peers, peers, job->nr_peers * sizeof(*peers));
	pthread_mutex_lock(&rs->lock);
	same = ds_resync_find(rs, id);
	if (same && same != rs->running && same->min_version < min_version)
		same->min_version = min_version;
	if (rs->stop || rs->nr >= DS_RESYNC_QUEUE_MAX || same) {
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
 * Under the chunk's lock: open it (created if absent) and apply @fn.
 * Returns what @fn does.
 */
static int ds_resync_step(struct ds *ds, const struct ds_resync_job *job,
			  int (*fn)(struct ds_chunk *c, const void *arg),
			  const void *arg)
{
	struct ds_lock lock;
	struct ds_chunk c;
	int err;

	ds_chunk_lock(ds, &job->id, true, &lock);
	err = ds_chunk_open(ds, &job->id, job->chunk_size, &c);
	if (!err) {
		err = fn(&c, arg);
		ds_chunk_close(&c, err);
	}
	ds_chunk_unlock(ds, &lock);
	return err;
}

/*
 * Stale, and emptied: the pulled pieces then land on holes, whose CRCs
 * hold, not on the damaged or outdated blocks they replace.  The group
 * is the job's (a chunk created by the pull knows none).
 */
static int ds_resync_mark(struct ds_chunk *c, const void *arg)
{
	const struct ds_resync_job *job = arg;
	int err;

	c->meta.nr_peers = job->nr_peers;
	memcpy(c->meta.peers, job->peers, sizeof(c->meta.peers));
	c->meta.flags |= DS_META_STALE;
	err = ds_meta_store(c);
	return err ? err : ds_data_truncate(c, 0);
}

struct ds_piece {
	u32 offset;
	const struct aifs_span *data;
};

static int ds_resync_put(struct ds_chunk *c, const void *arg)
{
	const struct ds_piece *piece = arg;

	return ds_data_write(c, piece->offset, piece->data->data,
			     piece->data->len);
}

struct ds_resync_end {
	u64 version;
	u32 length;
	u32 fence;
};

/*
 * The copy is whole at the peer's version: it serves again, unless a
 * forward brought a newer version meanwhile (which the primary counted
 * as not live here): then the pass starts over.
 */
static int ds_resync_finish(struct ds_chunk *c, const void *arg)
{
	const struct ds_resync_end *end = arg;
	int err;

	if (end->version < c->meta.want)
		return -EAGAIN;
	err = ds_data_truncate(c, end->length);
	if (err)
		return err;
	c->meta.version = end->version;
	c->meta.want = 0;
	if (c->meta.fence < end->fence)
		c->meta.fence = end->fence;
	c->meta.flags &= ~DS_META_STALE;
	err = ds_meta_store(c);
	return err ? err : ds_chunk_sync(c);
}

/* Read [@offset, +AIFS_MAX_IO) of the peer's copy into @reply. */
static int ds_resync_read(struct ds *ds, const struct ds_resync_job *job,
			  u32 peer, u32 offset, struct aifs_reply *reply,
			  struct aifs_chunk_read_rep *rep, struct aifs_span *data)
{
	u32 len = job->chunk_size - offset;
	struct aifs_chunk_read_req req = {
		.id = job->id,
		.version = cpu_to_le64(job->min_version),
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

/* One pass over the peer's copy: -EAGAIN if it changed under us. */
static int ds_resync_pass(struct ds *ds, const struct ds_resync_job *job,
			  u32 peer)
{
	struct ds_resync_end end = { .fence = job->fence };
	struct aifs_chunk_read_rep rep;
	struct aifs_reply reply;
	struct aifs_span data;
	struct ds_piece piece = { 0, &data };
	int err;

	do {
		reply = (struct aifs_reply){ 0 };
		err = ds_resync_read(ds, job, peer, piece.offset, &reply, &rep,
				     &data);
		if (!err && !piece.offset) {
			end.version = le64_to_cpu(rep.version);
			end.length = le32_to_cpu(rep.chunk_len);
		} else if (!err && (le64_to_cpu(rep.version) != end.version ||
				    le32_to_cpu(rep.chunk_len) != end.length)) {
			err = -EAGAIN;
		}
		if (!err)
			err = ds_resync_step(ds, job, ds_resync_put, &piece);
		aifs_reply_free(&reply);
		if (!err && !ds_resync_throttle(ds, data.len))
			err = -ESHUTDOWN;
		piece.offset += data.len;
	} while (!err && data.len && piece.offset < end.length);
	if (!err && !ds_resync_fail_pause(ds))
		err = -ESHUTDOWN;
	return err ? err : ds_resync_step(ds, job, ds_resync_finish, &end);
}

static int ds_resync_from(struct ds *ds, const struct ds_resync_job *job,
			  u32 peer)
{
	int attempt, err = -EAGAIN;

	for (attempt = 0; attempt < DS_RESYNC_ATTEMPTS && err == -EAGAIN;
	     attempt++)
		err = ds_resync_pass(ds, job, peer);
	return err;
}

/* Whether the chunk of @job is whole again. */
static bool ds_resync_run(struct ds *ds, const struct ds_resync_job *job)
{
	char name[64];
	u32 i;
	int err;

	snprintf(name, sizeof(name), "chunk %llx.%x.%x",
		 (unsigned long long)le64_to_cpu(job->id.ino),
		 le32_to_cpu(job->id.index), le16_to_cpu(job->id.fragment));
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
	err = ds_resync_step(ds, job, ds_resync_mark, job);
	for (i = 0; !err && i < job->nr_peers; i++) {
		err = ds_resync_from(ds, job, job->peers[i]);
		if (!err) {
			aifs_info("%s: resynced from ds %u", name,
				  job->peers[i]);
			return true;
		}
		aifs_warn("%s: cannot resync from ds %u: %s", name,
			  job->peers[i], strerror(-err));
	}
	aifs_err("%s: still stale: no peer had a good copy", name);
	return false;
}

static void *ds_resync_thread(void *arg)
{
	struct ds *ds = arg;
	struct ds_resync *rs = ds->resync;
	struct ds_resync_job *job;
	bool whole;

	pthread_mutex_lock(&rs->lock);
	while (!rs->stop) {
		job = rs->head;
		if (!job) {
			pthread_cond_wait(&rs->wake, &rs->lock);
			continue;
		}
		rs->head = job->next;
		if (!rs->head)
			rs->tail = &rs->head;
		rs->running = job;
		pthread_mutex_unlock(&rs->lock);
		whole = ds_resync_run(ds, job);
		pthread_mutex_lock(&rs->lock);
		rs->resynced += whole;
		rs->failed += !whole;
		pthread_cond_broadcast(&rs->ended);
		rs->running = NULL;
		free(job);
		rs->nr--;
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
 * Whether a chunk of inode @ino is queued or being pulled.  Its copy
 * here is then neither the old one nor the peer's yet: a truncation must
 * wait (ds_fenced()), since a cut between the pull's writes and its end
 * would remove pulled bytes the end then stamps with the peer's version.
 */
bool ds_resync_pulling(struct ds *ds, u64 ino)
{
	struct ds_resync *rs = ds->resync;
	struct ds_resync_job *job;
	bool pulling;

	pthread_mutex_lock(&rs->lock);
	pulling = rs->running && le64_to_cpu(rs->running->id.ino) == ino;
	for (job = rs->head; job && !pulling; job = job->next)
		pulling = le64_to_cpu(job->id.ino) == ino;
	pthread_mutex_unlock(&rs->lock);
	return pulling;
}

/* Wait until no resync of @id is queued or running (or the thread stops). */
void ds_resync_wait(struct ds *ds, const struct aifs_chunk_id *id)
{
	struct ds_resync *rs = ds->resync;

	pthread_mutex_lock(&rs->lock);
	while (!rs->stop && ds_resync_find(rs, id))
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
