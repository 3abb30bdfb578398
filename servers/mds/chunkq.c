// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The chunk queue: chunks of deleted and truncated files that the data
 * servers still hold.  A change that frees or shortens a file queues a job
 * (table "chunkq") in its own transaction; one drainer thread sends the
 * jobs to EVERY data server of the file's layout (all replicas) as
 * CHUNK_DELETE and CHUNK_TRUNCATE, and removes a job, through the writer,
 * only once every copy is done.  Both requests are idempotent (an absent
 * chunk is done), so a job is simply sent again after a failure or a
 * restart.
 *
 * A data server that is offline, unreachable or failing is left alone
 * for a pause that doubles up to DRAIN_BACKOFF_MAX_MS; its jobs wait and
 * those of the others go on (the drainer walks the queue from where it
 * stopped, so blocked jobs at its head do not starve the rest).
 *
 * A truncation must reach the data before the client's next write does,
 * and a retry must not cut what was written since.  So the handler of
 * the change waits, before it replies, until the job is done on every
 * copy that serves (mds_drain_sync()): one that has not taken it within
 * DRAIN_URGENT_MS is counted out (OFFLINE), and serves again only once it
 * caught up with its peers.  Each truncation of a file carries a fence,
 * the file's count of truncations: a data server applies fence f once,
 * after f - 1, and a retry of a fence it has done is a no-op there.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "mds.h"

#define DRAIN_BATCH		64	/* jobs read per round */
#define DRAIN_POLL_MS		500	/* a round at least this often */
#define DRAIN_CALL_MS		5000	/* bound on a call to a data server */
#define DRAIN_URGENT_MS		20000	/* a waiting handler's job: at most */
#define DRAIN_URGENT_PAUSE_MS	100	/* between its tries */

/* mds_chunk_job.flags */
#define CHUNKQ_ARCHIVED		(1U << 0)	/* the old layout of an archive */

/* A job of the chunk queue: cut the chunks of @ino to @size bytes. */
struct mds_chunk_job {
	u64 ino;
	u64 size;
	u32 fence;		/* 0: the inode is gone, delete every chunk */
	u32 flags;		/* CHUNKQ_* */
	struct aifs_layout layout;
};

/* A handler waiting for its job to be tried on every copy. */
struct drain_waiter {
	struct drain_waiter *next;
	u64 job;
	bool done;
};

struct mds_drainer {
	struct mds_bg bg;		/* its lock protects @waiters too */
	pthread_cond_t tried;		/* some waiters are done */
	struct drain_waiter *waiters;
	struct mds_dsconns ds;
	u64 next_job;			/* where the next round starts */
};

static int chunks_queue(struct mds_txn *t, const struct mds_chunk_job *job)
{
	struct mds_super *sb = &t->mds->super;
	int err;

	err = mds_db_put(t, MDS_DB_CHUNKQ, &sb->next_chunk_job,
			 sizeof(sb->next_chunk_job), job, sizeof(*job), 0);
	if (err)
		return err;
	if (job->fence)
		t->cut_job = sb->next_chunk_job;
	sb->next_chunk_job++;
	t->mds->super_dirty = true;
	t->mds->chunkq_queued = true;
	return 0;
}

/*
 * @inode is gone: every chunk of it goes.  Unfenced: its number is never
 * used again, so nothing can be written to its chunks after this.
 */
int mds_chunks_free(struct mds_txn *t, const struct mds_inode *inode)
{
	struct mds_chunk_job job = {
		.ino = inode->ino,
		.layout = inode->layout,
	};

	if (!inode->layout.target_count)
		return 0;	/* never had a place to write to */
	return chunks_queue(t, &job);
}

/*
 * An archive switched @ino from the replicated layout @old: its servers
 * turn away readers of @old, then drop the chunks (never the fragments
 * beside them).
 */
int mds_chunks_archived(struct mds_txn *t, u64 ino,
			const struct aifs_layout *old)
{
	struct mds_chunk_job job = {
		.ino = ino,
		.flags = CHUNKQ_ARCHIVED,
		.layout = *old,
	};

	return chunks_queue(t, &job);
}

/* Every chunk of @ino on the servers of @layout: a file gone mid-archive. */
int mds_chunks_dropped(struct mds_txn *t, u64 ino,
		       const struct aifs_layout *layout)
{
	struct mds_chunk_job job = { .ino = ino, .layout = *layout };

	return chunks_queue(t, &job);
}

