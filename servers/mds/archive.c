// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Archive: a replicated file converted on the data servers to an EC
 * layout (Documentation/erasure-coding.md, "Archive").  LAYOUT_SET with
 * AIFS_LAYOUT_SET_ARCHIVE records the target layout, its servers picked
 * at once, in the table "archive"; from then on nobody may open the file
 * for writing or truncate it (EBUSY), so its chunks hold still.  One
 * thread works the table: each stripe of the target layout is written by
 * a member of its group (EC_ARCHIVE), which reads the file's bytes from
 * the chunks, encodes and writes every fragment.  Clients keep reading
 * the chunks meanwhile, with the old layout.
 *
 * When the last stripe is written the switch is one transaction: the
 * file's layout becomes the target, one generation up; the record goes;
 * and a chunk job is queued for the old layout's servers, which the
 * drainer carries out as CHUNK_SYNC FENCE (the new generation: a reader
 * of the old layout is told EREMCHG and fetches the new one) and then
 * CHUNK_DELETE of the replicated chunks only.  A reader never sees a mix:
 * it reads the chunks, intact until its server turned it away, or the
 * fragments, whole since before the switch.
 *
 * The record says which stripe comes next, saved every ARCHIVE_SAVE
 * stripes: an interrupted archive (a stop of the MDS, a server that
 * failed) goes on from there, and the file stays replicated and readable
 * until its switch.  A file whose layout changed meanwhile (a rebuild
 * gave a group a new member) starts again with the layout it has now; a
 * file deleted meanwhile has the fragments written so far deleted.
 */
#include <stdlib.h>
#include <string.h>

#include "mds.h"

#define ARCHIVE_POLL_MS		1000
#define ARCHIVE_CALL_MS		60000	/* a stripe read, encoded and written */
#define ARCHIVE_SAVE		8	/* stripes between saves of the cursor */
#define ARCHIVE_BATCH		16	/* records looked at per round */
#define ARCHIVE_AGAIN_MS	2000	/* after a stripe failed */

/* A record of the table "archive", keyed by inode number. */
struct mds_archive_rec {
	struct aifs_layout target;	/* its generation: the source's + 1 */
	u32 source_gen;			/* the layout being read */
	u32 next;			/* the first stripe not yet written */
};

struct mds_archiver {
	struct mds_bg bg;
	struct mds_dsconns ds;
	u64 retry_at;			/* aifs_now_ms() of the next round */
};

/* A file with its record, as the thread found them. */
struct archive_file {
	u64 ino;
	struct mds_archive_rec rec;
};

static int archive_get(struct mds_txn *t, u64 ino, struct mds_archive_rec *rec)
{
	MDB_val v;
	int err;

	err = mds_db_get(t, MDS_DB_ARCHIVE, &ino, sizeof(ino), &v);
	if (err)
		return err;
	if (v.mv_size != sizeof(*rec))
		return -EIO;
	memcpy(rec, v.mv_data, sizeof(*rec));
	return 0;
}

static int archive_put(struct mds_txn *t, u64 ino,
		       const struct mds_archive_rec *rec)
{
	return mds_db_put(t, MDS_DB_ARCHIVE, &ino, sizeof(ino), rec,
			  sizeof(*rec), 0);
}

bool mds_archiving(struct mds_txn *t, u64 ino)
{
	struct mds_archive_rec rec;

	return !archive_get(t, ino, &rec);
}

/* An EC layout @want for @inode: its chunk size, servers picked. */
static int archive_target(struct mds_txn *t, const struct mds_inode *inode,
			  const struct aifs_layout *want,
			  struct aifs_layout *target)
{
	u32 chunk = le32_to_cpu(inode->layout.chunk_size);

	if (want->type != AIFS_LAYOUT_EC ||
	    (u64)want->ec_k * chunk > AIFS_EC_STRIPE_MAX)
		return -EINVAL;
	*target = *want;
	target->chunk_size = inode->layout.chunk_size;
	target->target_count = 0;
	memset(target->targets, 0, sizeof(target->targets));
	target->generation =
		cpu_to_le32(le32_to_cpu(inode->layout.generation) + 1);
	return mds_layout_assign(t, target);
}

