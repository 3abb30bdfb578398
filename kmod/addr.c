// SPDX-License-Identifier: GPL-2.0
/*
 * aifs - the page cache of regular files: read_folio and readahead; the
 * write side of the address space operations is in write.c.
 *
 * Shaped like netfs, so that moving to it later is mechanical: a read
 * request (a readahead window, or one folio) covers [pos, pos + len) of
 * the file's page cache, whose folios the caller locked; it is split at
 * chunk boundaries, and at AIFS_DATA_MAX_IO, into sub-requests, each one
 * CHUNK_READ to the chunk's primary, run as work items on the mount's
 * aifs-io workqueue (max_inflight at once). Readahead and read_folio
 * queue them and return: the reader waits on the folio lock, killably, in
 * filemap_read() or filemap_fault(). When the last sub-request ends, the
 * folios are marked uptodate, unless one failed, and unlocked.
 *
 * The data goes from the socket straight into the folios: a sub-request's
 * CHUNK_READ receives its reply's data into an ITER_XARRAY over its range
 * of the page cache (aifs_conn_call_data()), as fs/afs does. The folios
 * are locked and not uptodate, so nobody else looks at them meanwhile.
 *
 * A sub-request whose server fails (no connection, a timeout, an error,
 * a reply that does not add up) goes to the next replica of the chunk's
 * group at once, which writes the same folios again.  So does one whose
 * server has no such chunk (ENOENT): that copy may have lost it.  A chunk
 * no replica that answered holds was never written, and bytes past a
 * chunk's stored length: holes, read as zeros, as is everything past
 * i_size. When no replica answers, the request fails: its folios are
 * unlocked not uptodate, and the reader gets -EIO.
 *
 * An O_DIRECT read (direct.c) is a request of its own kind: its
 * sub-requests receive into the caller's pages (an ITER_BVEC of its
 * struct aifs_dio) rather than the page cache, and each reports to it
 * when it ends; there are no folios to unlock.
 *
 * Ownership: a request belongs to its sub-requests, and the last one to
 * end frees it; no reader waits for it, so a killed reader just leaves.
 * The request holds its inode (ihold), so that the mapping stays; locked
 * folios cannot leave the page cache. umount ends the connections and
 * drains the workqueue before the superblock's inodes go
 * (aifs_data_shutdown()).
 */
#define pr_fmt(fmt) "aifs: " fmt

#include <linux/delay.h>
#include <linux/highmem.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/workqueue.h>
#include <linux/writeback.h>

#include "internal.h"

/*
 * Readahead marks the folios it fills with AIFS_FOLIO_READAHEAD in their
 * private word, so that their release or invalidation can tell whether the
 * application read them: filemap_read() marks every folio it copies from
 * accessed (PG_referenced, or PG_active on a second access), and so does
 * unmapping a page an mmap touched. Limits, documented in
 * Documentation/kernel-client.md: reclaim clears PG_referenced before it
 * releases a folio, so a folio read once and then reclaimed counts as
 * wasted; a folio that refaults may come back active without a read.
 */

unsigned long aifs_folio_word(struct folio *folio)
{
	return (unsigned long)folio_get_private(folio);
}

/* Set the private word; PG_private and its folio reference follow it. */
void aifs_folio_set_word(struct folio *folio, unsigned long word)
{
	BUILD_BUG_ON(AIFS_FOLIO_END_SHIFT + PAGE_SHIFT > BITS_PER_LONG);
	if (!word)
		folio_detach_private(folio);
	else if (folio_test_private(folio))
		folio_change_private(folio, (void *)word);
	else
		folio_attach_private(folio, (void *)word);
}

/**
 * struct aifs_read_sub - the part of a read within one chunk
 * @work: runs aifs_read_sub_work()
 * @rreq: the read
 * @layout: the layout it reads with: the request's, or @own
 * @own: a newer layout a server sent it to fetch (EREMCHG), or NULL
 * @start: offset of the part in the read
 * @len: bytes
 */
struct aifs_read_sub {
	struct work_struct work;
	struct aifs_read_req *rreq;
	const struct aifs_layout *layout;
	struct aifs_layout *own;
	u32 start;
	u32 len;
};

/**
 * struct aifs_read_req - one read of [pos, pos + len) of a file
 * @inode: the file, held until the request ends
 * @fsi: the mount
 * @layout: the file's layout, copied at the start of the read
 * @pos: first byte, at a folio
 * @len: bytes, whole folios
 * @readahead: the folios are readahead's, to be marked AIFS_FOLIO_READAHEAD
 * @dio: an O_DIRECT read into its pages, NULL for the page cache; may be
 *	gone once every sub-request ended
 * @failed: a sub-request failed: the folios are not uptodate
 * @pending: sub-requests still running
 * @nr: entries of @subs
 * @subs: the sub-requests
 */