/*
 * Cut the chunks of @inode to @size: the next fence of the file, which
 * the caller stores with @inode; the handler waits for the job.
 */
int mds_chunks_cut(struct mds_txn *t, struct mds_inode *inode, u64 size)
{
	struct mds_chunk_job job = {
		.ino = inode->ino,
		.size = size,
		.fence = inode->truncs + 1,
		.layout = inode->layout,
	};

	if (!inode->layout.target_count)
		return 0;
	if (!job.fence)
		return -EOVERFLOW;	/* 2^32 - 1 truncations of one file */
	inode->truncs = job.fence;
	return chunks_queue(t, &job);
}

/*
 * The newest cut still queued for the inode that change @req (SETATTR,
 * OPEN: a truncation) names, or 0.  A change answered from the reply
 * cache waits for it as its first run did (mds_write()): that run's
 * reply may have been lost with an MDS that died before the cut was
 * made, and the client's next writes must not meet it (consistency.md,
 * G11).
 */
u64 mds_chunks_cut_pending(struct mds_txn *t, const struct aifs_request *req)
{
	struct aifs_setattr_req setattr;
	struct aifs_open_req open;
	struct mds_chunk_job job;
	MDB_cursor *cur;
	MDB_val k, v;
	u64 ino, last = 0;
	int rc;

	if (req->opcode == AIFS_OP_SETATTR &&
	    !mds_decode(req, &setattr, sizeof(setattr), NULL))
		ino = le64_to_cpu(setattr.ino);
	else if (req->opcode == AIFS_OP_OPEN &&
		 !mds_decode(req, &open, sizeof(open), NULL))
		ino = le64_to_cpu(open.ino);
	else
		return 0;
	if (mds_db_cursor(t, MDS_DB_CHUNKQ, &cur))
		return 0;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); !rc;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if (v.mv_size != sizeof(job) || k.mv_size != sizeof(u64))
			continue;
		memcpy(&job, v.mv_data, sizeof(job));
		if (job.ino == ino && job.fence)
			memcpy(&last, k.mv_data, sizeof(last));
	}
	mdb_cursor_close(cur);
	return last;
}

/* The inodes with jobs queued in @t, sorted, into empty @inos. */
int mds_chunkq_inos(struct mds_txn *t, struct mds_u64s *inos)
{
	const struct mds_chunk_job *job;
	MDB_cursor *cur;
	MDB_val k, v;
	int rc, err;

	err = mds_db_cursor(t, MDS_DB_CHUNKQ, &cur);
	if (err)
		return err;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); !rc && !err;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		job = v.mv_data;
		if (v.mv_size == sizeof(*job))
			err = mds_u64s_add(inos, job->ino);
	}
	mdb_cursor_close(cur);
	if (err)
		return err;
	mds_u64s_sort(inos);
	return rc == MDB_NOTFOUND ? 0 : mds_db_errno(rc);
}

/* New jobs are committed: start a round now.  Any thread. */
void mds_drain_kick(struct mds *mds)
{
	struct mds_drainer *d = mds->drainer;

	if (d)
		mds_bg_kick(&d->bg);
}

/* @ds failed: leave it alone for a while, longer each time. */
static void drain_ds_failed(struct mds_dsconn *ds, int err)
{
	if (mds_dsconn_failed(ds))
		aifs_warn("data server %u: %s: its chunk jobs wait", ds->id,
			  strerror(-err));
}

/*
 * The data server @id, connected, in @dsp; 1 when nothing is left to do
 * there (retired, or not in the map), -EHOSTDOWN while it is to be left
 * alone (offline, or after a failure), or a connection error.  An
 * @urgent job tries a server left alone after a failure too, and an
 * offline one once its pause is over: late heartbeats (a loaded server)
 * do not stop it serving clients, and a truncation must reach it before
 * they read past the new size.
 */
static int drain_reach(struct mds_drainer *d, u32 id, bool urgent,
		       struct mds_dsconn **dsp)
{
	struct aifs_ds_info info;
	struct mds_dsconn *ds;
	bool paused;
	int err;

