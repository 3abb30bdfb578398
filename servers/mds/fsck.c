// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * fsck (`aifs fsck`, Documentation/fsck.md): a pass over the whole file
 * system, run by the MDS, which holds the tables and talks to every data
 * server, next to the running service.  MDS_FSCK starts one and reports
 * how it goes; with AIFS_FSCK_REPAIR it repairs what it finds.
 *
 *   1. the tables against each other (check.c), in one read transaction;
 *      repairs (repair.c) through the writer, each only if what it was
 *      found in is unchanged;
 *   2. every data server not OFFLINE lists the inodes it holds chunks of
 *      (DS_INODES): chunks of an inode that is gone with no chunk job
 *      queued for it, of something not a file, or on a server the file's
 *      layout does not name (a rebuild left them, or a RETIRED server
 *      came back) are orphans: CHUNK_DELETE;
 *   3. every file's groups: the serving members list its chunks
 *      (CHUNK_LIST); a member that lacks a chunk another holds, or holds
 *      an older version, is behind: CHUNK_SYNC catches it up from the
 *      group (a chunk only it holds stays, sync.c); bytes past the size of
 *      a file nobody has open are cut (a truncation to its size).  Files
 *      open are left alone: their writes are on their way.
 *
 * One pass at a time; the tally of the current or last pass stays in
 * memory for MDS_FSCK to report.
 *
 * The same thread deletes, by itself, the chunks of a RETIRED server that
 * speaks again (step 2 for that server, repairing, logged): a rebuild
 * moved every copy it held elsewhere, so all it holds is garbage, which
 * nobody should have to run fsck for.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mds.h"

#define FSCK_CALL_MS	60000
#define FSCK_LOOK	4096	/* inodes looked at per read transaction */
#define FSCK_FILES	16	/* files compared per read transaction */
#define FSCK_MAX_FIXES	10000	/* table repairs per pass (more: next pass) */
#define FSCK_RETIRED	64	/* RETIRED servers remembered as cleaned */
#define FSCK_RETRY_MS	10000	/* a cleaning that failed, again after */

/* A RETIRED server that spoke: its chunks to delete, once. */
struct fsck_retired {
	u32 id;
	bool done;
	u64 retry_at;		/* aifs_now_ms() */
};

struct fsck_fix {
	struct mds_fix fix;
	enum aifs_fsck_kind kind;
};

/* The tally of a pass, host-endian; under bg.lock. */
struct fsck_tally {
	bool running;
	u32 flags;
	u64 passes;
	s64 started, finished;
	u64 inodes, entries, files, chunk_inodes;
	u32 servers, skipped;
	u64 found[AIFS_FSCK_KINDS], repaired[AIFS_FSCK_KINDS];
	int error;
};

struct mds_fsck {
	struct mds_bg bg;
	/* under bg.lock */
	bool want;			/* a pass asked for */
	u32 want_flags;
	struct fsck_retired retired[FSCK_RETIRED];
	unsigned int nr_retired;
	struct fsck_tally tally;
	char text[AIFS_FSCK_TEXT_MAX];
	u32 text_len;
	/* the fsck thread's */
	u32 flags;			/* of the pass */
	bool cleaning;			/* a RETIRED server's: logged, no tally */
	struct mds_dsconns ds;
	struct fsck_fix *fixes;
	size_t nr_fixes;
};

static const char *const fsck_kind_names[AIFS_FSCK_KINDS] = {
	[AIFS_FSCK_DANGLING] = "dangling",
	[AIFS_FSCK_DIRSEQ] = "dirseq",
	[AIFS_FSCK_LINKS] = "links",
	[AIFS_FSCK_NAMELESS] = "nameless",
	[AIFS_FSCK_ORPHAN_CHUNKS] = "orphan-chunks",
	[AIFS_FSCK_MISSING_COPY] = "missing-copy",
	[AIFS_FSCK_PAST_SIZE] = "past-size",
	[AIFS_FSCK_OTHER] = "other",
};

