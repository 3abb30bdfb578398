// SPDX-License-Identifier: GPL-2.0
/*
 * aifs - buffered writes: write_begin and write_end fill the page cache,
 * writepages and launder_folio send its dirty folios to the data servers.
 *
 * write_begin reads nothing: a folio that is not uptodate and is written
 * in part keeps the dirty byte range the writes made (its private word),
 * and only that range is sent, as NFS does; a read of such a folio sends
 * the range first (aifs_read_folio()). i_size grows in write_end, which
 * also marks the inode's size and mtime as changed here and not yet told
 * to the MDS (aifs_inode_written()); fsync and close commit them
 * (file.c).
 *
 * Writeback is shaped like the reads of addr.c: writepages gathers the
 * dirty bytes of contiguous dirty folios into runs that never cross a
 * chunk boundary nor pass AIFS_DATA_MAX_IO, marks them under writeback,
 * unlocks them and queues one work item per run on the mount's
 * workqueue, where runs to different data servers go in parallel
 * (max_inflight at once). A run is one CHUNK_WRITE to the chunk's
 * primary, the rest of its group as replicas, whose data goes straight
 * from the page cache to the socket (an ITER_XARRAY over the run). The
 * superblock asks for stable writes
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
 * that answers ESTALE (its copy, or a replica's, is being resynced, or it
 * does not serve now) is skipped: the next member of the group becomes
 * the primary of this write, with all the others as replicas, the
 * skipped one too. The new primary forwards to it; one it cannot reach
 * it waits for until the MDS counts it out, so no copy that serves ever
 * misses the write (Documentation/fault-tolerance.md, "The rules").
 *
 * A run holds its inode (ihold), as a read does; umount writes back and
 * waits (sync_filesystem()) before the connections fail, and drains the
 * workqueue before the inodes go.
 *
 * A punched hole is written the same way: one CHUNK_WRITE of zeros
 * (AIFS_IO_ZERO, no data) per chunk piece of the range, all queued at
 * once, with the same failover. The caller (fallocate) waits killably; a
 * killed caller leaves, its pieces not yet begun do nothing, and the
 * last piece to end drops the range's clean cached pages that are not
 * being read at that moment (readers may have filled them meanwhile).
 * Until then the inode counts a punch in flight, and writes, truncations
 * and punches wait for it (aifs_punch_wait()), so that no zeros still on
 * their way overtake them.
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
#include <linux/refcount.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/workqueue.h>
#include <linux/writeback.h>

#include "internal.h"

/* Tries of a write that its primary answers EAGAIN, and the pause between. */
#define AIFS_WRITE_TRIES	10
#define AIFS_WRITE_PAUSE_MS	50

/**
 * struct aifs_punch - a hole punched, one CHUNK_WRITE of zeros per piece
 * @ref: the caller's reference and one per piece
 * @pending: pieces not ended, and one while the caller queues them
 * @done: completed when @pending reaches 0
 * @err: the first error of a piece
 * @abandoned: the caller was killed: pieces not begun are skipped, and
 *	the last reference drops the range's cached pages
 * @inode: the file; its pieces hold it
 * @pos: first byte of the hole
 * @len: its bytes
 */
struct aifs_punch {
	refcount_t ref;
	atomic_t pending;
	struct completion done;
	int err;
	bool abandoned;
	struct inode *inode;
	loff_t pos;
	loff_t len;
};

/**
 * struct aifs_write_req - one run of folios under writeback, one CHUNK_WRITE
 * @work: runs aifs_write_work()
 * @inode: the file, held until the run ends
 * @fsi: the mount
 * @layout: the file's layout when the run was gathered
 * @dio: an O_DIRECT write from its pages, NULL for the page cache
 * @pos: first byte (of a folio's dirty range, or any byte for @dio), in
 *	one chunk
 * @span: bytes of the dirty ranges of the folios under writeback, which
 *	follow each other without a gap
 * @len: bytes sent: @span cut at i_size; of a punch, the zeros
 * @punch: the hole this piece of zeros belongs to; NULL for writeback
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
	struct aifs_punch *punch;
};

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

/* An iterator over the first @len bytes of @wreq's data. */
static void aifs_write_iter(struct aifs_write_req *wreq, struct iov_iter *iter,
			    u32 len)
{
	if (wreq->dio)
		aifs_dio_iter(wreq->dio, iter, wreq->pos - wreq->dio->pos, len);
	else
		iov_iter_xarray(iter, ITER_SOURCE,
				&wreq->inode->i_mapping->i_pages, wreq->pos,
				len);
}

