// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A fragment's undo: what the last stripe write replaced in it, kept in
 * "<chunk>.undo" until the next write, so that a write its leader did not
 * finish (it died between its fragment writes) can be rolled back on the
 * members that took it (Documentation/erasure-coding.md, "Stripe
 * stamps").  One write's worth is enough: a leader writes a stripe only
 * once every member it reaches holds the same stamp, so the write before
 * is whole by then.
 *
 * The file is a struct ds_undo_disk and the replaced bytes (those below
 * the fragment's old length: past it there was nothing), checksummed
 * together; one that does not check out is no undo.  It is written, and
 * synced with the write, before the fragment's bytes change.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ds.h"

#define DS_UNDO_MAGIC	0x4f444e55U	/* "UNDO" */
#define DS_UNDO_SUFFIX	".undo"

struct ds_undo_disk {
	__le32 magic;
	__le32 len;		/* bytes of the old fragment that follow */
	__le64 stamp;		/* the write this undoes */
	__le64 prev;		/* the stamp the fragment goes back to */
	__le32 offset;		/* where the bytes go */
	__le32 length;		/* the fragment's stored length before */
	__le32 reserved;
	__le32 crc;		/* CRC32C of this header (@crc 0) and the bytes */
};

static int ds_undo_path(const struct ds_chunk *c, char *path)
{
	if (snprintf(path, PATH_MAX, "%s" DS_UNDO_SUFFIX, c->path) >= PATH_MAX)
		return -ENAMETOOLONG;
	return 0;
}

/* The CRC of an undo file's @len bytes in @buf, its header's @crc as 0. */
static u32 ds_undo_crc(u8 *buf, u32 len)
{
	struct ds_undo_disk *d = (struct ds_undo_disk *)buf;
	u32 crc, stored = d->crc;

	d->crc = 0;
	crc = aifs_crc32c(buf, len);
	d->crc = stored;
	return crc;
}

/* The fragment's bytes [@off, @off + @len) as stored: holes as zeros. */
static int ds_undo_read(struct ds_chunk *c, u32 off, u32 len, u8 *out)
{
	u32 first = off / DS_BLOCK_SIZE, nr = DS_BLOCKS(off + len) - first;
	u8 *blocks;
	int err;

	if (!len)
		return 0;
	blocks = ds_blocks_alloc(nr);
	if (!blocks)
		return -ENOMEM;
	err = ds_data_read(c, first, nr, blocks);
	if (!err)
		memcpy(out, blocks + off % DS_BLOCK_SIZE, len);
	free(blocks);
	return err;
}

/**
 * ds_undo_save - keep what a write of @len bytes at @off will replace
 * @c: the fragment, open and locked
 * @stamp: the write's stamp (the fragment holds its previous one)
 * @sync: make it durable now (the write is a synced one)
 *
 * Return: 0, or why not (the write must not go on then).
 */
int ds_undo_save(struct ds_chunk *c, u64 stamp, u32 off, u32 len, bool sync)
{
	u32 keep = off < c->meta.length ?
		   (off + len < c->meta.length ? len : c->meta.length - off) : 0;
	struct ds_undo_disk d = {
		.magic = cpu_to_le32(DS_UNDO_MAGIC),
		.len = cpu_to_le32(keep),
		.stamp = cpu_to_le64(stamp),
		.prev = cpu_to_le64(c->meta.version),
		.offset = cpu_to_le32(off),
		.length = cpu_to_le32(c->meta.length),
	};
	char path[PATH_MAX];
	u8 *buf;
	int fd, err;

	err = ds_undo_path(c, path);
	if (err)
		return err;
	buf = malloc(sizeof(d) + keep);
	if (!buf)
		return -ENOMEM;
	err = ds_undo_read(c, off, keep, buf + sizeof(d));
	if (err)
		goto out;
	memcpy(buf, &d, sizeof(d));
	((struct ds_undo_disk *)buf)->crc =
		cpu_to_le32(ds_undo_crc(buf, sizeof(d) + keep));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	err = ds_pwrite_all(fd, buf, sizeof(d) + keep, 0);
	if (!err && sync && fdatasync(fd))
		err = -errno;
	close(fd);
out:
	free(buf);
	return err;
}

/*
 * The undo of @c for write @stamp, checked: in *@buf (to free), its
 * header first and the bytes after.
 */
static int ds_undo_load(struct ds_chunk *c, u64 stamp, u8 **buf)
{
	struct ds_undo_disk d;
	char path[PATH_MAX];
	u32 len = 0;
	int fd, err;

	*buf = NULL;
	err = ds_undo_path(c, path);
	if (err)
		return err;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ENODATA : -errno;
	err = ds_pread_all(fd, &d, sizeof(d), 0) ? -ENODATA : 0;
	if (!err) {
		len = le32_to_cpu(d.len);
		if (le32_to_cpu(d.magic) != DS_UNDO_MAGIC ||
		    le64_to_cpu(d.stamp) != stamp ||
		    le32_to_cpu(d.length) > c->meta.chunk_size ||
		    (u64)le32_to_cpu(d.offset) + len > c->meta.chunk_size)
			err = -ENODATA;
	}
	if (!err) {
		*buf = malloc(sizeof(d) + len);
		err = *buf ? 0 : -ENOMEM;
	}
	if (!err && (ds_pread_all(fd, *buf, sizeof(d) + len, 0) ||
		     le32_to_cpu(d.crc) != ds_undo_crc(*buf, sizeof(d) + len)))
		err = -ENODATA;
	close(fd);
	if (err) {
		free(*buf);
		*buf = NULL;
	}
	return err;
}

/**
 * ds_undo_apply - roll the fragment back over its last write
 * @c: the fragment, open and locked, holding stamp @stamp
 *
 * The replaced bytes go back, the length it had, and the stamp before;
 * the undo goes (one write back is all it holds).  The caller stores and
 * syncs the sidecar.
 *
 * Return: 0; -ENODATA when there is no undo of @stamp.
 */
int ds_undo_apply(struct ds_chunk *c, u64 stamp)
{
	const struct ds_undo_disk *d;
	char path[PATH_MAX];
	u8 *buf;
	int err;

	err = ds_undo_load(c, stamp, &buf);
	if (err)
		return err;
	d = (const struct ds_undo_disk *)buf;
	err = ds_data_write(c, le32_to_cpu(d->offset), buf + sizeof(*d),
			    le32_to_cpu(d->len));
	if (!err)
		err = ds_data_truncate(c, le32_to_cpu(d->length));
	if (!err) {
		c->meta.version = le64_to_cpu(d->prev);
		if (!ds_undo_path(c, path))
			unlink(path);
	}
	free(buf);
	return err;
}

/* The undo goes with its fragment (ds_chunk_unlink()). */
void ds_undo_unlink(const char *chunk_path)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s" DS_UNDO_SUFFIX, chunk_path) <
	    (int)sizeof(path))
		unlink(path);
}
