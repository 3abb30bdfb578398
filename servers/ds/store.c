// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The chunk store: one data file per chunk plus a metadata sidecar, under
 * data_dir/chunks/, fanned out over 65536 directories by a hash of the
 * inode number so that no directory grows large and every chunk of one
 * inode sits in one directory (CHUNK_DELETE of an inode scans just that).
 *
 *   chunks/<h1>/<h2>/<ino:016x>.<index:08x>.<fragment:02x>        data
 *   chunks/<h1>/<h2>/<ino:016x>.<index:08x>.<fragment:02x>.meta   sidecar
 *
 * A chunk exists when its sidecar does.  The data file holds whole
 * checksum blocks: bytes past the chunk's length are zeros (or holes), so
 * a block's CRC never depends on where the chunk ends.  The sidecar is a
 * struct ds_meta_disk followed by one __le32 CRC32C per block of the
 * layout's chunk size (blocks never written hold the CRC of zeros).
 */
#include <dirent.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ds.h"

#define DS_META_MAGIC		0x4d534441U	/* "ADSM" */
#define DS_META_FORMAT		1
#define DS_META_HDR_SIZE	128

struct ds_meta_disk {
	__le32 magic;
	__le32 format;
	__le64 version;
	__le32 length;
	__le32 chunk_size;
	__le32 block_size;
	__le32 flags;
	__le32 nr_peers;
	__le32 peers[DS_MAX_PEERS];
	__le64 want;
	__le32 fence;
	__le32 reserved[12];
	__le32 crc;		/* CRC32C of this header with @crc zero */
};

_Static_assert(sizeof(struct ds_meta_disk) == DS_META_HDR_SIZE,
	       "sidecar header size");

static u32 ds_hash_ino(u64 ino)
{
	return (u32)((ino * 0x9e3779b97f4a7c15ULL) >> 48);
}

static struct ds_lock_stripe *ds_lock_stripe(struct ds *ds,
					     const struct ds_lock *l)
{
	u64 h = l->ino * 0x9e3779b97f4a7c15ULL;

	h ^= (u64)l->index * 0xc2b2ae3d27d4eb4fULL;
	h ^= l->fragment;
	return &ds->locks[(u32)(h >> 32) % DS_LOCK_STRIPES];
}

/* Must @l wait for a lock queued before it?  Readers share; FIFO else. */
static bool ds_lock_blocked(const struct ds_lock_stripe *s,
			    const struct ds_lock *l)
{
	const struct ds_lock *o;

	for (o = s->queue; o != l; o = o->next)
		if (o->ino == l->ino && o->index == l->index &&
		    o->fragment == l->fragment && (o->write || l->write))
			return true;
	return false;
}

/* 0, or -EAGAIN for a forward behind a primary write (enum ds_lock_kind). */
int ds_chunk_lock_as(struct ds *ds, const struct aifs_chunk_id *id,
		     enum ds_lock_kind kind, struct ds_lock *lock)
{
	struct ds_lock_stripe *s;
	struct ds_lock **pp;

	*lock = (struct ds_lock){
		.ino = le64_to_cpu(id->ino), .index = le32_to_cpu(id->index),
		.fragment = le16_to_cpu(id->fragment),
		.write = kind != DS_LOCK_SHARED,
		.primary = kind == DS_LOCK_PRIMARY,
	};
	s = ds_lock_stripe(ds, lock);
	pthread_mutex_lock(&s->mutex);
	for (pp = &s->queue; *pp; pp = &(*pp)->next) {
		if (kind == DS_LOCK_FORWARD && (*pp)->primary &&
		    (*pp)->ino == lock->ino && (*pp)->index == lock->index &&
		    (*pp)->fragment == lock->fragment) {
			pthread_mutex_unlock(&s->mutex);
			return -EAGAIN;
		}
	}
	*pp = lock;
	while (ds_lock_blocked(s, lock))
		pthread_cond_wait(&s->cond, &s->mutex);
	pthread_mutex_unlock(&s->mutex);
	return 0;
}

void ds_chunk_lock(struct ds *ds, const struct aifs_chunk_id *id, bool write,
		   struct ds_lock *lock)
{
	ds_chunk_lock_as(ds, id, write ? DS_LOCK_EXCL : DS_LOCK_SHARED, lock);
}

void ds_chunk_unlock(struct ds *ds, struct ds_lock *lock)
{
	struct ds_lock_stripe *s = ds_lock_stripe(ds, lock);
	struct ds_lock **pp;

	pthread_mutex_lock(&s->mutex);
	for (pp = &s->queue; *pp != lock; pp = &(*pp)->next)
		;
	*pp = lock->next;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->mutex);
}

int ds_check_id(struct ds *ds, const struct aifs_chunk_id *id)
{
	return memcmp(id->fs_uuid, ds->ident.fs_uuid, 16) ? -EXDEV : 0;
}

void ds_inode_dir(const struct ds *ds, u64 ino, char *path, size_t size)
{
	u32 h = ds_hash_ino(ino);

	snprintf(path, size, "%s/chunks/%02x/%02x", ds->cfg.data_dir, h >> 8,
		 h & 0xff);
}

static void ds_chunk_path(struct ds_chunk *c)
{
	char dir[PATH_MAX - 64];

	ds_inode_dir(c->ds, le64_to_cpu(c->id.ino), dir, sizeof(dir));
	snprintf(c->path, sizeof(c->path), "%s/%016llx.%08x.%02x", dir,
		 (unsigned long long)le64_to_cpu(c->id.ino),
		 le32_to_cpu(c->id.index), le16_to_cpu(c->id.fragment));
}

