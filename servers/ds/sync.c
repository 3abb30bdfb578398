// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Catching up a whole inode, for a server that was away (SYNCING) or that
 * a layout names anew: CHUNK_LIST says which chunks of an inode a server
 * holds, and CHUNK_SYNC, from the MDS, makes this server's copies of an
 * inode's chunks those of its replica group, a range of chunk indexes at
 * a time:
 *
 *   1. list our chunks of the inode, then those of a peer of each group
 *      of the layout that holds us (one that serves: a SYNCING or
 *      unleased peer answers ESTALE and the next is asked);
 *   2. a chunk the peer holds is compared (version, length, CRCs) and,
 *      where it differs or is missing here, pulled through the resync
 *      queue (resync.c), which we wait for: the peer's copy replaces
 *      ours even if older, but only ours as compared, never one a
 *      forward moved on since (the pull read the peer before it);
 *   3. a chunk only we hold stays, unless the peer has done truncations
 *      of the inode that we have not (it was cut while we were away):
 *      it goes.  Listing ours first means a chunk a write made meanwhile
 *      is on the peer (a primary writes before it forwards), and is never
 *      taken for one of those; one written again after the peer was
 *      listed reached us as a gap, and our copy, stale, waits for a
 *      version created under the cut: it stays (ds_chunk_delete() with
 *      the peer's fence), and its pull fills it;
 *   4. once the inode is done, we take the peers' truncation count, so
 *      that cuts the MDS still has queued for us do not cut again what
 *      was written after them.
 *
 * A rebuild (the MDS's recovery.c) makes this server a new member of an
 * inode's group with CHUNK_SYNC AIFS_CHUNK_SYNC_BEGIN before the layout
 * naming it is committed: the inode gets a catch-up mark, a file named
 * by its number in data_dir/catchup, and until a CHUNK_SYNC finds it in
 * sync the server serves none of its chunks, since a chunk it lacks is
 * not a hole.  ds->catching_up counts the marks, so that a server with
 * none looks nothing up.  The mark keeps the layout, so that the server
 * can finish on its own what the MDS began (below).
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ds.h"

static void ds_catchup_path(const struct ds *ds, u64 ino, char *path,
			    size_t size)
{
	snprintf(path, size, "%s/catchup/%016llx", ds->cfg.data_dir,
		 (unsigned long long)ino);
}

/* The catch-up marks of the data directory, counted. */
int ds_catchup_init(struct ds *ds)
{
	char path[PATH_MAX];
	int err;

	snprintf(path, sizeof(path), "%s/catchup", ds->cfg.data_dir);
	err = ds_marks_init(path, &ds->catching_up);
	if (!err && atomic_load(&ds->catching_up))
		aifs_info("%d inodes still to catch up from their groups",
			  atomic_load(&ds->catching_up));
	return err;
}

/*
 * Set the catch-up mark of @ino, durably, keeping @layout (the thread
 * below syncs with it); with @layout NULL, clear it.
 */
static int ds_catchup_mark(struct ds *ds, u64 ino,
			   const struct aifs_layout *layout)
{
	char path[PATH_MAX];
	bool fresh;
	int err;

	ds_catchup_path(ds, ino, path, sizeof(path));
	if (!layout) {
		if (!unlink(path)) {
			atomic_fetch_sub(&ds->catching_up, 1);
			return 0;
		}
		return errno == ENOENT ? 0 : -errno;
	}
	fresh = access(path, F_OK) != 0;
	err = ds_file_put(path, layout, sizeof(*layout), 0);
	if (!err && fresh)
		atomic_fetch_add(&ds->catching_up, 1);
	return err;
}

static bool ds_catching_up(struct ds *ds, u64 ino)
{
	char path[PATH_MAX];

	if (!atomic_load(&ds->catching_up))
		return false;
	ds_catchup_path(ds, ino, path, sizeof(path));
	return !access(path, F_OK);
}

/*
 * Whether this server serves the chunks of @ino: under its lease, and
 * not while it catches up with the inode's group.
 */
bool ds_serves_inode(struct ds *ds, u64 ino)
{
	return ds_serving(ds) && !ds_catching_up(ds, ino);
}

/* A group of the layout that holds this server, and its other members. */
struct sync_group {
	unsigned int g;
	u32 nr_peers;
	u32 peers[DS_MAX_PEERS];
	/* the chunks of the peer that answered, of this group */
	struct aifs_chunk_entry *theirs;
	u32 nr_theirs;
	u32 limit;		/* indexes past it are not listed */
	u32 fence;
};

/* One chunk to look at. */
struct sync_item {
	u32 index;
	struct sync_group *group;
	const struct aifs_chunk_entry *theirs;	/* NULL: the peer lacks it */
	const struct aifs_chunk_entry *ours;	/* NULL: we lack it */
};

struct sync_call {
	struct ds *ds;
	const struct aifs_chunk_sync_req *req;
	u64 ino;
	u32 from;
	struct sync_group groups[AIFS_LAYOUT_MAX_TARGETS];
	unsigned int nr_groups;
	struct aifs_chunk_entry *ours;
	u32 nr_ours;
	u32 ours_limit;
	u32 fence;		/* ours */
	struct aifs_chunk_sync_rep rep;
};

/* CHUNK_LIST of @ino from @from to @peer, into @g. */
static int sync_peer_list(struct sync_call *s, u32 peer, struct sync_group *g)
{
	struct aifs_chunk_list_req req = {
		.id = s->req->id,
		.max = cpu_to_le32(AIFS_CHUNK_LIST_MAX),
	};
	struct aifs_span parts[AIFS_MSG_MAX_PARTS];
	struct aifs_chunk_list_rep rep;
	struct aifs_reply reply;
	u32 i, n, sc = le16_to_cpu(s->req->layout.stripe_count);
	int err;

	req.id.index = cpu_to_le32(s->from);
	err = ds_peer_ask(s->ds, peer, AIFS_OP_CHUNK_LIST, &req, sizeof(req),
			  &reply);
	if (!err)
		err = aifs_decode_chunk_list_rep(reply.payload, reply.len, &rep,
						 parts);
	if (err)
		goto out;
	n = le32_to_cpu(rep.count);
	g->theirs = calloc(n ? n : 1, sizeof(*g->theirs));
	if (!g->theirs) {
		err = -ENOMEM;
		goto out;
	}
	g->nr_theirs = 0;
	g->limit = UINT32_MAX;
	for (i = 0; i < n; i++) {
		memcpy(&g->theirs[g->nr_theirs], (const u8 *)parts[0].data +
		       i * AIFS_CHUNK_ENTRY_SIZE, AIFS_CHUNK_ENTRY_SIZE);
		if (le32_to_cpu(g->theirs[g->nr_theirs].index) < s->from)
			continue;	/* not asked for */
		if (i == n - 1 && (le32_to_cpu(rep.flags) & AIFS_CHUNK_LIST_MORE))
			g->limit = le32_to_cpu(g->theirs[g->nr_theirs].index);
		if (le32_to_cpu(g->theirs[g->nr_theirs].index) % sc == g->g &&
		    !le16_to_cpu(g->theirs[g->nr_theirs].fragment))
			g->nr_theirs++;
	}
	g->fence = le32_to_cpu(rep.fence);
out:
	aifs_reply_free(&reply);
	return err;
}

/* The chunks of a peer of group @g: from the first that serves. */
static int sync_group_list(struct sync_call *s, struct sync_group *g)
{
	u32 i;
	int err = -EAGAIN;

	u32 source;

	for (i = 0; i < g->nr_peers; i++) {
		err = sync_peer_list(s, g->peers[i], g);
		if (!err) {
			/* the source goes first in the resync's list */
			source = g->peers[i];
			g->peers[i] = g->peers[0];
			g->peers[0] = source;
			return 0;
		}
		aifs_dbg("sync of inode %llx: ds %u: %s",
			 (unsigned long long)s->ino, g->peers[i],
			 strerror(-err));
	}
	return err;
}

/* The groups of the layout that hold this server: -EINVAL if none. */
static int sync_groups(struct sync_call *s)
{
	const struct aifs_layout *l = &s->req->layout;
	u32 self = ds_self_id(s->ds), t, w = l->replicas;
	unsigned int g, sc = le16_to_cpu(l->stripe_count);
	struct sync_group *grp;
	bool member;

	if (l->type != AIFS_LAYOUT_REPLICA)
		return -EOPNOTSUPP;
	if (!w || le16_to_cpu(l->target_count) != sc * w)
		return -EINVAL;
	for (g = 0; g < sc; g++) {
		grp = &s->groups[s->nr_groups];
		*grp = (struct sync_group){ .g = g };
		member = false;
		for (t = g * w; t < (g + 1) * w; t++) {
			if (le32_to_cpu(l->targets[t]) == self)
				member = true;
			else if (grp->nr_peers < DS_MAX_PEERS)
				grp->peers[grp->nr_peers++] =
					le32_to_cpu(l->targets[t]);
		}
		if (member)
			s->nr_groups++;
	}
	return s->nr_groups ? 0 : -EINVAL;
}

static int sync_item_cmp(const void *a, const void *b)
{
	const struct sync_item *x = a, *y = b;

	return x->index < y->index ? -1 : x->index > y->index;
}

/*
 * The chunks to look at, by index: what the peers list, and ours of
 * their groups up to where their lists end.  Their number, or -ENOMEM.
 */
static int sync_items(struct sync_call *s, struct sync_item **itemsp)
{
	u32 sc = le16_to_cpu(s->req->layout.stripe_count), i, j, n = 0, room = 0;
	struct sync_item *items = NULL, *grown;
	struct sync_group *g;

	for (i = 0; i < s->nr_groups; i++)
		room += s->groups[i].nr_theirs;
	room += s->nr_ours;
	items = calloc(room ? room : 1, sizeof(*items));
	if (!items)
		return -ENOMEM;
	for (i = 0; i < s->nr_groups; i++) {
		g = &s->groups[i];
		for (j = 0; j < g->nr_theirs; j++)
			items[n++] = (struct sync_item){
				.index = le32_to_cpu(g->theirs[j].index),
				.group = g, .theirs = &g->theirs[j] };
	}
	for (j = 0; j < s->nr_ours; j++) {
		u32 index = le32_to_cpu(s->ours[j].index);

		if (le16_to_cpu(s->ours[j].fragment))
			continue;
		for (i = 0; i < s->nr_groups; i++)
			if (s->groups[i].g == index % sc)
				break;
		if (i == s->nr_groups || index > s->groups[i].limit)
			continue;	/* not ours to keep, or not listed yet */
		items[n++] = (struct sync_item){
			.index = index, .group = &s->groups[i],
			.ours = &s->ours[j] };
	}
	qsort(items, n, sizeof(*items), sync_item_cmp);
	/* one item per index: theirs and ours together */
	for (i = 0, j = 0; i < n; i++) {
		if (j && items[j - 1].index == items[i].index) {
			if (items[i].theirs)
				items[j - 1].theirs = items[i].theirs;
			if (items[i].ours)
				items[j - 1].ours = items[i].ours;
			continue;
		}
		items[j++] = items[i];
	}
	grown = realloc(items, (j ? j : 1) * sizeof(*items));
	*itemsp = grown ? grown : items;
	return j;
}

/* CRC32Cs of the peer's copy equal ours (version and length are). */
static bool sync_same_crcs(struct sync_call *s, const struct sync_item *it)
{
	struct aifs_chunk_checksum_req req = { .id = s->req->id };
	u32 nr = DS_BLOCKS(le32_to_cpu(it->theirs->length)), i;
	struct aifs_span parts[AIFS_MSG_MAX_PARTS];
	struct iovec iov = { &req, sizeof(req) };
	struct aifs_chunk_checksum_rep rep;
	u32 crcs[AIFS_MAX_BLOCKS];
	struct aifs_reply reply;
	struct ds_lock lock;
	struct ds_chunk c;
	bool same = false;
	int err;

	if (!nr)
		return true;
	req.id.index = cpu_to_le32(it->index);
	req.id.fragment = 0;
	req.nr_blocks = cpu_to_le32(nr);
	err = ds_peer_call(s->ds, it->group->peers[0], AIFS_OP_CHUNK_CHECKSUM,
			   &iov, 1, &reply);
	if (!err && reply.status)
		err = -(int)reply.status;
	if (!err)
		err = aifs_decode_chunk_checksum_rep(reply.payload, reply.len,
						     &rep, parts);
	if (err || le32_to_cpu(rep.count) != nr ||
	    le64_to_cpu(rep.version) != le64_to_cpu(it->theirs->version))
		goto out;
	ds_chunk_lock(s->ds, &req.id, false, &lock);
	if (!ds_chunk_open(s->ds, &req.id, 0, &c)) {
		same = c.meta.version == le64_to_cpu(rep.version) &&
		       !ds_crcs_load(&c, 0, nr, crcs);
		for (i = 0; same && i < nr; i++)
			same = crcs[i] == aifs_span_le32(&parts[0], i);
		ds_chunk_close(&c, 0);
	}
	ds_chunk_unlock(s->ds, &lock);
out:
	aifs_reply_free(&reply);
	return same;
}

/* Whether our copy of @it is the peer's, as far as the lists tell. */
static bool sync_in_step(struct sync_call *s, const struct sync_item *it)
{
	const struct aifs_chunk_entry *o = it->ours, *t = it->theirs;

	if (!o || (le16_to_cpu(o->flags) & AIFS_CHUNK_STALE) ||
	    o->version != t->version || o->length != t->length)
		return false;
	return sync_same_crcs(s, it);
}

/*
 * The peer's copy of @it is stale (it missed a write: a forward found a
 * gap; or it is damaged, marked stale at its own version) and ours is
 * whole and at least as new: ours has every write acknowledged (one
 * acknowledged without the peer was written here), and the peer catches
 * up from us once we serve.  Waiting for the peer instead would wait for
 * ever when we are its only source.
 */
static bool sync_newer_here(const struct sync_item *it)
{
	const struct aifs_chunk_entry *o = it->ours, *t = it->theirs;

	return o && !(le16_to_cpu(o->flags) & AIFS_CHUNK_STALE) &&
	       le64_to_cpu(o->version) >= le64_to_cpu(t->version);
}

/* Our copy of @index is whole and at least at @version. */
static bool sync_caught_up(struct sync_call *s, u32 index, u64 version)
{
	struct aifs_chunk_id id = s->req->id;
	struct ds_lock lock;
	struct ds_chunk c;
	bool ok = false;

	id.index = cpu_to_le32(index);
	id.fragment = 0;
	ds_chunk_lock(s->ds, &id, false, &lock);
	if (!ds_chunk_open(s->ds, &id, 0, &c)) {
		ok = !(c.meta.flags & DS_META_STALE) &&
		     c.meta.version >= version;
		ds_chunk_close(&c, 0);
	}
	ds_chunk_unlock(s->ds, &lock);
	return ok;
}

/*
 * One chunk: 0 when ours is the group's (copied or deleted if need be),
 * -EAGAIN when it cannot be yet (the peer's copy is stale itself, or the
 * pull failed).
 */
static int sync_item(struct sync_call *s, const struct sync_item *it)
{
	struct aifs_chunk_id id = s->req->id;
	u64 version;

	id.index = cpu_to_le32(it->index);
	id.fragment = 0;
	if (!it->theirs) {
		/* cut while we were away: the peer did truncations we did not */
		if (it->group->fence <= s->fence)
			return 0;
		s->rep.deleted = cpu_to_le32(le32_to_cpu(s->rep.deleted) + 1);
		return ds_chunk_delete(s->ds, &id, 0, it->group->fence);
	}
	if (le16_to_cpu(it->theirs->flags) & AIFS_CHUNK_STALE)
		return sync_newer_here(it) ? 0 : -EAGAIN;
	if (sync_in_step(s, it))
		return 0;
	version = le64_to_cpu(it->theirs->version);
	ds_resync_request(s->ds, &id, le32_to_cpu(s->req->layout.chunk_size),
			  version, it->ours ? le64_to_cpu(it->ours->version) : 0,
			  it->group->fence, it->group->peers,
			  it->group->nr_peers);
	ds_resync_wait(s->ds, &id);
	if (!sync_caught_up(s, it->index, version))
		return -EAGAIN;
	s->rep.copied = cpu_to_le32(le32_to_cpu(s->rep.copied) + 1);
	return 0;
}

/* Done with the inode: take the truncations the peers have done. */
static u32 sync_fence(const struct sync_call *s)
{
	u32 fence = UINT32_MAX, i;

	for (i = 0; i < s->nr_groups; i++)
		if (s->groups[i].nr_peers && s->groups[i].fence < fence)
			fence = s->groups[i].fence;
	return fence;
}

/**
 * ds_sync_done - an inode is in sync here
 * @ds: this server
 * @ino: the inode
 * @fence: its peers' last truncation (the least of them), UINT32_MAX when
 *         none said: their cuts are in what was copied or rebuilt
 *
 * Return: 0 once recorded and the inode's catch-up mark is gone.
 */
int ds_sync_done(struct ds *ds, u64 ino, u32 fence)
{
	int err = fence == UINT32_MAX ? 0 : ds_inode_raise(ds, ino, fence, 0);

	return err ? err : ds_catchup_mark(ds, ino, NULL);
}

/**
 * ds_sync_pass - whether a range of a catch-up pass over @ino may go on
 * @ds: this server
 * @ino: the inode
 * @from: the range's first index (0: a pass begins)
 * @fence: the peers' count of truncations the range listed (UINT32_MAX:
 *         no peer)
 *
 * A pass takes its peers' count at its end (ds_sync_done()), so that the
 * cuts the MDS still has queued for us are taken for done.  That is true
 * only if every range compared our chunks with the peers' after those
 * cuts: a truncation between two ranges would leave a chunk of an
 * earlier one uncut here for good (found by the nemesis, replicas seed
 * 949858: a copy pulled before an O_TRUNC kept its bytes, and served
 * them).  So a pass keeps the count it began with in the inode's record,
 * and a later range that lists another starts the pass over.
 *
 * Return: 0 to go on, 1 to start over from index 0, or -errno.
 */
int ds_sync_pass(struct ds *ds, u64 ino, u32 from, u32 fence)
{
	struct ds_inode_rec rec;
	struct ds_lock lock;
	int err;

	if (fence == UINT32_MAX)
		return 0;
	ds_inode_lock(ds, ino, &lock);
	err = ds_inode_load(ds, ino, &rec);
	if (!err && rec.listed != fence) {
		if (from) {
			err = 1;
		} else {
			rec.listed = fence;
			err = ds_inode_store(ds, ino, &rec);
		}
	}
	ds_chunk_unlock(ds, &lock);
	if (err > 0)
		aifs_dbg("sync of inode %llx from %u: its group made a truncation since the pass began: again from the first chunk",
			 (unsigned long long)ino, from);
	return err;
}

/* Lists, then up to @max items from @from: @s->rep. */
static int sync_range(struct sync_call *s)
{
	u32 max = le32_to_cpu(s->req->max), bound = UINT32_MAX, i;
	struct sync_item *items = NULL;
	struct ds_inode_rec rec;
	bool more;
	int n, err;

	err = ds_inode_load(s->ds, s->ino, &rec);
	if (err)
		return err;
	s->fence = rec.fence;
	/* ours first: see the top of the file */
	n = ds_store_list(s->ds, s->ino, s->from, AIFS_CHUNK_LIST_MAX, s->ours,
			  &more);
	if (n < 0)
		return n;
	s->nr_ours = n;
	s->ours_limit = more ? le32_to_cpu(s->ours[n - 1].index) : UINT32_MAX;
	for (i = 0; i < s->nr_groups; i++) {
		s->groups[i].limit = UINT32_MAX;
		if (!s->groups[i].nr_peers)
			continue;	/* one copy: nothing to catch up with */
		err = sync_group_list(s, &s->groups[i]);
		if (err)
			return err == -ENOMEM ? err : -EAGAIN;
		if (s->groups[i].limit < bound)
			bound = s->groups[i].limit;
	}
	if (s->ours_limit < bound)
		bound = s->ours_limit;
	err = ds_sync_pass(s->ds, s->ino, s->from, sync_fence(s));
	if (err)
		return err > 0 ? 0 : err;	/* next 0: again */
	n = sync_items(s, &items);
	if (n < 0)
		return n;
	aifs_fail_pause(AIFS_FAIL_DS_SYNC_PAUSE, 0);
	if ((u32)n > max)
		bound = items[max].index - 1 < bound ? items[max].index - 1 :
						       bound;
	s->rep.next = cpu_to_le32(AIFS_CHUNK_SYNC_DONE);
	for (i = 0; i < (u32)n && items[i].index <= bound && !err; i++) {
		err = sync_item(s, &items[i]);
		if (err == -EAGAIN)
			s->rep.next = cpu_to_le32(items[i].index);
	}
	free(items);
	if (err)
		return err == -EAGAIN ? 0 : err;
	if (bound != UINT32_MAX) {
		s->rep.next = cpu_to_le32(bound + 1);
		return 0;
	}
	return ds_sync_done(s->ds, s->ino, sync_fence(s));
}

static void sync_call_free(struct sync_call *s)
{
	unsigned int i;

	for (i = 0; i < s->nr_groups; i++)
		free(s->groups[i].theirs);
	free(s->ours);
}

static int ds_sync_reply(struct aifs_request *req,
			 const struct aifs_chunk_sync_rep *rep)
{
	return ds_reply_fixed(req, rep, sizeof(*rep));
}

/* One range of a sync of this server's copies, as @r asks: @rep. */
static int ds_sync_run(struct ds *ds, const struct aifs_chunk_sync_req *r,
		       struct aifs_chunk_sync_rep *rep)
{
	struct sync_call *s;
	int err;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->ds = ds;
	s->req = r;
	s->ino = le64_to_cpu(r->id.ino);
	s->from = le32_to_cpu(r->id.index);
	s->ours = calloc(AIFS_CHUNK_LIST_MAX, sizeof(*s->ours));
	err = s->ours ? sync_groups(s) : -ENOMEM;
	if (!err)
		err = sync_range(s);
	if (!err) {
		aifs_dbg("sync of inode %llx from %u: %u copied, %u deleted, next %u",
			 (unsigned long long)s->ino, s->from,
			 le32_to_cpu(s->rep.copied), le32_to_cpu(s->rep.deleted),
			 le32_to_cpu(s->rep.next));
		*rep = s->rep;
	}
	sync_call_free(s);
	free(s);
	return err;
}

/* A sync of this server's copies, or of its EC fragments (ec.c). */
static int ds_sync_layout(struct ds *ds, const struct aifs_chunk_sync_req *r,
			  struct aifs_chunk_sync_rep *rep)
{
	if (r->layout.type == AIFS_LAYOUT_EC)
		return ds_ec_sync(ds, r, rep);
	return ds_sync_run(ds, r, rep);
}

/* CHUNK_SYNC, from the MDS: this server's copies of an inode's chunks. */
static int ds_sync_handler(struct aifs_request *req)
{
	struct aifs_chunk_sync_rep rep = { 0 };
	struct aifs_chunk_sync_req r;
	struct ds *ds = req->data;
	u64 ino;
	int err;

	err = aifs_decode_chunk_sync_req(req->payload, req->payload_len, &r,
					 NULL);
	if (!err)
		err = ds_check_id(ds, &r.id);
	if (err)
		return err;
	ino = le64_to_cpu(r.id.ino);
	err = ds_inode_raise(ds, ino, 0, le32_to_cpu(r.layout.generation));
	if (!err && (le32_to_cpu(r.flags) & AIFS_CHUNK_SYNC_BEGIN))
		err = ds_catchup_mark(ds, ino, &r.layout);
	if (!err && !r.flags)
		err = ds_sync_layout(ds, &r, &rep);
	else
		rep.next = r.id.index;	/* a rebuild's step: nothing looked at */
	/* a new member with no one to copy from is never the last copy */
	if ((err == -EAGAIN || (!err && !r.flags && rep.next == r.id.index &&
				!rep.copied && !rep.deleted)) &&
	    ds_catching_up(ds, ino))
		err = -ENODATA;
	return err ? err : ds_sync_reply(req, &rep);
}

/*
 * Catching up on our own: an inode whose mark is older than
 * CATCHUP_AFTER_S (the MDS's CHUNK_SYNCs did not finish: the MDS
 * stopped, a peer could not give a chunk) is synced range after range
 * by a thread that looks every CATCHUP_POLL_S, with the layout the MDS
 * has now, after fencing the group's other members.
 */
#define CATCHUP_AFTER_S		30
#define DS_SYNC_RESTARTS	3	/* passes begun again, then later */
#define CATCHUP_POLL_S		10

struct ds_catchup {
	pthread_t thread;
	pthread_mutex_t lock;	/* for @wake */
	pthread_cond_t wake;
	atomic_bool stop;
};

/*
 * The layout of @ino now, once the rebuild that marked it (generation
 * @gen) is committed: -EAGAIN before (it may never be, if the MDS
 * stopped before its commit: the mark stays, harmless, as no layout
 * names us), -ENOENT when a layout as new no longer names this server
 * or the file is gone.
 */
static int ds_catchup_layout(struct ds *ds, u64 ino, u32 gen,
			     struct aifs_chunk_sync_req *r)
{
	struct sync_call s = { .ds = ds, .req = r };
	int err;

	err = ds_mds_layout(ds, ino, &r->layout);
	if (err)
		return err == -ESTALE ? -ENOENT : err;
	if (le32_to_cpu(r->layout.generation) < gen)
		return -EAGAIN;
	if (r->layout.type == AIFS_LAYOUT_EC)
		return ds_ec_peers(ds, &r->layout, NULL) < 0 ? -ENOENT : 0;
	return sync_groups(&s) ? -ENOENT : 0;
}

/*
 * CHUNK_SYNC FENCE of @r's layout to the other members of our groups:
 * they refuse writes made with older layouts before we copy from them
 * (the MDS may have stopped before it told them).  A member the MDS
 * counts out learns it when it catches up.
 */
static int ds_catchup_fence(struct ds *ds, const struct aifs_chunk_sync_req *r)
{
	struct aifs_chunk_sync_req fence = *r;
	struct sync_call s = { .ds = ds, .req = r };
	u32 peers[AIFS_LAYOUT_MAX_TARGETS];
	struct aifs_reply reply;
	unsigned int g, i;
	int n = 0, err = 0;

	if (r->layout.type == AIFS_LAYOUT_EC) {
		n = ds_ec_peers(ds, &r->layout, peers);
		err = n < 0 ? n : 0;
	} else {
		err = sync_groups(&s);
		for (g = 0; !err && g < s.nr_groups; g++)
			for (i = 0; i < s.groups[g].nr_peers; i++)
				peers[n++] = s.groups[g].peers[i];
	}
	fence.flags = cpu_to_le32(AIFS_CHUNK_SYNC_FENCE);
	for (i = 0; !err && i < (unsigned int)n; i++) {
		err = ds_peer_ask(ds, peers[i], AIFS_OP_CHUNK_SYNC, &fence,
				  sizeof(fence), &reply);
		aifs_reply_free(&reply);
		if (err && ds_peer_out(ds, peers[i]))
			err = 0;
	}
	return err;
}

/*
 * Catch up with @ino on our own: with the layout the MDS has now (the
 * mark's, or newer), once the group is fenced; a mark whose rebuild was
 * not committed goes.
 */
static void ds_catchup_inode(struct ds *ds, u64 ino, const char *path)
{
	struct aifs_chunk_sync_req r = {
		.id.ino = cpu_to_le64(ino),
		.max = cpu_to_le32(AIFS_CHUNK_LIST_MAX),
	};
	struct aifs_chunk_sync_rep rep;
	struct aifs_layout marked;
	u32 from = 0, next = 0, restarts = 0;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	err = ds_pread_all(fd, &marked, sizeof(marked), 0) ? -EIO : 0;
	close(fd);
	memcpy(r.id.fs_uuid, ds->ident.fs_uuid, sizeof(r.id.fs_uuid));
	if (!err)
		err = ds_catchup_layout(ds, ino, le32_to_cpu(marked.generation),
					&r);
	if (err == -ENOENT || err == -EIO) {
		aifs_info("inode %llx: no layout names this server any more: catch-up mark dropped",
			  (unsigned long long)ino);
		ds_catchup_mark(ds, ino, NULL);
		return;
	}
	if (err == -EAGAIN)
		return;		/* not committed (yet): nothing to say each pass */
	if (!err)
		err = ds_catchup_fence(ds, &r);
	while (!err) {
		r.id.index = cpu_to_le32(from);
		err = ds_sync_layout(ds, &r, &rep);
		next = le32_to_cpu(rep.next);
		if (!err && !next && from && restarts++ < DS_SYNC_RESTARTS) {
			from = 0;	/* a truncation came: the pass again */
			continue;
		}
		if (err || next == AIFS_CHUNK_SYNC_DONE || next <= from)
			break;
		from = next;
	}
	if (!err && next == AIFS_CHUNK_SYNC_DONE)
		aifs_info("inode %llx caught up on its own",
			  (unsigned long long)ino);
	else
		aifs_warn("inode %llx: catching up on its own: %s; later",
			  (unsigned long long)ino,
			  err ? strerror(-err) : "a peer could not give a chunk");
}

static void ds_catchup_pass(struct ds *ds)
{
	char dir[PATH_MAX], path[PATH_MAX];
	unsigned long long ino;
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (!atomic_load(&ds->catching_up) || !ds_serving(ds))
		return;
	snprintf(dir, sizeof(dir), "%s/catchup", ds->cfg.data_dir);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d)) && !atomic_load(&ds->catchup->stop)) {
		if (sscanf(de->d_name, "%16llx", &ino) != 1 ||
		    snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >=
		    (int)sizeof(path) || stat(path, &st) ||
		    time(NULL) - st.st_mtime < CATCHUP_AFTER_S)
			continue;
		ds_catchup_inode(ds, ino, path);
	}
	closedir(d);
}

