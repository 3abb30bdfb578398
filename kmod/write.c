// SPDX-License-Identifier: GPL-2.0
/*
 * aifs - buffered writes: write_begin and write_end fill the page cache,
 * writepages and launder_folio send its dirty folios to the data servers.
 *
 * write_begin reads a folio first only when the write covers part of it,
 * the folio is not uptodate and it holds bytes below i_size: a folio
 * written whole needs none of its old bytes, and one wholly past EOF is
 * zeros around the write. i_size grows in write_end, which also marks
 * the inode's size and mtime as changed here and not yet told to the MDS
 * (aifs_inode_written()); fsync and close commit them (file.c).
 *
 * Writeback is shaped like the reads of addr.c: writepages gathers
 * contiguous dirty folios into runs that never cross a chunk boundary nor
 * pass AIFS_DATA_MAX_IO, marks them under writeback, unlocks them and
 * queues one work item per run on the mount's workqueue, where runs to
 * different data servers go in parallel (max_inflight at once). A run is
 * one CHUNK_WRITE to the chunk's primary, the rest of its group as
 * replicas, whose data goes straight from the page cache to the socket
 * (an ITER_XARRAY over the run). The superblock asks for stable writes
 * (SB_I_STABLE_WRITES): a folio under writeback is not written into
 * until it is done, so the payload CRC32C computed before the send holds
 * for the bytes sent. When a run ends, its folios leave writeback; an
 * error goes to the mapping (mapping_set_error()), where fsync and close
 * find it, and the folios stay clean: the data is not retried forever.
 *
 * Every CHUNK_WRITE asks for AIFS_IO_SYNC: the protocol has no COMMIT, so
 * a write is durable on every live replica when it is answered, and a
 * successful fsync needs only to wait for the writeback.
 *
 * Failover. EAGAIN from the primary (a replica failed mid-forward, or the
 * primary's map is behind) is retried, a bounded number of times. A
 * primary that cannot be reached, whose connection fails or times out, or
 * that answers ESTALE (its copy is being resynced) is skipped: the next
 * member of the group becomes the primary of this write, with the members
 * after it as replicas. The data servers' version rules make that safe
 * only while every copy left knows whether it is current: not once the
 * skipped server returns, nor when the new primary had missed writes
 * itself; see Documentation/kernel-client.md, "Writes".
 *
 * A run holds its inode (ihold), as a read does; umount writes back and
 * waits (sync_filesystem()) before the connections fail, and drains the
 * workqueue before the inodes go.
 *
 * An O_DIRECT write (direct.c) is a set of write requests of the same
 * kind, one per piece of chunk and AIFS_DATA_MAX_IO, sent from the
 * caller's pages (an ITER_BVEC of its struct aifs_dio) rather than the
 * page cache; each reports to it when it ends, and the error goes to the
 * writer rather than to the mapping.
 */
#define pr_fmt(fmt) "aifs: " fmt

#include <linux/delay.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/workqueue.h>
#include <linux/writeback.h>

#include "internal.h"

/* Tries of a write that its primary answers EAGAIN, and the pause between. */
#define AIFS_WRITE_TRIES	10
#define AIFS_WRITE_PAUSE_MS	50

/**
 * struct aifs_write_req - one run of folios under writeback, one CHUNK_WRITE
 * @work: runs aifs_write_work()
 * @inode: the file, held until the run ends
 * @fsi: the mount
 * @layout: the file's layout when the run was gathered
 * @dio: an O_DIRECT write from its pages, NULL for the page cache
 * @pos: first byte, at a folio (any byte for @dio), in one chunk
 * @span: bytes of the folios under writeback
 * @len: bytes sent: @span cut at i_size
 */
struct aifs_write_req {
	struct work_struct work;
	struct inode *inode;
	struct aifs_fs_info *fsi;
	struct aifs_layout layout;
	struct aifs_dio *dio;
	loff_t pos;
	u32 span;
	u32 len;
};