static int ds_meta_path(const struct ds_chunk *c, char *path, size_t size)
{
	return snprintf(path, size, "%s.meta", c->path) >= (int)size ?
		-ENAMETOOLONG : 0;
}

void *ds_blocks_alloc(u32 nr_blocks)
{
	void *buf;

	if (posix_memalign(&buf, DS_IO_ALIGN, (size_t)nr_blocks * DS_BLOCK_SIZE))
		return NULL;
	return buf;
}

int ds_pread_all(int fd, void *buf, size_t len, off_t off)
{
	ssize_t n = pread(fd, buf, len, off);

	return n == (ssize_t)len ? 0 : n < 0 ? -errno : -EIO;
}

int ds_pwrite_all(int fd, const void *buf, size_t len, off_t off)
{
	ssize_t n;

	while (len) {
		n = pwrite(fd, buf, len, off);
		if (n < 0)
			return -errno;
		buf = (const u8 *)buf + n;
		len -= n;
		off += n;
	}
	return 0;
}

/*
 * The sidecar written; a copy marked stale gets its repair mark first, a
 * copy whole again loses it after (repair.c).
 */
int ds_meta_store(struct ds_chunk *c)
{
	bool stale = c->meta.flags & DS_META_STALE;
	struct ds_meta_disk d = {
		.magic = cpu_to_le32(DS_META_MAGIC),
		.format = cpu_to_le32(DS_META_FORMAT),
		.version = cpu_to_le64(c->meta.version),
		.length = cpu_to_le32(c->meta.length),
		.chunk_size = cpu_to_le32(c->meta.chunk_size),
		.block_size = cpu_to_le32(DS_BLOCK_SIZE),
		.flags = cpu_to_le32(c->meta.flags),
		.nr_peers = cpu_to_le32(c->meta.nr_peers),
		.want = cpu_to_le64(c->meta.want),
		.fence = cpu_to_le32(c->meta.fence),
	};
	u32 i;
	int err;

	for (i = 0; i < c->meta.nr_peers; i++)
		d.peers[i] = cpu_to_le32(c->meta.peers[i]);
	d.crc = cpu_to_le32(aifs_crc32c(&d, sizeof(d)));
	if (stale && !c->stale_stored) {
		err = ds_repair_note(c->ds, &c->id, true);
		if (err)
			return err;
	}
	err = ds_pwrite_all(c->mfd, &d, sizeof(d), 0);
	if (err)
		return err;
	if (!stale && c->stale_stored)
		ds_repair_note(c->ds, &c->id, false);
	c->stale_stored = stale;
	return 0;
}

static int ds_meta_load(struct ds_chunk *c)
{
	struct ds_meta_disk d;
	u32 crc, i;
	int err;

	err = ds_pread_all(c->mfd, &d, sizeof(d), 0);
	if (err)
		goto bad;
	crc = le32_to_cpu(d.crc);
	d.crc = 0;
	c->meta = (struct ds_meta){
		.version = le64_to_cpu(d.version),
		.length = le32_to_cpu(d.length),
		.chunk_size = le32_to_cpu(d.chunk_size),
		.flags = le32_to_cpu(d.flags),
		.nr_peers = le32_to_cpu(d.nr_peers),
		.want = le64_to_cpu(d.want),
		.fence = le32_to_cpu(d.fence),
	};
	c->stale_stored = c->meta.flags & DS_META_STALE;
	if (crc != aifs_crc32c(&d, sizeof(d)) ||
	    le32_to_cpu(d.magic) != DS_META_MAGIC ||
	    le32_to_cpu(d.format) != DS_META_FORMAT ||
	    le32_to_cpu(d.block_size) != DS_BLOCK_SIZE ||
	    c->meta.chunk_size < AIFS_CHUNK_SIZE_MIN ||
	    c->meta.chunk_size > AIFS_CHUNK_SIZE_MAX ||
	    c->meta.length > c->meta.chunk_size ||
	    c->meta.nr_peers > DS_MAX_PEERS) {
		err = -EIO;
		goto bad;
	}
	for (i = 0; i < c->meta.nr_peers; i++)
		c->meta.peers[i] = le32_to_cpu(d.peers[i]);
	return 0;
bad:
	aifs_err("%s.meta: unreadable chunk metadata: %s", c->path,
		 strerror(-err));
	return -EIO;
}

int ds_crcs_load(struct ds_chunk *c, u32 first, u32 n, u32 *crcs)
{
	__le32 *raw = (__le32 *)crcs;
	int err;
	u32 i;

	err = ds_pread_all(c->mfd, raw, (size_t)n * 4,
			   DS_META_HDR_SIZE + (off_t)first * 4);
	if (err)
		return -EIO;
	for (i = 0; i < n; i++)
		crcs[i] = le32_to_cpu(raw[i]);
	return 0;
}

int ds_crcs_store(struct ds_chunk *c, u32 first, u32 n, const u32 *crcs)
{
	__le32 *raw = malloc((size_t)n * 4);
	int err;
	u32 i;

	if (!raw)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		raw[i] = cpu_to_le32(crcs[i]);
	err = ds_pwrite_all(c->mfd, raw, (size_t)n * 4,
			    DS_META_HDR_SIZE + (off_t)first * 4);
	free(raw);
	return err;
}

/* A new sidecar: every block of @chunk_size a hole, CRC of zeros. */
static int ds_meta_create(struct ds_chunk *c, u32 chunk_size)
{
	u32 n = chunk_size / DS_BLOCK_SIZE, i;
	u32 *crcs;
	int err;

	crcs = malloc((size_t)n * 4);
	if (!crcs)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		crcs[i] = c->ds->zero_block_crc;
	c->meta = (struct ds_meta){ .chunk_size = chunk_size };
	err = ds_crcs_store(c, 0, n, crcs);
	free(crcs);
	return err ? err : ds_meta_store(c);
}

