// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Room on the database's disk.  LMDB writes a commit's pages at the end
 * of data.mdb with pwrite(): on a full disk the commit fails, and by then
 * the MDS's memory (the super block, the map, the opens) has moved on
 * with the batch, so it exits (writer.c).  A full disk must not come to
 * that: the file is kept allocated db_reserve_mib ahead of the pages
 * LMDB uses (fallocate(), as ext4 keeps blocks reserved), so that a
 * commit only writes blocks the file already has.
 *
 * When the disk cannot give the file that much room ahead any more, the
 * database is full: what would add to it (creates, links, extended
 * attributes, layouts) is refused with ENOSPC before it is applied, and
 * what frees room (unlink, rmdir, truncation, closes) and the server's
 * own changes (the map, heartbeats, the chunk queue) go on in the room
 * ahead.  The room is looked at after every commit, so that creates go
 * on as soon as the disk has room again.
 */
#include <fcntl.h>
#include <sys/stat.h>

#include "mds.h"

struct mds_space_state {
	u64 used;	/* bytes of data.mdb LMDB has pages in */
	u64 size;	/* bytes data.mdb has */
};

static int space_state(struct mds *mds, int fd, struct mds_space_state *s)
{
	MDB_envinfo info;
	MDB_stat st;
	struct stat sb;

	if (mdb_env_info(mds->env, &info) || mdb_env_stat(mds->env, &st))
		return -EIO;
	if (fstat(fd, &sb))
		return -errno;
	s->used = ((u64)info.me_last_pgno + 1) * st.ms_psize;
	s->size = sb.st_size;
	return 0;
}

/* db_reserve_mib, but a sixteenth of the map at most: a small map is no full one. */
static u64 mds_space_reserve(const struct mds_config *cfg)
{
	u64 want = (u64)cfg->db_reserve_mib << 20;
	u64 most = ((u64)cfg->map_size_mib << 20) / 16;

	return want < most ? want : most;
}

/* Allocate data.mdb up to @end bytes, @map (LMDB's map size) at most. */
static int space_grow(int fd, u64 size, u64 end, u64 map)
{
	if (end > map)
		end = map;
	if (end <= size)
		return 0;
	if (!fallocate(fd, 0, size, end - size))
		return 0;
	return errno == EOPNOTSUPP ? 0 : -errno;
}

/**
 * mds_space_check - keep data.mdb allocated ahead of LMDB, or note it full
 * @mds: the server, its database open
 *
 * The reserve is db_reserve_mib, at most a sixteenth of map_size_mib.
 * Allocates twice the reserve ahead once less than the reserve is left,
 * else the reserve; the database is full when the disk has not even that
 * (ENOSPC), or when the map has less than the reserve left.  Only the
 * writer calls it (and the start, before the writer).
 */
void mds_space_check(struct mds *mds)
{
	u64 map = (u64)mds->cfg->map_size_mib << 20;
	u64 reserve = mds_space_reserve(mds->cfg);
	struct mds_space_state s = { 0 };
	int fd, err = 0;
	bool full;

	if (mdb_env_get_fd(mds->env, &fd) || space_state(mds, fd, &s))
		return;
	if (s.size < s.used + reserve) {
		err = space_grow(fd, s.size, s.used + 2 * reserve, map);
		if (err)
			err = space_grow(fd, s.size, s.used + reserve, map);
		if (err && err != -ENOSPC)
			aifs_warn("%s: cannot allocate room ahead: %s",
				  mds->cfg->db_path, strerror(-err));
	}
	/* the map full but for the reserve is full too */
	full = err == -ENOSPC || s.used + reserve > map;
	if (full && !atomic_load(&mds->db_full))
		aifs_warn("%s: full (its disk, or map_size_mib): creates get ENOSPC until %llu MiB are free ahead of the database",
			  mds->cfg->db_path,
			  (unsigned long long)(reserve >> 20));
	else if (!full && atomic_load(&mds->db_full))
		aifs_info("%s: room again: creates go on",
			  mds->cfg->db_path);
	atomic_store(&mds->db_full, full);
}

/* What a full database still takes: nothing that adds to its tables. */
static bool space_adds(u16 opcode)
{
	switch (opcode) {
	case AIFS_OP_CREATE:
	case AIFS_OP_MKDIR:
	case AIFS_OP_MKNOD:
	case AIFS_OP_LINK:
	case AIFS_OP_SYMLINK:
	case AIFS_OP_SETXATTR:
	case AIFS_OP_LAYOUT_SET:
		return true;
	default:
		return false;
	}
}

/**
 * mds_space_refuses - whether a client's request waits for room
 * @mds: the server
 * @req: the request (NULL: a change of the server's own, always taken)
 *
 * Return: -ENOSPC when the database is full and @req would add to it,
 * else 0.
 */
int mds_space_refuses(struct mds *mds, const struct aifs_request *req)
{
	return req && atomic_load(&mds->db_full) && space_adds(req->opcode) ?
	       -ENOSPC : 0;
}
