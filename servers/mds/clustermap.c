// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The cluster map: the data servers, their addresses, capacity and state,
 * and the map epoch, bumped by every change that clients must learn of
 * (a registration, a state change).  The table "dsmap" persists it; a
 * copy in memory, under a mutex, serves MAP_GET, STATFS and placement.
 * Only the writer changes it, always database first, then the copy.
 *
 * The copy runs ahead of the disk until the writer's batch commits: the
 * writer and placement go by it, but MAP_GET sends the map as of the
 * last commit (each entry's published info, the published epoch), which
 * the writer brings up to date once the batch is durable.  A map that
 * MAP_GET sent thus survives a crash, and an epoch never comes back with
 * other contents: a data server, which fetches the map only when the
 * epoch moves, would keep the lost one.
 *
 * States: a server is UP after registering or a heartbeat, or DRAINING
 * when that asks for it (AIFS_DS_DRAIN: no new files are placed on it);
 * OFFLINE once silent for heartbeat_grace_ms (the writer looks between its
 * batches), or once it failed a change every copy must have before the
 * change is answered (mds_map_count_out()); RETIRED is kept.  After a restart every server gets a full
 * grace period.  A server that speaks again after being OFFLINE missed
 * writes: it is SYNCING (it serves nothing, recovery.c has it catch up
 * inode by inode) until recovery makes it UP or DRAINING.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mds.h"

#define MAP_COUNT_OUT_POLL_MS	20	/* looking for its next heartbeat */

struct mds_ds {
	struct aifs_ds_info info;	/* the writer's, maybe uncommitted */
	struct aifs_ds_info published;	/* as of the last commit: sent */
	u64 last_seen;			/* aifs_now_ms() of the last word */
	/*
	 * SYNCING, or OFFLINE past the rebuild delay: the next inode
	 * recovery looks at, in which round
	 */
	u64 sync_cursor;
	u32 sync_round;
	s64 round_since;		/* Unix seconds: the round began */
	struct mds_sync_tally tally;	/* of the round, as recovery says */
	u64 offline_epoch;		/* it last went OFFLINE (0: unknown) */
	/* its last DS_REPAIRS (in memory: sent again at each connection) */
	struct aifs_ds_repairs_req repairs;
	struct aifs_repair_entry repair_list[AIFS_REPAIR_LIST_MAX];
	s64 repairs_reported;		/* Unix seconds */
};

struct mds_map {
	pthread_mutex_t lock;		/* protects everything below */
	struct mds_ds *ds;
	unsigned int nr, room;
	unsigned int nr_published;	/* the first, as of the last commit */
	u64 epoch;			/* published */
	bool changed;			/* since it was published */
	u64 rand_state;			/* placement's xorshift */
};

/*
 * A server's record in the dsmap table: its map entry, and the epoch at
 * which it last went OFFLINE (recovery's "last copy" needs the order in
 * which a group's members went out, across restarts of the MDS).  A
 * record of the entry alone (before this) has it only while OFFLINE.
 */
struct map_rec {
	struct aifs_ds_info info;
	u64 offline_epoch;
};

static int map_add(struct mds_map *map, const struct aifs_ds_info *info,
		   u64 offline_epoch)
{
	struct mds_ds *grown;

	if (map->nr == map->room) {
		map->room = map->room ? 2 * map->room : 16;
		grown = realloc(map->ds, map->room * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		map->ds = grown;
	}
	map->ds[map->nr++] = (struct mds_ds){
		.info = *info, .last_seen = aifs_now_ms(), .sync_round = 1,
		.offline_epoch = offline_epoch,
	};
	return 0;
}

static int map_add_rec(struct mds_map *map, const MDB_val *v)
{
	struct map_rec rec = { .offline_epoch = 0 };

	if (v->mv_size != sizeof(rec) && v->mv_size != sizeof(rec.info))
		return -EIO;
	memcpy(&rec, v->mv_data, v->mv_size);
	if (v->mv_size == sizeof(rec.info) &&
	    rec.info.state == cpu_to_le32(AIFS_DS_OFFLINE))
		rec.offline_epoch = le64_to_cpu(rec.info.epoch);
	return map_add(map, &rec.info, rec.offline_epoch);
}

/* The copy, as the writer left it, is on disk: send it.  Lock held. */
static void map_publish(struct mds_map *map, u64 epoch)
{
	unsigned int i;

	for (i = 0; i < map->nr; i++)
		map->ds[i].published = map->ds[i].info;
	map->nr_published = map->nr;
	map->epoch = epoch;
	map->changed = false;
}

/* Writer, once its batch is committed. */
void mds_map_publish(struct mds *mds)
{
	struct mds_map *map = mds->map;

	pthread_mutex_lock(&map->lock);
	if (map->changed)
		map_publish(map, mds->super.map_epoch);
	pthread_mutex_unlock(&map->lock);
}

int mds_map_load(struct mds *mds)
{
	struct mds_map *map = calloc(1, sizeof(*map));
	struct mds_txn t;
	MDB_cursor *cur;
	MDB_val k, v;
	int rc, err;

	if (!map)
		return -ENOMEM;
	pthread_mutex_init(&map->lock, NULL);
	map->rand_state = aifs_now_ms() | 1;
	mds->map = map;
	err = mds_read_begin(mds, &t);
	if (err)
		return err;
	err = mds_db_cursor(&t, MDS_DB_DSMAP, &cur);
	if (err)
		goto out;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); !rc && !err;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT))
		err = map_add_rec(map, &v);
	mdb_cursor_close(cur);
	map_publish(map, mds->super.map_epoch);