/*
 * The directories of the file @path, made where they are missing.
 *
 * Return: how many were made (0 to 2: chunks/<h1> and chunks/<h1>/<h2>),
 * whose names ds_dirs_sync() makes durable, or -errno.
 */
static int ds_mkdirs(const char *path)
{
	char dir[PATH_MAX];
	char *slash;
	int made = 0;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	*slash = '\0';
	if (!mkdir(dir, 0700))
		return 1;
	if (errno == EEXIST)
		return 0;
	if (errno != ENOENT)
		return -errno;
	slash = strrchr(dir, '/');
	*slash = '\0';
	if (!mkdir(dir, 0700))
		made = 1;
	else if (errno != EEXIST)
		return -errno;
	*slash = '/';
	return mkdir(dir, 0700) && errno != EEXIST ? -errno : made + 1;
}

/* fsync the directory @dir: @err, or the sync's error. */
static int ds_dir_fsync(const char *dir, int err)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return err ? err : -errno;
	if (fsync(fd) && !err)
		err = -errno;
	close(fd);
	return err;
}

/*
 * Make the name of the file @path durable, and those of the @made
 * directories above it that ds_mkdirs() made: fsync of each parent, as a
 * new name is in its directory, not in the file that fsync(2) syncs.
 * Return: @err, or the first sync's error.
 */
int ds_dirs_sync(const char *path, int made, int err)
{
	char dir[PATH_MAX], *slash;
	int i;

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return err ? err : -ENAMETOOLONG;
	for (i = 0; i <= made; i++) {
		slash = strrchr(dir, '/');
		if (!slash)
			break;
		*slash = '\0';
		err = ds_dir_fsync(dir, err);
	}
	return err;
}