/* Where @pos falls in its unit (aifs_layout_unit()): its offset there. */
static u32 aifs_unit_offset(const struct aifs_layout *l, loff_t pos, u32 *index)
{
	u32 off;

	*index = div_u64_rem(pos, aifs_layout_unit(l), &off);
	return off;
}

/*
 * The request of @wreq into @wire, as member @first of the @width of
 * @group: CHUNK_WRITE of chunk @index to its primary, the other members
 * as the replicas; or EC_WRITE of stripe @index to its leader. @req and
 * @ecr are filled for it; its rdma segment is in @seg.
 * Return: its opcode.
 */
static u16 aifs_write_req_fill(struct aifs_write_req *wreq, u32 index,
			       const __le32 *group, u32 width, u32 first,
			       struct aifs_chunk_write_req *req,
			       struct aifs_ec_write_req *ecr,
			       struct aifs_rdma_seg **seg)
{
	const struct aifs_layout *l = &wreq->layout;
	bool zero = wreq->punch;
	struct aifs_chunk_id id = {
		.ino = cpu_to_le64(wreq->inode->i_ino),
		.index = cpu_to_le32(index),
	};
	__le32 flags = cpu_to_le32(AIFS_IO_SYNC | (zero ? AIFS_IO_ZERO : 0));
	u32 r, off = aifs_unit_offset(l, wreq->pos, &r);

	memcpy(id.fs_uuid, wreq->fsi->session.fs_uuid, 16);
	if (l->type == AIFS_LAYOUT_EC) {
		*ecr = (struct aifs_ec_write_req){
			.id = id,
			.offset = cpu_to_le32(off),
			.flags = flags,
			.layout_gen = l->generation,
			.rdma.len = cpu_to_le32(zero ? wreq->len : 0),
		};
		aifs_ec_group_fill(&ecr->group, l, group, first);
		*seg = &ecr->rdma;
		return AIFS_OP_EC_WRITE;
	}
	*req = (struct aifs_chunk_write_req){
		.id = id,
		.offset = cpu_to_le32(off),
		.flags = flags,
		.chunk_size = l->chunk_size,
		.nr_replicas = cpu_to_le16(width - 1),
		.ahead = cpu_to_le16(first),
		.layout_gen = l->generation,
		.rdma.len = cpu_to_le32(zero ? wreq->len : 0),
	};
	for (r = 0; r < width; r++)
		if (r != first)
			req->replicas[r - (r > first)] = group[r];
	*seg = &req->rdma;
	return AIFS_OP_CHUNK_WRITE;
}

/*
 * The write of @wreq to @conn (aifs_write_req_fill()). The data goes
 * after the fixed part, or the server RDMA-READs it when the connection
 * can lend it the pages. Zeros of a punch send no data; a primary
 * without the chunk answers them with version 0.
 */