out:
	mds_read_end(&t);
	return err;
}

void mds_map_destroy(struct mds *mds)
{
	if (!mds->map)
		return;
	pthread_mutex_destroy(&mds->map->lock);
	free(mds->map->ds);
	free(mds->map);
	mds->map = NULL;
}

/* Lock held. */
static struct mds_ds *map_find(struct mds_map *map, u32 id)
{
	unsigned int i;

	for (i = 0; i < map->nr; i++)
		if (le32_to_cpu(map->ds[i].info.id) == id)
			return &map->ds[i];
	return NULL;
}

bool mds_map_known(struct mds *mds, u32 id)
{
	bool known;

	pthread_mutex_lock(&mds->map->lock);
	known = map_find(mds->map, id) != NULL;
	pthread_mutex_unlock(&mds->map->lock);
	return known;
}

static u64 map_random(struct mds_map *map)
{
	u64 x = map->rand_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return map->rand_state = x;
}

/*
 * Pick @n distinct up servers, none of the @nr_except in @except, each
 * with a chance proportional to its free space (as Lustre's weighted
 * allocator): full servers fill last and consecutive files spread over
 * the cluster.  Lock held.
 */
static int map_pick(struct mds_map *map, u32 *ids, unsigned int n,
		    const u32 *except, unsigned int nr_except)
{
	u64 weight[AIFS_LAYOUT_MAX_TARGETS] = { 0 }, total = 0, r;
	struct mds_ds *up[AIFS_LAYOUT_MAX_TARGETS];
	unsigned int i, nr_up = 0, pick;

	for (i = 0; i < map->nr && nr_up < AIFS_LAYOUT_MAX_TARGETS; i++) {
		if (le32_to_cpu(map->ds[i].info.state) != AIFS_DS_UP ||
		    mds_ids_have(except, nr_except,
				 le32_to_cpu(map->ds[i].info.id)))
			continue;
		up[nr_up] = &map->ds[i];
		weight[nr_up] = (le64_to_cpu(map->ds[i].info.free) >> 20) + 1;
		total += weight[nr_up++];
	}
	if (nr_up < n)
		return -ENOSPC;
	for (pick = 0; pick < n; pick++) {
		r = map_random(map) % total;
		for (i = 0; r >= weight[i]; i++)
			r -= weight[i];
		ids[pick] = le32_to_cpu(up[i]->info.id);
		total -= weight[i];
		weight[i] = 0;
	}
	return 0;
}

int mds_map_pick(struct mds *mds, u32 *ids, unsigned int n,
		 const u32 *except, unsigned int nr_except)
{
	int err;

	pthread_mutex_lock(&mds->map->lock);
	err = map_pick(mds->map, ids, n, except, nr_except);
	pthread_mutex_unlock(&mds->map->lock);
	return err;
}

/*
 * Write @info (new or changed) to the database and then to the copy,
 * published once the batch commits; @bump: a change clients must learn
 * of, under a new epoch.  Writer.
 */