/* The sidecar first: a crash between the two leaves a chunk of holes. */
static int ds_chunk_create(struct ds_chunk *c, const char *mpath,
			   u32 chunk_size)
{
	int err;

	c->new_dirs = ds_mkdirs(c->path);
	if (c->new_dirs < 0)
		return c->new_dirs;
	c->mfd = open(mpath, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (c->mfd < 0)
		return -errno;
	c->created = true;
	err = ds_meta_create(c, chunk_size);
	if (!err)
		atomic_fetch_add(&c->ds->nr_chunks, 1);
	return err;
}

/*
 * Open chunk @id (its lock held).  Absent: -ENOENT, or with @create_size
 * (the layout's chunk size) it is created empty.
 */
int ds_chunk_open(struct ds *ds, const struct aifs_chunk_id *id,
		  u32 create_size, struct ds_chunk *c)
{
	int flags = O_RDWR | O_CREAT | O_CLOEXEC | (ds->direct_io ? O_DIRECT : 0);
	char mpath[PATH_MAX];
	int err;

	*c = (struct ds_chunk){ .ds = ds, .id = *id, .fd = -1, .mfd = -1 };
	ds_chunk_path(c);
	err = ds_meta_path(c, mpath, sizeof(mpath));
	if (err)
		return err;
	c->mfd = open(mpath, O_RDWR | O_CLOEXEC);
	if (c->mfd >= 0)
		err = ds_meta_load(c);
	else if (errno == ENOENT && create_size)
		err = ds_chunk_create(c, mpath, create_size);
	else
		err = -errno;
	if (err)
		goto fail;
	c->fd = open(c->path, flags | (c->created ? O_TRUNC : 0), 0600);
	if (c->fd >= 0)
		return 0;
	err = -errno;
fail:
	ds_chunk_close(c, err);
	return err;
}

/* The names of chunk @path's side copy (ds_side_open()). */
static int ds_side_paths(const char *path, char *side, char *mside)
{
	if (snprintf(side, PATH_MAX, "%s" DS_SIDE_SUFFIX, path) >= PATH_MAX ||
	    snprintf(mside, PATH_MAX, "%s" DS_SIDE_SUFFIX ".meta", path) >=
	    PATH_MAX)
		return -ENAMETOOLONG;
	return 0;
}

/*
 * Sidecar first: a side sidecar left alone would be taken for a swap past
 * its commit (ds_side_recover()); side data alone is never taken.
 */
static void ds_side_unlink(const char *path)
{
	char side[PATH_MAX], mside[PATH_MAX];

	if (ds_side_paths(path, side, mside))
		return;
	unlink(mside);
	unlink(side);
}

/*
 * The chunk @id at @path goes, with its repair mark, and a side copy a
 * pull is filling for it: that pull's swap then finds nothing to rename
 * and fails, so a deleted chunk does not come back.
 */
static void ds_chunk_unlink(struct ds *ds, const struct aifs_chunk_id *id,
			    const char *path)
{
	char mpath[PATH_MAX];

	if (snprintf(mpath, sizeof(mpath), "%s.meta", path) >= (int)sizeof(mpath))
		return;
	ds_side_unlink(path);
	ds_undo_unlink(path);
	if (!unlink(mpath))
		atomic_fetch_sub(&ds->nr_chunks, 1);
	unlink(path);
	ds_repair_note(ds, id, false);
}

/* Close; a chunk this open created goes again when the operation failed. */
void ds_chunk_close(struct ds_chunk *c, int err)
{
	if (c->fd >= 0)
		close(c->fd);
	if (c->mfd >= 0)
		close(c->mfd);
	if (err && c->created)
		ds_chunk_unlink(c->ds, &c->id, c->path);
	c->fd = c->mfd = -1;
}

/*
 * Data and sidecar, durably; and a chunk this open made, its names: a
 * write answered must not leave with the chunk's directory entry in a
 * crash, nor its slot in the inode's record of what is held here.
 */
int ds_chunk_sync(struct ds_chunk *c)
{
	int err = 0;

	if (fdatasync(c->fd) || fdatasync(c->mfd))
		return -errno;
	/* held from now on, by the group it has (held.c) */
	if (c->created || c->peers_moved)
		err = ds_held_set(c, c->created);
	if (!err && c->created)
		err = ds_dirs_sync(c->path, c->new_dirs, 0);
	if (!err)
		c->peers_moved = false;
	return err;
}

/**
 * ds_side_open - a side copy of chunk @id, empty, to fill with a pull
 * @ds: this server
 * @id: the chunk (its lock need not be held: only resync.c's one thread
 *      makes side copies, and ds_side_swap() takes the chunk's place
 *      under its lock)
 * @chunk_size: the layout's chunk size
 * @c: out: the side copy, a chunk of its own beside the chunk (data
 *     "<chunk>.pull", sidecar "<chunk>.pull.meta"); the chunk itself is
 *     not touched until ds_side_swap()
 *
 * The data file is made first: a side sidecar without side data means a
 * swap that was under way (ds_side_recover()).
 *
 * Return: 0, or -errno with nothing left behind.
 */
int ds_side_open(struct ds *ds, const struct aifs_chunk_id *id,
		 u32 chunk_size, struct ds_chunk *c)
{
	int flags = O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC |
		    (ds->direct_io ? O_DIRECT : 0);
	char path[PATH_MAX], mside[PATH_MAX];
	int err;

	*c = (struct ds_chunk){ .ds = ds, .id = *id, .fd = -1, .mfd = -1 };
	ds_chunk_path(c);
	snprintf(path, sizeof(path), "%s", c->path);
	err = ds_side_paths(path, c->path, mside);
	if (!err)
		err = c->new_dirs = ds_mkdirs(c->path);
	if (err < 0)
		return err;
	c->fd = open(c->path, flags, 0600);
	if (c->fd >= 0)
		c->mfd = open(mside, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC,
			      0600);
	err = c->fd < 0 || c->mfd < 0 ? -errno : ds_meta_create(c, chunk_size);
	if (err)
		ds_side_drop(c);
	return err;
}

/* A side copy given up: closed and removed. */
void ds_side_drop(struct ds_chunk *c)
{
	char path[PATH_MAX];

	ds_chunk_close(c, 0);
	snprintf(path, sizeof(path), "%s", c->path);
	path[strlen(path) - strlen(DS_SIDE_SUFFIX)] = '\0';
	ds_side_unlink(path);
}

/**
 * ds_side_swap - a side copy takes its chunk's place, durably
 * @c: the side copy, whole, its sidecar stored; closed on return
 *
 * The chunk's lock is held by the caller.  Data and sidecar are synced,
 * then the data is renamed over the chunk's, then the sidecar over the
 * chunk's, and the directory synced.  The data's rename is the commit:
 * before it the chunk is the old one whole (a crash leaves a side copy
 * that ds_side_recover() removes), after it ds_side_recover() finishes
 * with the sidecar's rename.  A chunk deleted meanwhile took the side
 * copy with it (ds_chunk_unlink()): -ENOENT, nothing renamed.
 *
 * Return: 0 or -errno.
 */
int ds_side_swap(struct ds_chunk *c)
{
	char path[PATH_MAX], mpath[PATH_MAX], mside[PATH_MAX];
	bool fresh;
	int err;

	err = ds_chunk_sync(c);
	ds_chunk_close(c, 0);
	snprintf(path, sizeof(path), "%s", c->path);
	path[strlen(path) - strlen(DS_SIDE_SUFFIX)] = '\0';
	snprintf(mpath, sizeof(mpath), "%s.meta", path);
	snprintf(mside, sizeof(mside), "%s" DS_SIDE_SUFFIX ".meta", path);
	if (err) {
		ds_side_unlink(path);
		return err;
	}
	fresh = access(mpath, F_OK) != 0;
	if (rename(c->path, path)) {
		err = -errno;
		ds_side_unlink(path);
		return err;
	}
	err = rename(mside, mpath) ? -errno : 0;
	if (!err && fresh)
		atomic_fetch_add(&c->ds->nr_chunks, 1);
	if (!err)
		err = ds_held_set(c, true);
	err = ds_dirs_sync(path, c->new_dirs, err);
	/* whole: a stale copy's repair mark goes */
	if (!err)
		ds_repair_note(c->ds, &c->id, false);
	return err;
}

/*
 * A side sidecar @name in @dir found at start: without its data file, a swap
 * got past its commit (ds_side_swap()) and the sidecar goes into place;
 * with it, a pull that never ended, removed.
 */
static void ds_side_recover(const char *dir, const char *name)
{
	int len = strlen(name) - strlen(DS_SIDE_SUFFIX ".meta");
	char path[PATH_MAX], side[PATH_MAX], mside[PATH_MAX];
	char mpath[PATH_MAX + 8];

	if (snprintf(path, sizeof(path), "%s/%.*s", dir, len, name) >=
	    (int)sizeof(path) || ds_side_paths(path, side, mside))
		return;
	if (!access(side, F_OK)) {
		ds_side_unlink(path);
		return;
	}
	snprintf(mpath, sizeof(mpath), "%s.meta", path);
	if (rename(mside, mpath) || ds_dirs_sync(mpath, 0, 0))
		aifs_err("%s: a repair's swap not finished: %m", mside);
	else
		aifs_info("%s: a repair's swap finished", path);
}

/*
 * The record of an inode (struct ds_inode_rec), next to its chunks: the
 * last truncation done here (CHUNK_TRUNCATE and CHUNK_DELETE with a
 * fence) and the newest layout generation heard of (CHUNK_SYNC).
 */
static void ds_inode_path(const struct ds *ds, u64 ino, char *path,
			  size_t size)
{
	char dir[PATH_MAX - 64];

	ds_inode_dir(ds, ino, dir, sizeof(dir));
	snprintf(path, size, "%s/%016llx.inode", dir, (unsigned long long)ino);
}

/* Its lock: that of a fragment no chunk has (the decoder refuses it). */
void ds_inode_lock(struct ds *ds, u64 ino, struct ds_lock *lock)
{
	struct aifs_chunk_id id = {
		.ino = cpu_to_le64(ino),
		.index = cpu_to_le32(UINT32_MAX),
		.fragment = cpu_to_le16(UINT16_MAX),
	};

	ds_chunk_lock(ds, &id, true, lock);
}

struct ds_inode_disk {
	__le32 fence;
	__le32 layout_gen;
	__le32 cutting;		/* absent from records before 2026-12-04 */
	__le32 listed;		/* absent from records before 2026-12-05 */
};

/* The record of @ino; all zeros when there is none. */
int ds_inode_load(struct ds *ds, u64 ino, struct ds_inode_rec *rec)
{
	struct ds_inode_disk d = { 0 };
	char path[PATH_MAX];
	int fd, err = 0;

	*rec = (struct ds_inode_rec){ 0 };
	ds_inode_path(ds, ino, path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	if (pread(fd, &d, sizeof(d), 0) <
	    (ssize_t)offsetof(struct ds_inode_disk, cutting)) {
		err = -EIO;
	} else {
		rec->fence = le32_to_cpu(d.fence);
		rec->layout_gen = le32_to_cpu(d.layout_gen);
		rec->cutting = le32_to_cpu(d.cutting);
		rec->listed = le32_to_cpu(d.listed);
	}
	close(fd);
	return err;
}

/*
 * The truncation of @ino a chunk created now is born under (its version's
 * incarnation, ds_version_first()): the last one begun here, so that the
 * cut, done or retried after a crash, leaves the chunk alone.
 */
int ds_inode_born(struct ds *ds, u64 ino, u32 *born)
{
	struct ds_inode_rec rec;
	int err;

	err = ds_inode_load(ds, ino, &rec);
	*born = rec.fence > rec.cutting ? rec.fence : rec.cutting;
	return err;
}

/*
 * @len bytes of @buf at the start of the file @path (created if need be,
 * in place otherwise: a record of a fixed size), durably, and its name
 * too, and those of the @made directories above it that ds_mkdirs() made
 * for it: a new name must survive a crash as well.
 */
int ds_file_put(const char *path, const void *buf, size_t len, int made)
{
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (ds_pwrite_all(fd, buf, len, 0) || fdatasync(fd))
		err = -EIO;
	close(fd);
	return ds_dirs_sync(path, made, err);
}

/* A directory of marks @path, made if need be; its marks counted in @n. */
int ds_marks_init(const char *path, atomic_int *n)
{
	struct dirent *de;
	int count = 0;
	DIR *d;

	if (mkdir(path, 0700) && errno != EEXIST) {
		aifs_err("%s: %m", path);
		return -errno;
	}
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d)))
		count += de->d_name[0] != '.';
	closedir(d);
	atomic_store(n, count);
	return 0;
}

