// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Chunk data moves a whole checksum block at a time: a write that covers
 * part of a block reads the block, checks its CRC (never bless corrupted
 * bytes with a new CRC), merges and rewrites it with a fresh CRC.  Whole
 * blocks keep every offset and length aligned for O_DIRECT too.  Space is
 * reserved with fallocate() before anything is written, so a full disk is
 * an ENOSPC with the chunk untouched.
 *
 * A block is stored a page at a time: pages of zeros are holes, so that a
 * 4 KiB write into a hole takes a page of the disk, not a block, as on a
 * local file system; its CRC covers the block all the same.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ds.h"

/* Blocks [@first, @first + @nr_blocks), checked; zeros past the file. */
int ds_data_read(struct ds_chunk *c, u32 first, u32 nr_blocks, void *buf)
{
	size_t len = (size_t)nr_blocks * DS_BLOCK_SIZE, got = 0;
	off_t off = (off_t)first * DS_BLOCK_SIZE;
	ssize_t n;

	while (got < len) {
		n = pread(c->fd, (u8 *)buf + got, len - got, off + got);
		if (n < 0)
			return -errno;
		if (!n)
			break;
		got += n;
	}
	memset((u8 *)buf + got, 0, len - got);
	return ds_crc_verify(c, first, nr_blocks, buf);
}

/*
 * The blocks a write of [@offset, @end) touches, in @buf: the partly
 * covered first and last blocks come from the disk, the rest from @data.
 */
static int ds_data_merge(struct ds_chunk *c, u32 offset, u32 end,
			 const void *data, u8 *buf)
{
	u32 first = offset / DS_BLOCK_SIZE, last = (end - 1) / DS_BLOCK_SIZE;
	int err = 0;

	if (offset % DS_BLOCK_SIZE)
		err = ds_data_read(c, first, 1, buf);
	if (!err && end % DS_BLOCK_SIZE && (last != first || !(offset % DS_BLOCK_SIZE)))
		err = ds_data_read(c, last, 1,
				   buf + (size_t)(last - first) * DS_BLOCK_SIZE);
	if (!err)
		memcpy(buf + offset % DS_BLOCK_SIZE, data, end - offset);
	return err;
}

/* A block of zeros, aligned for O_DIRECT: the source of every zeroing. */
static const u8 ds_zeros[DS_BLOCK_SIZE] __attribute__((aligned(DS_IO_ALIGN)));

#define DS_PAGE_SIZE	DS_IO_ALIGN	/* what a hole is made of */

static bool ds_page_zero(const u8 *page)
{
	return !memcmp(page, ds_zeros, DS_PAGE_SIZE);
}

/* The end of the run of pages at @pos of @src that all are zeros, or all not. */
static size_t ds_run_end(const u8 *src, size_t pos, size_t len, bool *zero)
{
	size_t end = pos + DS_PAGE_SIZE;

	*zero = ds_page_zero(src + pos);
	while (end < len && ds_page_zero(src + end) == *zero)
		end += DS_PAGE_SIZE;
	return end;
}

/* Reserve the pages of data first: ENOSPC before a byte of the chunk changes. */
static int ds_data_reserve(struct ds_chunk *c, off_t off, const u8 *src,
			   size_t len)
{
	size_t pos, end;
	bool zero;

	for (pos = 0; pos < len; pos = end) {
		end = ds_run_end(src, pos, len, &zero);
		if (!zero && fallocate(c->fd, FALLOC_FL_KEEP_SIZE, off + pos,
				       end - pos) && errno != EOPNOTSUPP)
			return -errno;
	}
	return 0;
}

/* Pages of data written, pages of zeros punched (written where that fails). */
static int ds_data_store(struct ds_chunk *c, off_t off, const u8 *src,
			 size_t len)
{
	size_t pos, end;
	bool zero;
	int err = 0;

	for (pos = 0; pos < len && !err; pos = end) {
		end = ds_run_end(src, pos, len, &zero);
		if (zero && !fallocate(c->fd, FALLOC_FL_PUNCH_HOLE |
				       FALLOC_FL_KEEP_SIZE, off + pos,
				       end - pos))
			continue;
		err = ds_pwrite_all(c->fd, src + pos, end - pos, off + pos);
	}
	return err;
}

static int ds_data_put(struct ds_chunk *c, u32 first, u32 nr_blocks,
		       const void *src)
{
	size_t len = (size_t)nr_blocks * DS_BLOCK_SIZE;
	off_t off = (off_t)first * DS_BLOCK_SIZE;
	u32 *crcs;
	int err;

	err = ds_data_reserve(c, off, src, len);
	if (err)
		return err;
	crcs = malloc((size_t)nr_blocks * 4);
	if (!crcs)
		return -ENOMEM;
	ds_crc_blocks(src, nr_blocks, crcs);
	err = ds_data_store(c, off, src, len);
	if (!err)
		err = ds_crcs_store(c, first, nr_blocks, crcs);
	free(crcs);
	return err;
}