/**
 * mds_archive_begin - LAYOUT_SET with AIFS_LAYOUT_SET_ARCHIVE (writer)
 * @t: the transaction
 * @inode: the file, its owner checked
 * @want: the EC layout wanted (its chunk size is the file's)
 *
 * Return: 0 (begun, or begun already), -EBUSY while the file is open for
 * writing, -EINVAL for a file that is not replicated or a layout that is
 * not EC, -ENOSPC without enough data servers up.
 */
int mds_archive_begin(struct mds_txn *t, const struct mds_inode *inode,
		      const struct aifs_layout *want)
{
	struct mds_archive_rec rec = { 0 };
	int err;

	if (!S_ISREG(inode->mode))
		return -EINVAL;
	if (mds_archiving(t, inode->ino))
		return 0;
	if (inode->layout.type != AIFS_LAYOUT_REPLICA ||
	    !inode->layout.target_count)
		return -EINVAL;
	if (mds_opens_writing(t->mds, inode->ino))
		return -EBUSY;
	err = archive_target(t, inode, want, &rec.target);
	if (err)
		return err;
	rec.source_gen = le32_to_cpu(inode->layout.generation);
	err = archive_put(t, inode->ino, &rec);
	if (!err)
		mds_bg_kick(&t->mds->archiver->bg);
	return err;
}

/* ---- the thread ---- */

static u32 archive_stripes(const struct aifs_layout *l, u64 size)
{
	u64 data = (u64)l->ec_k * le32_to_cpu(l->chunk_size);

	return (size + data - 1) / data;
}

/* A connection to data server @id, or NULL. */
static struct aifs_conn *archive_conn(struct mds_archiver *a, u32 id)
{
	struct mds_dsconn *c = mds_dsconns_get(&a->ds, id);
	struct aifs_ds_info info;

	if (!c || c->retry_at > aifs_now_ms() ||
	    mds_map_get_ds(a->bg.mds, id, &info) ||
	    info.state != cpu_to_le32(AIFS_DS_UP))
		return NULL;
	if (mds_dsconn_connect(&a->bg, c, &info, ARCHIVE_CALL_MS)) {
		mds_dsconn_failed(c);
		return NULL;
	}
	return c->conn;
}

/* EC_ARCHIVE of stripe @stripe, to the first member of its group that takes it. */
static int archive_stripe(struct mds_archiver *a, const struct archive_file *f,
			  const struct mds_inode *inode, u32 stripe)
{
	const struct aifs_layout *l = &f->rec.target;
	u32 width = l->ec_k + l->ec_m, g = stripe % le16_to_cpu(l->stripe_count);
	struct aifs_ec_archive_req req = {
		.id.ino = cpu_to_le64(f->ino),
		.id.index = cpu_to_le32(stripe),
		.size = cpu_to_le64(inode->size),
		.layout_gen = l->generation,
		.source = inode->layout,
	};
	struct aifs_reply reply;
	struct aifs_conn *conn;
	u32 i, id;
	int err = -EAGAIN;

	memcpy(req.id.fs_uuid, a->bg.mds->super.uuid, 16);
	req.group.chunk_size = l->chunk_size;
	req.group.k = l->ec_k;
	req.group.m = l->ec_m;
	memcpy(req.group.members, &l->targets[g * width],
	       width * sizeof(__le32));
	for (i = 0; i < width; i++) {
		id = le32_to_cpu(req.group.members[i]);
		conn = archive_conn(a, id);
		if (!conn)
			continue;
		err = mds_ds_call(conn, AIFS_OP_EC_ARCHIVE, &req, sizeof(req),
				  ARCHIVE_CALL_MS, &reply);
		if (!err) {
			err = -(int)reply.status;
			aifs_reply_free(&reply);
			if (!err)
				return 0;
		} else {
			mds_dsconn_failed(mds_dsconns_get(&a->ds, id));
		}
		aifs_log(AIFS_LOG_DEBUG, "archive of %llu: stripe %u via data server %u: %s",
			 (unsigned long long)f->ino, stripe, id,
			 strerror(-err));
	}
	return err;
}