static int map_store(struct mds_txn *t, struct aifs_ds_info *info, bool bump)
{
	struct mds_map *map = t->mds->map;
	u32 id = le32_to_cpu(info->id);
	struct map_rec rec = { .offline_epoch = 0 };
	bool out;
	struct mds_ds *ds;
	int err;

	if (bump) {
		t->mds->super.map_epoch++;
		t->mds->super_dirty = true;
		info->epoch = cpu_to_le64(t->mds->super.map_epoch);
	}
	/* only the writer changes entries: this stays true until below */
	pthread_mutex_lock(&map->lock);
	ds = map_find(map, id);
	out = info->state == cpu_to_le32(AIFS_DS_OFFLINE) &&
	      (!ds || ds->info.state != info->state);
	if (ds)
		rec.offline_epoch = ds->offline_epoch;
	pthread_mutex_unlock(&map->lock);
	if (out)
		rec.offline_epoch = le64_to_cpu(info->epoch);
	rec.info = *info;
	err = mds_db_put(t, MDS_DB_DSMAP, &id, sizeof(id), &rec, sizeof(rec),
			 0);
	if (err)
		return err;
	pthread_mutex_lock(&map->lock);
	ds = map_find(map, id);
	if (ds) {
		if ((info->state == cpu_to_le32(AIFS_DS_SYNCING) ||
		     info->state == cpu_to_le32(AIFS_DS_OFFLINE)) &&
		    ds->info.state != info->state) {
			/* a new round of recovery: from the first inode */
			ds->sync_cursor = 0;
			ds->sync_round++;
			ds->round_since = mds_now() / 1000000000;
			ds->tally = (struct mds_sync_tally){ 0 };
		}
		ds->offline_epoch = rec.offline_epoch;
		ds->info = *info;
		ds->last_seen = aifs_now_ms();
	} else {
		err = map_add(map, info, rec.offline_epoch);
	}
	map->changed = true;
	pthread_mutex_unlock(&map->lock);
	return err;
}

/* The entry of @uuid, or of @id, copied; -ENOENT. */
static int map_lookup(struct mds_map *map, const u8 *uuid, u32 id,
		      struct aifs_ds_info *info)
{
	struct mds_ds *ds = NULL;
	unsigned int i;

	pthread_mutex_lock(&map->lock);
	for (i = 0; i < map->nr && !ds; i++)
		if (uuid ? !memcmp(map->ds[i].info.uuid, uuid, 16) :
			   le32_to_cpu(map->ds[i].info.id) == id)
			ds = &map->ds[i];
	if (ds)
		*info = ds->info;
	pthread_mutex_unlock(&map->lock);
	return ds ? 0 : -ENOENT;
}

/* A copy of data server @id's entry; -ENOENT.  Any thread. */
int mds_map_get_ds(struct mds *mds, u32 id, struct aifs_ds_info *info)
{
	return map_lookup(mds->map, NULL, id, info);
}

/*
 * The entry of a server new to the map: the id it asks for (a static
 * cluster's fixed ds_id), else the next one.  Assigned ids stay above
 * every id taken, so they never run into a fixed one.
 */
static int ds_new(struct mds_txn *t, const struct aifs_ds_register_req *in,
		  struct aifs_ds_info *info)
{
	struct mds_super *sb = &t->mds->super;
	u32 id = le32_to_cpu(in->id);
	struct aifs_ds_info other;

	if (id && !map_lookup(t->mds->map, NULL, id, &other)) {
		aifs_warn("a new data server asks for ds %u, which is another server's: refused",
			  id);
		return -EEXIST;
	}
	if (!id)
		id = sb->next_ds_id;
	if (id >= sb->next_ds_id)
		sb->next_ds_id = id + 1;
	t->mds->super_dirty = true;
	memset(info, 0, sizeof(*info));
	memcpy(info->uuid, in->uuid, sizeof(info->uuid));
	info->id = cpu_to_le32(id);
	return 0;
}

/* The state of a server in sync that speaks with @flags (AIFS_DS_DRAIN). */
static __le32 ds_synced_state(__le32 flags)
{
	return cpu_to_le32(le32_to_cpu(flags) & AIFS_DS_DRAIN ?
			   AIFS_DS_DRAINING : AIFS_DS_UP);
}

/*
 * The state a server that speaks with @flags is in: back from OFFLINE,
 * or still catching up, it is SYNCING; else as it asks.
 */
static __le32 ds_live_state(const struct aifs_ds_info *info, __le32 flags)
{
	switch (le32_to_cpu(info->state)) {
	case AIFS_DS_RETIRED:
	case AIFS_DS_SYNCING:
		return info->state;
	case AIFS_DS_OFFLINE:
		return cpu_to_le32(AIFS_DS_SYNCING);
	default:
		return ds_synced_state(flags);
	}
}

static int ds_register(struct mds_txn *t, const struct aifs_ds_register_req *in,
		       struct aifs_ds_info *info)
{
	u32 id = le32_to_cpu(in->id);
	int err;