static void *ds_catchup_thread(void *arg)
{
	struct ds *ds = arg;
	struct ds_catchup *c = ds->catchup;
	struct timespec until;

	pthread_mutex_lock(&c->lock);
	while (!atomic_load(&c->stop)) {
		aifs_time_after_ms(CLOCK_REALTIME, CATCHUP_POLL_S * 1000, &until);
		pthread_cond_timedwait(&c->wake, &c->lock, &until);
		pthread_mutex_unlock(&c->lock);
		ds_catchup_pass(ds);
		pthread_mutex_lock(&c->lock);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

int ds_catchup_start(struct ds *ds)
{
	struct ds_catchup *c = calloc(1, sizeof(*c));
	int err;

	if (!c)
		return -ENOMEM;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->wake, NULL);
	ds->catchup = c;
	err = -pthread_create(&c->thread, NULL, ds_catchup_thread, ds);
	if (err) {
		ds->catchup = NULL;
		free(c);
	}
	return err;
}

void ds_catchup_stop(struct ds *ds)
{
	struct ds_catchup *c = ds->catchup;

	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	atomic_store(&c->stop, true);
	pthread_cond_signal(&c->wake);
	pthread_mutex_unlock(&c->lock);
	pthread_join(c->thread, NULL);
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->wake);
	free(c);
	ds->catchup = NULL;
}

