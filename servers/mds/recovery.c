// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Recovery: a data server back from OFFLINE missed the writes its peers
 * took without it, and the truncations and deletions queued for it, so it
 * is SYNCING (clustermap.c) and serves nothing.  One thread walks the
 * inode table for each SYNCING server, a batch at a time from where it
 * stopped, and sends every regular file whose layout names the server a
 * CHUNK_SYNC, range after range, until the server says the inode is in
 * sync there (ds.md, "Catching up").  At the end of the table the server
 * is in sync: UP (or DRAINING).  Files made meanwhile are never placed on
 * a SYNCING server, so the walk misses none.
 *
 * The walk is in memory: after an MDS restart a SYNCING server starts
 * again from the first inode, which only costs comparisons.  A server
 * that fails a call is left alone for a pause that doubles up to
 * RECOVERY_BACKOFF_MAX_MS, the others go on.
 */
#include <stdlib.h>

#include "mds.h"

#define RECOVERY_POLL_MS	200
#define RECOVERY_CALL_MS	60000	/* a range of chunks pulled */
#define RECOVERY_SCAN		4096	/* inodes looked at per step */
#define RECOVERY_FILES		16	/* files synced per step */
#define RECOVERY_RANGE		16	/* chunks per CHUNK_SYNC */
#define RECOVERY_MAX_DS		64	/* connections kept */

struct recovery_ds {
	struct mds_dsconn c;
	u64 files, copied, deleted;	/* this round */
};

struct mds_recovery {
	struct mds_bg bg;
	struct recovery_ds ds[RECOVERY_MAX_DS];
	unsigned int nr_ds;
};

/* A file to sync on the server. */
struct recovery_file {
	u64 ino;
	struct aifs_layout layout;
};

static struct recovery_ds *recovery_ds_get(struct mds_recovery *r, u32 id)
{
	unsigned int i;

	for (i = 0; i < r->nr_ds; i++)
		if (r->ds[i].c.id == id)
			return &r->ds[i];
	if (r->nr_ds == RECOVERY_MAX_DS)
		return NULL;
	r->ds[r->nr_ds] = (struct recovery_ds){ .c.id = id };
	return &r->ds[r->nr_ds++];
}

static void recovery_ds_failed(struct recovery_ds *ds, u64 ino, int err)
{
	if (mds_dsconn_failed(&ds->c))
		aifs_warn("data server %u: sync of inode %llu: %s: trying again later",
			  ds->c.id, (unsigned long long)ino, strerror(-err));
}

static bool layout_names(const struct aifs_layout *l, u32 id)
{
	unsigned int i, n = le16_to_cpu(l->target_count);

	for (i = 0; i < n && i < AIFS_LAYOUT_MAX_TARGETS; i++)
		if (le32_to_cpu(l->targets[i]) == id)
			return true;
	return false;
}

/*
 * From inode @*cursor on, up to RECOVERY_FILES files whose layout names
 * @id into @files, looking at RECOVERY_SCAN inodes at most; *@cursor
 * moves past those looked at, to UINT64_MAX at the end of the table.
 */
static int recovery_scan(struct mds_recovery *r, u32 id, u64 *cursor,
			 struct recovery_file *files)
{
	MDB_val k = { sizeof(*cursor), cursor }, v;
	const struct mds_inode *inode;
	unsigned int scanned = 0;
	MDB_cursor *cur;
	struct mds_txn t;
	int n = 0, rc, err;

	err = mds_read_begin(r->bg.mds, &t);
	if (err)
		return err;
	err = mds_db_cursor(&t, MDS_DB_INODES, &cur);
	if (err)
		goto out;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
	     !rc && n < RECOVERY_FILES && scanned < RECOVERY_SCAN;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT), scanned++) {
		memcpy(cursor, k.mv_data, sizeof(*cursor));
		(*cursor)++;
		if (v.mv_size != sizeof(*inode))
			continue;	/* --check reports it */
		inode = v.mv_data;
		if (!S_ISREG(inode->mode) ||
		    inode->layout.type != AIFS_LAYOUT_REPLICA ||
		    !layout_names(&inode->layout, id))
			continue;
		files[n].ino = inode->ino;
		files[n++].layout = inode->layout;
	}
	if (rc == MDB_NOTFOUND)
		*cursor = UINT64_MAX;
	mdb_cursor_close(cur);
	err = n;
out:
	mds_read_end(&t);
	return err;
}

/*
 * Whether @ds holds the last copy of every group of @f it is in: then
 * there is no one to catch up from, and nothing it missed (its peers
 * went out before it did), and its copy is taken as it is.
 */
static bool recovery_last_copy(struct mds_recovery *r, u32 id,
			       const struct recovery_file *f)
{
	const struct aifs_layout *l = &f->layout;
	unsigned int g, t, w = l->replicas, sc = le16_to_cpu(l->stripe_count);
	bool member;

	for (g = 0; g < sc; g++) {
		member = false;
		for (t = g * w; t < (g + 1) * w; t++)
			member |= le32_to_cpu(l->targets[t]) == id;
		if (member && !mds_map_last_copy(r->bg.mds, id, l, g))
			return false;
	}
	return true;
}