	if (!map_lookup(t->mds->map, in->uuid, 0, info)) {
		if (id && id != le32_to_cpu(info->id)) {
			aifs_warn("ds %u asks to be ds %u: refused",
				  le32_to_cpu(info->id), id);
			return -EEXIST;
		}
	} else {
		err = ds_new(t, in, info);
		if (err)
			return err;
	}
	info->state = ds_live_state(info, in->flags);
	info->capacity = in->capacity;
	info->free = in->free;
	info->addr = in->addr;
	info->flags = in->flags;
	return map_store(t, info, true);
}

static int apply_ds_register(struct mds_txn *t, struct mds_op *op)
{
	struct aifs_ds_register_req in;
	struct aifs_ds_register_rep rep;
	struct aifs_ds_info info;
	int err;

	err = mds_decode(op->req, &in, sizeof(in), NULL);
	if (!err)
		err = ds_register(t, &in, &info);
	if (err)
		return err;
	rep.id = info.id;
	rep.heartbeat_ms = cpu_to_le32(t->mds->cfg->heartbeat_ms);
	rep.grace_ms = cpu_to_le32(t->mds->cfg->heartbeat_grace_ms);
	rep.state = info.state;
	rep.epoch = cpu_to_le64(t->mds->super.map_epoch);
	aifs_info("data server %u registered", le32_to_cpu(info.id));
	if (info.state == cpu_to_le32(AIFS_DS_RETIRED))
		mds_fsck_retired_back(t->mds, le32_to_cpu(info.id));
	return mds_reply(op->req, &rep, sizeof(rep), NULL);
}

int mds_handle_ds_register(struct aifs_request *req)
{
	return mds_write(req, apply_ds_register);
}

static int apply_ds_heartbeat(struct mds_txn *t, struct mds_op *op)
{
	struct aifs_ds_heartbeat_req in;
	struct aifs_ds_heartbeat_rep rep;
	struct aifs_ds_info info;
	__le32 state;
	bool moved;
	int err;

	err = mds_decode(op->req, &in, sizeof(in), NULL);
	if (!err)
		err = map_lookup(t->mds->map, NULL, le32_to_cpu(in.id), &info);
	if (err)
		return err;
	/* Back from OFFLINE, or starting or stopping to drain. */
	state = ds_live_state(&info, in.flags);
	if (state != info.state)
		aifs_info("data server %u is %s", le32_to_cpu(info.id),
			  aifs_ds_state_name(le32_to_cpu(state)));
	moved = state != info.state || in.flags != info.flags;
	info.state = state;
	info.flags = in.flags;
	info.capacity = in.capacity;
	info.free = in.free;
	err = map_store(t, &info, moved);
	if (err)
		return err;
	if (info.state == cpu_to_le32(AIFS_DS_RETIRED))
		mds_fsck_retired_back(t->mds, le32_to_cpu(info.id));
	rep = (struct aifs_ds_heartbeat_rep){
		.state = info.state,
		.epoch = cpu_to_le64(t->mds->super.map_epoch),
	};
	return mds_reply(op->req, &rep, sizeof(rep), NULL);
}

int mds_handle_ds_heartbeat(struct aifs_request *req)
{
	return mds_write(req, apply_ds_heartbeat);
}

/* Servers silent for the grace period go OFFLINE.  Writer. */
int mds_map_expire(struct mds_txn *t)
{
	u64 grace = t->mds->cfg->heartbeat_grace_ms, now = aifs_now_ms();
	struct mds_map *map = t->mds->map;
	struct aifs_ds_info info;
	unsigned int i;
	u32 state;
	int err = 0;

	for (i = 0; !err; i++) {
		pthread_mutex_lock(&map->lock);
		if (i >= map->nr) {
			pthread_mutex_unlock(&map->lock);
			break;
		}
		info = map->ds[i].info;
		state = le32_to_cpu(info.state);
		if (state == AIFS_DS_UP || state == AIFS_DS_DRAINING ||
		    state == AIFS_DS_SYNCING)
			state = now - map->ds[i].last_seen > grace ?
				AIFS_DS_OFFLINE : 0;
		else
			state = 0;
		pthread_mutex_unlock(&map->lock);
		if (!state)
			continue;
		aifs_warn("data server %u: no heartbeat for %llu ms: offline",
			  le32_to_cpu(info.id), (unsigned long long)grace);
		info.state = cpu_to_le32(state);
		err = map_store(t, &info, true);
	}
	return err;
}