/* CHUNK_LIST: the chunks of an inode here, for a peer catching up. */
static int ds_list_handler(struct aifs_request *req)
{
	struct aifs_chunk_entry *entries;
	struct aifs_chunk_list_req r;
	struct aifs_chunk_list_rep rep = { 0 };
	struct aifs_span part;
	struct ds *ds = req->data;
	struct ds_inode_rec rec;
	size_t size;
	bool more;
	u32 lost;
	int n, err;

	err = aifs_decode_chunk_list_req(req->payload, req->payload_len, &r,
					 NULL);
	if (!err)
		err = ds_check_id(ds, &r.id);
	if (!err && !ds_serves_inode(ds, le64_to_cpu(r.id.ino)))
		err = -ESTALE;	/* maybe behind: no source for anyone */
	/*
	 * a chunk lost here is listed, a stale placeholder (held.c): left
	 * out, it would be taken for cut by a peer that missed a cut
	 */
	if (!err)
		err = ds_held_missing(ds, le64_to_cpu(r.id.ino), &lost);
	if (!err)
		err = ds_inode_load(ds, le64_to_cpu(r.id.ino), &rec);
	if (err)
		return err;
	entries = calloc(le32_to_cpu(r.max), sizeof(*entries));
	if (!entries)
		return -ENOMEM;
	n = ds_store_list(ds, le64_to_cpu(r.id.ino), le32_to_cpu(r.id.index),
			  le32_to_cpu(r.max), entries, &more);
	size = sizeof(rep) + (n > 0 ? n : 0) * sizeof(*entries);
	req->reply = n < 0 ? NULL : malloc(size);
	if (n >= 0 && !req->reply)
		n = -ENOMEM;
	if (n >= 0) {
		rep.fence = cpu_to_le32(rec.fence);
		rep.flags = cpu_to_le32(more ? AIFS_CHUNK_LIST_MORE : 0);
		part = (struct aifs_span){ entries, n * sizeof(*entries) };
		n = aifs_encode_chunk_list_rep(req->reply, size, &rep, &part);
	}
	free(entries);
	if (n < 0)
		return n;
	req->reply_len = n;
	return 0;
}