/*
 * The record of @ino, durably: once a truncation is acknowledged the MDS
 * forgets it, and the next one is refused until this one is recorded.
 */
int ds_inode_store(struct ds *ds, u64 ino, const struct ds_inode_rec *rec)
{
	struct ds_inode_disk d = {
		.fence = cpu_to_le32(rec->fence),
		.layout_gen = cpu_to_le32(rec->layout_gen),
		.cutting = cpu_to_le32(rec->cutting),
		.listed = cpu_to_le32(rec->listed),
	};
	char path[PATH_MAX];
	int made;

	ds_inode_path(ds, ino, path, sizeof(path));
	made = ds_mkdirs(path);
	return made < 0 ? made : ds_file_put(path, &d, sizeof(d), made);
}

/* Raise @ino's record to @fence and @layout_gen where they are above it. */
int ds_inode_raise(struct ds *ds, u64 ino, u32 fence, u32 layout_gen)
{
	struct ds_inode_rec rec;
	struct ds_lock lock;
	int err;

	ds_inode_lock(ds, ino, &lock);
	err = ds_inode_load(ds, ino, &rec);
	if (!err && (fence > rec.fence || layout_gen > rec.layout_gen)) {
		rec.fence = fence > rec.fence ? fence : rec.fence;
		rec.layout_gen = layout_gen > rec.layout_gen ? layout_gen :
							       rec.layout_gen;
		err = ds_inode_store(ds, ino, &rec);
	}
	ds_chunk_unlock(ds, &lock);
	return err;
}

/* Whether @name is a chunk's file name followed by @suffix: its id. */
static bool ds_chunk_name(const char *name, const char *suffix,
			  struct aifs_chunk_id *id)
{
	unsigned long long n_ino;
	unsigned int n_index, n_frag;
	int end = 0;