struct count_out {
	u32 id;
	const char *why;
	bool counted;		/* by this call: it was serving or syncing */
};

static int apply_count_out(struct mds_txn *t, struct mds_op *op)
{
	struct count_out *co = op->arg;
	struct aifs_ds_info info;
	int err;

	err = map_lookup(t->mds->map, NULL, co->id, &info);
	if (err == -ENOENT || info.state == cpu_to_le32(AIFS_DS_OFFLINE) ||
	    info.state == cpu_to_le32(AIFS_DS_RETIRED))
		return 0;
	aifs_warn("data server %u: %s: offline, to catch up before it serves",
		  co->id, co->why);
	info.state = cpu_to_le32(AIFS_DS_OFFLINE);
	co->counted = true;
	return map_store(t, &info, true);
}

/* @id's state and when it last heartbeated (or changed); false: unknown. */
static bool map_seen(struct mds_map *map, u32 id, u32 *state, u64 *seen)
{
	struct mds_ds *ds;

	pthread_mutex_lock(&map->lock);
	ds = map_find(map, id);
	if (ds) {
		*state = le32_to_cpu(ds->info.state);
		*seen = ds->last_seen;
	}
	pthread_mutex_unlock(&map->lock);
	return ds;
}

/*
 * Count data server @id out although it may be alive (@why: it missed a
 * change the MDS must not answer before every copy that serves has it),
 * and wait until it serves nothing.  Committed OFFLINE, it goes SYNCING at
 * its next heartbeat and catches up (every file compared with its peers)
 * before it serves again.  It has stopped once a heartbeat came after the
 * one answered SYNCING (a server sends the next only once it took the
 * reply), or once its lease ran out: 9/10 of the grace after the last
 * heartbeat answered UP, which was before the commit.  Not the writer.
 */
int mds_map_count_out(struct mds *mds, u32 id, const char *why)
{
	u64 until = aifs_now_ms() + mds->cfg->heartbeat_grace_ms, told = 0;
	struct count_out co = { id, why, false };
	u64 seen;
	u32 state;
	int err;

	err = mds_write_own(mds, apply_count_out, &co);
	if (err || !co.counted)
		return err;
	while (aifs_now_ms() < until && map_seen(mds->map, id, &state, &seen) &&
	       state != AIFS_DS_RETIRED) {
		if (state != AIFS_DS_OFFLINE) {
			if (!told)
				told = seen;
			else if (seen > told)
				break;
		}
		usleep(MAP_COUNT_OUT_POLL_MS * 1000);
	}
	return 0;
}

/* Whether recovery has work for @ds: it catches up, or is to be rebuilt. */
static bool map_recovering(const struct mds_ds *ds, u64 rebuild_delay_ms)
{
	switch (le32_to_cpu(ds->info.state)) {
	case AIFS_DS_SYNCING:
		return true;
	case AIFS_DS_OFFLINE:
		return aifs_now_ms() - ds->last_seen >= rebuild_delay_ms;
	default:
		return false;
	}
}

/* Whether server @id serves (UP or DRAINING) in the map.  Any thread. */
bool mds_map_serves(struct mds *mds, u32 id)
{
	struct aifs_ds_info info;
	u32 state;

	if (mds_map_get_ds(mds, id, &info))
		return false;
	state = le32_to_cpu(info.state);
	return state == AIFS_DS_UP || state == AIFS_DS_DRAINING;
}

/*
 * Under map->lock: the server with the lowest id above @after, of those
 * recovery has work for (@rebuild_delay_ms: see map_recovering()) when
 * @recovering; NULL.
 */
static struct mds_ds *map_next(struct mds_map *map, u32 after,
			       bool recovering, u64 rebuild_delay_ms)
{
	struct mds_ds *best = NULL;
	unsigned int i;
	u32 id;

	for (i = 0; i < map->nr; i++) {
		id = le32_to_cpu(map->ds[i].info.id);
		if (id > after &&
		    (!recovering ||
		     map_recovering(&map->ds[i], rebuild_delay_ms)) &&
		    (!best || id < le32_to_cpu(best->info.id)))
			best = &map->ds[i];
	}
	return best;
}

/* The entry of the server with the lowest id above @after; -ENOENT. */
int mds_map_next(struct mds *mds, u32 after, struct aifs_ds_info *info)
{
	struct mds_map *map = mds->map;
	struct mds_ds *next;

	pthread_mutex_lock(&map->lock);
	next = map_next(map, after, false, 0);
	if (next)
		*info = next->info;
	pthread_mutex_unlock(&map->lock);
	return next ? 0 : -ENOENT;
}