struct aifs_read_req {
	struct inode *inode;
	struct aifs_fs_info *fsi;
	struct aifs_layout layout;
	loff_t pos;
	size_t len;
	bool readahead;
	struct aifs_dio *dio;
	bool failed;
	atomic_t pending;
	u32 nr;
	struct aifs_read_sub *subs;
};

/*
 * Unlock the folios of [pos, pos + len) of @mapping, which the caller
 * locked; uptodate first if @uptodate, and marked as readahead's if
 * @readahead. Locked folios stay in the page cache, so all are there.
 * Return: the pages made uptodate.
 */
static long aifs_read_unlock(struct address_space *mapping, loff_t pos,
			     size_t len, bool uptodate, bool readahead)
{
	XA_STATE(xas, &mapping->i_pages, pos >> PAGE_SHIFT);
	pgoff_t last = (pos + len - 1) >> PAGE_SHIFT;
	struct folio *folio;
	long pages = 0;

	rcu_read_lock();
	xas_for_each(&xas, folio, last) {
		if (xas_retry(&xas, folio))
			continue;
		if (uptodate) {
			flush_dcache_folio(folio);
			if (readahead)
				aifs_folio_set_word(folio,
						    aifs_folio_word(folio) |
						    AIFS_FOLIO_READAHEAD);
			pages += folio_nr_pages(folio);
			folio_mark_uptodate(folio);
		}
		folio_unlock(folio);
	}
	rcu_read_unlock();
	return pages;
}

static void aifs_read_free(struct aifs_read_req *rreq)
{
	u32 i;

	iput(rreq->inode);
	for (i = 0; rreq->subs && i < rreq->nr; i++)
		kfree(rreq->subs[i].own);
	kfree(rreq->subs);
	kfree(rreq);
}

/* The last sub-request ended: the folios are ready, or failed. */
static void aifs_read_done(struct aifs_read_req *rreq)
{
	long pages;

	if (!rreq->dio) {
		pages = aifs_read_unlock(rreq->inode->i_mapping, rreq->pos,
					 rreq->len, !READ_ONCE(rreq->failed),
					 rreq->readahead);
		aifs_stat_add(rreq->fsi, AIFS_C_CACHE_FILL_PAGES, pages);
		if (rreq->readahead)
			aifs_stat_add(rreq->fsi, AIFS_C_RA_PAGES, pages);
	}
	aifs_read_free(rreq);
}

/* An iterator over @len bytes at @off of the request's destination. */
static void aifs_read_iter(struct aifs_read_req *rreq, struct iov_iter *iter,
			   size_t off, size_t len)
{
	if (rreq->dio)
		aifs_dio_iter(rreq->dio, iter, off, len);
	else
		iov_iter_xarray(iter, ITER_DEST,
				&rreq->inode->i_mapping->i_pages,
				rreq->pos + off, len);
}

/* Zeros for @len bytes at @off of the request: a hole, or past EOF. */
static void aifs_read_zero(struct aifs_read_req *rreq, size_t off,
			   size_t len)
{
	struct iov_iter iter;

	aifs_read_iter(rreq, &iter, off, len);
	iov_iter_zero(len, &iter);
}

/*
 * The bytes of data a CHUNK_READ reply brought for @len bytes at @off of a
 * chunk (by RDMA, @rdma: the reply carries none), or -EPROTO when it does
 * not add up.
 */
static int aifs_read_rep_data(const struct aifs_read_req *rreq,
			      const struct aifs_chunk_read_rep *rep,
			      u32 off, u32 len, bool rdma)
{
	u32 chunk_len = le32_to_cpu(rep->chunk_len);
	u32 data_len = le32_to_cpu(rep->data_len);
	u32 want = chunk_len > off ? min(chunk_len - off, len) : 0;

	if (chunk_len > le32_to_cpu(rreq->layout.chunk_size))
		return -EPROTO;
	if (chunk_len && !le64_to_cpu(rep->version))
		return -EPROTO;
	if (data_len != (rdma ? 0 : want))
		return -EPROTO;
	return want;
}

/*
 * The request of a read of @sub at @off of chunk @index (EC: of fragment
 * @frag of stripe @index) into @wire: CHUNK_READ, or with @ec an EC_READ
 * of the fragment, decoded by the server from the rest of its stripe.
 * Return: its opcode, or a negative errno.
 */