	err = mds_map_get_ds(d->bg.mds, id, &info);
	if (err == -ENOENT || (!err && le32_to_cpu(info.state) ==
				       AIFS_DS_RETIRED))
		return 1;
	ds = mds_dsconns_get(&d->ds, id);
	if (!ds)
		return -ENOMEM;
	paused = ds->retry_at > aifs_now_ms();
	if (le32_to_cpu(info.state) == AIFS_DS_OFFLINE ? !urgent || paused :
							 !urgent && paused)
		return -EHOSTDOWN;
	err = mds_dsconn_connect(&d->bg, ds, &info, DRAIN_CALL_MS);
	if (err) {
		drain_ds_failed(ds, err);
		return err;
	}
	*dsp = ds;
	return 0;
}

/* Whether target @t of the layout holds chunk @index (its group's). */
static bool job_holds(const struct aifs_layout *layout, unsigned int t,
		      u64 index)
{
	unsigned int width = mds_layout_width(layout);

	return width && t / width == index % le16_to_cpu(layout->stripe_count);
}

/*
 * An archive's old layout on one of its servers: fenced one generation
 * up (readers of the old layout get EREMCHG) before its chunks go, so
 * that no reader takes a deleted chunk for a hole.
 */
static int drain_archived(struct mds *mds, struct aifs_conn *conn,
			  const struct mds_chunk_job *job)
{
	struct aifs_layout fenced = job->layout;
	struct aifs_chunk_id id = { .ino = cpu_to_le64(job->ino) };
	struct aifs_chunk_sync_rep rep;
	int err;

	fenced.generation = cpu_to_le32(le32_to_cpu(fenced.generation) + 1);
	err = mds_chunk_sync(mds, conn, job->ino, &fenced, 0,
			     AIFS_CHUNK_SYNC_FENCE, DRAIN_CALL_MS, &rep);
	memcpy(id.fs_uuid, mds->super.uuid, sizeof(id.fs_uuid));
	return err ? err : aifs_chunk_delete(conn, &id, AIFS_DELETE_INODE |
					     AIFS_DELETE_UNCODED, 0);
}

/*
 * The requests of @job for the data server that is target @t: the chunk
 * the size ends in is cut (if this server holds it), then every chunk
 * from the first wholly past the size goes.  The delete comes last: it
 * records the fence as done on the server.  An EC file loses its stripes
 * wholly past the size; the fragments of the one the size ends in stay
 * whole (the parity covers them: the client zeroed their bytes past it).
 */
static int drain_job_calls(struct mds *mds, struct aifs_conn *conn,
			   const struct mds_chunk_job *job, unsigned int t)
{
	bool ec = job->layout.type == AIFS_LAYOUT_EC;
	u64 chunk = le32_to_cpu(job->layout.chunk_size);
	u64 unit = ec ? chunk * job->layout.ec_k : chunk;
	u64 keep = (job->size + unit - 1) / unit;
	struct aifs_chunk_id id = { .ino = cpu_to_le64(job->ino) };
	struct aifs_chunk_rep rep;
	int err;

	memcpy(id.fs_uuid, mds->super.uuid, sizeof(id.fs_uuid));
	if (job->flags & CHUNKQ_ARCHIVED)
		return drain_archived(mds, conn, job);
	if (!job->fence)
		return aifs_chunk_delete(conn, &id, AIFS_DELETE_INODE, 0);
	if (!ec && job->size % chunk &&
	    job_holds(&job->layout, t, job->size / chunk)) {
		id.index = cpu_to_le32(job->size / chunk);
		err = aifs_chunk_truncate(conn, &id, job->size % chunk,
					  job->fence, &rep);
		if (err)
			return err;
	}
	id.index = cpu_to_le32(keep);
	return aifs_chunk_delete(conn, &id, AIFS_DELETE_FROM, job->fence);
}

/*
 * @job on the data server of target @t: 0 done, or why not.  EAGAIN
 * from the server is an earlier truncation of the file still to come
 * there, not a failure of the server.
 */
static int drain_job_on(struct mds_drainer *d, const struct mds_chunk_job *job,
			unsigned int t, bool urgent)
{
	u32 id = le32_to_cpu(job->layout.targets[t]);
	struct mds_dsconn *ds;
	int err;

	err = drain_reach(d, id, urgent, &ds);
	if (err)
		return err > 0 ? 0 : err;
	err = drain_job_calls(d->bg.mds, ds->conn, job, t);
	if (err && err != -EAGAIN)
		drain_ds_failed(ds, err);
	else if (!err)
		ds->backoff_ms = 0;
	return err;
}