/* What the writer does with a file's record, and its argument. */
struct archive_step {
	struct archive_file file;
	struct mds_inode inode;		/* as the thread read it */
	bool done;			/* every stripe written */
};

/*
 * Writer: the stripes before @file.rec.next are written.  Done, the
 * switch (see the top of the file); else the cursor is saved.  Either
 * only if the record and the file's layout are as the thread saw them.
 */
static int apply_archive_step(struct mds_txn *t, struct mds_op *op)
{
	const struct archive_step *s = op->arg;
	struct mds_archive_rec rec;
	struct mds_inode inode;
	int err;

	err = archive_get(t, s->file.ino, &rec);
	if (!err)
		err = mds_inode_get(t, s->file.ino, &inode);
	if (err)
		return err;
	if (memcmp(&rec.target, &s->file.rec.target, sizeof(rec.target)) ||
	    le32_to_cpu(inode.layout.generation) != rec.source_gen ||
	    inode.size != s->inode.size)
		return -EAGAIN;
	if (!s->done)
		return archive_put(t, s->file.ino, &s->file.rec);
	err = mds_db_del(t, MDS_DB_ARCHIVE, &s->file.ino, sizeof(s->file.ino));
	if (!err)
		err = mds_chunks_archived(t, inode.ino, &inode.layout);
	if (err)
		return err;
	inode.layout = rec.target;
	return mds_inode_put(t, &inode);
}

/*
 * Writer: the file is gone, or its layout changed under the archive.
 * Gone: the record goes, and the fragments written so far with a chunk
 * job; changed: the archive starts again from the layout it has now.
 */
static int apply_archive_restart(struct mds_txn *t, struct mds_op *op)
{
	const struct archive_file *f = op->arg;
	struct mds_archive_rec rec;
	struct mds_inode inode;
	int err;

	err = archive_get(t, f->ino, &rec);
	if (err || memcmp(&rec, &f->rec, sizeof(rec)))
		return err == -ENOENT ? 0 : err;
	err = mds_inode_get(t, f->ino, &inode);
	if (!err && !inode.nlink && mds_opens_busy(t->mds, f->ino))
		return -EAGAIN;	/* unlinked, still open: freed at its close */
	if (err == -ESTALE || (!err && !inode.nlink)) {
		err = mds_db_del(t, MDS_DB_ARCHIVE, &f->ino, sizeof(f->ino));
		return err ? err : mds_chunks_dropped(t, f->ino, &rec.target);
	}
	if (err)
		return err;
	rec.source_gen = le32_to_cpu(inode.layout.generation);
	rec.target.generation = cpu_to_le32(rec.source_gen + 1);
	rec.next = 0;
	return archive_put(t, f->ino, &rec);
}

/* The file and its layout now, as the stripes are written from. */
static int archive_inode(struct mds *mds, u64 ino, struct mds_inode *inode)
{
	struct mds_txn t;
	int err;

	err = mds_read_begin(mds, &t);
	if (err)
		return err;
	err = mds_inode_get(&t, ino, inode);
	mds_read_end(&t);
	return err;
}

/*
 * Whether to write down how far @s got now: at the end, every
 * ARCHIVE_SAVE stripes, after a failure, and when the thread stops;
 * never when nothing moved since the record was read (@from).
 */
static bool archive_save_due(struct mds_archiver *a,
			     const struct archive_step *s, u32 from,
			     u32 stripes, int err)
{
	u32 next = s->file.rec.next;

	if (next == from && next < stripes)
		return false;
	return err || next == stripes || next % ARCHIVE_SAVE == 0 ||
	       mds_bg_stopping(&a->bg);
}