static int aifs_chunk_read_req(struct aifs_read_sub *sub, u32 index, u16 frag,
			       u32 off, const struct aifs_ec_group *ec,
			       const struct aifs_rdma_seg *seg, bool rdma,
			       u8 *wire, u32 size)
{
	struct aifs_read_req *rreq = sub->rreq;
	struct aifs_chunk_id id = {
		.ino = cpu_to_le64(rreq->inode->i_ino),
		.index = cpu_to_le32(index),
		.fragment = cpu_to_le16(frag),
	};
	__le32 flags = cpu_to_le32(rdma ? AIFS_IO_RDMA : 0);
	struct aifs_chunk_read_req req = {
		.offset = cpu_to_le32(off),
		.length = cpu_to_le32(sub->len),
		.flags = flags,
		.layout_gen = sub->layout->generation,
		.rdma = *seg,
	};
	struct aifs_ec_read_req ecr = {
		.offset = cpu_to_le32(off),
		.length = cpu_to_le32(sub->len),
		.flags = flags,
		.rdma = *seg,
	};
	int ret;

	memcpy(id.fs_uuid, rreq->fsi->session.fs_uuid, 16);
	if (!ec) {
		req.id = id;
		ret = aifs_msg_encode(AIFS_OP_CHUNK_READ, false, wire, size,
				      &req, sizeof(req), NULL);
		return ret < 0 ? ret : AIFS_OP_CHUNK_READ;
	}
	ecr.id = id;
	ecr.group = *ec;
	ret = aifs_msg_encode(AIFS_OP_EC_READ, false, wire, size, &ecr,
			      sizeof(ecr), NULL);
	return ret < 0 ? ret : AIFS_OP_EC_READ;
}

/*
 * One read of @sub, at @off of chunk @index (EC: fragment @frag of stripe
 * @index, decoded by the server with @ec), to @conn: its data lands in
 * the folios (moved there by the server over RDMA when the connection can
 * lend it the folios), and its holes are zeroed.  -ENODATA: the server
 * holds no such chunk (aifs_read_hole()).
 */
static int aifs_chunk_read(struct aifs_read_sub *sub, struct aifs_conn *conn,
			   u32 index, u16 frag, u32 off,
			   const struct aifs_ec_group *ec)
{
	struct aifs_read_req *rreq = sub->rreq;
	struct aifs_span parts[AIFS_MSG_MAX_PARTS] = {};
	u8 head[AIFS_CHUNK_READ_REP_SIZE];
	u8 wire[AIFS_EC_READ_REQ_SIZE];
	struct aifs_chunk_read_rep rep;
	struct aifs_rdma_seg seg = {};
	struct aifs_xprt_reg *reg;
	struct iov_iter data;
	int ret, op, got = 0;
	u32 wire_len;
	u64 start;

	ret = aifs_fail_errno(AIFS_FAIL_READ_ERROR);
	if (ret)
		return ret;
	aifs_read_iter(rreq, &data, sub->start, sub->len);
	reg = aifs_conn_lend(conn, &data, &seg);
	op = aifs_chunk_read_req(sub, index, frag, off, ec, &seg, reg, wire,
				 sizeof(wire));
	wire_len = ec ? AIFS_EC_READ_REQ_SIZE : AIFS_CHUNK_READ_REQ_SIZE;
	start = ktime_get_ns();
	ret = op < 0 ? op :
	      aifs_conn_call_data(conn, op, wire, wire_len, head,
				  sizeof(head), reg ? NULL : &data,
				  aifs_timeo_jiffies(&rreq->fsi->opts));
	aifs_conn_take_back(conn, reg);
	aifs_stats_call(rreq->fsi, AIFS_PEER_DS, op < 0 ? AIFS_OP_CHUNK_READ : op,
			wire_len, ret, start);
	aifs_stat_add(rreq->fsi, AIFS_C_CHUNK_READ_BYTES, sub->len);
	if (ret == -ENOENT)
		return -ENODATA;	/* the server has no such chunk */
	if (ret < 0)
		return ret;
	/* the data part is in the folios already: decode the rest */
	if (aifs_msg_decode_head(op, true, head,
				 min_t(u32, ret, sizeof(head)), ret, &rep,
				 sizeof(rep), parts))
		got = -EPROTO;
	else
		got = aifs_read_rep_data(rreq, &rep, off, sub->len, reg);
	if (got < 0) {
		pr_warn_ratelimited("malformed CHUNK_READ reply for %llu:%u\n",
				    (u64)rreq->inode->i_ino, index);
		return -EPROTO;
	}
	if (reg)
		aifs_stat_add(rreq->fsi, AIFS_C_RDMA_READ_BYTES, got);
	aifs_read_zero(rreq, sub->start + got, sub->len - got);
	return 0;
}

/* @sub lies in a chunk or fragment never written: a hole, zeros. */
static int aifs_read_hole(struct aifs_read_sub *sub)
{
	aifs_read_zero(sub->rreq, sub->start, sub->len);
	return 0;
}