/*
 * The first server with an id above @after that recovery has work for
 * (SYNCING, or OFFLINE for @rebuild_delay_ms): its entry, where recovery
 * is in it (@cursor) and in which round; -ENOENT.  Any thread.
 */
int mds_map_next_recovering(struct mds *mds, u32 after, u64 rebuild_delay_ms,
			    struct aifs_ds_info *info, u64 *cursor, u32 *round)
{
	struct mds_map *map = mds->map;
	struct mds_ds *next;

	pthread_mutex_lock(&map->lock);
	next = map_next(map, after, true, rebuild_delay_ms);
	if (next) {
		*info = next->info;
		*cursor = next->sync_cursor;
		*round = next->sync_round;
	}
	pthread_mutex_unlock(&map->lock);
	return next ? 0 : -ENOENT;
}

/*
 * Recovery of @id got to inode @cursor in @round (ignored if over), with
 * @tally done in it.
 */
void mds_map_sync_cursor(struct mds *mds, u32 id, u32 round, u64 cursor,
			 const struct mds_sync_tally *tally)
{
	struct mds_map *map = mds->map;
	struct mds_ds *ds;

	pthread_mutex_lock(&map->lock);
	ds = map_find(map, id);
	if (ds && ds->sync_round == round) {
		ds->sync_cursor = cursor;
		ds->tally = *tally;
	}
	pthread_mutex_unlock(&map->lock);
}

static void map_recovery_entry(const struct mds_ds *ds, u64 rebuild_delay_ms,
			       struct aifs_recovery_entry *e)
{
	u64 waited = aifs_now_ms() - ds->last_seen;
	u32 rebuild_in = AIFS_REBUILD_NEVER;

	if (ds->info.state == cpu_to_le32(AIFS_DS_SYNCING))
		rebuild_in = 0;
	else if (rebuild_delay_ms != UINT64_MAX)
		rebuild_in = waited >= rebuild_delay_ms ? 0 :
			     (rebuild_delay_ms - waited + 999) / 1000;
	*e = (struct aifs_recovery_entry){
		.id = ds->info.id, .state = ds->info.state,
		.round = cpu_to_le32(ds->sync_round),
		.rebuild_in = cpu_to_le32(rebuild_in),
		.cursor = cpu_to_le64(ds->sync_cursor),
		.files = cpu_to_le64(ds->tally.files),
		.copied = cpu_to_le64(ds->tally.copied),
		.deleted = cpu_to_le64(ds->tally.deleted),
		.left = cpu_to_le64(ds->tally.left),
		.since = cpu_to_le64(ds->round_since),
	};
}

/*
 * Every SYNCING or OFFLINE server, by id, into @out (room for @max):
 * their number.  Any thread.
 */
unsigned int mds_map_recovery(struct mds *mds, u64 rebuild_delay_ms,
			      struct aifs_recovery_entry *out,
			      unsigned int max)
{
	struct mds_map *map = mds->map;
	struct mds_ds *ds;
	unsigned int n = 0;
	u32 after = 0;

	pthread_mutex_lock(&map->lock);
	while (n < max && (ds = map_next(map, after, false, 0))) {
		after = le32_to_cpu(ds->info.id);
		if (ds->info.state == cpu_to_le32(AIFS_DS_SYNCING) ||
		    ds->info.state == cpu_to_le32(AIFS_DS_OFFLINE))
			map_recovery_entry(ds, rebuild_delay_ms, &out[n++]);
	}
	pthread_mutex_unlock(&map->lock);
	return n;
}

/**
 * mds_map_repairs_set - what a data server said it must repair
 * @mds: the MDS
 * @req: its DS_REPAIRS
 * @list: the entries that came with it (checked by the decoder)
 *
 * Return: 0, or -ENOENT for a server not in the map.
 */
int mds_map_repairs_set(struct mds *mds, const struct aifs_ds_repairs_req *req,
			const struct aifs_repair_entry *list)
{
	struct mds_map *map = mds->map;
	struct mds_ds *ds;

	pthread_mutex_lock(&map->lock);
	ds = map_find(map, le32_to_cpu(req->id));
	if (ds) {
		/* a line when it begins or ends, or sources come or go */
		if (!ds->repairs.marked != !req->marked ||
		    ds->repairs.no_source != req->no_source)
			aifs_info("data server %u: %llu chunks to repair, %llu with no source",
				  le32_to_cpu(req->id),
				  (unsigned long long)le64_to_cpu(req->marked),
				  (unsigned long long)le64_to_cpu(req->no_source));
		ds->repairs = *req;
		memcpy(ds->repair_list, list,
		       le32_to_cpu(req->count) * sizeof(*list));
		ds->repairs_reported = time(NULL);
	}
	pthread_mutex_unlock(&map->lock);
	return ds ? 0 : -ENOENT;
}

