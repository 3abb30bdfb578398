// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The chunks a copy should hold (issue 29, G4).  A chunk whose files went
 * from under the store (removed by hand, or lost with a damaged file
 * system) must not answer as a hole: readers would take zeros for the
 * bytes its group acknowledged.  So each inode with replicated chunks
 * here has a record beside them, "<ino>.held": one slot per chunk index,
 * at index * DS_HELD_SLOT, written once the chunk's names are durable
 * (ds_chunk_sync()) with its group as then (where a repair comes from),
 * written again when a write names another group, and cleared, durably,
 * before a CHUNK_DELETE removes the chunk (all its chunks' slots with one
 * sync; the whole record before a delete of the inode).
 *
 * A chunk absent whose slot is set is lost: ds_held_lost() makes it a
 * stale placeholder (no bytes, any version wanted, the slot's group as
 * its peers), which answers ESTALE, so that a reader goes to another copy
 * (and gets EIO when none serves, never zeros), and is pulled from its
 * group as any stale copy is (resync.c), its repair mark reported to the
 * MDS meanwhile (repair.c).  It is found by a read or write of the chunk,
 * and by scrub, which reads the records too (ds_held_missing()).
 *
 * Orders: a slot is written before the directory sync that makes its
 * new chunk's names durable (one sync for both), and cleared before the
 * chunk's files go, so that a crash never leaves the slot of a chunk
 * deleted on purpose; it may leave one of a chunk never acknowledged.  A
 * placeholder whose whole group answers that it has no such chunk
 * stands as a hole (rule 16 of consistency.md).
 *
 * EC fragments have no slot: a lost fragment's stamp 0 sets it apart from
 * its stripe (ec.c).
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "ds.h"

#define DS_HELD_MAGIC	0x444c4841U	/* "AHLD" */
#define DS_HELD_SLOT	64

struct ds_held_disk {
	__le32 magic;
	__le32 chunk_size;
	__le32 nr_peers;
	__le32 peers[DS_MAX_PEERS];
	__le32 reserved[5];
	__le32 crc;		/* CRC32C of the slot with @crc zero */
};

_Static_assert(sizeof(struct ds_held_disk) == DS_HELD_SLOT, "held slot size");

static int ds_held_path(const struct ds *ds, u64 ino, char *path, size_t size)
{
	char dir[PATH_MAX - 64];

	ds_inode_dir(ds, ino, dir, sizeof(dir));
	return snprintf(path, size, "%s/%016llx.held", dir,
			(unsigned long long)ino) >= (int)size ?
	       -ENAMETOOLONG : 0;
}