/**
 * aifs_layout_group - the data servers of a chunk
 * @l: a layout aifs_layout_get() accepted
 * @index: the chunk's index
 * @width: out: entries of the group, its primary first
 *
 * Return: the group's first entry in @l->targets.
 */
const __le32 *aifs_layout_group(const struct aifs_layout *l, u32 index,
				u32 *width)
{
	u32 stripes = le16_to_cpu(l->stripe_count);

	*width = le16_to_cpu(l->target_count) / stripes;
	return &l->targets[index % stripes * *width];
}

/* Pause between rounds while a group's servers answer ESTALE. */
#define AIFS_STALE_PAUSE_MS	100

/*
 * Once more at once after a connection broke (the server restarted, an
 * RDMA completion failed, or an RDMA device went away: over TCP then, for
 * transport=auto; aifs_conn_broke()), and
 * after a fresh map when a server was left alone after a failure (it may
 * be back: the map's entry moved, which ends the pause); and
 * while a server answers ESTALE, after a pause, until timeo has passed
 * since the first round: a server back from a failure catches up before
 * it serves, and a server that lost touch with the MDS stops serving
 * until it is back in touch, and neither is an error of the application.
 */
static bool aifs_io_next_round(struct aifs_fs_info *fsi,
			       struct aifs_io_rounds *rounds)
{
	bool closed = rounds->closed, down = rounds->down;
	bool stale = rounds->stale || rounds->moved;

	rounds->closed = false;
	rounds->stale = false;
	rounds->down = false;
	rounds->moved = false;
	if (READ_ONCE(fsi->data.closing) || aifs_aborted(fsi, rounds->aborts))
		return false;
	if (rounds->relaid) {
		/* a new layout: new servers, and a new time to try them */
		rounds->relaid = false;
		rounds->start = jiffies;
		return true;
	}
	if (closed && !rounds->reconnected) {
		rounds->reconnected = true;
		return true;
	}
	if (down && !rounds->refreshed) {
		rounds->refreshed = true;
		if (!aifs_data_refresh_map(fsi))
			return true;
	}
	if (!stale || time_after(jiffies, rounds->start +
				 aifs_timeo_jiffies(&fsi->opts)))
		return false;
	msleep(AIFS_STALE_PAUSE_MS);
	return true;
}

/**
 * aifs_io_again - whether a failed round of an I/O goes again, counted
 * @fsi: the mount
 * @rounds: how the rounds went; its flags are reset for the next one
 *
 * Return: true for another round.
 */
bool aifs_io_again(struct aifs_fs_info *fsi, struct aifs_io_rounds *rounds)
{
	bool again = aifs_io_next_round(fsi, rounds);

	if (again)
		aifs_stat_add(fsi, AIFS_C_RETRIES, 1);
	return again;
}

/*
 * One try of @sub from data server @id (see aifs_chunk_read()), what it
 * said noted in @rounds.
 */
static int aifs_read_from(struct aifs_read_sub *sub,
			  struct aifs_io_rounds *rounds, __le32 id, u32 index,
			  u16 frag, u32 off, const struct aifs_ec_group *ec)
{
	struct aifs_read_req *rreq = sub->rreq;
	struct aifs_conn *conn;
	int err;

	conn = aifs_data_conn(rreq->fsi, le32_to_cpu(id));
	err = IS_ERR(conn) ? PTR_ERR(conn) :
	      aifs_chunk_read(sub, conn, index, frag, off, ec);
	if (!err || err == -ESHUTDOWN || err == -ENODATA)
		return err;
	rounds->closed |= !IS_ERR(conn) && aifs_conn_broke(conn, err);
	rounds->stale |= err == -ESTALE;
	rounds->down |= err == -EHOSTDOWN;
	rounds->moved |= err == -EREMCHG;
	/* aifs_data_conn() logs why it has no connection; a new layout is no failure */
	if (!IS_ERR(conn) && err != -EREMCHG)
		pr_warn_ratelimited("%s %llu:%u.%u from data server %u: %pe\n",
				    ec ? "decoding fragment" : "chunk",
				    (u64)rreq->inode->i_ino, index, frag,
				    le32_to_cpu(id), ERR_PTR(err));
	return err;
}

/* The servers of an EC stripe, as EC_READ and EC_WRITE name them. */
void aifs_ec_group_fill(struct aifs_ec_group *g, const struct aifs_layout *l,
			const __le32 *group, u32 ahead)
{
	u32 width = l->ec_k + l->ec_m;

	memset(g, 0, sizeof(*g));
	g->chunk_size = l->chunk_size;
	g->k = l->ec_k;
	g->m = l->ec_m;
	g->ahead = cpu_to_le16(ahead);
	memcpy(g->members, group, width * sizeof(*group));
}

