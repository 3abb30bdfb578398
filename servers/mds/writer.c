// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Group commit.  LMDB has one write transaction at a time, and a durable
 * commit costs an fsync; so one writer thread owns the write transaction.
 * A handler that changes anything queues an op and waits; the writer
 * takes every op queued, applies each in a nested transaction of one
 * batch (an op that fails is undone alone), commits the batch once and
 * then releases all its waiters: N concurrent creates cost one fsync.
 * A reply thus always follows the commit of its change.
 *
 * Each op of a client first looks in the reply cache, in the same
 * transaction, so a retried request is answered with the reply of its
 * first run and never applied twice.
 *
 * An op that wrote nothing (an OPEN for reading: opens live in memory)
 * keeps its reply in memory (replycache.c), so that a batch of such ops
 * leaves its transaction clean, and LMDB commits a clean transaction
 * without writing or syncing anything.  The batch is committed all the
 * same, and every reply still waits for it: an op that wrote nothing may
 * have read what another op of the batch wrote (an OPEN after an
 * UNLINK), which must be on disk before anyone hears of it.
 *
 * Between batches (at least every quarter of heartbeat_grace_ms) the
 * writer does the server's own chores: data servers gone silent go
 * offline, old reply cache entries go.
 *
 * A failed commit is fatal: the MDS exits and restarts from the last
 * commit (PostgreSQL's answer to fsync failing); its waiters never get a
 * reply and retry against the restarted server.  A full disk fails none:
 * the database is kept allocated ahead, and a full one refuses what
 * would add to it before it is applied (space.c).
 */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "mds.h"

/* Ops per batch: bounds the time a transaction keeps its dirty pages. */
#define WRITER_BATCH_MAX	1024

struct mds_writer {
	pthread_t thread;
	pthread_mutex_t lock;		/* protects what follows */
	pthread_cond_t wake;		/* the writer: work or stop */
	pthread_cond_t done;		/* waiters: a batch committed */
	struct aifs_list queue;
	bool stopping;
	u64 next_chores;		/* aifs_now_ms() */
	/* told each new map epoch; NULL once it is being torn down */
	struct aifs_server *srv;
};

static void writer_queue(struct mds_writer *w, struct mds_op *op)
{
	pthread_mutex_lock(&w->lock);
	aifs_list_add_tail(&op->link, &w->queue);
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
}

/* Queue @op and wait for its commit. */
static int writer_wait(struct mds_writer *w, struct mds_op *op)
{
	writer_queue(w, op);
	pthread_mutex_lock(&w->lock);
	while (!op->done)
		pthread_cond_wait(&w->done, &w->lock);
	pthread_mutex_unlock(&w->lock);
	return op->ret;
}

/*
 * Apply @apply to @req on the writer; returns once it is committed and,
 * when it shrank a file, once the data servers were told (so that no
 * write the client makes after the reply meets the cut on its way).
 */
int mds_write(struct aifs_request *req, mds_apply_fn *apply)
{
	struct mds_op op = { .apply = apply, .req = req };
	struct mds *mds = req->data;
	int err;

	err = writer_wait(mds->writer, &op);
	if (!err && op.cut_job)
		mds_drain_sync(mds, op.cut_job);
	return err;
}

/* A change of the server's own, waited for; @arg is @apply's. */
int mds_write_own(struct mds *mds, mds_apply_fn *apply, void *arg)
{
	struct mds_op op = { .apply = apply, .arg = arg };

	return writer_wait(mds->writer, &op);
}

/* A change of the server's own, nobody waiting; @arg is @apply's. */
void mds_write_async(struct mds *mds, mds_apply_fn *apply, void *arg)
{
	struct mds_op *op = calloc(1, sizeof(*op));

	if (!op) {
		aifs_err("out of memory for a change of the server's own");
		return;
	}
	op->apply = apply;
	op->arg = arg;
	op->async = true;
	writer_queue(mds->writer, op);
}

static void op_drop_reply(struct mds_op *op)
{
	if (!op->req)
		return;
	free(op->req->reply);
	op->req->reply = NULL;
	op->req->reply_len = 0;
}

/* One op in a nested transaction of @batch. */
static void writer_apply(struct mds_txn *batch, struct mds_op *op)
{
	struct mds_txn t = *batch;
	int err;

	op->ret = mds_db_errno(mdb_txn_begin(batch->mds->env, batch->txn, 0,
					     &t.txn));
	if (op->ret)
		return;
	if (op->req) {
		op->ret = mds_reply_cached(&t, op->req);
		if (!op->ret)
			op->cut_job = mds_chunks_cut_pending(&t, op->req);
		if (op->ret != -ENOENT)
			goto out;
	}
	op->ret = mds_space_refuses(batch->mds, op->req);
	if (!op->ret)
		op->ret = op->apply(&t, op);
	op->cut_job = t.cut_job;
	if (!op->ret && op->req)
		op->ret = mds_reply_store(&t, op->req);
out:
	if (op->ret) {
		mdb_txn_abort(t.txn);
		op_drop_reply(op);
		return;
	}
	err = mds_db_errno(mdb_txn_commit(t.txn));
	if (err) {
		op->ret = err;
		op_drop_reply(op);
		return;
	}
	/* applied, its batch not committed */
	aifs_fail_pause(AIFS_FAIL_MDS_APPLY_PAUSE,
			op->req ? op->req->opcode : 0);
}

static int writer_chores(struct mds_txn *t, struct mds_op *op)
{
	int err;

	(void)op;
	err = mds_map_expire(t);
	if (!err)
		err = mds_opens_expire(t);
	return err ? err : mds_reply_prune(t);
}

/* The runtime answers handshakes with the map epoch: keep it current. */
static void writer_tell_epoch(struct mds_writer *w, u64 epoch)
{
	pthread_mutex_lock(&w->lock);
	if (w->srv)
		aifs_server_set_map_epoch(w->srv, epoch);
	pthread_mutex_unlock(&w->lock);
}

static void writer_commit(struct mds *mds, struct aifs_list *batch)
{
	struct mds_txn t = { .mds = mds, .now = mds_now() };
	struct aifs_list *pos, *tmp;
	int err;

	err = mds_db_errno(mdb_txn_begin(mds->env, NULL, 0, &t.txn));
	if (err)
		goto fatal;
	aifs_list_for_each_safe(pos, tmp, batch)
		writer_apply(&t, container_of(pos, struct mds_op, link));
	if (mds->super_dirty)
		err = mds_super_put(&t);
	mds->super_dirty = false;
	if (!err)
		err = mds_db_errno(mdb_txn_commit(t.txn));
	else
		mdb_txn_abort(t.txn);
	if (!err) {
		aifs_fail_crash(AIFS_FAIL_MDS_COMMIT_CRASH, 0);
		mds_space_check(mds);
		/* the map the batch changed is durable: readers may see it */
		mds_map_publish(mds);
		writer_tell_epoch(mds->writer, mds->super.map_epoch);
		if (mds->chunkq_queued)
			mds_drain_kick(mds);
		mds->chunkq_queued = false;
		return;
	}
fatal:
	aifs_err("cannot commit to %s: %s; exiting", mds->cfg->db_path,
		 strerror(-err));
	_exit(EXIT_FAILURE);
}

/* Wake the waiters of @batch; free the server's own ops. */
static void writer_release(struct mds_writer *w, struct aifs_list *batch)
{
	struct aifs_list *pos, *tmp;
	struct mds_op *op;

	pthread_mutex_lock(&w->lock);
	aifs_list_for_each_safe(pos, tmp, batch) {
		op = container_of(pos, struct mds_op, link);
		aifs_list_del(pos);
		if (op->ret && op->async)
			aifs_err("a change of the server's own failed: %s",
				 strerror(-op->ret));
		if (op->async)
			free(op);
		else
			op->done = true;
	}
	pthread_cond_broadcast(&w->done);
	pthread_mutex_unlock(&w->lock);
}

static u64 writer_chores_interval(const struct mds *mds)
{
	return mds->cfg->heartbeat_grace_ms / 4 + 1;
}

/* Wait for work until the chores are due; lock held. */
static void writer_sleep(struct mds_writer *w)
{
	u64 ms = w->next_chores - aifs_now_ms();
	struct timespec until;

	aifs_time_after_ms(CLOCK_MONOTONIC, ms, &until);
	pthread_cond_timedwait(&w->wake, &w->lock, &until);
}

/* Take up to WRITER_BATCH_MAX ops into @batch; false once stopped. */
static bool writer_take(struct mds *mds, struct aifs_list *batch)
{
	struct mds_writer *w = mds->writer;
	bool chores, more;
	int n;

	pthread_mutex_lock(&w->lock);
	while (aifs_list_empty(&w->queue) && !w->stopping &&
	       aifs_now_ms() < w->next_chores)
		writer_sleep(w);
	for (n = 0; !aifs_list_empty(&w->queue) && n < WRITER_BATCH_MAX; n++) {
		struct aifs_list *first = w->queue.next;

		aifs_list_del(first);
		aifs_list_add_tail(first, batch);
	}
	chores = !w->stopping && aifs_now_ms() >= w->next_chores;
	more = !aifs_list_empty(batch) || !w->stopping;
	pthread_mutex_unlock(&w->lock);
	if (chores) {
		mds_write_async(mds, writer_chores, NULL);
		w->next_chores = aifs_now_ms() + writer_chores_interval(mds);
	}
	return more;
}

static void *writer_main(void *arg)
{
	struct mds *mds = arg;
	struct aifs_list batch;

	aifs_list_init(&batch);
	while (writer_take(mds, &batch)) {
		if (aifs_list_empty(&batch))
			continue;
		writer_commit(mds, &batch);
		writer_release(mds->writer, &batch);
	}
	return NULL;
}

int mds_writer_start(struct mds *mds)
{
	struct mds_writer *w = calloc(1, sizeof(*w));
	pthread_condattr_t attr;
	int err;

	if (!w)
		return -ENOMEM;
	pthread_mutex_init(&w->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&w->wake, &attr);
	pthread_condattr_destroy(&attr);
	pthread_cond_init(&w->done, NULL);
	aifs_list_init(&w->queue);
	w->next_chores = aifs_now_ms() + writer_chores_interval(mds);
	w->srv = mds->srv;
	mds->writer = w;
	err = pthread_create(&w->thread, NULL, writer_main, mds);
	if (err) {
		mds->writer = NULL;
		free(w);
		return -err;
	}
	return 0;
}

/*
 * The server is about to be destroyed, while the writer still commits
 * what its sessions' ends queue: from now on no commit touches it.
 */
void mds_writer_forget_server(struct mds *mds)
{
	struct mds_writer *w = mds->writer;

	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->srv = NULL;
	pthread_mutex_unlock(&w->lock);
}

/* Apply and commit everything queued, then end the thread. */
void mds_writer_stop(struct mds *mds)
{
	struct mds_writer *w = mds->writer;

	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stopping = true;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->wake);
	pthread_cond_destroy(&w->done);
	pthread_mutex_destroy(&w->lock);
	free(w);
	mds->writer = NULL;
}
