// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Recovery: a data server back from OFFLINE missed the writes its peers
 * took without it, and the truncations and deletions queued for it, so it
 * is SYNCING (clustermap.c) and serves nothing.  It is sent the cuts
 * queued for it first (recovery_cuts()); then one thread walks the
 * inode table for each SYNCING server, a batch at a time from where it
 * stopped, and sends every regular file whose layout names the server a
 * CHUNK_SYNC, range after range, until the server says the inode is in
 * sync there (ds.md, "Catching up").  At the end of the table the server
 * is in sync: UP (or DRAINING).  Files made meanwhile are never placed on
 * a SYNCING server, so the walk misses none.
 *
 * Rebuild: a server OFFLINE for rebuild_delay_s has its copies made
 * again elsewhere, by the same walk.  Each file naming it gets, in each
 * group that held it, a new member picked as placement does (an UP
 * server, not of the file's layout if it can be, not of the group),
 * last in the group so that a member that serves stays primary (an EC
 * group's in the lost one's place: it holds that fragment, decoded):
 *
 *   1. CHUNK_SYNC BEGIN to the new member, with the new layout: it marks
 *      the inode and serves none of it until it has caught up;
 *   2. the new layout, one generation up, is committed;
 *   3. CHUNK_SYNC FENCE to the group's serving members: from now on they
 *      take no write made with an older layout (EREMCHG: the client
 *      fetches the layout again), and every write they took before is in
 *      what the new member copies;
 *   4. CHUNK_SYNC to the new member, range after range, as for a server
 *      that came back.
 *
 * Fencing before the commit would leave writers refused until the next
 * round if the MDS stopped in between.  The other way round, a stop after
 * the commit leaves the new member marked: after a while it asks the MDS
 * for the layout, fences the group itself and catches up on its own
 * (ds.md); a mark whose layout was never committed goes.
 *
 * A group with no member that serves has no one to copy from, and one
 * with nowhere to go waits for a server: such files are tried again in
 * the next round.  Once a round ends with no file naming the server, it
 * is RETIRED.  If it comes back before that, it is SYNCING as usual, for
 * the files that still name it.
 *
 * The walk is in memory: after an MDS restart a SYNCING server starts
 * again from the first inode, which only costs comparisons, and the
 * rebuild delay starts again.  A server that fails a call is left alone
 * for a pause that doubles up to RECOVERY_BACKOFF_MAX_MS, the others go
 * on.
 */
#include <stdlib.h>
#include <string.h>

#include "mds.h"

#define RECOVERY_POLL_MS	200
#define RECOVERY_CALL_MS	60000	/* a range of chunks pulled */
#define RECOVERY_SCAN		4096	/* inodes looked at per step */
#define RECOVERY_FILES		16	/* files synced per step */
#define RECOVERY_MAX_DS		64	/* connections kept */
#define REBUILD_AGAIN_MS	5000	/* a round that left files behind */

struct recovery_ds {
	struct mds_dsconn c;
	struct mds_sync_tally n;	/* this round */
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

/* The files whose layout names the server, for mds_inode_scan(). */
struct recovery_scan {
	u32 id;
	struct recovery_file *files;
	unsigned int n;
};

static bool recovery_wants(const struct mds_inode *inode, void *arg)
{
	struct recovery_scan *scan = arg;

	if (!S_ISREG(inode->mode) ||
	    (inode->layout.type != AIFS_LAYOUT_REPLICA &&
	     inode->layout.type != AIFS_LAYOUT_EC) ||
	    !mds_layout_names(&inode->layout, scan->id))
		return false;
	scan->files[scan->n].ino = inode->ino;
	scan->files[scan->n++].layout = inode->layout;
	return true;
}

/*
 * From inode @*cursor on, up to RECOVERY_FILES files whose layout names
 * @id into @files, looking at RECOVERY_SCAN inodes at most; *@cursor
 * moves past those looked at, to UINT64_MAX at the end of the table.
 */
static int recovery_scan(struct mds_recovery *r, u32 id, u64 *cursor,
			 struct recovery_file *files)
{
	struct recovery_scan scan = { .id = id, .files = files };

	return mds_inode_scan(r->bg.mds, cursor, RECOVERY_SCAN, RECOVERY_FILES,
			      recovery_wants, &scan);
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
	unsigned int g, t, w = mds_layout_width(l);
	unsigned int sc = le16_to_cpu(l->stripe_count);
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

/* CHUNK_SYNC of @f's inode from chunk @from, with @flags, on @ds. */
static int recovery_sync_call(struct mds_recovery *r, struct recovery_ds *ds,
			      const struct recovery_file *f, u32 from,
			      u32 flags, struct aifs_chunk_sync_rep *rep)
{
	return mds_chunk_sync(r->bg.mds, ds->c.conn, f->ino, &f->layout, from,
			      flags, RECOVERY_CALL_MS, rep);
}

/* CHUNK_SYNC of @f on @ds, range after range: 0 once it is in sync. */
static int recovery_sync_file(struct mds_recovery *r, struct recovery_ds *ds,
			      const struct recovery_file *f)
{
	int err;

	err = mds_chunk_sync_all(r->bg.mds, ds->c.conn, f->ino, &f->layout,
				 RECOVERY_CALL_MS, &ds->n);
	if (err == -EAGAIN && recovery_last_copy(r, ds->c.id, f)) {
		aifs_warn("data server %u holds the last copy of inode %llu: taken as it is",
			  ds->c.id, (unsigned long long)f->ino);
		return 0;
	}
	return err;
}

/* A rebuild of one file: its new layout, and who is told what. */
struct rebuild {
	struct recovery_file file;	/* the inode, with the new layout */
	u32 newcomers[AIFS_LAYOUT_MAX_TARGETS];
	unsigned int nr_new;
	u32 fenced[AIFS_LAYOUT_MAX_TARGETS];	/* serving members */
	unsigned int nr_fenced;
};

static void ids_add(u32 *ids, unsigned int *n, u32 id)
{
	if (!mds_ids_have(ids, *n, id))
		ids[(*n)++] = id;
}

/*
 * Group @g of @rb's layout without @lost: its other members in order,
 * then a new one; an EC group's new member takes the lost one's place,
 * which says which fragment it holds.  -EAGAIN when too few members
 * serve (none to copy from; fewer than K to decode from), -ENOSPC when
 * no server can take the place.
 */
static int rebuild_group(struct mds *mds, struct rebuild *rb, u32 lost,
			 unsigned int g)
{
	struct aifs_layout *l = &rb->file.layout;
	unsigned int w = mds_layout_width(l), n = le16_to_cpu(l->target_count);
	bool ec = l->type == AIFS_LAYOUT_EC;
	__le32 *group = &l->targets[g * w];
	u32 members[AIFS_EC_MAX_WIDTH], except[AIFS_LAYOUT_MAX_TARGETS], id;
	unsigned int i, at = w, nr = 0, nr_serving = 0;
	int err;

	for (i = 0; i < w; i++) {
		members[i] = le32_to_cpu(group[i]);
		if (members[i] == lost)
			at = i;
	}
	if (at == w)
		return 0;	/* a group the rebuild leaves as it is */
	for (i = 0; i < w; i++) {
		if (i != at && mds_map_serves(mds, members[i])) {
			ids_add(rb->fenced, &rb->nr_fenced, members[i]);
			nr_serving++;
		}
	}
	if (nr_serving < (ec ? l->ec_k : 1U))
		return -EAGAIN;
	for (i = 0; i < n; i++)
		except[nr++] = le32_to_cpu(l->targets[i]);
	err = mds_map_pick(mds, &id, 1, except, nr);
	if (err)
		err = mds_map_pick(mds, &id, 1, members, w);
	if (err)
		return err;
	if (!ec) {
		memmove(&group[at], &group[at + 1],
			(w - at - 1) * sizeof(*group));
		at = w - 1;
	}
	group[at] = cpu_to_le32(id);
	rb->newcomers[rb->nr_new++] = id;
	return 0;
}

static int rebuild_plan(struct mds *mds, struct rebuild *rb, u32 lost,
			const struct recovery_file *f)
{
	struct aifs_layout *l = &rb->file.layout;
	unsigned int g;
	int err = 0;

	memset(rb, 0, sizeof(*rb));
	rb->file = *f;
	for (g = 0; !err && g < le16_to_cpu(l->stripe_count); g++)
		err = rebuild_group(mds, rb, lost, g);
	l->generation = cpu_to_le32(le32_to_cpu(l->generation) + 1);
	return err;
}

/* A connection to server @id, for a rebuild. */
static struct recovery_ds *rebuild_conn(struct mds_recovery *r, u32 id,
					int *err)
{
	struct recovery_ds *ds = recovery_ds_get(r, id);
	struct aifs_ds_info info;

	*err = ds ? mds_map_get_ds(r->bg.mds, id, &info) : -ENOMEM;
	if (!*err)
		*err = mds_dsconn_connect(&r->bg, &ds->c, &info,
					  RECOVERY_CALL_MS);
	return ds;
}

/* CHUNK_SYNC with @flags (BEGIN or FENCE) to each of @ids. */
static int rebuild_tell(struct mds_recovery *r, const struct rebuild *rb,
			const u32 *ids, unsigned int n, u32 flags)
{
	struct aifs_chunk_sync_rep rep;
	struct recovery_ds *ds;
	unsigned int i;
	int err = 0;

	for (i = 0; !err && i < n; i++) {
		ds = rebuild_conn(r, ids[i], &err);
		if (!err)
			err = recovery_sync_call(r, ds, &rb->file, 0, flags,
						 &rep);
		if (err && ds)
			recovery_ds_failed(ds, rb->file.ino, err);
	}
	return err;
}

struct layout_swap {
	u64 ino;
	u32 old_gen;
	struct aifs_layout layout;
};

/*
 * Writer: the rebuilt layout, if the file still has the one it was made
 * from.  Not a change of the file's: no ctime, and caches stay.
 */
static int apply_layout_swap(struct mds_txn *t, struct mds_op *op)
{
	const struct layout_swap *sw = op->arg;
	struct mds_inode inode;
	int err;

	err = mds_inode_get(t, sw->ino, &inode);
	if (err)
		return err;
	if (le32_to_cpu(inode.layout.generation) != sw->old_gen)
		return -EAGAIN;		/* changed meanwhile: next round */
	inode.layout = sw->layout;
	return mds_inode_put(t, &inode);
}

/*
 * Rebuild @f around @lost (see the top of the file): 0 done (or the file
 * is gone), -EAGAIN / -ENOSPC to try in the next round, another error
 * when a server failed a call.
 */
static int rebuild_file(struct mds_recovery *r, struct recovery_ds *lost,
			const struct recovery_file *f)
{
	struct mds *mds = r->bg.mds;
	struct layout_swap sw = { .ino = f->ino };
	struct recovery_ds *ds;
	struct rebuild rb;
	unsigned int i;
	int err;

	err = rebuild_plan(mds, &rb, lost->c.id, f);
	if (!err)
		err = rebuild_tell(r, &rb, rb.newcomers, rb.nr_new,
				   AIFS_CHUNK_SYNC_BEGIN);
	if (err)
		return err;
	sw.old_gen = le32_to_cpu(f->layout.generation);
	sw.layout = rb.file.layout;
	err = mds_write_own(mds, apply_layout_swap, &sw);
	if (err)
		return err == -ESTALE ? 0 : err;
	aifs_fail_crash(AIFS_FAIL_MDS_REBUILD_CRASH, 0);
	/* committed: whatever fails now, the new members finish on their own */
	err = rebuild_tell(r, &rb, rb.fenced, rb.nr_fenced,
			   AIFS_CHUNK_SYNC_FENCE);
	for (i = 0; !err && i < rb.nr_new; i++) {
		ds = rebuild_conn(r, rb.newcomers[i], &err);
		if (!err)
			err = recovery_sync_file(r, ds, &rb.file);
		if (err && ds)
			recovery_ds_failed(ds, f->ino, err);
		if (ds) {
			lost->n.copied += ds->n.copied;
			ds->n.copied = ds->n.deleted = 0;
		}
	}
	return 0;
}

/* The walk for @ds ended in @round: it is in sync, or rebuilt around. */
static void recovery_round_end(struct mds_recovery *r, struct recovery_ds *ds,
			       bool rebuild, u32 round)
{
	u32 id = ds->c.id;
	int err;

	if (!rebuild)
		aifs_info("data server %u: %llu files synced, %llu chunks copied, %llu deleted",
			  id, (unsigned long long)ds->n.files,
			  (unsigned long long)ds->n.copied,
			  (unsigned long long)ds->n.deleted);
	else
		aifs_info("data server %u: %llu files rebuilt, %llu chunks copied, %llu left for later",
			  id, (unsigned long long)ds->n.files,
			  (unsigned long long)ds->n.copied,
			  (unsigned long long)ds->n.left);
	if (ds->n.left) {
		/* again from the first inode, after a pause */
		ds->c.retry_at = aifs_now_ms() + REBUILD_AGAIN_MS;
		ds->n = (struct mds_sync_tally){ 0 };
		mds_map_sync_cursor(r->bg.mds, id, round, 0, &ds->n);
		return;
	}
	err = mds_map_sync_done(r->bg.mds, id, round);
	if (err)
		aifs_err("data server %u: cannot mark it %s: %s", id,
			 rebuild ? "retired" : "in sync", strerror(-err));
}

/*
 * First of a round, the cuts queued for @ds that it missed: a copy taken
 * as it is has no peer's to take, and an EC member's catch-up takes its
 * peers' count of truncations but rebuilds only the stripes they hold,
 * keeping those they cut.  With them made first, neither serves a byte
 * cut (consistency.md, rule 13).
 */
static int recovery_cuts(struct mds_recovery *r, struct recovery_ds *ds)
{
	int err = mds_drain_cuts_on(r->bg.mds, ds->c.id, ds->c.conn);

	if (err && mds_dsconn_failed(&ds->c))
		aifs_warn("data server %u: the truncations queued for it: %s: trying again later",
			  ds->c.id, strerror(-err));
	return err;
}

/*
 * One step of the walk for @info: SYNCING, its files are synced on it;
 * OFFLINE (past the rebuild delay), they are rebuilt around it.
 */
static void recovery_step(struct mds_recovery *r,
			  const struct aifs_ds_info *info, u64 cursor,
			  u32 round)
{
	bool rebuild = info->state == cpu_to_le32(AIFS_DS_OFFLINE);
	struct recovery_file files[RECOVERY_FILES];
	u32 id = le32_to_cpu(info->id);
	struct recovery_ds *ds = recovery_ds_get(r, id);
	u64 next = cursor;
	int i, n, err;

	if (!ds || ds->c.retry_at > aifs_now_ms())
		return;
	if (!cursor) {
		/*
		 * a new round: a server back, its map entry changed, gets a
		 * new connection (mds_dsconn_connect())
		 */
		ds->n = (struct mds_sync_tally){ 0 };
		if (rebuild)
			aifs_info("data server %u: offline for the rebuild delay: its copies are made again elsewhere",
				  id);
	}
	n = recovery_scan(r, id, &next, files);
	err = n < 0 ? n : rebuild ? 0 :
	      mds_dsconn_connect(&r->bg, &ds->c, info,
				 RECOVERY_CALL_MS);
	if (!err && !rebuild && !cursor) {
		err = recovery_cuts(r, ds);
		if (err)
			return;
	}
	for (i = 0; !err && i < n; i++) {
		err = rebuild ? rebuild_file(r, ds, &files[i]) :
				recovery_sync_file(r, ds, &files[i]);
		if (rebuild && (err == -EAGAIN || err == -ENOSPC)) {
			ds->n.left++;	/* no one to copy from, or nowhere */
			err = 0;
		} else if (err) {
			recovery_ds_failed(ds, files[i].ino, err);
			/* again from this file */
			mds_map_sync_cursor(r->bg.mds, id, round, files[i].ino,
					    &ds->n);
			return;
		} else {
			ds->n.files++;
		}
	}
	if (err) {
		recovery_ds_failed(ds, 0, err);
		return;
	}
	ds->c.backoff_ms = 0;
	mds_map_sync_cursor(r->bg.mds, id, round, next, &ds->n);
	if (next == UINT64_MAX)
		recovery_round_end(r, ds, rebuild, round);
}

/* rebuild_delay_s in ms; UINT64_MAX for never. */
static u64 rebuild_delay_ms(const struct mds *mds)
{
	return mds->cfg->rebuild_delay_s ?
	       mds->cfg->rebuild_delay_s * 1000ULL : UINT64_MAX;
}

static void *recovery_main(void *arg)
{
	struct mds_recovery *r = arg;
	u64 delay = rebuild_delay_ms(r->bg.mds);
	struct aifs_ds_info info;
	u32 after, round;
	u64 cursor;

	do {
		for (after = 0;
		     !mds_map_next_recovering(r->bg.mds, after, delay, &info,
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

/* The highest inode number in the table, in *@ino (0: none). */
static int last_ino(struct mds *mds, u64 *ino)
{
	MDB_cursor *cur;
	struct mds_txn t;
	MDB_val k, v;
	int rc, err;

	*ino = 0;
	err = mds_read_begin(mds, &t);
	if (err)
		return err;
	err = mds_db_cursor(&t, MDS_DB_INODES, &cur);
	if (!err) {
		rc = mdb_cursor_get(cur, &k, &v, MDB_LAST);
		if (!rc)
			memcpy(ino, k.mv_data, sizeof(*ino));
		else if (rc != MDB_NOTFOUND)
			err = mds_db_errno(rc);
		mdb_cursor_close(cur);
	}
	mds_read_end(&t);
	return err;
}

/* Every SYNCING and OFFLINE server's entry (@n of them, to free), or NULL. */
static struct aifs_recovery_entry *recovery_entries(struct mds *mds,
						    unsigned int *n)
{
	struct aifs_recovery_entry *e;

	e = calloc(AIFS_MAP_MAX_DS, sizeof(*e));
	if (e)
		*n = mds_map_recovery(mds, rebuild_delay_ms(mds), e,
				      AIFS_MAP_MAX_DS);
	return e;
}

/* RECOVERY_GET: where recovery is, for each server it has work for. */
int mds_handle_recovery_get(struct aifs_request *req)
{
	struct aifs_span parts[AIFS_MSG_MAX_PARTS] = { { NULL, 0 } };
	struct aifs_recovery_rep rep = { 0 };
	struct mds *mds = req->data;
	struct aifs_recovery_entry *e;
	unsigned int n;
	u64 last;
	int err;

	err = last_ino(mds, &last);
	if (err)
		return err;
	e = recovery_entries(mds, &n);
	if (!e)
		return -ENOMEM;
	rep.next_ino = cpu_to_le64(last + 1);
	rep.count = cpu_to_le32(n);
	parts[0] = (struct aifs_span){ e, n * sizeof(*e) };
	err = mds_reply(req, &rep, sizeof(rep), parts);
	free(e);
	return err;
}

/* DS_REPAIRS: what a data server must repair, kept for REPAIRS_GET. */
int mds_handle_ds_repairs(struct aifs_request *req)
{
	struct aifs_span parts[AIFS_MSG_MAX_PARTS] = { { NULL, 0 } };
	struct aifs_ds_repairs_req in;
	int err;

	err = mds_decode(req, &in, sizeof(in), parts) ?:
	      mds_map_repairs_set(req->data, &in, parts[0].data);
	return err ?: mds_reply(req, NULL, 0, NULL);
}

/* REPAIRS_GET: every data server's last DS_REPAIRS with work in it. */
int mds_handle_repairs_get(struct aifs_request *req)
{
	struct aifs_span parts[AIFS_MSG_MAX_PARTS] = { { NULL, 0 } };
	struct aifs_repairs_rep rep = { 0 };
	struct aifs_repair_server *srv;
	struct aifs_repair_entry *list;
	unsigned int n, listed;
	int err = -ENOMEM;

	srv = calloc(AIFS_MAP_MAX_DS, sizeof(*srv));
	list = calloc(AIFS_MAP_MAX_DS * AIFS_REPAIR_LIST_MAX, sizeof(*list));
	if (srv && list) {
		n = mds_map_repairs(req->data, srv, list, &listed);
		rep.servers = cpu_to_le32(n);
		rep.count = cpu_to_le32(listed);
		parts[0] = (struct aifs_span){ srv, n * sizeof(*srv) };
		parts[1] = (struct aifs_span){ list, listed * sizeof(*list) };
		err = mds_reply(req, &rep, sizeof(rep), parts);
	}
	free(list);
	free(srv);
	return err;
}

/* What RECOVERY_GET tells of each server, as gauges labelled by server. */
#define RECOVERY_METRIC(name, help, field) \
	AIFS_METRIC_FIELD(name, "gauge", help, struct aifs_recovery_entry, field)

static const struct aifs_metric_field recovery_metrics[] = {
	RECOVERY_METRIC("aifs_mds_recovery_round",
			"The recovery round of a SYNCING or OFFLINE server.",
			round),
	RECOVERY_METRIC("aifs_mds_rebuild_in_seconds",
			"Seconds until an OFFLINE server's chunks are rebuilt elsewhere (0: now or SYNCING; 4294967295: never).",
			rebuild_in),
	RECOVERY_METRIC("aifs_mds_recovery_files",
			"Files recovery walked for a server this round.", files),
	RECOVERY_METRIC("aifs_mds_recovery_copied",
			"Chunks copied to a server this round.", copied),
	RECOVERY_METRIC("aifs_mds_recovery_deleted",
			"Stale chunks deleted on a server this round.", deleted),
	RECOVERY_METRIC("aifs_mds_recovery_left",
			"Chunks a server could not get yet this round.", left),
};

/*
 * The @fields of @n entries of @size bytes at @base, a series per entry,
 * labelled by @label().
 */
static void server_metrics(FILE *out, const struct aifs_metric_field *fields,
			   size_t nr_fields, const void *base, size_t size,
			   unsigned int n,
			   void (*label)(const void *e, char *buf, size_t len))
{
	const struct aifs_metric_field *f;
	char labels[64];
	unsigned int i;

	for (f = fields; f < fields + nr_fields; f++) {
		aifs_metric_head(out, f->name, f->type, f->help);
		for (i = 0; i < n; i++) {
			const void *e = (const u8 *)base + i * size;

			label(e, labels, sizeof(labels));
			aifs_metric_u64(out, f->name, labels,
					aifs_metric_field_value(f, e));
		}
	}
}

static void recovery_label(const void *arg, char *buf, size_t len)
{
	const struct aifs_recovery_entry *e = arg;

	snprintf(buf, len, "ds=\"%u\",state=\"%s\"", le32_to_cpu(e->id),
		 aifs_ds_state_name(le32_to_cpu(e->state)));
}

/*
 * Every server recovery has work for (SYNCING ones catching up, OFFLINE
 * ones waiting for their rebuild), labelled by id and state.
 */
void mds_recovery_metrics(struct mds *mds, FILE *out)
{
	struct aifs_recovery_entry *e;
	unsigned int n;

	e = recovery_entries(mds, &n);
	if (!e)
		return;
	server_metrics(out, recovery_metrics, ARRAY_SIZE(recovery_metrics), e,
		       sizeof(*e), n, recovery_label);
	free(e);
}

/*
 * What each data server said it must repair, as gauges labelled by
 * server; copies with no source are an alert: nothing mends them until a
 * copy they can be taken from is back.
 */
#define REPAIRS_METRIC(name, help, field) \
	AIFS_METRIC_FIELD(name, "gauge", help, struct aifs_repair_server, field)

static const struct aifs_metric_field repairs_metrics[] = {
	REPAIRS_METRIC("aifs_mds_chunks_to_repair",
		       "Chunk copies a data server last said it must repair.",
		       marked),
	REPAIRS_METRIC("aifs_mds_chunks_without_source",
		       "Of them, those no peer had a copy for when last tried.",
		       no_source),
};

static void repairs_label(const void *arg, char *buf, size_t len)
{
	const struct aifs_repair_server *srv = arg;

	snprintf(buf, len, "ds=\"%u\"", le32_to_cpu(srv->id));
}

void mds_repairs_metrics(struct mds *mds, FILE *out)
{
	struct aifs_repair_server *srv;
	struct aifs_repair_entry *list;
	unsigned int n, listed;

	srv = calloc(AIFS_MAP_MAX_DS, sizeof(*srv));
	list = calloc(AIFS_MAP_MAX_DS * AIFS_REPAIR_LIST_MAX, sizeof(*list));
	n = srv && list ? mds_map_repairs(mds, srv, list, &listed) : 0;
	server_metrics(out, repairs_metrics, ARRAY_SIZE(repairs_metrics), srv,
		       sizeof(*srv), n, repairs_label);
	free(list);
	free(srv);
}