/*
 * A data fragment of an EC stripe: from its own server; failing that, or
 * when that server has no such fragment (it may have lost it), decoded
 * by the first member of the stripe that can (EC_READ), which is where
 * the stripe's writes go too.  A hole when the stripe has no fragment.
 */
static int aifs_read_sub_ec(struct aifs_read_sub *sub,
			    struct aifs_io_rounds *rounds, u32 index, u32 off)
{
	const struct aifs_layout *l = sub->layout;
	u32 stripe = index / l->ec_k, frag = index % l->ec_k, width, r;
	const __le32 *group = aifs_layout_group(l, stripe, &width);
	struct aifs_ec_group g;
	bool missing;
	int err;

	err = aifs_read_from(sub, rounds, group[frag], stripe,
			     AIFS_EC_FRAGMENT(frag), off, NULL);
	if (!err || err == -ESHUTDOWN || err == -EREMCHG)
		return err;
	/* no such fragment there, lost or a hole: no failover to count */
	missing = err == -ENODATA;
	aifs_ec_group_fill(&g, l, group, 0);
	for (r = 0; r < width; r++) {
		err = aifs_read_from(sub, rounds, group[r], stripe,
				     AIFS_EC_FRAGMENT(frag), off, &g);
		if (!err && !missing)
			aifs_stat_add(sub->rreq->fsi, AIFS_C_FAILOVERS, 1);
		if (err == -ENODATA)
			return aifs_read_hole(sub);
		if (!err || err == -ESHUTDOWN)
			return err;
	}
	pr_warn_ratelimited("no data server decoded fragment %llu:%u.%u (%d)\n",
			    (u64)sub->rreq->inode->i_ino, stripe, frag, err);
	return -EIO;
}

/*
 * The sub-request from each replica of its chunk's group in turn; a mount
 * going away stops the search. @rounds: what the servers said.  A copy
 * without the chunk is no hole yet: the copy may have lost it, and the
 * next is asked.  It is one when no copy that answered holds it.
 */
static int aifs_read_sub_round(struct aifs_read_sub *sub,
			       struct aifs_io_rounds *rounds)
{
	struct aifs_read_req *rreq = sub->rreq;
	const struct aifs_layout *l = sub->layout;
	u32 chunk = le32_to_cpu(l->chunk_size);
	u64 pos = rreq->pos + sub->start;
	u32 index = div_u64(pos, chunk), off = pos & (chunk - 1);
	u32 width, r;
	const __le32 *group;
	bool hole = false;
	int err = -EIO;

	if (l->type == AIFS_LAYOUT_EC)
		return aifs_read_sub_ec(sub, rounds, index, off);
	group = aifs_layout_group(l, index, &width);
	for (r = 0; r < width; r++) {
		err = aifs_read_from(sub, rounds, group[r], index, 0, off,
				     NULL);
		if (!err && r)
			aifs_stat_add(rreq->fsi, AIFS_C_FAILOVERS, 1);
		if (!err || err == -ESHUTDOWN || err == -EREMCHG)
			return err;
		hole |= err == -ENODATA;
	}
	if (hole)
		return aifs_read_hole(sub);
	pr_warn_ratelimited("no data server answered for chunk %llu:%u (%d)\n",
			    (u64)rreq->inode->i_ino, index, err);
	return -EIO;
}

/*
 * A server said the file has a newer layout (EREMCHG: an archive moved
 * it, a rebuild changed its group): the sub-request goes on with that
 * one, a copy of its own, as the others may still read with the
 * request's.  Layouts change their chunk size never, so the part stays
 * within one chunk (or one EC data fragment).
 */
static void aifs_read_sub_relayout(struct aifs_read_sub *sub,
				   struct aifs_io_rounds *rounds)
{
	struct inode *inode = sub->rreq->inode;
	struct aifs_layout *l = kmalloc(sizeof(*l), GFP_NOFS);

	if (!l)
		return;
	if (aifs_layout_refresh(inode) || aifs_layout_get(inode, l) ||
	    l->chunk_size != sub->layout->chunk_size) {
		kfree(l);
		return;
	}
	rounds->relaid = l->generation != sub->layout->generation;
	kfree(sub->own);
	sub->own = l;
	sub->layout = l;
}

/* Rounds of the group while aifs_io_again() says so. */
static int aifs_read_sub_issue(struct aifs_read_sub *sub)
{
	struct aifs_io_rounds rounds = {
		.start = jiffies,
		.aborts = atomic_read(&sub->rreq->fsi->aborts),
	};
	int err;

	do {
		err = aifs_read_sub_round(sub, &rounds);
		if (err && rounds.moved)
			aifs_read_sub_relayout(sub, &rounds);
		/* for the next read: this one's layout is shared */
		else if (err && rounds.down && !rounds.refreshed)
			aifs_layout_refresh(sub->rreq->inode);
	} while (err && err != -ESHUTDOWN &&
		 aifs_io_again(sub->rreq->fsi, &rounds));
	return err;
}