	if (sscanf(name, "%16llx.%8x.%2x%n", &n_ino, &n_index, &n_frag,
		   &end) != 3 || strcmp(name + end, suffix))
		return false;
	id->ino = cpu_to_le64(n_ino);
	id->index = cpu_to_le32(n_index);
	id->fragment = cpu_to_le16(n_frag);
	return true;
}

/* A chunk's name as its files have it, without suffix: whether it is one. */
bool ds_chunk_id_parse(const char *name, struct aifs_chunk_id *id)
{
	return ds_chunk_name(name, "", id);
}

/* Whether chunk @found goes with a CHUNK_DELETE of @ino. */
static bool ds_delete_match(const struct aifs_chunk_id *found, u64 ino,
			    u32 index, u32 flags)
{
	u32 n_index = le32_to_cpu(found->index);

	if (le64_to_cpu(found->ino) != ino)
		return false;
	if ((flags & AIFS_DELETE_UNCODED) && found->fragment)
		return false;
	if (flags & AIFS_DELETE_INODE)
		return true;
	if (flags & AIFS_DELETE_FROM)
		return n_index >= index;
	return n_index == index;
}

/*
 * Whether the chunk of @id (lock held) holds truncation @fence already
 * (ds_chunk_fence()): pulled from a peer that had done it, or created
 * under it; or, stale, waits for a version created under it (a forward
 * of the chunk written again after the cut found the old copy here): a
 * placeholder of the new incarnation, which its pull fills.
 */
static bool ds_chunk_has_cut(struct ds *ds, const struct aifs_chunk_id *id,
			     u32 fence)
{
	struct ds_chunk c;
	bool in;

	if (!fence || ds_chunk_open(ds, id, 0, &c))
		return false;
	in = ds_chunk_fence(&c) >= fence ||
	     (!id->fragment && (c.meta.flags & DS_META_STALE) &&
	      ds_version_born(c.meta.want) >= fence);
	ds_chunk_close(&c, 0);
	return in;
}

/* What ds_dir_each() calls for each chunk data file: 0 goes on. */
typedef int ds_dir_fn(const char *dir, const char *name,
		      const struct aifs_chunk_id *id, void *arg);

/* @fn for each chunk data file in @dir (chunks/<h1>/<h2>), any inode's. */
static int ds_dir_each(const char *dir, ds_dir_fn *fn, void *arg)
{
	struct aifs_chunk_id id = { 0 };
	struct dirent *de;
	int ret = 0;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while (!ret && (de = readdir(d)))
		if (ds_chunk_name(de->d_name, "", &id))
			ret = fn(dir, de->d_name, &id, arg);
	closedir(d);
	return ret;
}

struct ds_delete {
	struct ds *ds;
	const struct aifs_chunk_id *id;
	u32 flags, fence;
	bool unlinked;
	u32 unheld;		/* slots cleared (held.c), to sync */
};

/*
 * The chunk @found, if it goes with @del, locked in @lock as @victim: 1,
 * or 0 when it stays (not named, or holding the cut already).
 */
static int ds_delete_takes(struct ds_delete *del,
			   const struct aifs_chunk_id *found,
			   struct aifs_chunk_id *victim, struct ds_lock *lock)
{
	if (!ds_delete_match(found, le64_to_cpu(del->id->ino),
			     le32_to_cpu(del->id->index), del->flags))
		return 0;
	*victim = *del->id;
	victim->index = found->index;
	victim->fragment = found->fragment;
	ds_chunk_lock(del->ds, victim, true, lock);
	if (!ds_chunk_has_cut(del->ds, victim, del->fence))
		return 1;
	ds_chunk_unlock(del->ds, lock);
	return 0;
}

/* First pass: the slots of the chunks that go are cleared (held.c). */
static int ds_delete_unheld(const char *dir, const char *name,
			    const struct aifs_chunk_id *found, void *arg)
{
	struct ds_delete *del = arg;
	struct aifs_chunk_id victim;
	struct ds_lock lock;
	int held = 0;

	(void)dir;
	(void)name;
	if (ds_delete_takes(del, found, &victim, &lock)) {
		held = ds_held_clear(del->ds, &victim);
		ds_chunk_unlock(del->ds, &lock);
	}
	del->unheld += held > 0;
	return held < 0 ? held : 0;
}

static int ds_delete_one(const char *dir, const char *name,
			 const struct aifs_chunk_id *found, void *arg)
{
	struct ds_delete *del = arg;
	struct aifs_chunk_id victim;
	char path[PATH_MAX];
	struct ds_lock lock;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    (int)sizeof(path) || !ds_delete_takes(del, found, &victim, &lock))
		return 0;
	ds_chunk_unlink(del->ds, &victim, path);
	del->unlinked = true;
	ds_chunk_unlock(del->ds, &lock);
	return 0;
}

/*
 * CHUNK_DELETE: what is absent is deleted already; with @fence, what
 * holds that truncation already (ds_chunk_has_cut()) stays.  What goes
 * leaves the inode's record of what is held here first, durably (the
 * whole record when the whole inode goes): a chunk gone on purpose is
 * never taken for one lost.  Answered once the directory is synced: a
 * cut chunk that came back after a crash would show its old bytes when
 * the file grows again.
 */