static int aifs_chunk_write(struct aifs_write_req *wreq, struct aifs_conn *conn,
			    u32 index, const __le32 *group, u32 width,
			    u32 first)
{
	bool zero = wreq->punch;
	u32 data_len = zero ? 0 : wreq->len;
	struct aifs_chunk_write_req req;
	struct aifs_ec_write_req ecr;
	/* the data is sent from the page cache, after the fixed part */
	struct aifs_span parts[AIFS_MSG_MAX_PARTS] = {
		{ .data = NULL, .len = data_len },
	};
	u8 wire[AIFS_EC_WRITE_REQ_SIZE];
	u8 buf[AIFS_CHUNK_REP_SIZE];
	struct aifs_xprt_reg *reg = NULL;
	struct aifs_rdma_seg *seg;
	struct aifs_chunk_rep rep;
	struct iov_iter data;
	u32 wire_len;
	u64 start;
	int ret;
	u16 op;

	ret = aifs_fail_errno(AIFS_FAIL_WRITE_ERROR);
	if (ret)
		return ret;
	op = aifs_write_req_fill(wreq, index, group, width, first, &req, &ecr,
				 &seg);
	aifs_write_iter(wreq, &data, data_len);
	if (data_len)
		reg = aifs_conn_lend(conn, &data, seg);
	if (reg) {
		if (op == AIFS_OP_EC_WRITE)
			ecr.flags |= cpu_to_le32(AIFS_IO_RDMA);
		else
			req.flags |= cpu_to_le32(AIFS_IO_RDMA);
		data_len = 0;
		parts[0].len = 0;
	}
	if (op == AIFS_OP_EC_WRITE) {
		wire_len = AIFS_EC_WRITE_REQ_SIZE;
		ret = aifs_msg_encode(op, false, wire, wire_len, &ecr,
				      sizeof(ecr), parts);
	} else {
		wire_len = AIFS_CHUNK_WRITE_REQ_SIZE;
		ret = aifs_msg_encode(op, false, wire, wire_len, &req,
				      sizeof(req), parts);
	}
	start = ktime_get_ns();
	if (ret >= 0)
		ret = aifs_conn_call_write(conn, op, wire, wire_len,
					   data_len ? &data : NULL, buf,
					   sizeof(buf),
					   aifs_timeo_jiffies(&wreq->fsi->opts));
	aifs_conn_take_back(conn, reg);
	aifs_stats_call(wreq->fsi, AIFS_PEER_DS, op, wire_len + data_len, ret,
			start);
	if (ret < 0)
		return ret;
	/* an EC stripe's version is its parity's: none when all were out */
	if (aifs_msg_decode(op, true, buf, ret, &rep, sizeof(rep), NULL) ||
	    le32_to_cpu(rep.length) != wreq->len ||
	    (!zero && !rep.version && op != AIFS_OP_EC_WRITE)) {
		pr_warn_ratelimited("malformed write reply for %llu:%u\n",
				    (u64)wreq->inode->i_ino, index);
		return -EPROTO;
	}
	if (!zero)
		aifs_stat_add(wreq->fsi, AIFS_C_CHUNK_WRITE_BYTES, wreq->len);
	if (reg)
		aifs_stat_add(wreq->fsi, AIFS_C_RDMA_WRITE_BYTES, wreq->len);
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

/*
 * The write to each member of the chunk's group as primary in turn, while
 * a failure allows another. @rounds: what the servers said.
 */
static int aifs_write_round(struct aifs_write_req *wreq,
			    struct aifs_io_rounds *rounds)
{
	const struct aifs_layout *l = &wreq->layout;
	u32 width, first, index;
	const __le32 *group;

	aifs_unit_offset(l, wreq->pos, &index);
	group = aifs_layout_group(l, index, &width);
	struct aifs_conn *conn;
	int err = -EIO;

	for (first = 0; first < width; first++) {
		err = aifs_write_try(wreq, index, group, width, first, &conn);
		if (!err && first)
			aifs_stat_add(wreq->fsi, AIFS_C_FAILOVERS, 1);
		if (!err)
			return 0;
		rounds->moved |= err == -EREMCHG;
		if (!aifs_write_failover(conn, err))
			break;
		rounds->closed |= !IS_ERR(conn) && aifs_conn_broke(conn, err);
		rounds->stale |= err == -ESTALE;
		rounds->down |= err == -EHOSTDOWN;
		/* aifs_data_conn() logs why it has no connection */
		if (!IS_ERR(conn))
			pr_warn_ratelimited("write of chunk %llu:%u to data server %u: %pe\n",
					    (u64)wreq->inode->i_ino, index,
					    le32_to_cpu(group[first]),
					    ERR_PTR(err));
	}
	pr_warn_ratelimited("write of chunk %llu:%u failed (%d)\n",
			    (u64)wreq->inode->i_ino, index, err);
	return err;
}

/* Rounds of the group while aifs_io_again() says so, as a read's. */
static int aifs_write_issue(struct aifs_write_req *wreq)
{
	struct aifs_io_rounds rounds = {
		.start = jiffies,
		.aborts = atomic_read(&wreq->fsi->aborts),
	};
	__le32 gen;
	int err;

	do {
		err = aifs_write_round(wreq, &rounds);
		if (rounds.moved) {
			gen = wreq->layout.generation;
			aifs_layout_refresh(wreq->inode);
			aifs_layout_get(wreq->inode, &wreq->layout);
			rounds.relaid = wreq->layout.generation != gen;
		}
	} while (err && aifs_io_again(wreq->fsi, &rounds));
	return err ? aifs_write_errno(err) : 0;
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

/* Folios of @mapping left writeback: for aifs_write_and_wait(). */
static void aifs_writeback_ended(struct address_space *mapping)
{
	/* orders the tags' clearing before wake_up_var()'s look for waiters */
	smp_mb();
	wake_up_var(mapping);
}

static void aifs_write_done(struct aifs_write_req *wreq, int err)
{
	if (wreq->dio) {
		aifs_dio_end(wreq->dio, wreq->pos - wreq->dio->pos, err);
	} else {
		aifs_write_end_folios(wreq, err);
		aifs_writeback_ended(wreq->inode->i_mapping);
	}
	iput(wreq->inode);
	kfree(wreq);
}

static void aifs_punch_put(struct aifs_punch *punch)
{
	struct inode *inode = punch->inode;

	if (!refcount_dec_and_test(&punch->ref))
		return;
	/*
	 * Readers may have cached old bytes while the zeros were on the
	 * way. Only what drops without waiting: a worker must not wait for
	 * a folio whose read is queued behind it on the same workqueue.
	 */
	if (punch->abandoned)
		invalidate_mapping_pages(inode->i_mapping,
					 punch->pos >> PAGE_SHIFT,
					 (punch->pos + punch->len - 1) >>
					 PAGE_SHIFT);
	if (atomic_dec_and_test(&AIFS_I(inode)->punches))
		wake_up_var(&AIFS_I(inode)->punches);
	kfree(punch);
}

static void aifs_punch_piece_end(struct aifs_punch *punch)
{
	if (atomic_dec_and_test(&punch->pending))
		complete(&punch->done);
}

/* A piece of a punch ended: the first error is the punch's. */
static void aifs_punch_piece_done(struct aifs_write_req *wreq, int err)
{
	struct aifs_punch *punch = wreq->punch;

	if (err)
		cmpxchg(&punch->err, 0, err);
	aifs_punch_piece_end(punch);
	aifs_punch_put(punch);
	iput(wreq->inode);
	kfree(wreq);
}

static void aifs_write_work(struct work_struct *work)
{
	struct aifs_write_req *wreq = container_of(work, struct aifs_write_req,
						   work);

	if (!wreq->punch)
		aifs_write_done(wreq, aifs_write_issue(wreq));
	else if (READ_ONCE(wreq->punch->abandoned))
		aifs_punch_piece_done(wreq, -EINTR);
	else
		aifs_punch_piece_done(wreq, aifs_write_issue(wreq));
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
 * The bytes of a dirty folio this client wrote: [*start, *end). Only a
 * folio written in part keeps a range (AIFS_FOLIO_RANGE); any other
 * dirty folio, a mapped one for instance, is dirty as a whole.
 */
static void aifs_folio_range(struct folio *folio, size_t *start, size_t *end)
{
	unsigned long word = aifs_folio_word(folio);

	if (!(word & AIFS_FOLIO_RANGE)) {
		*start = 0;
		*end = folio_size(folio);
		return;
	}
	*start = (word >> AIFS_FOLIO_START_SHIFT) & (PAGE_SIZE - 1);
	*end = ((word >> AIFS_FOLIO_END_SHIFT) & (PAGE_SIZE - 1)) + 1;
}

/**
 * aifs_folio_set_range - record which bytes of a folio are dirty
 * @folio: the folio, locked, about to be marked dirty (or being cleaned)
 * @start: first dirty byte in it
 * @end: past the last; 0 and the folio's size for all of it
 */
void aifs_folio_set_range(struct folio *folio, size_t start, size_t end)
{
	unsigned long word = aifs_folio_word(folio) & AIFS_FOLIO_READAHEAD;

	if (start || end < folio_size(folio))
		word |= AIFS_FOLIO_RANGE | start << AIFS_FOLIO_START_SHIFT |
			(end - 1) << AIFS_FOLIO_END_SHIFT;
	aifs_folio_set_word(folio, word);
}

/* The dirty bytes of a folio whose dirty bit was cleared for the I/O. */
static void aifs_folio_take_range(struct folio *folio, size_t *start,
				  size_t *end)
{
	aifs_folio_range(folio, start, end);
	aifs_folio_set_range(folio, 0, folio_size(folio));
}

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

/* Whether the folio at @pos continues the run in its chunk (EC: stripe). */
static bool aifs_wb_continues(const struct aifs_wb *wb, loff_t pos)
{
	const struct aifs_write_req *wreq = wb->wreq;
	u32 index;

	return pos == wreq->pos + wreq->span &&
	       aifs_unit_offset(&wb->layout, pos, &index) &&
	       wreq->span < AIFS_DATA_MAX_IO;
}

/* The bytes of one write request at @pos, @left to write from there. */
static u32 aifs_write_piece(const struct aifs_layout *l, loff_t pos,
			    size_t left)
{
	u32 index, room = aifs_layout_unit(l) - aifs_unit_offset(l, pos, &index);

	return min3((size_t)room, left, (size_t)AIFS_DATA_MAX_IO);
}

/*
 * Bytes a shared mapping stored past EOF in the folio across it are not
 * the file's: they are zeroed at each writeback, as block file systems
 * do, so that they do not become the file's when it grows. The folio is
 * locked and its ptes write-protected (folio_clear_dirty_for_io()).
 */
static void aifs_write_zero_eof(struct folio *folio, loff_t size)
{
	loff_t off = size - folio_pos(folio);

	if (off < folio_size(folio))
		folio_zero_segment(folio, off, folio_size(folio));
}

/*
 * write_cache_pages() hands over each dirty folio locked, its dirty bit
 * cleared for the I/O; it goes under writeback into the current run, or
 * starts a new one. A run holds dirty ranges that meet: a folio dirty in
 * part ends the run before it (a range not from its start) or after it
 * (a range not to its end).
 */
static int aifs_writepages_fill(struct aifs_wb_page *page,
				struct writeback_control *wbc, void *data)
{
	struct folio *folio = aifs_to_folio(page);
	struct inode *inode = folio->mapping->host;
	loff_t size = i_size_read(inode);
	struct aifs_wb *wb = data;
	size_t start, end;
	loff_t pos;

	aifs_folio_range(folio, &start, &end);
	pos = folio_pos(folio) + start;
	if (pos >= size || wb->err) {
		/* past EOF (truncated since), or nowhere to send it */
		aifs_folio_take_range(folio, &start, &end);
		folio_start_writeback(folio);
		folio_unlock(folio);
		folio_end_writeback(folio);
		aifs_writeback_ended(folio->mapping);
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
	aifs_folio_take_range(folio, &start, &end);
	aifs_write_zero_eof(folio, size);
	folio_start_writeback(folio);
	folio_unlock(folio);
	wb->wreq->span += end - start;
	return 0;
}

int aifs_writepages(struct address_space *mapping,
		    struct writeback_control *wbc)
{
	struct inode *inode = mapping->host;
	struct aifs_wb wb = { };
	int err;

	wb.err = aifs_layout_get(inode, &wb.layout);
	err = aifs_write_cache_pages(mapping, wbc, aifs_writepages_fill, &wb);
	aifs_wb_flush(&wb);
	if (wb.err) {
		pr_warn_ratelimited("no layout to write inode %llu with (%d)\n",
				    (u64)inode->i_ino, wb.err);
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
		n = aifs_write_piece(&layout, dio->pos + start,
				     dio->len - start);
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
 * Write a locked folio's dirty bytes now, and wait: the folio is about
 * to be dropped by invalidate_inode_pages2() (OPEN found the file changed
 * elsewhere), or read into (aifs_read_folio()), or written again with a
 * gap between the old and new dirty bytes (aifs_write_begin()).
 */
int aifs_launder_folio(struct folio *folio)
{
	struct inode *inode = folio->mapping->host;
	struct aifs_write_req *wreq;
	struct aifs_layout layout;
	loff_t size = i_size_read(inode);
	size_t start, end;
	loff_t pos;
	int err;

	if (!folio_clear_dirty_for_io(folio))
		return 0;
	aifs_folio_take_range(folio, &start, &end);
	pos = folio_pos(folio) + start;
	if (pos >= size)
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
	wreq->span = end - start;
	wreq->len = min_t(loff_t, wreq->span, size - pos);
	aifs_write_zero_eof(folio, size);
	folio_start_writeback(folio);
	err = aifs_write_issue(wreq);
	aifs_write_done(wreq, err);
	return err;
}

/*
 * A task that a signal killed closes its files in do_exit() (exit_code is
 * its signal by then), where no signal is pending any more to end a
 * killable wait: its flush and release must not start one.
 */
static bool aifs_killed_task_exits(void)
{
	return (current->flags & PF_EXITING) && (current->exit_code & 0x7f);
}

/**
 * aifs_write_and_wait - write back a file's range and wait for it, killably
 * @file: the file
 * @start: first byte
 * @end: last byte
 *
 * As file_write_and_wait_range(), whose wait is uninterruptible: a write
 * waits for its data servers as long as its rounds go (a timeo per server
 * that does not answer, the failover, a server catching up), and fsync(2)
 * or close(2) that waits for it can be killed meanwhile (SIGKILL ends any
 * wait of a hard mount), and so can the exit of a killed task.  The wait
 * is for every folio of the file under writeback, then
 * file_write_and_wait_range() for the errors.
 *
 * Return: 0, the writeback's first error not reported to @file yet, or
 * -ERESTARTSYS when the task was killed: its writes go on without it.
 */
int aifs_write_and_wait(struct file *file, loff_t start, loff_t end)
{
	struct address_space *mapping = file->f_mapping;
	int err, ret;

	err = filemap_fdatawrite_range(mapping, start, end);
	if (aifs_killed_task_exits() ||
	    wait_var_event_killable(mapping,
			!mapping_tagged(mapping, PAGECACHE_TAG_WRITEBACK)))
		return -ERESTARTSYS;
	ret = file_write_and_wait_range(file, start, end);
	return err ?: ret;
}

/**
 * aifs_punch_wait - wait for the punches of a file still on their way
 * @inode: the file
 *
 * A punch whose caller was killed goes on without it; a write, a
 * truncation or another punch waits for it, so that no zeros land after
 * it on the data servers.
 *
 * Return: 0, or -ERESTARTSYS on a fatal signal.
 */
int aifs_punch_wait(struct inode *inode)
{
	atomic_t *punches = &AIFS_I(inode)->punches;

	return wait_var_event_killable(punches, !atomic_read(punches));
}

/*
 * The zeros of one request at @pos, @left to zero from there: the rest of
 * a chunk, which moves no data; of an EC stripe, as much as a write, for
 * its leader encodes them as data.
 */
static u32 aifs_punch_len(const struct aifs_layout *l, loff_t pos,
			  loff_t left)
{
	u32 index, room;

	if (l->type == AIFS_LAYOUT_EC)
		return aifs_write_piece(l, pos, left);
	room = aifs_layout_unit(l) - aifs_unit_offset(l, pos, &index);
	return min_t(loff_t, room, left);
}

/* Queue one write of zeros for [@pos, @pos + @len), in one chunk. */
static int aifs_punch_piece(struct aifs_punch *punch,
			    const struct aifs_layout *layout, loff_t pos,
			    u32 len)
{
	struct aifs_write_req *wreq;

	wreq = aifs_write_new(punch->inode, layout, pos);
	if (!wreq)
		return -ENOMEM;
	wreq->len = len;
	wreq->punch = punch;
	refcount_inc(&punch->ref);
	atomic_inc(&punch->pending);
	queue_work(wreq->fsi->data.wq, &wreq->work);
	return 0;
}

/**
 * aifs_punch_range - zero a range of a file on the data servers
 * @inode: the file, i_rwsem held, its dirty data in the range written back
 * @layout: its layout
 * @pos: first byte
 * @len: bytes, at least 1
 *
 * One CHUNK_WRITE of zeros per chunk piece of the range, to the chunk's
 * primary, all in parallel on the mount's workqueue; the chunks' lengths
 * stay. The wait ends on a fatal signal, leaving the pieces to end on
 * their own (see the top of this file).
 *
 * Return: 0, -EINTR, -ENOMEM, or the first piece's error as a write's
 * (aifs_write_errno()).
 */
int aifs_punch_range(struct inode *inode, const struct aifs_layout *layout,
		     loff_t pos, loff_t len)
{
	loff_t end = pos + len, next;
	struct aifs_punch *punch;
	int err = 0;

	punch = kzalloc(sizeof(*punch), GFP_KERNEL);
	if (!punch)
		return -ENOMEM;
	refcount_set(&punch->ref, 1);
	atomic_set(&punch->pending, 1);
	init_completion(&punch->done);
	punch->inode = inode;
	punch->pos = pos;
	punch->len = len;
	atomic_inc(&AIFS_I(inode)->punches);
	for (; pos < end && !err; pos = next) {
		next = pos + aifs_punch_len(layout, pos, end - pos);
		err = aifs_punch_piece(punch, layout, pos, next - pos);
	}
	aifs_punch_piece_end(punch);
	if (wait_for_completion_killable(&punch->done)) {
		WRITE_ONCE(punch->abandoned, true);
		err = -EINTR;
	}
	if (!err)
		err = READ_ONCE(punch->err);
	aifs_punch_put(punch);
	return err;
}

/**
 * aifs_ec_cut_tail - zero what an EC file keeps past a new, smaller size
 * @inode: the file, i_rwsem held, its dirty data written back
 * @size: the size it is cut to
 *
 * The MDS deletes the stripes wholly past the size but cannot cut the
 * fragments of the one the size ends in: the parity covers them. Their
 * bytes past the size are zeroed here through the stripe's leader, so
 * that the file reads zeros there if it grows again.
 *
 * Return: 0 (nothing to do for a replicated file) or as aifs_punch_range().
 */
int aifs_ec_cut_tail(struct inode *inode, loff_t size)
{
	struct aifs_inode_info *ai = AIFS_I(inode);
	struct aifs_layout layout;
	loff_t end, known;
	u32 index, off;

	if (aifs_layout_get(inode, &layout) || layout.type != AIFS_LAYOUT_EC)
		return 0;
	off = aifs_unit_offset(&layout, size, &index);
	if (!off)
		return 0;
	spin_lock(&inode->i_lock);
	known = max_t(loff_t, i_size_read(inode), ai->mds_size);
	spin_unlock(&inode->i_lock);
	end = min_t(loff_t, known, size - off + aifs_layout_unit(&layout));
	return end > size ? aifs_punch_range(inode, &layout, size, end - size) :
			    0;
}

/*
 * A write into a folio that is not uptodate reads nothing first: only
 * the bytes written become dirty (the folio's range), so that bytes of
 * the folio that another client writes are not overwritten with what
 * this one read or assumed before (parallel checkpoint writers meet in
 * the pages at their boundaries). A write that would leave a gap between
 * the folio's dirty bytes and its own sends the dirty bytes first. An
 * uptodate folio holds the file's bytes: its range grows over a gap.
 */
static int aifs_write_prepare(struct folio *folio, loff_t pos,
			      unsigned int len)
{
	size_t off = offset_in_folio(folio, pos), start, end;

	if (!folio_test_dirty(folio))
		return 0;
	aifs_folio_range(folio, &start, &end);
	if (off <= end && off + len >= start)
		return 0;
	return aifs_launder_folio(folio);
}

int aifs_write_begin(AIFS_WRITE_CALLER *caller, struct address_space *mapping,
		     loff_t pos, unsigned int len,
		     struct aifs_write_page **pagep, void **fsdata)
{
	struct folio *folio;
	int err;

	/* FGP_STABLE: waits for writeback (SB_I_STABLE_WRITES) */
	folio = __filemap_get_folio(mapping, pos >> PAGE_SHIFT,
				    FGP_LOCK | FGP_WRITE | FGP_CREAT | FGP_STABLE,
				    mapping_gfp_mask(mapping));
	/* NULL until 6.4, an error pointer since */
	if (IS_ERR_OR_NULL(folio))
		return folio ? PTR_ERR(folio) : -ENOMEM;
	err = folio_test_uptodate(folio) ? 0 :
	      aifs_write_prepare(folio, pos, len);
	if (err) {
		folio_unlock(folio);
		folio_put(folio);
		return err;
	}
	*pagep = aifs_write_page_of(folio, pos);
	return 0;
}

int aifs_write_end(AIFS_WRITE_CALLER *caller, struct address_space *mapping,
		   loff_t pos, unsigned int len, unsigned int copied,
		   struct aifs_write_page *page, void *fsdata)
{
	struct folio *folio = aifs_to_folio(page);
	size_t start = offset_in_folio(folio, pos), end = start + copied;
	size_t old_start, old_end;

	if (!copied)
		goto out;
	if (folio_test_dirty(folio)) {
		aifs_folio_range(folio, &old_start, &old_end);
		/* a short copy left a gap that only a read could fill */
		if (!folio_test_uptodate(folio) &&
		    (start > old_end || end < old_start)) {
			copied = 0;
			goto out;
		}
		start = min(start, old_start);
		end = max(end, old_end);
	}
	if (!start && end == folio_size(folio))
		folio_mark_uptodate(folio);
	/* before the dirty bit: a folio with private data is dirtied quietly */
	aifs_folio_set_range(folio, start, end);
	aifs_inode_written(mapping->host, pos + copied);
	folio_mark_dirty(folio);
out:
	folio_unlock(folio);
	folio_put(folio);
	return copied;
}