static void aifs_read_sub_work(struct work_struct *work)
{
	struct aifs_read_sub *sub = container_of(work, struct aifs_read_sub,
						 work);
	struct aifs_read_req *rreq = sub->rreq;
	int err = aifs_read_sub_issue(sub);

	if (err)
		WRITE_ONCE(rreq->failed, true);
	if (rreq->dio)
		aifs_dio_end(rreq->dio, sub->start, err);
	/* orders the failure before the last one's look at it */
	if (atomic_dec_and_test(&rreq->pending))
		aifs_read_done(rreq);
}

/* A layout the split below can trust. */
static bool aifs_layout_ok(const struct aifs_layout *l)
{
	u32 chunk = le32_to_cpu(l->chunk_size);
	u32 stripes = le16_to_cpu(l->stripe_count);
	u32 targets = le16_to_cpu(l->target_count);
	u32 width;

	switch (l->type) {
	case AIFS_LAYOUT_REPLICA:
		width = l->replicas;
		if (!width || width > AIFS_MAX_REPLICAS)
			return false;
		break;
	case AIFS_LAYOUT_EC:
		width = l->ec_k + l->ec_m;
		if (!l->ec_k || l->ec_k > AIFS_EC_MAX_K || !l->ec_m ||
		    l->ec_m > AIFS_EC_MAX_M ||
		    (u64)l->ec_k * chunk > AIFS_EC_STRIPE_MAX)
			return false;
		break;
	default:
		return false;
	}
	return is_power_of_2(chunk) && chunk >= AIFS_CHUNK_SIZE_MIN &&
	       chunk <= AIFS_CHUNK_SIZE_MAX && stripes &&
	       targets == stripes * width &&
	       targets <= AIFS_LAYOUT_MAX_TARGETS;
}

/**
 * aifs_layout_unit - the span a write request stays in
 * @l: a layout aifs_layout_get() accepted
 *
 * Return: a chunk of a replicated file; an EC stripe's data (its K
 * fragments end to end), which its leader encodes as one.
 */
u32 aifs_layout_unit(const struct aifs_layout *l)
{
	u32 chunk = le32_to_cpu(l->chunk_size);

	return l->type == AIFS_LAYOUT_EC ? l->ec_k * chunk : chunk;
}

/**
 * aifs_io_piece - the bytes of one CHUNK_READ or CHUNK_WRITE
 * @l: the file's layout, checked
 * @pos: where it begins in the file
 * @left: bytes left to read or write from there
 *
 * Return: @left cut at the end of @pos's chunk and at AIFS_DATA_MAX_IO.
 */
u32 aifs_io_piece(const struct aifs_layout *l, loff_t pos, size_t left)
{
	u32 chunk = le32_to_cpu(l->chunk_size);

	return min3((size_t)(chunk - (pos & (chunk - 1))), left,
		    (size_t)AIFS_DATA_MAX_IO);
}

/* Split @len bytes at chunk boundaries; with @subs NULL, only count. */
static u32 aifs_read_split(struct aifs_read_req *rreq, u32 len,
			   struct aifs_read_sub *subs)
{
	u32 start, n, nr = 0;

	for (start = 0; start < len; start += n, nr++) {
		n = aifs_io_piece(&rreq->layout, rreq->pos + start,
				  len - start);
		if (subs) {
			subs[nr].rreq = rreq;
			subs[nr].layout = &rreq->layout;
			subs[nr].start = start;
			subs[nr].len = n;
			INIT_WORK(&subs[nr].work, aifs_read_sub_work);
		}
	}
	return nr;
}

/**
 * aifs_layout_get - the layout of a file's last OPEN, checked
 * @inode: the file
 * @layout: out: a copy, taken under i_lock, where OPEN updates it
 *
 * Return: 0; -ENOSPC for a layout without targets (no data server was up
 * when the file was opened for writing); -EIO for none or one the data
 * path cannot use.
 */
int aifs_layout_get(struct inode *inode, struct aifs_layout *layout)
{
	struct aifs_inode_info *ai = AIFS_I(inode);
	bool has_layout;

	spin_lock(&inode->i_lock);
	has_layout = ai->has_layout;
	*layout = ai->layout;
	spin_unlock(&inode->i_lock);
	if (has_layout && !layout->target_count)
		return -ENOSPC;
	return has_layout && aifs_layout_ok(layout) ? 0 : -EIO;
}