/*
 * Every server whose last DS_REPAIRS had a copy to repair, by id, into
 * @srv (room for AIFS_MAP_MAX_DS), and what they named into @list (room
 * for AIFS_REPAIR_LIST_MAX each): the servers; *@listed, the entries.
 */
unsigned int mds_map_repairs(struct mds *mds, struct aifs_repair_server *srv,
			     struct aifs_repair_entry *list,
			     unsigned int *listed)
{
	struct mds_map *map = mds->map;
	struct mds_ds *ds;
	unsigned int n = 0, count;
	u32 after = 0;

	*listed = 0;
	pthread_mutex_lock(&map->lock);
	while (n < AIFS_MAP_MAX_DS && (ds = map_next(map, after, false, 0))) {
		after = le32_to_cpu(ds->info.id);
		if (!ds->repairs.marked && !ds->repairs.no_source &&
		    !ds->repairs.count)
			continue;
		srv[n++] = (struct aifs_repair_server){
			.id = ds->info.id, .marked = ds->repairs.marked,
			.no_source = ds->repairs.no_source,
			.reported = cpu_to_le64(ds->repairs_reported),
		};
		count = le32_to_cpu(ds->repairs.count);
		memcpy(list + *listed, ds->repair_list, count * sizeof(*list));
		*listed += count;
	}
	pthread_mutex_unlock(&map->lock);
	return n;
}

/*
 * Whether server @id, SYNCING, holds the last copy of group @g of @l:
 * every other member went OFFLINE (or is RETIRED) before it did, so no
 * write was acknowledged without it, and there is no one to catch up
 * from.  A member that went out before it and is back, SYNCING, is no
 * better a source: when the MDS could not hear any member of a group for
 * a while (it stalled, or was cut off), the one counted out last is.
 * The epochs are kept with the map's records, across MDS restarts.
 *
 * An EC group is the stripe's K + M members, and an EC write is
 * acknowledged only with at most M of them short of it (ec.c,
 * ds_stripe_enough()): a member that went out after M others (still out
 * or catching up) missed no acknowledged write, and is current.
 */
bool mds_map_last_copy(struct mds *mds, u32 id, const struct aifs_layout *l,
		       unsigned int g)
{
	struct mds_map *map = mds->map;
	unsigned int t, w = mds_layout_width(l), before = 0, others = 0;
	struct mds_ds *self, *o;
	bool last;

	pthread_mutex_lock(&map->lock);
	self = map_find(map, id);
	last = self && self->offline_epoch;
	for (t = g * w; last && t < (g + 1) * w; t++) {
		o = map_find(map, le32_to_cpu(l->targets[t]));
		if (!o || o == self ||
		    o->info.state == cpu_to_le32(AIFS_DS_RETIRED))
			continue;
		others++;
		before += (o->info.state == cpu_to_le32(AIFS_DS_OFFLINE) ||
			   o->info.state == cpu_to_le32(AIFS_DS_SYNCING)) &&
			  o->offline_epoch &&
			  o->offline_epoch < self->offline_epoch;
	}
	pthread_mutex_unlock(&map->lock);
	if (!last)
		return false;
	return l->type == AIFS_LAYOUT_EC ? before >= l->ec_m :
					   before == others;
}

struct sync_done {
	u32 id;
	u32 round;
};

/*
 * Writer: recovery of the server is over in its round: caught up, it is
 * UP or DRAINING; rebuilt around (no file names it), RETIRED.
 */
static int apply_sync_done(struct mds_txn *t, struct mds_op *op)
{
	const struct sync_done *done = op->arg;
	struct mds_map *map = t->mds->map;
	struct aifs_ds_info info;
	struct mds_ds *ds;
	bool current;

	pthread_mutex_lock(&map->lock);
	ds = map_find(map, done->id);
	current = ds && ds->sync_round == done->round &&
		  (ds->info.state == cpu_to_le32(AIFS_DS_SYNCING) ||
		   ds->info.state == cpu_to_le32(AIFS_DS_OFFLINE));
	if (current)
		info = ds->info;
	pthread_mutex_unlock(&map->lock);
	if (!current)
		return 0;	/* it went away, or came back, meanwhile */
	if (info.state == cpu_to_le32(AIFS_DS_OFFLINE)) {
		info.state = cpu_to_le32(AIFS_DS_RETIRED);
		aifs_info("data server %u: every copy it held is made again elsewhere: retired",
			  done->id);
	} else {
		info.state = ds_synced_state(info.flags);
		aifs_info("data server %u is in sync: %s", done->id,
			  aifs_ds_state_name(le32_to_cpu(info.state)));
	}
	return map_store(t, &info, true);
}