static unsigned long aifs_write_timeout(struct aifs_fs_info *fsi)
{
	return msecs_to_jiffies(aifs_get_uint(&fsi->opts, AIFS_OPT_TIMEO) * 100);
}

/*
 * A failure after which the next member of the group is tried: the
 * server is out of reach, its connection failed under the call, or its
 * copy is behind. Any other answer of a server is the write's fate.
 */
static bool aifs_write_failover(struct aifs_conn *conn, int err)
{
	/* not for the mount going away, nor a killed task (launder_folio) */
	if (IS_ERR(conn))
		return PTR_ERR(conn) != -ESHUTDOWN && PTR_ERR(conn) != -EINTR;
	return err == -ESTALE || aifs_conn_error(conn);
}

/* What the application sees of a write that failed. */
static int aifs_write_errno(int err)
{
	switch (err) {
	case -ENOSPC:
	case -EDQUOT:
	case -EFBIG:
		return err;
	}
	return -EIO;
}

/*
 * CHUNK_WRITE of @wreq to @conn, as member @first of the chunk's @group
 * of @width: the members after it are the replicas.
 */
static int aifs_chunk_write(struct aifs_write_req *wreq, struct aifs_conn *conn,
			    u32 index, const __le32 *group, u32 width,
			    u32 first)
{
	const struct aifs_layout *l = &wreq->layout;
	u32 chunk = le32_to_cpu(l->chunk_size);
	struct aifs_chunk_write_req req = {
		.id.ino = cpu_to_le64(wreq->inode->i_ino),
		.id.index = cpu_to_le32(index),
		.offset = cpu_to_le32(wreq->pos & (chunk - 1)),
		.data_len = cpu_to_le32(wreq->len),
		.flags = cpu_to_le32(AIFS_IO_SYNC),
		.chunk_size = l->chunk_size,
		.nr_replicas = cpu_to_le16(width - first - 1),
	};
	/* the data is sent from the page cache, after the fixed part */
	struct aifs_span parts[AIFS_MSG_MAX_PARTS] = {
		{ .data = NULL, .len = wreq->len },
	};
	u8 wire[AIFS_CHUNK_WRITE_REQ_SIZE];
	u8 buf[AIFS_CHUNK_REP_SIZE];
	struct aifs_chunk_rep rep;
	struct iov_iter data;
	u32 r;
	int ret;

	memcpy(req.id.fs_uuid, wreq->fsi->session.fs_uuid, 16);
	for (r = first + 1; r < width; r++)
		req.replicas[r - first - 1] = group[r];
	ret = aifs_msg_encode(AIFS_OP_CHUNK_WRITE, false, wire, sizeof(wire),
			      &req, sizeof(req), parts);
	if (ret < 0)
		return -EINVAL;
	if (wreq->dio)
		aifs_dio_iter(wreq->dio, &data, wreq->pos - wreq->dio->pos,
			      wreq->len);
	else
		iov_iter_xarray(&data, ITER_SOURCE,
				&wreq->inode->i_mapping->i_pages, wreq->pos,
				wreq->len);
	ret = aifs_conn_call_write(conn, AIFS_OP_CHUNK_WRITE, wire,
				   sizeof(wire), &data, buf, sizeof(buf),
				   aifs_write_timeout(wreq->fsi));
	aifs_stats_call(wreq->fsi, AIFS_PEER_DS, AIFS_OP_CHUNK_WRITE,
			sizeof(wire) + wreq->len, ret);
	if (ret < 0)
		return ret;
	if (aifs_msg_decode(AIFS_OP_CHUNK_WRITE, true, buf, ret, &rep,
			    sizeof(rep), NULL) ||
	    le32_to_cpu(rep.length) != wreq->len || !rep.version) {
		pr_warn_ratelimited("malformed CHUNK_WRITE reply for %lu:%u\n",
				    wreq->inode->i_ino, index);
		return -EPROTO;
	}
	return 0;
}