int ds_chunk_delete(struct ds *ds, const struct aifs_chunk_id *id, u32 flags,
		    u32 fence)
{
	struct ds_delete del = { ds, id, flags, fence, false, 0 };
	u64 ino = le64_to_cpu(id->ino);
	char dir[PATH_MAX - 64], path[PATH_MAX];
	int err;

	ds_inode_dir(ds, ino, dir, sizeof(dir));
	if ((flags & AIFS_DELETE_INODE) && !fence) {
		err = ds_held_forget(ds, ino);
	} else {
		err = ds_dir_each(dir, ds_delete_unheld, &del);
		if (!err && del.unheld)
			err = ds_held_sync(ds, ino);
	}
	if (!err)
		err = ds_dir_each(dir, ds_delete_one, &del);
	/* Inode numbers are never reused: its truncations are over. */
	if (!err && (flags & AIFS_DELETE_INODE) &&
	    !(flags & AIFS_DELETE_UNCODED)) {
		ds_inode_path(ds, ino, path, sizeof(path));
		del.unlinked |= !unlink(path);
	}
	return del.unlinked ? ds_dir_fsync(dir, err) : err;
}

static int ds_entry_cmp(const void *a, const void *b)
{
	const struct aifs_chunk_entry *x = a, *y = b;
	u64 kx = (u64)le32_to_cpu(x->index) << 16 | le16_to_cpu(x->fragment);
	u64 ky = (u64)le32_to_cpu(y->index) << 16 | le16_to_cpu(y->fragment);

	return kx < ky ? -1 : kx > ky;
}

/* The chunk of @id, if it is here, as a CHUNK_LIST entry: 1, else 0. */
int ds_chunk_stat(struct ds *ds, const struct aifs_chunk_id *id,
		  struct aifs_chunk_entry *e)
{
	struct ds_lock lock;
	struct ds_chunk c;
	int err;

	ds_chunk_lock(ds, id, false, &lock);
	err = ds_chunk_open(ds, id, 0, &c);
	if (!err) {
		*e = (struct aifs_chunk_entry){
			.index = id->index, .fragment = id->fragment,
			.flags = cpu_to_le16(c.meta.flags & DS_META_STALE ?
					     AIFS_CHUNK_STALE : 0),
			.version = cpu_to_le64(c.meta.version),
			.length = cpu_to_le32(c.meta.length),
		};
		ds_chunk_close(&c, 0);
	}
	ds_chunk_unlock(ds, &lock);
	return err ? 0 : 1;
}

/* A growing array of what a directory of the store holds. */
struct ds_found {
	void *v;
	size_t nr, room, size;
};

static void *ds_found_add(struct ds_found *f)
{
	void *grown;

	if (f->nr == f->room) {
		f->room = f->room ? 2 * f->room : 64;
		grown = realloc(f->v, f->room * f->size);
		if (!grown)
			return NULL;
		f->v = grown;
	}
	return (char *)f->v + f->nr++ * f->size;
}

struct ds_list_scan {
	struct ds_found found;	/* struct aifs_chunk_entry, index and fragment */
	u64 ino;
	u32 from;
};

static int ds_list_found(const char *dir, const char *name,
			 const struct aifs_chunk_id *id, void *arg)
{
	struct ds_list_scan *scan = arg;
	struct aifs_chunk_entry *e;

	(void)dir;
	(void)name;
	if (le64_to_cpu(id->ino) != scan->ino ||
	    le32_to_cpu(id->index) < scan->from)
		return 0;
	e = ds_found_add(&scan->found);
	if (!e)
		return -ENOMEM;
	e->index = id->index;
	e->fragment = id->fragment;
	return 0;
}

/*
 * The chunks of @ino here from index @from on, by index and fragment, at
 * most @max into @out: their number (*@more: some were left out), or
 * -errno.
 */
int ds_store_list(struct ds *ds, u64 ino, u32 from, u32 max,
		  struct aifs_chunk_entry *out, bool *more)
{
	struct ds_list_scan scan = {
		.found.size = sizeof(struct aifs_chunk_entry),
		.ino = ino, .from = from,
	};
	struct aifs_chunk_id id = { .ino = cpu_to_le64(ino) };
	struct aifs_chunk_entry *all;
	char dir[PATH_MAX - 64];
	size_t i, kept = 0;
	int err;

	*more = false;
	ds_inode_dir(ds, ino, dir, sizeof(dir));
	err = ds_dir_each(dir, ds_list_found, &scan);
	all = scan.found.v;
	if (err) {
		free(all);
		return err;
	}
	qsort(all, scan.found.nr, sizeof(*all), ds_entry_cmp);
	memcpy(id.fs_uuid, ds->ident.fs_uuid, sizeof(id.fs_uuid));
	for (i = 0; i < scan.found.nr && kept < max; i++) {
		id.index = all[i].index;
		id.fragment = all[i].fragment;
		kept += ds_chunk_stat(ds, &id, &out[kept]);
	}
	*more = i < scan.found.nr;
	free(all);
	return kept;
}

static int ds_inodes_found(const char *dir, const char *name,
			   const struct aifs_chunk_id *id, void *arg)
{
	u64 *ino = ds_found_add(arg);

	(void)dir;
	(void)name;
	if (!ino)
		return -ENOMEM;
	*ino = le64_to_cpu(id->ino);
	return 0;
}