/* A problem of @kind, in words: counted, and kept while there is room. */
static void fsck_report(struct mds_fsck *f, enum aifs_fsck_kind kind,
			const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void fsck_report(struct mds_fsck *f, enum aifs_fsck_kind kind,
			const char *fmt, ...)
{
	char line[MDS_FIX_TEXT + 32];
	va_list ap;
	int len;

	len = snprintf(line, sizeof(line), "%s: ", fsck_kind_names[kind]);
	va_start(ap, fmt);
	len += vsnprintf(line + len, sizeof(line) - len, fmt, ap);
	va_end(ap);
	if (len >= (int)sizeof(line) - 1)
		len = sizeof(line) - 2;
	if (f->cleaning) {
		aifs_info("fsck: %.*s", len, line);
		return;
	}
	line[len++] = '\n';
	pthread_mutex_lock(&f->bg.lock);
	f->tally.found[kind]++;
	if (f->text_len + len <= sizeof(f->text)) {
		memcpy(f->text + f->text_len, line, len);
		f->text_len += len;
	}
	pthread_mutex_unlock(&f->bg.lock);
}

static void fsck_repaired(struct mds_fsck *f, enum aifs_fsck_kind kind)
{
	if (f->cleaning)
		return;
	pthread_mutex_lock(&f->bg.lock);
	f->tally.repaired[kind]++;
	pthread_mutex_unlock(&f->bg.lock);
}

static bool fsck_repairs(const struct mds_fsck *f)
{
	return f->flags & AIFS_FSCK_REPAIR;
}

/* ---- 1. the tables ---- */

static void fsck_table_problem(void *arg, enum aifs_fsck_kind kind,
			       const struct mds_fix *fix, const char *text)
{
	struct mds_fsck *f = arg;

	fsck_report(f, kind, "%s", text);
	if (fix->type == MDS_FIX_NONE || !fsck_repairs(f) ||
	    f->nr_fixes == FSCK_MAX_FIXES)
		return;
	f->fixes[f->nr_fixes].fix = *fix;
	f->fixes[f->nr_fixes++].kind = kind;
}

static int fsck_tables(struct mds_fsck *f)
{
	struct mds *mds = f->bg.mds;
	struct mds_check_tally tally = { 0 };
	struct mds_txn t;
	size_t i;
	int err, e;

	err = mds_read_begin(mds, &t);
	if (err)
		return err;
	f->nr_fixes = 0;
	err = mds_check_tables(&t, &tally, fsck_table_problem, f);
	mds_read_end(&t);
	pthread_mutex_lock(&f->bg.lock);
	f->tally.inodes = tally.inodes;
	f->tally.entries = tally.dentries;
	pthread_mutex_unlock(&f->bg.lock);
	for (i = 0; !err && i < f->nr_fixes; i++) {
		e = mds_fix_apply(mds, &f->fixes[i].fix);
		if (!e)
			fsck_repaired(f, f->fixes[i].kind);
		else if (e != -ESTALE)
			aifs_warn("fsck: repair of inode %llu: %s",
				  (unsigned long long)f->fixes[i].fix.ino,
				  strerror(-e));
	}
	return err;
}

/* ---- connections ---- */

/* A connection to server @id, or NULL. */
static struct aifs_conn *fsck_conn(struct mds_fsck *f, u32 id)
{
	struct mds_dsconn *c = mds_dsconns_get(&f->ds, id);
	struct aifs_ds_info info;

	if (!c || mds_map_get_ds(f->bg.mds, id, &info) ||
	    mds_dsconn_connect(&f->bg, c, &info, FSCK_CALL_MS)) {
		if (c)
			mds_dsconn_close(c);
		return NULL;
	}
	return c->conn;
}

/* @id's connection failed a call: a new one for the next. */
static void fsck_conn_failed(struct mds_fsck *f, u32 id)
{
	struct mds_dsconn *c = mds_dsconns_get(&f->ds, id);

	if (c)
		mds_dsconn_close(c);
}

static int fsck_call(struct aifs_conn *conn, u16 opcode, const void *req,
		     size_t len, struct aifs_reply *reply)
{
	return mds_ds_call(conn, opcode, req, len, FSCK_CALL_MS, reply);
}

/* ---- 2. chunks of no file ---- */

/*
 * Why server @id's chunks of @ino are orphans in @t (NULL: they are
 * not); @queued lists the inodes with chunk jobs.
 */
static const char *orphan_reason(struct mds_txn *t, u64 ino, u32 id,
				 const struct mds_u64s *queued)
{
	struct mds_inode inode;
	int err;

	if (mds_u64s_has(queued, ino))
		return NULL;	/* deleted or cut: on their way */
	err = mds_inode_get(t, ino, &inode);
	if (err == -ESTALE)
		return "the inode is gone";
	if (err)
		return NULL;
	if (!S_ISREG(inode.mode))
		return "not a file";
	if (mds_archiving(t, ino))
		return NULL;	/* fragments of the layout to come */
	if (!mds_layout_names(&inode.layout, id))
		return "the file's layout does not name the server";
	return NULL;
}

/* Of @inos, the orphans on @id now into @out: their number, or -errno. */
static int orphans_of(struct mds_fsck *f, u32 id, const u64 *inos, u32 n,
		      u64 *out, bool report)
{
	struct mds_u64s queued = { 0 };
	const char *why;
	struct mds_txn t;
	u32 i, nr = 0;
	int err;

	err = mds_read_begin(f->bg.mds, &t);
	if (err)
		return err;
	err = mds_chunkq_inos(&t, &queued);
	for (i = 0; !err && i < n; i++) {
		why = orphan_reason(&t, inos[i], id, &queued);
		if (!why)
			continue;
		out[nr++] = inos[i];
		if (report)
			fsck_report(f, AIFS_FSCK_ORPHAN_CHUNKS,
				    "inode %llu on data server %u: %s",
				    (unsigned long long)inos[i], id, why);
	}
	free(queued.v);
	mds_read_end(&t);
	return err ? err : (int)nr;
}

static int fsck_delete_inode(struct mds_fsck *f, struct aifs_conn *conn,
			     u64 ino)
{
	struct aifs_chunk_delete_req req = {
		.id.ino = cpu_to_le64(ino),
		.flags = cpu_to_le32(AIFS_DELETE_INODE),
	};
	struct aifs_reply reply;
	int err;

	memcpy(req.id.fs_uuid, f->bg.mds->super.uuid, 16);
	err = fsck_call(conn, AIFS_OP_CHUNK_DELETE, &req, sizeof(req), &reply);
	if (!err)
		aifs_reply_free(&reply);
	return err;
}

/* The orphans among @inos of server @id: reported, deleted if asked. */
static int fsck_orphans(struct mds_fsck *f, u32 id, struct aifs_conn *conn,
			const __le64 *wire, u32 n)
{
	u64 inos[AIFS_DS_INODES_MAX], orphans[AIFS_DS_INODES_MAX];
	int i, nr, err = 0;

	for (i = 0; i < (int)n; i++)
		inos[i] = le64_to_cpu(wire[i]);
	nr = orphans_of(f, id, inos, n, orphans, true);
	if (nr <= 0 || !fsck_repairs(f))
		return nr < 0 ? nr : 0;
	/* again, just before: the namespace lives on meanwhile */
	nr = orphans_of(f, id, orphans, nr, orphans, false);
	for (i = 0; !err && i < nr; i++) {
		err = fsck_delete_inode(f, conn, orphans[i]);
		if (!err)
			fsck_repaired(f, AIFS_FSCK_ORPHAN_CHUNKS);
	}
	return nr < 0 ? nr : err;
}

/* Every inode server @id holds chunks of, against the tables. */
static int fsck_server(struct mds_fsck *f, u32 id)
{
	struct aifs_ds_inodes_req req = {
		.max = cpu_to_le32(AIFS_DS_INODES_MAX),
	};
	struct aifs_span parts[AIFS_MSG_MAX_PARTS];
	struct aifs_ds_inodes_rep rep;
	struct aifs_conn *conn;
	struct aifs_reply reply;
	u32 n;
	int err;

	memcpy(req.fs_uuid, f->bg.mds->super.uuid, 16);
	do {
		conn = fsck_conn(f, id);
		if (!conn)
			return -ENOTCONN;
		err = fsck_call(conn, AIFS_OP_DS_INODES, &req, sizeof(req),
				&reply);
		if (err)
			return err;
		err = aifs_decode_ds_inodes_rep(reply.payload, reply.len, &rep,
						parts);
		n = le32_to_cpu(rep.count);
		if (!err)
			err = fsck_orphans(f, id, conn, parts[0].data, n);
		aifs_reply_free(&reply);
		pthread_mutex_lock(&f->bg.lock);
		f->tally.chunk_inodes += err || f->cleaning ? 0 : n;
		pthread_mutex_unlock(&f->bg.lock);
		req.after = rep.after;
		req.dir = rep.dir;
	} while (!err && rep.dir != cpu_to_le32(AIFS_DS_INODES_END) &&
		 !mds_bg_stopping(&f->bg));
	return err;
}

static int fsck_servers(struct mds_fsck *f)
{
	struct aifs_ds_info info;
	u32 after, id;
	bool checked;
	int err;

	for (after = 0; !mds_map_next(f->bg.mds, after, &info); after = id) {
		id = le32_to_cpu(info.id);
		err = info.state == cpu_to_le32(AIFS_DS_OFFLINE) ? -EHOSTDOWN :
		      fsck_server(f, id);
		if (err)
			fsck_conn_failed(f, id);
		if (err && info.state == cpu_to_le32(AIFS_DS_RETIRED))
			continue;	/* gone for good, with what it held */
		if (err)
			aifs_warn("fsck: data server %u not checked: %s", id,
				  strerror(-err));
		checked = !err;
		pthread_mutex_lock(&f->bg.lock);
		f->tally.servers += checked;
		f->tally.skipped += !checked;
		pthread_mutex_unlock(&f->bg.lock);
		if (mds_bg_stopping(&f->bg))
			return -EINTR;
	}
	return 0;
}

/* ---- 3. the copies of every file ---- */

/* One member's chunks of a group (replicas: fragment 0). */
struct fsck_copy {
	u32 id;
	bool listed;			/* it serves and answered */
	bool behind;
	struct aifs_chunk_entry *e;
	u32 n, room;
};

static int copy_add(struct fsck_copy *c, const struct aifs_chunk_entry *e)
{
	struct aifs_chunk_entry *grown;

	if (c->n == c->room) {
		c->room = c->room ? 2 * c->room : 64;
		grown = realloc(c->e, c->room * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		c->e = grown;
	}
	c->e[c->n++] = *e;
	return 0;
}

/* The chunks of @ino in group @g (of @sc) on @c's server, by index. */
static int copy_list(struct mds_fsck *f, struct fsck_copy *c, u64 ino,
		     u32 g, u32 sc)
{
	struct aifs_chunk_list_req req = {
		.id.ino = cpu_to_le64(ino),
		.max = cpu_to_le32(AIFS_CHUNK_LIST_MAX),
	};
	struct aifs_span parts[AIFS_MSG_MAX_PARTS];
	const struct aifs_chunk_entry *e;
	struct aifs_chunk_list_rep rep;
	struct aifs_conn *conn;
	struct aifs_reply reply;
	u32 i, n;
	int err;

	memcpy(req.id.fs_uuid, f->bg.mds->super.uuid, 16);
	do {
		conn = fsck_conn(f, c->id);
		if (!conn)
			return -ENOTCONN;
		err = fsck_call(conn, AIFS_OP_CHUNK_LIST, &req, sizeof(req),
				&reply);
		if (err)
			return err;
		err = aifs_decode_chunk_list_rep(reply.payload, reply.len,
						 &rep, parts);
		n = err ? 0 : le32_to_cpu(rep.count);
		e = parts[0].data;
		for (i = 0; !err && i < n; i++)
			if (le32_to_cpu(e[i].index) % sc == g)
				err = copy_add(c, &e[i]);
		if (n)
			req.id.index = cpu_to_le32(le32_to_cpu(e[n - 1].index)
						   + 1);
		aifs_reply_free(&reply);
	} while (!err && n && (le32_to_cpu(rep.flags) & AIFS_CHUNK_LIST_MORE));
	return err;
}

static int entry_index_cmp(const void *key, const void *elem)
{
	u32 k = *(const u32 *)key;
	u32 x = le32_to_cpu(((const struct aifs_chunk_entry *)elem)->index);

	return k < x ? -1 : k > x;
}

/* @c's chunk of @index: its list is by index (CHUNK_LIST's order). */
static const struct aifs_chunk_entry *copy_find(const struct fsck_copy *c,
						__le32 index)
{
	u32 k = le32_to_cpu(index);

	return c->n ? bsearch(&k, c->e, c->n, sizeof(*c->e), entry_index_cmp) :
		      NULL;
}

/* Members of @copies behind another: marked, and counted. */
static unsigned int copies_behind(struct fsck_copy *copies, unsigned int w)
{
	const struct aifs_chunk_entry *e, *mine;
	unsigned int a, b, nr = 0;
	u32 i;

	for (a = 0; a < w; a++) {
		for (i = 0; copies[a].listed && i < copies[a].n; i++) {
			e = &copies[a].e[i];
			if (le16_to_cpu(e->flags) & AIFS_CHUNK_STALE)
				continue;
			for (b = 0; b < w; b++) {
				if (b == a || !copies[b].listed ||
				    copies[b].behind)
					continue;
				mine = copy_find(&copies[b], e->index);
				if (!mine || le64_to_cpu(mine->version) <
					     le64_to_cpu(e->version) ||
				    le16_to_cpu(mine->flags) & AIFS_CHUNK_STALE) {
					copies[b].behind = true;
					nr++;
				}
			}
		}
	}
	return nr;
}

/*
 * Whether a chunk in @copies goes past @size.  An EC stripe (K chunks
 * of data) goes once it begins past the size: the one the size ends in
 * keeps its fragments whole (chunkq.c).
 */
static bool copies_past(const struct fsck_copy *copies, unsigned int w,
			const struct aifs_layout *l, u64 size)
{
	bool ec = l->type == AIFS_LAYOUT_EC;
	u64 unit = (u64)le32_to_cpu(l->chunk_size) * (ec ? l->ec_k : 1);
	const struct aifs_chunk_entry *e;
	unsigned int a;
	u64 start;
	u32 i;

	for (a = 0; a < w; a++) {
		for (i = 0; copies[a].listed && i < copies[a].n; i++) {
			e = &copies[a].e[i];
			start = le32_to_cpu(e->index) * unit;
			if (ec ? start >= size :
				 start + le32_to_cpu(e->length) > size)
				return true;
		}
	}
	return false;
}

struct fsck_file_op {
	const struct mds_inode *inode;
	bool cut;
};

/*
 * Writer: the file as it was compared and open nowhere (-ESTALE,
 * -EBUSY else); with @cut, cut to its size.
 */
static int apply_file_check(struct mds_txn *t, struct mds_op *op)
{
	struct fsck_file_op *fo = op->arg;
	struct mds_inode inode;
	int err;

	err = mds_inode_get(t, fo->inode->ino, &inode);
	if (err)
		return err;
	if (memcmp(&inode, fo->inode, sizeof(inode)))
		return -ESTALE;
	if (mds_opens_busy(t->mds, inode.ino))
		return -EBUSY;
	if (!fo->cut)
		return 0;
	err = mds_chunks_cut(t, &inode, inode.size);
	return err ? err : mds_inode_put(t, &inode);
}

/* CHUNK_SYNC of @inode on @id, range after range. */
static int fsck_sync(struct mds_fsck *f, u32 id, const struct mds_inode *inode)
{
	struct mds_sync_tally tally = { 0 };
	struct aifs_conn *conn = fsck_conn(f, id);

	if (!conn)
		return -ENOTCONN;
	return mds_chunk_sync_all(f->bg.mds, conn, inode->ino, &inode->layout,
				  FSCK_CALL_MS, &tally);
}

/* Group @g of @inode: behind members caught up; whether it goes past. */
static bool fsck_group(struct mds_fsck *f, const struct mds_inode *inode,
		       u32 g)
{
	struct fsck_file_op fo = { .inode = inode };
	const struct aifs_layout *l = &inode->layout;
	unsigned int w = mds_layout_width(l), m, behind;
	struct fsck_copy copies[AIFS_EC_MAX_WIDTH] = { 0 };
	u32 sc = le16_to_cpu(l->stripe_count);
	struct mds *mds = f->bg.mds;
	bool past;
	int err;

	for (m = 0; m < w; m++) {
		copies[m].id = le32_to_cpu(l->targets[g * w + m]);
		if (!mds_map_serves(mds, copies[m].id))
			continue;
		err = copy_list(f, &copies[m], inode->ino, g, sc);
		copies[m].listed = !err;
		if (err && err != -ESTALE)
			fsck_conn_failed(f, copies[m].id);
	}
	/* an EC member's fragment versions are its own: not compared */
	behind = l->type == AIFS_LAYOUT_EC ? 0 : copies_behind(copies, w);
	past = copies_past(copies, w, l, inode->size);
	if (behind && !mds_write_own(mds, apply_file_check, &fo)) {
		for (m = 0; m < w; m++) {
			if (!copies[m].behind)
				continue;
			fsck_report(f, AIFS_FSCK_MISSING_COPY,
				    "inode %llu, group %u: data server %u lacks chunks or holds older ones",
				    (unsigned long long)inode->ino, g,
				    copies[m].id);
			if (fsck_repairs(f) &&
			    !fsck_sync(f, copies[m].id, inode))
				fsck_repaired(f, AIFS_FSCK_MISSING_COPY);
		}
	}
	for (m = 0; m < w; m++)
		free(copies[m].e);
	return past;
}

static void fsck_file(struct mds_fsck *f, const struct mds_inode *inode)
{
	struct fsck_file_op fo = { .inode = inode, .cut = fsck_repairs(f) };
	u32 g, sc = le16_to_cpu(inode->layout.stripe_count);
	bool past = false;
	int err;

	for (g = 0; g < sc; g++)
		past |= fsck_group(f, inode, g);
	pthread_mutex_lock(&f->bg.lock);
	f->tally.files++;
	pthread_mutex_unlock(&f->bg.lock);
	if (!past)
		return;
	/* checked, and with --repair cut, in one go on the writer */
	err = mds_write_own(f->bg.mds, apply_file_check, &fo);
	if (err == -ESTALE || err == -EBUSY)
		return;		/* changed, or open: its writes go on */
	fsck_report(f, AIFS_FSCK_PAST_SIZE,
		    "inode %llu: chunks past its size %llu",
		    (unsigned long long)inode->ino,
		    (unsigned long long)inode->size);
	if (!err && fo.cut)
		fsck_repaired(f, AIFS_FSCK_PAST_SIZE);
}

struct fsck_scan {
	struct mds_inode files[FSCK_FILES];
	unsigned int n;
};

static bool fsck_wants(const struct mds_inode *inode, void *arg)
{
	struct fsck_scan *scan = arg;

	if (!S_ISREG(inode->mode) || !inode->layout.target_count ||
	    (inode->layout.type != AIFS_LAYOUT_REPLICA &&
	     inode->layout.type != AIFS_LAYOUT_EC))
		return false;
	scan->files[scan->n++] = *inode;
	return true;
}

static int fsck_files(struct mds_fsck *f)
{
	struct fsck_scan *scan = malloc(sizeof(*scan));
	u64 cursor = 0;
	unsigned int i;
	int n = 0;

	if (!scan)
		return -ENOMEM;
	while (cursor != UINT64_MAX && n >= 0 && !mds_bg_stopping(&f->bg)) {
		scan->n = 0;
		n = mds_inode_scan(f->bg.mds, &cursor, FSCK_LOOK, FSCK_FILES,
				   fsck_wants, scan);
		for (i = 0; n > 0 && i < scan->n; i++)
			fsck_file(f, &scan->files[i]);
	}
	free(scan);
	return n < 0 ? n : mds_bg_stopping(&f->bg) ? -EINTR : 0;
}

/* ---- the pass, the thread, the handler ---- */

static void fsck_pass(struct mds_fsck *f)
{
	unsigned long long found = 0, repaired = 0;
	int err, k;

	aifs_info("fsck: a pass begins%s",
		  fsck_repairs(f) ? ", repairing" : "");
	err = fsck_tables(f);
	if (!err)
		err = fsck_servers(f);
	if (!err)
		err = fsck_files(f);
	pthread_mutex_lock(&f->bg.lock);
	f->tally.running = false;
	f->tally.finished = mds_now() / 1000000000;
	f->tally.passes++;
	f->tally.error = -err;
	for (k = 0; k < AIFS_FSCK_KINDS; k++) {
		found += f->tally.found[k];
		repaired += f->tally.repaired[k];
	}
	pthread_mutex_unlock(&f->bg.lock);
	if (err)
		aifs_warn("fsck: the pass ended early: %s", strerror(-err));
	aifs_info("fsck: %llu problems found, %llu repaired", found, repaired);
}

/* Under bg.lock: a RETIRED server due for cleaning, or NULL. */
static struct fsck_retired *retired_due(struct mds_fsck *f)
{
	unsigned int i;

	for (i = 0; i < f->nr_retired; i++)
		if (!f->retired[i].done &&
		    f->retired[i].retry_at <= aifs_now_ms())
			return &f->retired[i];
	return NULL;
}

/* The chunks of RETIRED server @id, deleted: 0 or -errno. */
static int fsck_clean_retired(struct mds_fsck *f, u32 id)
{
	int err;

	aifs_info("fsck: data server %u is RETIRED and back: its chunks go",
		  id);
	f->flags = AIFS_FSCK_REPAIR;
	f->cleaning = true;
	err = fsck_server(f, id);
	f->cleaning = false;
	if (err) {
		fsck_conn_failed(f, id);
		aifs_warn("fsck: data server %u: %s: its chunks go later", id,
			  strerror(-err));
	}
	return err;
}

static void *fsck_main(void *arg)
{
	struct mds_fsck *f = arg;
	struct fsck_retired *r;
	bool want;
	u32 id;
	int err;

	while (!mds_bg_wait(&f->bg, 1000)) {
		pthread_mutex_lock(&f->bg.lock);
		while ((r = retired_due(f))) {
			id = r->id;
			pthread_mutex_unlock(&f->bg.lock);
			err = fsck_clean_retired(f, id);
			pthread_mutex_lock(&f->bg.lock);
			r->done = !err;
			r->retry_at = aifs_now_ms() + FSCK_RETRY_MS;
		}
		want = f->want;
		f->want = false;
		f->flags = f->want_flags;
		pthread_mutex_unlock(&f->bg.lock);
		if (want)
			fsck_pass(f);
	}
	return NULL;
}

/*
 * RETIRED server @id speaks (registers, heartbeats): its chunks are
 * deleted once (again after an MDS restart, when it finds nothing).  Any
 * thread.
 */
void mds_fsck_retired_back(struct mds *mds, u32 id)
{
	struct mds_fsck *f = mds->fsck;
	bool added = false;
	unsigned int i;

	if (!f)
		return;
	pthread_mutex_lock(&f->bg.lock);
	for (i = 0; i < f->nr_retired && f->retired[i].id != id; i++)
		;
	if (i == f->nr_retired && i < FSCK_RETIRED) {
		f->retired[f->nr_retired++] = (struct fsck_retired){ .id = id };
		added = true;
	}
	pthread_mutex_unlock(&f->bg.lock);
	if (added)
		mds_bg_kick(&f->bg);
}

int mds_fsck_start(struct mds *mds)
{
	struct mds_fsck *f = calloc(1, sizeof(*f));
	int err;

	if (f)
		f->fixes = calloc(FSCK_MAX_FIXES, sizeof(*f->fixes));
	if (!f || !f->fixes) {
		free(f);
		return -ENOMEM;
	}
	mds->fsck = f;
	err = mds_bg_start(&f->bg, mds, fsck_main, f);
	if (err) {
		mds->fsck = NULL;
		free(f->fixes);
		free(f);
	}
	return err;
}

/* Before the writer stops: a pass may still use it. */
void mds_fsck_stop(struct mds *mds)
{
	struct mds_fsck *f = mds->fsck;

	if (!f)
		return;
	mds_bg_stop(&f->bg);
	mds->fsck = NULL;
	mds_dsconns_close(&f->ds);
	free(f->fixes);
	free(f);
}

static void fsck_begin(struct mds_fsck *f, u32 flags)
{
	u64 passes = f->tally.passes;

	f->tally = (struct fsck_tally){
		.running = true, .flags = flags, .passes = passes,
		.started = mds_now() / 1000000000,
	};
	f->text_len = 0;
	f->want = true;
	f->want_flags = flags;
}

static void fsck_rep(const struct fsck_tally *t, u32 text_len,
		     struct aifs_mds_fsck_rep *rep)
{
	int k;

	*rep = (struct aifs_mds_fsck_rep){
		.running = cpu_to_le32(t->running),
		.flags = cpu_to_le32(t->flags),
		.passes = cpu_to_le64(t->passes),
		.started = cpu_to_le64(t->started),
		.finished = cpu_to_le64(t->finished),
		.inodes = cpu_to_le64(t->inodes),
		.entries = cpu_to_le64(t->entries),
		.files = cpu_to_le64(t->files),
		.chunk_inodes = cpu_to_le64(t->chunk_inodes),
		.servers = cpu_to_le32(t->servers),
		.skipped = cpu_to_le32(t->skipped),
		.error = cpu_to_le32(t->error),
		.text_len = cpu_to_le32(text_len),
	};
	for (k = 0; k < AIFS_FSCK_KINDS; k++) {
		rep->found[k] = cpu_to_le64(t->found[k]);
		rep->repaired[k] = cpu_to_le64(t->repaired[k]);
	}
}

/* MDS_FSCK: start a pass (unless one runs), and say how it goes. */
int mds_handle_fsck(struct aifs_request *req)
{
	struct aifs_span parts[AIFS_MSG_MAX_PARTS] = { { NULL, 0 } };
	struct mds *mds = req->data;
	struct mds_fsck *f = mds->fsck;
	struct aifs_mds_fsck_rep rep;
	struct aifs_mds_fsck_req in;
	bool begun = false;
	char *text;
	u32 flags;
	int err;

	err = mds_decode(req, &in, sizeof(in), NULL);
	if (err)
		return err;
	flags = le32_to_cpu(in.flags);
	text = malloc(AIFS_FSCK_TEXT_MAX);
	if (!text)
		return -ENOMEM;
	pthread_mutex_lock(&f->bg.lock);
	if ((flags & AIFS_FSCK_START) && !f->tally.running && !f->want) {
		fsck_begin(f, flags);
		begun = true;
	}
	fsck_rep(&f->tally, f->text_len, &rep);
	memcpy(text, f->text, f->text_len);
	parts[0] = (struct aifs_span){ text, f->text_len };
	pthread_mutex_unlock(&f->bg.lock);
	if (begun)
		mds_bg_kick(&f->bg);
	err = mds_reply(req, &rep, sizeof(rep), parts);
	free(text);
	return err;
}