/*
 * Write @len bytes at @offset and update the length in c->meta (the caller
 * stores the sidecar header).  Block-aligned buffered writes go straight
 * from the request; others through an aligned buffer.
 */
int ds_data_write(struct ds_chunk *c, u32 offset, const void *data, u32 len)
{
	u32 end = offset + len, first = offset / DS_BLOCK_SIZE;
	u32 nr_blocks = DS_BLOCKS(end) - first;
	const void *src = data;
	u8 *buf = NULL;
	int err;

	if (!len)
		return 0;
	if ((offset | end) % DS_BLOCK_SIZE || c->ds->direct_io) {
		buf = ds_blocks_alloc(nr_blocks);
		if (!buf)
			return -ENOMEM;
		err = ds_data_merge(c, offset, end, data, buf);
		if (err)
			goto out;
		src = buf;
	}
	err = ds_data_put(c, first, nr_blocks, src);
	if (!err && end > c->meta.length)
		c->meta.length = end;
out:
	free(buf);
	return err;
}

/* Blocks [@first, @end_block) become holes again, with the CRC of zeros. */
static int ds_data_punch(struct ds_chunk *c, u32 first, u32 end_block)
{
	u32 n = end_block - first, i, *crcs;
	int err;

	if (first >= end_block)
		return 0;
	crcs = malloc((size_t)n * 4);
	if (!crcs)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		crcs[i] = c->ds->zero_block_crc;
	err = ds_crcs_store(c, first, n, crcs);
	free(crcs);
	return err;
}

/*
 * Whole blocks [@first, @end_block) read zeros: a hole punched in the data
 * file, or where its file system has no hole punching, zeros written.
 */
static int ds_data_clear(struct ds_chunk *c, u32 first, u32 end_block)
{
	off_t off = (off_t)first * DS_BLOCK_SIZE;
	u32 b;
	int err = 0;

	if (first >= end_block)
		return 0;
	if (fallocate(c->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off,
		      (off_t)(end_block - first) * DS_BLOCK_SIZE)) {
		if (errno != EOPNOTSUPP)
			return -errno;
		for (b = first; !err && b < end_block; b++)
			err = ds_data_put(c, b, 1, ds_zeros);
	}
	return err ? err : ds_data_punch(c, first, end_block);
}

/* Zero [@from, @to), within one block: read, checked, merged, rewritten. */
static int ds_data_zero_part(struct ds_chunk *c, u32 from, u32 to)
{
	return from < to ? ds_data_write(c, from, ds_zeros, to - from) : 0;
}

/*
 * Zero @len bytes at @offset, the length unchanged: past it the chunk
 * reads zeros already, so the range is cut there, and a last block the
 * range covers up to the length is covered whole (its tail is zeros).
 * Whole blocks become holes; partly covered ones at the edges are
 * rewritten with a fresh CRC.
 */
int ds_data_zero(struct ds_chunk *c, u32 offset, u32 len)
{
	u64 want = (u64)offset + len;
	u32 end = want < c->meta.length ? want : c->meta.length;
	u32 first = DS_BLOCKS(offset), last, head_end, tail;
	int err;

	if (offset >= end)
		return 0;
	last = end == c->meta.length ? DS_BLOCKS(end) : end / DS_BLOCK_SIZE;
	head_end = (u64)first * DS_BLOCK_SIZE < end ? first * DS_BLOCK_SIZE : end;
	tail = (u64)last * DS_BLOCK_SIZE > head_end ? last * DS_BLOCK_SIZE :
						      head_end;
	err = ds_data_zero_part(c, offset, head_end);
	if (!err && tail < end)
		err = ds_data_zero_part(c, tail, end);
	if (!err)
		err = ds_data_clear(c, first, last);
	return err;
}

/*
 * Set the chunk's length (the caller checked it against the chunk size).
 * Shrinking zeroes the tail of the new last block, so that growing again
 * reads zeros there as POSIX wants.
 */
int ds_data_truncate(struct ds_chunk *c, u32 length)
{
	u32 keep = length / DS_BLOCK_SIZE;
	u8 *buf;
	int err = 0;

	if (length >= c->meta.length) {
		c->meta.length = length;
		return 0;
	}
	if (length % DS_BLOCK_SIZE) {
		buf = ds_blocks_alloc(1);
		if (!buf)
			return -ENOMEM;
		err = ds_data_read(c, keep, 1, buf);
		if (!err) {
			memset(buf + length % DS_BLOCK_SIZE, 0,
			       DS_BLOCK_SIZE - length % DS_BLOCK_SIZE);
			err = ds_data_put(c, keep, 1, buf);
		}
		free(buf);
		keep++;
	}
	if (!err)
		err = ds_data_punch(c, keep, DS_BLOCKS(c->meta.length));
	if (!err && ftruncate(c->fd, (off_t)keep * DS_BLOCK_SIZE))
		err = -errno;
	if (!err)
		c->meta.length = length;
	return err;
}