static int ds_u64_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Directories of the store (chunks/<h1>/<h2>: ds_hash_ino()'s range) */
#define DS_STORE_DIRS		0x10000U
/* looked at by one DS_INODES call, at most */
#define DS_INODES_DIRS		4096U

/*
 * From directory @*dir of the store on (in it, above inode @*after), the
 * inodes with chunks here, each once, at most @max into @out, looking at
 * DS_INODES_DIRS directories at most: their number, with the cursor
 * moved past them (*@dir is AIFS_DS_INODES_END at the end); or -errno.
 */
int ds_store_inodes(struct ds *ds, u32 *dir, u64 *after, u32 max, u64 *out)
{
	struct ds_found found = { .size = sizeof(u64) };
	char path[PATH_MAX];
	u32 looked = 0, n = 0;
	u64 *inos;
	size_t i;
	int err = 0;

	for (; *dir < DS_STORE_DIRS && looked < DS_INODES_DIRS && !err;
	     looked++) {
		snprintf(path, sizeof(path), "%s/chunks/%02x/%02x",
			 ds->cfg.data_dir, *dir >> 8, *dir & 0xff);
		found.nr = 0;
		err = ds_dir_each(path, ds_inodes_found, &found);
		inos = found.v;
		if (!err)
			qsort(inos, found.nr, sizeof(*inos), ds_u64_cmp);
		for (i = 0; !err && i < found.nr; i++) {
			if (inos[i] <= *after)
				continue;	/* a chunk of one listed */
			if (n == max)
				goto out;	/* the rest of this directory */
			out[n++] = inos[i];
			*after = inos[i];
		}
		(*dir)++;
		*after = 0;
	}
	if (*dir >= DS_STORE_DIRS)
		*dir = AIFS_DS_INODES_END;
out:
	free(found.v);
	return err ? err : (int)n;
}

/*
 * The chunks under chunks/<h1>/<h2>/ of @path at @depth: see
 * ds_store_walk; with @recover, side copies left by a crash are dealt
 * with on the way (ds_side_recover()).
 */
static int ds_walk_dir(struct ds *ds, const char *path, int depth,
		       bool recover, ds_chunk_fn *fn, ds_held_fn *held,
		       void *arg)
{
	unsigned long long ino;
	int end;
	struct aifs_chunk_id id = { 0 };
	char sub[PATH_MAX];
	struct dirent *de;
	int ret = 0;
	DIR *d;

	memcpy(id.fs_uuid, ds->ident.fs_uuid, sizeof(id.fs_uuid));
	d = opendir(path);
	if (!d)
		return 0;
	while (!ret && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (depth < 2) {
			snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
			ret = ds_walk_dir(ds, sub, depth + 1, recover, fn,
					  held, arg);
		} else if (ds_chunk_name(de->d_name, ".meta", &id)) {
			ret = fn(ds, &id, arg);
		} else if (held &&
			   sscanf(de->d_name, "%16llx.held%n", &ino, &end) == 1 &&
			   !de->d_name[end]) {
			ret = held(ds, ino, arg);
		} else if (recover &&
			   ds_chunk_name(de->d_name, DS_SIDE_SUFFIX ".meta",
					 &id)) {
			ds_side_recover(path, de->d_name);
		}
	}
	closedir(d);
	return ret;
}

static int ds_walk(struct ds *ds, bool recover, ds_chunk_fn *fn,
		   ds_held_fn *held, void *arg)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/chunks", ds->cfg.data_dir);
	return ds_walk_dir(ds, path, 0, recover, fn, held, arg);
}

int ds_store_walk(struct ds *ds, ds_chunk_fn *fn, void *arg)
{
	return ds_walk(ds, false, fn, NULL, arg);
}

/* ds_store_walk(), and @held for each inode's record of what it holds. */
int ds_store_walk_held(struct ds *ds, ds_chunk_fn *fn, ds_held_fn *held,
		       void *arg)
{
	return ds_walk(ds, false, fn, held, arg);
}

static int ds_count_one(struct ds *ds, const struct aifs_chunk_id *id,
			void *arg)
{
	(void)ds;
	(void)id;
	++*(long long *)arg;
	return 0;
}

/* O_DIRECT where the file system of data_dir has it (tmpfs has not). */
static void ds_probe_direct_io(struct ds *ds)
{
	char path[PATH_MAX];
	int fd;

	ds->direct_io = ds->cfg.direct_io;
	if (!ds->direct_io)
		return;
	snprintf(path, sizeof(path), "%s/.direct-io-probe", ds->cfg.data_dir);
	fd = open(path, O_RDWR | O_CREAT | O_DIRECT | O_CLOEXEC, 0600);
	if (fd < 0) {
		aifs_warn("direct_io: %s does not take O_DIRECT (%m): buffered I/O",
			  ds->cfg.data_dir);
		ds->direct_io = false;
		return;
	}
	close(fd);
	unlink(path);
}

int ds_store_init(struct ds *ds)
{
	static const u8 zeros[DS_BLOCK_SIZE];
	char path[PATH_MAX];
	long long nr = 0;
	int i;

	for (i = 0; i < DS_LOCK_STRIPES; i++) {
		pthread_mutex_init(&ds->locks[i].mutex, NULL);
		pthread_cond_init(&ds->locks[i].cond, NULL);
	}
	ds->zero_block_crc = aifs_crc32c(zeros, sizeof(zeros));
	ds_probe_direct_io(ds);
	snprintf(path, sizeof(path), "%s/chunks", ds->cfg.data_dir);
	if (mkdir(path, 0700) && errno != EEXIST) {
		aifs_err("%s: %m", path);
		return -errno;
	}
	/* a swap a crash cut short is finished before a chunk is opened */
	ds_walk(ds, true, ds_count_one, NULL, &nr);
	atomic_store(&ds->nr_chunks, nr);
	aifs_info("%s: %lld chunks%s", ds->cfg.data_dir,
		  (long long)atomic_load(&ds->nr_chunks),
		  ds->direct_io ? ", O_DIRECT" : "");
	return 0;
}

void ds_store_exit(struct ds *ds)
{
	int i;

	for (i = 0; i < DS_LOCK_STRIPES; i++) {
		pthread_mutex_destroy(&ds->locks[i].mutex);
		pthread_cond_destroy(&ds->locks[i].cond);
	}
}