/* The write with member @first of the group as primary, EAGAIN retried. */
static int aifs_write_try(struct aifs_write_req *wreq, u32 index,
			  const __le32 *group, u32 width, u32 first,
			  struct aifs_conn **conn)
{
	int err, tries = 0;

	for (;;) {
		*conn = aifs_data_conn(wreq->fsi, le32_to_cpu(group[first]));
		if (IS_ERR(*conn))
			return PTR_ERR(*conn);
		err = aifs_chunk_write(wreq, *conn, index, group, width, first);
		if (err != -EAGAIN || ++tries == AIFS_WRITE_TRIES)
			return err;
		msleep(AIFS_WRITE_PAUSE_MS);
	}
}

static int aifs_write_issue(struct aifs_write_req *wreq)
{
	const struct aifs_layout *l = &wreq->layout;
	u32 index = div_u64(wreq->pos, le32_to_cpu(l->chunk_size));
	u32 width, first;
	const __le32 *group = aifs_layout_group(l, index, &width);
	struct aifs_conn *conn;
	int err = -EIO;

	for (first = 0; first < width; first++) {
		err = aifs_write_try(wreq, index, group, width, first, &conn);
		if (!err)
			return 0;
		if (!aifs_write_failover(conn, err))
			break;
		/* aifs_data_conn() logs why it has no connection */
		if (!IS_ERR(conn))
			pr_warn_ratelimited("write of chunk %lu:%u to data server %u: %pe\n",
					    wreq->inode->i_ino, index,
					    le32_to_cpu(group[first]),
					    ERR_PTR(err));
	}
	pr_warn_ratelimited("write of chunk %lu:%u failed (%d)\n",
			    wreq->inode->i_ino, index, err);
	return aifs_write_errno(err);
}

/*
 * A run of the page cache ended: its folios leave writeback, and an error
 * goes to the mapping. Folios under writeback stay in the page cache, so
 * all are there.
 */
static void aifs_write_end_folios(struct aifs_write_req *wreq, int err)
{
	struct address_space *mapping = wreq->inode->i_mapping;
	XA_STATE(xas, &mapping->i_pages, wreq->pos >> PAGE_SHIFT);
	pgoff_t last = (wreq->pos + wreq->span - 1) >> PAGE_SHIFT;
	struct folio *folio;

	if (err)
		mapping_set_error(mapping, err);
	rcu_read_lock();
	xas_for_each(&xas, folio, last) {
		if (xas_retry(&xas, folio))
			continue;
		folio_end_writeback(folio);
	}
	rcu_read_unlock();
}

static void aifs_write_done(struct aifs_write_req *wreq, int err)
{
	if (wreq->dio)
		aifs_dio_end(wreq->dio, wreq->pos - wreq->dio->pos, err);
	else
		aifs_write_end_folios(wreq, err);
	iput(wreq->inode);
	kfree(wreq);
}

static void aifs_write_work(struct work_struct *work)
{
	struct aifs_write_req *wreq = container_of(work, struct aifs_write_req,
						   work);

	aifs_write_done(wreq, aifs_write_issue(wreq));
}

/**
 * struct aifs_wb - what writepages gathers
 * @wreq: the run being gathered, NULL between runs
 * @layout: the file's layout
 * @err: the layout is unusable: the folios are ended with this error
 */
struct aifs_wb {
	struct aifs_write_req *wreq;
	struct aifs_layout layout;
	int err;
};

/*
 * Send the run gathered so far; it ends on its own. i_size is read now,
 * not when writepages began: a write that grew the file meanwhile set it
 * before it dirtied its folio, and only truncate shrinks it, which waits
 * for writeback (and, in setattr, writes back first with i_rwsem held).
 */
static void aifs_wb_flush(struct aifs_wb *wb)
{
	struct aifs_write_req *wreq = wb->wreq;

	if (!wreq)
		return;
	wb->wreq = NULL;
	wreq->len = min_t(loff_t, wreq->span,
			  i_size_read(wreq->inode) - wreq->pos);
	queue_work(wreq->fsi->data.wq, &wreq->work);
}