/* DS_INODES: the inodes with chunks here, for the MDS's fsck. */
static int ds_inodes_handler(struct aifs_request *req)
{
	struct aifs_ds_inodes_rep rep = { 0 };
	struct aifs_ds_inodes_req r;
	struct ds *ds = req->data;
	struct aifs_span part;
	u64 *inos, after;
	u32 dir, i;
	size_t size;
	int n;

	n = aifs_decode_ds_inodes_req(req->payload, req->payload_len, &r,
				      NULL);
	if (!n && memcmp(r.fs_uuid, ds->ident.fs_uuid, 16))
		n = -EXDEV;
	if (n)
		return n;
	inos = calloc(le32_to_cpu(r.max), sizeof(*inos));
	if (!inos)
		return -ENOMEM;
	dir = le32_to_cpu(r.dir);
	after = le64_to_cpu(r.after);
	n = ds_store_inodes(ds, &dir, &after, le32_to_cpu(r.max), inos);
	for (i = 0; n > 0 && i < (u32)n; i++)
		inos[i] = cpu_to_le64(inos[i]);
	size = sizeof(rep) + (n > 0 ? n : 0) * sizeof(*inos);
	req->reply = n < 0 ? NULL : malloc(size);
	if (n >= 0 && !req->reply)
		n = -ENOMEM;
	if (n >= 0) {
		rep.after = cpu_to_le64(after);
		rep.dir = cpu_to_le32(dir);
		part = (struct aifs_span){ inos, n * sizeof(*inos) };
		n = aifs_encode_ds_inodes_rep(req->reply, size, &rep, &part);
	}
	free(inos);
	if (n < 0)
		return n;
	req->reply_len = n;
	return 0;
}

int ds_sync_register(struct aifs_server *srv)
{
	static const struct aifs_handler_def handlers[] = {
		{ AIFS_OP_CHUNK_LIST, ds_list_handler, AIFS_HANDLER_BLOCKING },
		{ AIFS_OP_DS_INODES, ds_inodes_handler, AIFS_HANDLER_BLOCKING },
		{ AIFS_OP_CHUNK_SYNC, ds_sync_handler, AIFS_HANDLER_BLOCKING },
	};

	return aifs_server_register_all(srv, handlers, ARRAY_SIZE(handlers));
}