/*
 * A failure of the link to a data server rather than its answer (a
 * connection to a server since restarted, one not accepting yet, a call
 * not answered in time): worth another try at once.
 */
static bool drain_link_failed(int err)
{
	switch (-err) {
	case ETIMEDOUT:
	case ECONNRESET:
	case ECONNREFUSED:
	case ECONNABORTED:
	case EPIPE:
	case ENOTCONN:
	case EHOSTUNREACH:
	case ENETUNREACH:
	case ESHUTDOWN:
		return true;
	default:
		return false;
	}
}

/* The data servers a job is not done on yet. */
struct drain_missed {
	u32 ids[AIFS_LAYOUT_MAX_TARGETS];
	unsigned int nr;
};

static void drain_missed_add(struct drain_missed *m, u32 id)
{
	unsigned int i;

	for (i = 0; i < m->nr && m->ids[i] != id; i++)
		;
	if (i == m->nr && m->nr < AIFS_LAYOUT_MAX_TARGETS)
		m->ids[m->nr++] = id;
}

/*
 * Every copy of @job: 0 when all are done; -ETIMEDOUT when a copy is worth
 * another try at once (its link failed, or its server has an earlier
 * truncation of the file still to come); else -EAGAIN (later).
 * The servers it is not done on go into @missed, if given.
 */
static int drain_job(struct mds_drainer *d, const struct mds_chunk_job *job,
		     bool urgent, struct drain_missed *missed)
{
	unsigned int t, n = le16_to_cpu(job->layout.target_count);
	int err = 0, e;

	if (n > AIFS_LAYOUT_MAX_TARGETS || !job->layout.chunk_size ||
	    !job->layout.stripe_count)
		return 0;	/* nothing a server could hold */
	for (t = 0; t < n; t++) {
		e = drain_job_on(d, job, t, urgent);
		if (e && missed)
			drain_missed_add(missed,
					 le32_to_cpu(job->layout.targets[t]));
		if (e == -EAGAIN || drain_link_failed(e))
			err = -ETIMEDOUT;
		else if (e && !err)
			err = -EAGAIN;
	}
	return err;
}

/* The job numbers a round finished, for the writer to remove. */
struct drain_done {
	u64 jobs[DRAIN_BATCH];
	unsigned int nr;
};

static int apply_jobs_done(struct mds_txn *t, struct mds_op *op)
{
	struct drain_done *done = op->arg;
	unsigned int i;
	int err = 0;

	for (i = 0; i < done->nr && !err; i++) {
		err = mds_db_del(t, MDS_DB_CHUNKQ, &done->jobs[i],
				 sizeof(done->jobs[i]));
		if (err == -ENOENT)
			err = 0;
	}
	return err;
}

/*
 * A rebuild may have moved a copy of a file that is cut since its job was
 * queued: the cut goes to the copies of its layout now (a new member
 * answers EAGAIN until it has caught up and taken its peers' count of
 * truncations; the server it replaced, RETIRED, needs none).
 */
static void drain_relayout(struct mds_txn *t, struct mds_chunk_job *job)
{
	struct mds_inode inode;

	if (job->fence && !mds_inode_get(t, job->ino, &inode) &&
	    inode.layout.generation != job->layout.generation &&
	    inode.layout.chunk_size == job->layout.chunk_size &&
	    inode.layout.target_count)
		job->layout = inode.layout;
}

/*
 * Up to DRAIN_BATCH jobs numbered @from to @upto, of inode @ino (0: of
 * any), oldest first, into @jobs/@nums: their count or an error.
 */
static int drain_scan(struct mds *mds, u64 from, u64 upto, u64 ino,
		      struct mds_chunk_job *jobs, u64 *nums)
{
	MDB_val k = { sizeof(from), &from }, v;
	MDB_cursor *cur;
	struct mds_txn t;
	int n = 0, rc, err;

	err = mds_read_begin(mds, &t);
	if (err)
		return err;
	err = mds_db_cursor(&t, MDS_DB_CHUNKQ, &cur);
	if (err)
		goto out;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
	     !rc && n < DRAIN_BATCH; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if (v.mv_size != sizeof(*jobs) || k.mv_size != sizeof(u64))
			continue;	/* not ours: --check reports it */
		memcpy(&nums[n], k.mv_data, sizeof(u64));
		if (nums[n] > upto)
			break;
		memcpy(&jobs[n], v.mv_data, sizeof(*jobs));
		if (!ino || jobs[n].ino == ino)
			drain_relayout(&t, &jobs[n++]);
	}
	mdb_cursor_close(cur);
	err = n;