/* @ino's record opened with @flags: a descriptor, -ENOENT, or -errno. */
static int ds_held_open(struct ds *ds, u64 ino, int flags)
{
	char path[PATH_MAX];
	int fd, err;

	err = ds_held_path(ds, ino, path, sizeof(path));
	if (err)
		return err;
	fd = open(path, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static off_t ds_held_off(const struct aifs_chunk_id *id)
{
	return (off_t)le32_to_cpu(id->index) * DS_HELD_SLOT;
}

/* The slot of chunk @id in the record open at @fd: 1 when set, else 0. */
static int ds_held_read(int fd, const struct aifs_chunk_id *id,
			struct ds_held_disk *slot)
{
	u32 crc;

	if (pread(fd, slot, sizeof(*slot), ds_held_off(id)) != sizeof(*slot) ||
	    slot->magic != cpu_to_le32(DS_HELD_MAGIC))
		return 0;
	crc = le32_to_cpu(slot->crc);
	slot->crc = 0;
	if (crc != aifs_crc32c(slot, sizeof(*slot)) ||
	    le32_to_cpu(slot->nr_peers) > DS_MAX_PEERS) {
		aifs_err("inode %llu: the slot of chunk %u in its record of what is held is damaged: taken as not held",
			 (unsigned long long)le64_to_cpu(id->ino),
			 le32_to_cpu(id->index));
		return 0;
	}
	return 1;
}

/*
 * The slot of chunk @id: 1 when set (in @slot), 0 when not (or not a
 * replicated chunk's), or -errno.
 */
static int ds_held_load(struct ds *ds, const struct aifs_chunk_id *id,
			struct ds_held_disk *slot)
{
	int fd, held;

	if (id->fragment)
		return 0;
	fd = ds_held_open(ds, le64_to_cpu(id->ino), O_RDONLY);
	if (fd < 0)
		return fd == -ENOENT ? 0 : fd;
	held = ds_held_read(fd, id, slot);
	close(fd);
	return held;
}

/*
 * @len bytes at @off of @ino's record, durably; its name too if new,
 * unless @dir_later (the caller syncs the directory next).
 */
static int ds_held_put(struct ds *ds, u64 ino, const void *buf, size_t len,
		       off_t off, bool dir_later)
{
	char path[PATH_MAX];
	bool fresh;
	int fd, err;

	err = ds_held_path(ds, ino, path, sizeof(path));
	if (err)
		return err;
	fresh = access(path, F_OK) != 0;
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	err = ds_pwrite_all(fd, buf, len, off);
	if (!err && fdatasync(fd))
		err = -errno;
	close(fd);
	return fresh && !dir_later ? ds_dirs_sync(path, 0, err) : err;
}

/**
 * ds_held_set - record that chunk @c (open, its lock held) is held here,
 * with its group
 * @c: the chunk
 * @dir_later: the caller syncs the chunk's directory next, which makes
 *             its names durable and a new record's with them (one sync:
 *             a crash in between may leave a slot whose chunk never
 *             was, never acknowledged, which its group settles as a
 *             hole); else the chunk's names are durable already
 *
 * Return: 0 or -errno.
 */
int ds_held_set(struct ds_chunk *c, bool dir_later)
{
	struct ds_held_disk slot = {
		.magic = cpu_to_le32(DS_HELD_MAGIC),
		.chunk_size = cpu_to_le32(c->meta.chunk_size),
		.nr_peers = cpu_to_le32(c->meta.nr_peers),
	};
	u32 i;

	if (c->id.fragment)
		return 0;
	for (i = 0; i < c->meta.nr_peers; i++)
		slot.peers[i] = cpu_to_le32(c->meta.peers[i]);
	slot.crc = cpu_to_le32(aifs_crc32c(&slot, sizeof(slot)));
	return ds_held_put(c->ds, le64_to_cpu(c->id.ino), &slot, sizeof(slot),
			   ds_held_off(&c->id), dir_later);
}

/*
 * Chunk @id (its lock held) is about to go on purpose: its slot first,
 * made durable by ds_held_sync() before the chunk goes.  Return: 1 when
 * it was set, 0 when not, or -errno.
 */
int ds_held_clear(struct ds *ds, const struct aifs_chunk_id *id)
{
	struct ds_held_disk slot;
	int fd, held;

	if (id->fragment)
		return 0;
	fd = ds_held_open(ds, le64_to_cpu(id->ino), O_RDWR);
	if (fd < 0)
		return fd == -ENOENT ? 0 : fd;
	held = ds_held_read(fd, id, &slot);
	if (held) {
		memset(&slot, 0, sizeof(slot));
		held = ds_pwrite_all(fd, &slot, sizeof(slot), ds_held_off(id)) ?:
		       1;
	}
	close(fd);
	return held;
}

/* The slots of @ino that ds_held_clear() cleared, durably. */
int ds_held_sync(struct ds *ds, u64 ino)
{
	int fd = ds_held_open(ds, ino, O_WRONLY), err;

	if (fd < 0)
		return fd == -ENOENT ? 0 : fd;
	err = fdatasync(fd) ? -errno : 0;
	close(fd);
	return err;
}

/* Every chunk of @ino is about to go: its record first, durably. */
int ds_held_forget(struct ds *ds, u64 ino)
{
	char path[PATH_MAX];
	int err;

	err = ds_held_path(ds, ino, path, sizeof(path));
	if (err)
		return err;
	if (unlink(path))
		return errno == ENOENT ? 0 : -errno;
	return ds_dirs_sync(path, 0, 0);
}

/* A stale placeholder of lost chunk @id (its lock held) from @slot. */
static void ds_held_placeholder(struct ds *ds, const struct aifs_chunk_id *id,
				const struct ds_held_disk *slot)
{
	struct ds_chunk c;
	u32 i;
	int err;

	err = ds_chunk_open(ds, id, le32_to_cpu(slot->chunk_size), &c);
	if (err)
		goto out;
	c.meta.flags |= DS_META_STALE;
	c.meta.want = 1;	/* any copy its group has */
	c.meta.nr_peers = le32_to_cpu(slot->nr_peers);
	for (i = 0; i < c.meta.nr_peers; i++)
		c.meta.peers[i] = le32_to_cpu(slot->peers[i]);
	err = ds_meta_store(&c) ?: ds_chunk_sync(&c);
	if (!err)
		ds_resync_queue(ds, &c, DS_RESYNC_STALE);
	/* a placeholder half made stays: its slot keeps telling */
	ds_chunk_close(&c, 0);
out:
	if (err)
		aifs_err("inode %llu chunk %u: lost, and no placeholder made: %s",
			 (unsigned long long)le64_to_cpu(id->ino),
			 le32_to_cpu(id->index), strerror(-err));
	else
		aifs_warn("inode %llu chunk %u: lost (its files are gone): stale until pulled from its group",
			  (unsigned long long)le64_to_cpu(id->ino),
			  le32_to_cpu(id->index));
}

/**
 * ds_held_lost - whether chunk @id, found absent, is lost
 * @ds: this server
 * @id: the chunk (its lock not held)
 *
 * A lost chunk is made a stale placeholder, queued for a pull.
 *
 * Return: true when it was lost (answer ESTALE); false when it is not
 * held here, or is there again.
 */
bool ds_held_lost(struct ds *ds, const struct aifs_chunk_id *id)
{
	struct ds_held_disk slot;
	struct ds_lock lock;
	struct ds_chunk c;
	bool lost = false;
	int err;

	if (id->fragment)
		return false;
	ds_chunk_lock(ds, id, true, &lock);
	err = ds_chunk_open(ds, id, 0, &c);
	if (!err) {
		/* made meanwhile (a placeholder or a write): it answers */
		ds_chunk_close(&c, 0);
	} else if (err == -ENOENT && ds_held_load(ds, id, &slot) > 0) {
		ds_held_placeholder(ds, id, &slot);
		lost = true;
	}
	ds_chunk_unlock(ds, &lock);
	return lost;
}

/**
 * ds_held_missing - scrub's look at the record of @ino: every chunk it
 * says is held here and is not is made a placeholder (ds_held_lost())
 * @ds: this server
 * @ino: the inode
 * @lost: out: how many were lost
 *
 * Return: 0 or -errno.
 */
int ds_held_missing(struct ds *ds, u64 ino, u32 *lost)
{
	struct aifs_chunk_id id = { .ino = cpu_to_le64(ino) };
	struct ds_held_disk slots[256];
	ssize_t n;
	off_t off = 0;
	int fd, err, i;

	*lost = 0;
	fd = ds_held_open(ds, ino, O_RDONLY);
	if (fd < 0)
		return fd == -ENOENT ? 0 : fd;
	memcpy(id.fs_uuid, ds->ident.fs_uuid, sizeof(id.fs_uuid));
	while ((n = pread(fd, slots, sizeof(slots), off)) > 0) {
		for (i = 0; i < n / DS_HELD_SLOT; i++) {
			if (slots[i].magic != cpu_to_le32(DS_HELD_MAGIC))
				continue;
			id.index = cpu_to_le32(off / DS_HELD_SLOT + i);
			*lost += ds_held_lost(ds, &id);
		}
		off += n;
	}
	err = n < 0 ? -errno : 0;
	close(fd);
	return err;
}