static struct aifs_write_req *aifs_write_new(struct inode *inode,
					     const struct aifs_layout *layout,
					     loff_t pos)
{
	struct aifs_write_req *wreq = kzalloc(sizeof(*wreq), GFP_NOFS);

	if (!wreq)
		return NULL;
	INIT_WORK(&wreq->work, aifs_write_work);
	ihold(inode);
	wreq->inode = inode;
	wreq->fsi = AIFS_SB(inode->i_sb);
	wreq->layout = *layout;
	wreq->pos = pos;
	return wreq;
}

/* Whether the folio at @pos continues the run in its chunk. */
static bool aifs_wb_continues(const struct aifs_wb *wb, loff_t pos)
{
	const struct aifs_write_req *wreq = wb->wreq;
	u32 chunk = le32_to_cpu(wb->layout.chunk_size);

	return pos == wreq->pos + wreq->span && (pos & (chunk - 1)) &&
	       wreq->span < AIFS_DATA_MAX_IO;
}

/*
 * write_cache_pages() hands over each dirty folio locked, its dirty bit
 * cleared for the I/O; it goes under writeback into the current run, or
 * starts a new one.
 */
static int aifs_writepages_fill(struct page *page,
				struct writeback_control *wbc, void *data)
{
	struct folio *folio = page_folio(page);
	struct inode *inode = folio->mapping->host;
	loff_t pos = folio_pos(folio);
	struct aifs_wb *wb = data;

	if (pos >= i_size_read(inode) || wb->err) {
		/* past EOF (truncated since), or nowhere to send it */
		folio_start_writeback(folio);
		folio_unlock(folio);
		folio_end_writeback(folio);
		return 0;
	}
	if (wb->wreq && !aifs_wb_continues(wb, pos))
		aifs_wb_flush(wb);
	if (!wb->wreq) {
		wb->wreq = aifs_write_new(inode, &wb->layout, pos);
		if (!wb->wreq) {
			folio_redirty_for_writepage(wbc, folio);
			folio_unlock(folio);
			return -ENOMEM;
		}
	}
	folio_start_writeback(folio);
	folio_unlock(folio);
	wb->wreq->span += folio_size(folio);
	return 0;
}

int aifs_writepages(struct address_space *mapping,
		    struct writeback_control *wbc)
{
	struct inode *inode = mapping->host;
	struct aifs_wb wb = { };
	int err;

	wb.err = aifs_layout_get(inode, &wb.layout);
	err = write_cache_pages(mapping, wbc, aifs_writepages_fill, &wb);
	aifs_wb_flush(&wb);
	if (wb.err) {
		pr_warn_ratelimited("no layout to write inode %lu with (%d)\n",
				    inode->i_ino, wb.err);
		mapping_set_error(mapping, wb.err);
	}
	return err;
}

/**
 * aifs_write_direct - queue the CHUNK_WRITEs of an O_DIRECT write
 * @inode: the file
 * @dio: the write; each CHUNK_WRITE ends as a piece of it
 *
 * Return: 0 once queued (a piece that could not be is a failure of
 * @dio), -ENOSPC for a layout without targets, -EIO for none.
 */
int aifs_write_direct(struct inode *inode, struct aifs_dio *dio)
{
	struct aifs_write_req *wreq;
	struct aifs_layout layout;
	size_t start;
	u32 n;
	int err;

	err = aifs_layout_get(inode, &layout);
	if (err)
		return err;
	for (start = 0; start < dio->len; start += n) {
		n = aifs_io_piece(&layout, dio->pos + start, dio->len - start);
		wreq = aifs_write_new(inode, &layout, dio->pos + start);
		if (!wreq) {
			aifs_dio_fail(dio, start, -ENOMEM);
			break;
		}
		wreq->dio = dio;
		wreq->span = n;
		wreq->len = n;
		aifs_dio_begin(dio, 1);
		queue_work(wreq->fsi->data.wq, &wreq->work);
	}
	return 0;
}