/* Go on with one file: 0, or -errno when it is to be tried again later. */
static int archive_file(struct mds_archiver *a, const struct archive_file *f)
{
	struct mds *mds = a->bg.mds;
	struct archive_step s = { .file = *f };
	u32 stripes, from = f->rec.next;
	int err, saved;

	err = archive_inode(mds, f->ino, &s.inode);
	if (err == -ESTALE || (!err && (!s.inode.nlink ||
			le32_to_cpu(s.inode.layout.generation) !=
			f->rec.source_gen)))
		return mds_write_own(mds, apply_archive_restart, (void *)f);
	if (err)
		return err;
	stripes = archive_stripes(&f->rec.target, s.inode.size);
	for (;;) {
		if (!err && s.file.rec.next < stripes &&
		    !mds_bg_stopping(&a->bg)) {
			err = archive_stripe(a, &s.file, &s.inode,
					     s.file.rec.next);
			if (!err)
				s.file.rec.next++;
		}
		if (!archive_save_due(a, &s, from, stripes, err)) {
			if (err || mds_bg_stopping(&a->bg))
				return err;
			continue;
		}
		s.done = s.file.rec.next == stripes;
		saved = mds_write_own(mds, apply_archive_step, &s);
		from = s.file.rec.next;
		if (saved || err || s.done || mds_bg_stopping(&a->bg))
			break;
	}
	if (!saved && !err && s.done) {
		aifs_info("inode %llu archived: %u stripes of %u+%u",
			  (unsigned long long)f->ino, stripes,
			  f->rec.target.ec_k, f->rec.target.ec_m);
		mds_drain_kick(mds);
	}
	return err ? err : saved;
}

/* Up to ARCHIVE_BATCH records after inode @after: their number. */
static int archive_scan(struct mds *mds, u64 after, struct archive_file *out)
{
	u64 key = after + 1;
	MDB_val k = { sizeof(key), &key }, v;
	MDB_cursor *cur;
	struct mds_txn t;
	int n = 0, rc, err;

	err = mds_read_begin(mds, &t);
	if (err)
		return err;
	err = mds_db_cursor(&t, MDS_DB_ARCHIVE, &cur);
	if (err)
		goto out;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
	     !rc && n < ARCHIVE_BATCH;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if (k.mv_size != sizeof(u64) || v.mv_size != sizeof(out->rec))
			continue;
		memcpy(&out[n].ino, k.mv_data, sizeof(u64));
		memcpy(&out[n].rec, v.mv_data, sizeof(out->rec));
		n++;
	}
	mdb_cursor_close(cur);
out:
	mds_read_end(&t);
	return err ? err : n;
}

static void archive_round(struct mds_archiver *a)
{
	struct archive_file files[ARCHIVE_BATCH];
	u64 after = 0;
	int i, n;
	bool failed = false;

	do {
		n = archive_scan(a->bg.mds, after, files);
		for (i = 0; i < n && !mds_bg_stopping(&a->bg); i++) {
			after = files[i].ino;
			if (archive_file(a, &files[i]))
				failed = true;
		}
	} while (n == ARCHIVE_BATCH && !mds_bg_stopping(&a->bg));
	a->retry_at = failed ? aifs_now_ms() + ARCHIVE_AGAIN_MS : 0;
}

static void *archive_main(void *arg)
{
	struct mds_archiver *a = arg;

	while (!mds_bg_wait(&a->bg, ARCHIVE_POLL_MS)) {
		if (a->retry_at <= aifs_now_ms())
			archive_round(a);
	}
	mds_dsconns_close(&a->ds);
	return NULL;
}

int mds_archive_start(struct mds *mds)
{
	struct mds_archiver *a = calloc(1, sizeof(*a));
	int err;

	if (!a)
		return -ENOMEM;
	mds->archiver = a;
	err = mds_bg_start(&a->bg, mds, archive_main, a);
	if (err) {
		mds->archiver = NULL;
		free(a);
	}
	return err;
}

/* Before the writer stops: a switch may still use it. */
void mds_archive_stop(struct mds *mds)
{
	struct mds_archiver *a = mds->archiver;

	if (!a)
		return;
	mds_bg_stop(&a->bg);
	free(a);
	mds->archiver = NULL;
}