out:
	mds_read_end(&t);
	return err;
}

/*
 * Up to DRAIN_BATCH jobs from @d->next_job on into @jobs/@nums; the next
 * round starts after them, or from the beginning once at the end.
 */
static int drain_read(struct mds_drainer *d, struct mds_chunk_job *jobs,
		      u64 *nums)
{
	int n = drain_scan(d->bg.mds, d->next_job, UINT64_MAX, 0, jobs, nums);

	if (n >= 0)
		d->next_job = n == DRAIN_BATCH ? nums[n - 1] + 1 : 0;
	return n;
}

static void drain_remove(struct mds_drainer *d, struct drain_done *done)
{
	int err;

	if (!done->nr)
		return;
	err = mds_write_own(d->bg.mds, apply_jobs_done, done);
	if (err)
		aifs_err("chunk queue: cannot remove done jobs: %s",
			 strerror(-err));
}

/* Job @num, if still queued, into @job: 1, else 0 or an error. */
static int drain_read_one(struct mds_drainer *d, u64 num,
			  struct mds_chunk_job *job)
{
	struct mds_txn t;
	MDB_val v;
	int err;

	err = mds_read_begin(d->bg.mds, &t);
	if (err)
		return err;
	err = mds_db_get(&t, MDS_DB_CHUNKQ, &num, sizeof(num), &v);
	if (!err && v.mv_size != sizeof(*job))
		err = -ENOENT;	/* not ours: --check reports it */
	if (!err)
		memcpy(job, v.mv_data, sizeof(*job));
	mds_read_end(&t);
	if (err == -ENOENT)
		return 0;
	return err ? err : 1;
}

/*
 * Job @num of a waiting handler, with the earlier ones of its inode, on
 * every copy not offline, even on servers left alone; again while a copy
 * is worth it, for at most DRAIN_URGENT_MS: a server late under load
 * must take the cut before the handler answers, or its clients read what
 * it cut (and the late request cuts what they wrote since).  A server
 * that has not taken it then (failed, unreachable, or too slow) is
 * counted out before the handler answers: it serves nothing more until
 * it caught up with its peers, cut included.
 */
static void drain_urgent_job(struct mds_drainer *d, u64 num)
{
	u64 until = aifs_now_ms() + DRAIN_URGENT_MS;
	struct mds_chunk_job jobs[DRAIN_BATCH], job;
	struct drain_missed missed;
	struct drain_done done;
	u64 nums[DRAIN_BATCH];
	unsigned int m;
	int i, n, err, e;

	if (drain_read_one(d, num, &job) <= 0)
		return;
	for (;;) {
		/* a copy takes truncation f only after f - 1 */
		n = drain_scan(d->bg.mds, 0, num, job.ino, jobs, nums);
		if (n <= 0)
			return;
		done.nr = 0;
		missed.nr = 0;
		err = 0;
		for (i = 0; i < n; i++) {
			e = drain_job(d, &jobs[i], true, &missed);
			if (!e)
				done.jobs[done.nr++] = nums[i];
			else if (e == -ETIMEDOUT || !err)
				err = e;
		}
		drain_remove(d, &done);
		if (err != -ETIMEDOUT || aifs_now_ms() > until)
			break;
		usleep(DRAIN_URGENT_PAUSE_MS * 1000);
	}
	for (m = 0; err && m < missed.nr; m++)
		if (mds_map_count_out(d->bg.mds, missed.ids[m],
				      "a truncation it has not made"))
			aifs_err("data server %u missed a truncation and cannot be counted out",
				 missed.ids[m]);
}

/* Whether inode @ino is still there (a job of a file since deleted is not). */
static bool drain_inode_lives(struct mds *mds, u64 ino)
{
	struct mds_inode inode;
	struct mds_txn t;
	bool lives;

	if (mds_read_begin(mds, &t))
		return true;
	lives = mds_inode_get(&t, ino, &inode) != -ENOENT;
	mds_read_end(&t);
	return lives;
}

/*
 * Every truncation still queued for data server @id, oldest first, on it
 * (@conn): a server back makes the cuts it missed before it catches up
 * (recovery.c), rather than when the drainer, maybe in a long back-off
 * from it, gets there.  Not those of files deleted since: their delete
 * follows, and may have gone first (with the server's count of the
 * file's truncations, so that the cut would wait for ever).  0 once
 * done, else why not.
 */