/*
 * A dirty folio that invalidate_inode_pages2() (OPEN found the file
 * changed elsewhere) is about to drop: write it now, and wait.
 */
int aifs_launder_folio(struct folio *folio)
{
	struct inode *inode = folio->mapping->host;
	struct aifs_write_req *wreq;
	struct aifs_layout layout;
	loff_t size = i_size_read(inode);
	loff_t pos = folio_pos(folio);
	int err;

	if (!folio_clear_dirty_for_io(folio) || pos >= size)
		return 0;
	err = aifs_layout_get(inode, &layout);
	if (!err) {
		wreq = aifs_write_new(inode, &layout, pos);
		err = wreq ? 0 : -ENOMEM;
	}
	if (err) {
		mapping_set_error(folio->mapping, err);
		return err;
	}
	wreq->span = folio_size(folio);
	wreq->len = min_t(loff_t, wreq->span, size - pos);
	folio_start_writeback(folio);
	err = aifs_write_issue(wreq);
	aifs_write_done(wreq, err);
	return err;
}

/*
 * A partial write into a folio that is not uptodate: read what it holds
 * below EOF first; past EOF, zero what the write leaves. Called with the
 * folio locked; returns with it locked, but -EAGAIN when the folio was
 * truncated meanwhile, and any other error, with it unlocked.
 */
static int aifs_write_prepare(struct file *file, struct folio *folio,
			      loff_t pos, unsigned int len)
{
	struct address_space *mapping = folio->mapping;
	size_t off = pos - folio_pos(folio);
	int err;

	if (!off && len >= folio_size(folio))
		return 0;
	if (folio_pos(folio) >= i_size_read(mapping->host)) {
		folio_zero_segments(folio, 0, off, off + len,
				    folio_size(folio));
		return 0;
	}
	/* unlocks the folio when the read ends, at once on an error */
	err = mapping->a_ops->read_folio(file, folio);
	if (!err)
		err = folio_lock_killable(folio);
	if (err)
		return err;
	if (folio->mapping != mapping) {
		folio_unlock(folio);
		return -EAGAIN;
	}
	if (!folio_test_uptodate(folio)) {
		folio_unlock(folio);
		return -EIO;
	}
	return 0;
}

int aifs_write_begin(struct file *file, struct address_space *mapping,
		     loff_t pos, unsigned int len, struct page **pagep,
		     void **fsdata)
{
	struct folio *folio;
	int err;

	do {
		/* FGP_STABLE: waits for writeback (SB_I_STABLE_WRITES) */
		folio = __filemap_get_folio(mapping, pos >> PAGE_SHIFT,
					    FGP_LOCK | FGP_WRITE | FGP_CREAT |
					    FGP_STABLE,
					    mapping_gfp_mask(mapping));
		if (!folio)
			return -ENOMEM;
		err = folio_test_uptodate(folio) ? 0 :
		      aifs_write_prepare(file, folio, pos, len);
		if (err)
			folio_put(folio);
	} while (err == -EAGAIN);
	if (err)
		return err;
	*pagep = folio_file_page(folio, pos >> PAGE_SHIFT);
	return 0;
}

int aifs_write_end(struct file *file, struct address_space *mapping,
		   loff_t pos, unsigned int len, unsigned int copied,
		   struct page *page, void *fsdata)
{
	struct folio *folio = page_folio(page);

	if (!folio_test_uptodate(folio)) {
		/* what the copy left out is neither old data nor zeros */
		if (copied < len) {
			copied = 0;
			goto out;
		}
		folio_mark_uptodate(folio);
	}
	if (copied) {
		aifs_inode_written(mapping->host, pos + copied);
		folio_mark_dirty(folio);
	}
out:
	folio_unlock(folio);
	folio_put(folio);
	return copied;
}