int mds_map_sync_done(struct mds *mds, u32 id, u32 round)
{
	struct sync_done done = { id, round };

	return mds_write_own(mds, apply_sync_done, &done);
}

static int map_get(struct mds_map *map, u64 epoch, struct aifs_request *req)
{
	struct aifs_map_rep rep = { .epoch = cpu_to_le64(map->epoch) };
	struct aifs_ds_info *list = NULL;
	unsigned int i;
	int err;

	if (epoch == map->epoch) {
		rep.flags = cpu_to_le32(AIFS_MAP_UNCHANGED);
	} else if (map->nr_published) {
		list = malloc(map->nr_published * sizeof(*list));
		if (!list)
			return -ENOMEM;
		for (i = 0; i < map->nr_published; i++)
			list[i] = map->ds[i].published;
		rep.count = cpu_to_le32(map->nr_published);
	}
	err = mds_reply_data(req, &rep, sizeof(rep), list,
			     list ? map->nr_published * sizeof(*list) : 0);
	free(list);
	return err;
}

int mds_handle_map_get(struct aifs_request *req)
{
	struct mds_map *map = ((struct mds *)req->data)->map;
	struct aifs_map_get_req in;
	int err;

	err = mds_decode(req, &in, sizeof(in), NULL);
	if (err)
		return err;
	pthread_mutex_lock(&map->lock);
	err = map_get(map, le64_to_cpu(in.epoch), req);
	pthread_mutex_unlock(&map->lock);
	return err;
}

/* Capacity of the data servers that hold data; free space of those up. */
static void map_statfs(struct mds_map *map, struct aifs_statfs_rep *rep)
{
	u64 total = 0, free = 0, avail = 0;
	unsigned int i;
	u32 state;

	pthread_mutex_lock(&map->lock);
	for (i = 0; i < map->nr; i++) {
		state = le32_to_cpu(map->ds[i].info.state);
		if (state == AIFS_DS_RETIRED)
			continue;
		total += le64_to_cpu(map->ds[i].info.capacity);
		free += le64_to_cpu(map->ds[i].info.free);
		if (state == AIFS_DS_UP)
			avail += le64_to_cpu(map->ds[i].info.free);
	}
	pthread_mutex_unlock(&map->lock);
	rep->total_bytes = cpu_to_le64(total);
	rep->free_bytes = cpu_to_le64(free);
	rep->avail_bytes = cpu_to_le64(avail);
}

/* Inodes: those in use, and room for as many as the map has bytes. */
static int mds_statfs_files(struct mds_txn *t, struct aifs_statfs_rep *rep)
{
	MDB_envinfo info;
	MDB_stat st;
	u64 used;
	int err;

	err = mds_db_errno(mdb_stat(t->txn, t->mds->dbi[MDS_DB_INODES], &st));
	if (err)
		return err;
	mdb_env_info(t->mds->env, &info);
	used = (u64)(info.me_last_pgno + 1) * st.ms_psize;
	rep->files = cpu_to_le64(st.ms_entries);
	rep->files_free = cpu_to_le64(info.me_mapsize > used ?
				      (info.me_mapsize - used) / 1024 : 0);
	return 0;
}

static int statfs_reply(struct mds_txn *t, struct aifs_request *req,
			const void *arg, const struct aifs_span *parts)
{
	const struct aifs_ino_req *in = arg;
	struct aifs_statfs_rep rep = { 0 };
	struct mds_inode inode;
	int err;

	(void)parts;
	err = mds_inode_get(t, le64_to_cpu(in->ino), &inode);
	if (!err)
		err = mds_statfs_files(t, &rep);
	if (err)
		return err;
	map_statfs(t->mds->map, &rep);
	rep.bsize = cpu_to_le32(4096);
	rep.namelen = cpu_to_le32(AIFS_NAME_MAX);
	return mds_reply(req, &rep, sizeof(rep), NULL);
}

int mds_handle_statfs(struct aifs_request *req)
{
	struct aifs_ino_req in;

	return mds_read(req, &in, sizeof(in), statfs_reply);
}