/**
 * aifs_layout_refresh - fetch a file's layout again (LAYOUT_GET)
 * @inode: the file
 *
 * A rebuild gives a file's groups new members under a new generation
 * (Documentation/fault-tolerance.md): a primary answers EREMCHG to a
 * write made with an older one, and a read that found no copy may be
 * using one. A newer generation replaces the layout of the last OPEN.
 *
 * Return: 0 or a negative errno.
 */
int aifs_layout_refresh(struct inode *inode)
{
	struct aifs_layout layout;
	int err;

	err = aifs_layout_fetch(inode, &layout);
	if (err)
		return err;
	if (!aifs_layout_ok(&layout))
		return -EIO;
	aifs_layout_take(inode, &layout);
	return 0;
}

/**
 * aifs_layout_fetch - LAYOUT_GET of a file or directory
 * @inode: it
 * @layout: out: the layout the MDS holds
 *
 * Return: 0 or a negative errno.
 */
int aifs_layout_fetch(struct inode *inode, struct aifs_layout *layout)
{
	struct aifs_ino_req req = { .ino = cpu_to_le64(inode->i_ino) };
	struct aifs_layout_rep rep;
	struct aifs_mds_msg m = {
		.op = AIFS_OP_LAYOUT_GET,
		.req = &req, .req_size = sizeof(req),
		.rep = &rep, .rep_size = sizeof(rep),
	};
	int err;

	err = aifs_mds_call(inode->i_sb, &m);
	if (!err)
		*layout = rep.layout;
	return err;
}

/* A layout the MDS gave: it replaces the last OPEN's if it is newer. */
void aifs_layout_take(struct inode *inode, const struct aifs_layout *layout)
{
	struct aifs_inode_info *ai = AIFS_I(inode);

	spin_lock(&inode->i_lock);
	if (ai->has_layout && le32_to_cpu(layout->generation) >
			      le32_to_cpu(ai->layout.generation))
		ai->layout = *layout;
	spin_unlock(&inode->i_lock);
}

/* Set up the sub-requests of the first @len bytes of @rreq. */
static int aifs_read_prepare(struct aifs_read_req *rreq, u32 len)
{
	if (aifs_layout_get(rreq->inode, &rreq->layout))
		return -EIO;
	rreq->nr = aifs_read_split(rreq, len, NULL);
	rreq->subs = kcalloc(rreq->nr, sizeof(*rreq->subs), GFP_KERNEL);
	if (!rreq->subs)
		return -ENOMEM;
	aifs_read_split(rreq, len, rreq->subs);
	return 0;
}

static struct aifs_read_req *aifs_read_new(struct inode *inode, loff_t pos,
					   size_t len)
{
	struct aifs_read_req *rreq = kzalloc(sizeof(*rreq), GFP_KERNEL);

	if (!rreq)
		return NULL;
	ihold(inode);
	rreq->inode = inode;
	rreq->fsi = AIFS_SB(inode->i_sb);
	rreq->pos = pos;
	rreq->len = len;
	return rreq;
}

/* Queue the sub-requests; the last one to end finishes the request. */
static void aifs_read_queue(struct aifs_read_req *rreq)
{
	u32 i, nr = rreq->nr;

	if (!nr) {
		aifs_read_done(rreq);
		return;
	}
	/* the last one to end frees @rreq: none ends before all are queued */
	atomic_set(&rreq->pending, nr);
	for (i = 0; i < nr; i++)
		queue_work(rreq->fsi->data.wq, &rreq->subs[i].work);
}

/*
 * Start reading [pos, pos + len) of @inode into its folios, which the
 * caller locked, and return: the folios are unlocked when the read ends
 * (here already on an error: -EIO for a missing layout, -ENOMEM).
 */
static int aifs_read_start(struct inode *inode, loff_t pos, size_t len,
			   bool readahead)
{
	loff_t size = i_size_read(inode);
	size_t want = pos < size ? min_t(loff_t, len, size - pos) : 0;
	struct aifs_read_req *rreq;
	int err;

	rreq = aifs_read_new(inode, pos, len);
	if (!rreq) {
		aifs_read_unlock(inode->i_mapping, pos, len, false, false);
		return -ENOMEM;
	}
	rreq->readahead = readahead;
	err = want ? aifs_read_prepare(rreq, want) : 0;
	if (err) {
		aifs_read_unlock(inode->i_mapping, pos, len, false, false);
		aifs_read_free(rreq);
		return err;
	}
	/* past EOF */
	aifs_read_zero(rreq, want, len - want);
	aifs_read_queue(rreq);
	return 0;
}