/* CHUNK_SYNC of @f on @ds, range after range: 0 once it is in sync. */
static int recovery_sync_file(struct mds_recovery *r, struct recovery_ds *ds,
			      const struct recovery_file *f)
{
	struct aifs_chunk_sync_req req = {
		.id.ino = cpu_to_le64(f->ino),
		.max = cpu_to_le32(RECOVERY_RANGE),
		.layout = f->layout,
	};
	struct iovec iov = { &req, sizeof(req) };
	struct aifs_chunk_sync_rep rep;
	struct aifs_reply reply;
	u32 from = 0, next;
	int err;

	memcpy(req.id.fs_uuid, r->bg.mds->super.uuid, sizeof(req.id.fs_uuid));
	for (;;) {
		req.id.index = cpu_to_le32(from);
		err = aifs_call(ds->c.conn, AIFS_OP_CHUNK_SYNC, &iov, 1, &reply,
				RECOVERY_CALL_MS);
		if (!err && reply.status)
			err = -(int)reply.status;
		if (!err)
			err = aifs_decode_chunk_sync_rep(reply.payload,
							 reply.len, &rep, NULL);
		aifs_reply_free(&reply);
		if (!err) {
			ds->copied += le32_to_cpu(rep.copied);
			ds->deleted += le32_to_cpu(rep.deleted);
			next = le32_to_cpu(rep.next);
			if (next == AIFS_CHUNK_SYNC_DONE)
				return 0;
			if (next <= from && !rep.copied && !rep.deleted)
				err = -EAGAIN;	/* a peer cannot give it yet */
		}
		if (err == -EAGAIN && recovery_last_copy(r, ds->c.id, f)) {
			aifs_warn("data server %u holds the last copy of inode %llu: taken as it is",
				  ds->c.id, (unsigned long long)f->ino);
			return 0;
		}
		if (err)
			return err;
		from = next;
	}
}

/* One step of the walk for the SYNCING server @info. */
static void recovery_step(struct mds_recovery *r,
			  const struct aifs_ds_info *info, u64 cursor,
			  u32 round)
{
	struct recovery_file files[RECOVERY_FILES];
	u32 id = le32_to_cpu(info->id);
	struct recovery_ds *ds = recovery_ds_get(r, id);
	u64 next = cursor;
	int i, n, err;

	if (!ds || ds->c.retry_at > aifs_now_ms())
		return;
	if (!cursor) {
		/* a new round: the server came back, likely a new process */
		mds_dsconn_close(&ds->c);
		ds->files = ds->copied = ds->deleted = 0;
	}
	n = recovery_scan(r, id, &next, files);
	err = n < 0 ? n : mds_dsconn_connect(&r->bg, &ds->c, &info->addr,
					    RECOVERY_CALL_MS);
	for (i = 0; !err && i < n; i++) {
		err = recovery_sync_file(r, ds, &files[i]);
		if (err) {
			recovery_ds_failed(ds, files[i].ino, err);
			/* again from this file */
			mds_map_sync_cursor(r->bg.mds, id, round, files[i].ino);
			return;
		}
		ds->files++;
	}
	if (err) {
		recovery_ds_failed(ds, 0, err);
		return;
	}
	ds->c.backoff_ms = 0;
	mds_map_sync_cursor(r->bg.mds, id, round, next);
	if (next != UINT64_MAX)
		return;
	aifs_info("data server %u: %llu files synced, %llu chunks copied, %llu deleted",
		  id, (unsigned long long)ds->files,
		  (unsigned long long)ds->copied,
		  (unsigned long long)ds->deleted);
	err = mds_map_sync_done(r->bg.mds, id, round);
	if (err)
		aifs_err("data server %u: cannot mark it in sync: %s", id,
			 strerror(-err));
}

static void *recovery_main(void *arg)
{
	struct mds_recovery *r = arg;
	struct aifs_ds_info info;
	u32 after, round;
	u64 cursor;

	do {
		for (after = 0; !mds_map_next_syncing(r->bg.mds, after, &info,
						      &cursor, &round);
		     after = le32_to_cpu(info.id))
			recovery_step(r, &info, cursor, round);
	} while (!mds_bg_wait(&r->bg, RECOVERY_POLL_MS));
	return NULL;
}

int mds_recovery_start(struct mds *mds)
{
	struct mds_recovery *r = calloc(1, sizeof(*r));
	int err;

	if (!r)
		return -ENOMEM;
	mds->recovery = r;
	err = mds_bg_start(&r->bg, mds, recovery_main, r);
	if (err) {
		mds->recovery = NULL;
		free(r);
	}
	return err;
}

/* Before the writer stops: a step may still use it. */
void mds_recovery_stop(struct mds *mds)
{
	struct mds_recovery *r = mds->recovery;
	unsigned int i;

	if (!r)
		return;
	mds_bg_stop(&r->bg);
	mds->recovery = NULL;
	for (i = 0; i < r->nr_ds; i++)
		mds_dsconn_close(&r->ds[i].c);
	free(r);
}