int mds_drain_cuts_on(struct mds *mds, u32 id, struct aifs_conn *conn)
{
	struct mds_chunk_job jobs[DRAIN_BATCH];
	u64 nums[DRAIN_BATCH], from = 0;
	unsigned int t;
	int i, n, err = 0;

	do {
		n = drain_scan(mds, from, UINT64_MAX, 0, jobs, nums);
		for (i = 0; i < n && !err; i++) {
			if (!jobs[i].fence || jobs[i].flags & CHUNKQ_ARCHIVED ||
			    !drain_inode_lives(mds, jobs[i].ino))
				continue;	/* a file gone, a layout gone */
			for (t = 0; t < le16_to_cpu(jobs[i].layout.target_count) &&
				    t < AIFS_LAYOUT_MAX_TARGETS && !err; t++)
				if (le32_to_cpu(jobs[i].layout.targets[t]) == id)
					err = drain_job_calls(mds, conn, &jobs[i], t);
		}
		if (n > 0)
			from = nums[n - 1] + 1;
	} while (n == DRAIN_BATCH && !err);
	return n < 0 ? n : err;
}

/* The jobs handlers wait for, first. */
static void drain_urgent(struct mds_drainer *d)
{
	struct drain_waiter *list, *w, *next;

	pthread_mutex_lock(&d->bg.lock);
	list = d->waiters;
	d->waiters = NULL;
	pthread_mutex_unlock(&d->bg.lock);
	for (w = list; w; w = w->next)
		drain_urgent_job(d, w->job);
	pthread_mutex_lock(&d->bg.lock);
	for (w = list; w; w = next) {
		next = w->next;
		w->done = true;
	}
	pthread_cond_broadcast(&d->tried);
	pthread_mutex_unlock(&d->bg.lock);
}

static void drain_round(struct mds_drainer *d)
{
	struct mds_chunk_job jobs[DRAIN_BATCH];
	struct drain_done done = { .nr = 0 };
	u64 nums[DRAIN_BATCH];
	int i, n;

	drain_urgent(d);
	n = drain_read(d, jobs, nums);
	if (n < 0)
		aifs_err("chunk queue: %s", strerror(-n));
	for (i = 0; i < n; i++)
		if (!drain_job(d, &jobs[i], false, NULL))
			done.jobs[done.nr++] = nums[i];
	drain_remove(d, &done);
}

/*
 * Wait until job @job is done on every copy of the file that serves: a
 * copy the drainer could not cut in time is counted out and takes the
 * cut later, before it serves again.  Any thread but the writer's and
 * the drainer's.
 */
void mds_drain_sync(struct mds *mds, u64 job)
{
	struct mds_drainer *d = mds->drainer;
	struct drain_waiter w = { .job = job };

	if (!d)
		return;
	pthread_mutex_lock(&d->bg.lock);
	w.next = d->waiters;
	d->waiters = &w;
	d->bg.kicked = true;
	pthread_cond_signal(&d->bg.wake);
	while (!w.done)
		pthread_cond_wait(&d->tried, &d->bg.lock);
	pthread_mutex_unlock(&d->bg.lock);
}

static void *drain_main(void *arg)
{
	struct mds_drainer *d = arg;

	do
		drain_round(d);
	while (!mds_bg_wait(&d->bg, DRAIN_POLL_MS));
	drain_urgent(d);	/* nobody is left waiting */
	return NULL;
}

int mds_drain_start(struct mds *mds)
{
	struct mds_drainer *d = calloc(1, sizeof(*d));
	int err;

	if (!d)
		return -ENOMEM;
	pthread_cond_init(&d->tried, NULL);
	mds->drainer = d;
	err = mds_bg_start(&d->bg, mds, drain_main, d);
	if (err) {
		mds->drainer = NULL;
		pthread_cond_destroy(&d->tried);
		free(d);
	}
	return err;
}

/* Before the writer stops: the drainer's last round may still use it. */
void mds_drain_stop(struct mds *mds)
{
	struct mds_drainer *d = mds->drainer;

	if (!d)
		return;
	mds_bg_stop(&d->bg);
	mds->drainer = NULL;
	mds_dsconns_close(&d->ds);
	pthread_cond_destroy(&d->tried);
	free(d);
}