/**
 * aifs_read_direct - queue the CHUNK_READs of an O_DIRECT read
 * @inode: the file
 * @dio: the read, within i_size; each sub-request ends as a piece of it
 *
 * Return: 0 once queued, -EIO for a missing layout, -ENOMEM.
 */
int aifs_read_direct(struct inode *inode, struct aifs_dio *dio)
{
	struct aifs_read_req *rreq;
	int err;

	rreq = aifs_read_new(inode, dio->pos, dio->len);
	if (!rreq)
		return -ENOMEM;
	rreq->dio = dio;
	err = aifs_read_prepare(rreq, dio->len);
	if (err) {
		aifs_read_free(rreq);
		return err;
	}
	aifs_dio_begin(dio, rreq->nr);
	aifs_read_queue(rreq);
	return 0;
}

static int aifs_read_folio(struct file *file, struct folio *folio)
{
	/*
	 * A folio written in part and not read holds dirty bytes and
	 * nothing else: they go to the servers first (an error of theirs is
	 * the mapping's, for fsync and close), then the read fills it.
	 */
	folio_wait_writeback(folio);
	aifs_launder_folio(folio);
	return aifs_read_start(folio->mapping->host, folio_pos(folio),
			       folio_size(folio), false);
}

/*
 * Grow a readahead window to whole granules: the largest power of two no
 * larger than the window nor the file's chunk. A window of a chunk or
 * more then starts and ends on chunk boundaries, a smaller one on a
 * boundary of its own size, so that its sub-requests are aligned and none
 * is a sliver. It stays cheap: the window grows by less than twice its
 * size, never past EOF, and readahead_expand() stops at folios already
 * cached. The end grows first: readahead_expand() gives up entirely when
 * the start meets a cached folio.
 */
static void aifs_readahead_align(struct readahead_control *rac)
{
	struct inode *inode = rac->mapping->host;
	struct aifs_inode_info *ai = AIFS_I(inode);
	loff_t pos = readahead_pos(rac), len = readahead_length(rac);
	loff_t eof = round_up(i_size_read(inode), PAGE_SIZE);
	loff_t start, end;
	u32 chunk = 0;
	u64 granule;

	spin_lock(&inode->i_lock);
	if (ai->has_layout)
		chunk = le32_to_cpu(ai->layout.chunk_size);
	spin_unlock(&inode->i_lock);
	if (!is_power_of_2(chunk) || !len)
		return;
	granule = min_t(u64, chunk, rounddown_pow_of_two(len));
	start = round_down(pos, granule);
	end = min(round_up(pos + len, granule), eof);
	if (end > pos + len)
		readahead_expand(rac, pos, end - pos);
	if (start < pos)
		readahead_expand(rac, start, readahead_length(rac) + pos - start);
}

static void aifs_readahead(struct readahead_control *rac)
{
	loff_t pos;
	size_t len;

	aifs_readahead_align(rac);
	pos = readahead_pos(rac);
	len = readahead_length(rac);
	/*
	 * As netfs_readahead(): drop the rac's references; the folios stay
	 * locked in the page cache until the read ends.
	 */
	while (readahead_folio(rac))
		;
	aifs_read_start(rac->mapping->host, pos, len, true);
}

/*
 * A folio leaves the page cache (or its data does): if readahead filled
 * it, was it read? Its private word goes with it.
 */
static void aifs_folio_forget(struct folio *folio)
{
	struct aifs_fs_info *fsi = AIFS_SB(folio->mapping->host->i_sb);
	long pages = folio_nr_pages(folio);

	if (aifs_folio_word(folio) & AIFS_FOLIO_READAHEAD) {
		if (folio_test_referenced(folio) || folio_test_active(folio))
			aifs_stat_add(fsi, AIFS_C_RA_USED, pages);
		else
			aifs_stat_add(fsi, AIFS_C_RA_WASTED, pages);
	}
	aifs_folio_set_word(folio, 0);
}

static bool aifs_release_folio(struct folio *folio, gfp_t gfp)
{
	aifs_folio_forget(folio);
	return true;
}

static void aifs_invalidate_folio(struct folio *folio, size_t offset,
				  size_t len)
{
	if (offset == 0 && len == folio_size(folio))
		aifs_folio_forget(folio);
}

const struct address_space_operations aifs_aops = {
	.read_folio	= aifs_read_folio,
	.readahead	= aifs_readahead,
	.write_begin	= aifs_write_begin,
	.write_end	= aifs_write_end,
	.dirty_folio	= filemap_dirty_folio,
	.writepages	= aifs_writepages,
	.launder_folio	= aifs_launder_folio,
	.release_folio	= aifs_release_folio,
	.invalidate_folio = aifs_invalidate_folio,
	/* moves the private data along, unlike the default, which drops it */
	.migrate_folio	= filemap_migrate_folio,
};
