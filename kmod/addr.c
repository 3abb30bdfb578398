// SPDX-License-Identifier: GPL-2.0
/*
 * aifs - the page cache of regular files: read_folio and readahead.
 *
 * Shaped like netfs, so that moving to it later is mechanical: a read
 * request (a readahead window, or one folio) covers [pos, pos + len) of
 * the file; it is split at chunk boundaries, and at AIFS_DATA_MAX_IO, into
 * sub-requests, each one CHUNK_READ to the chunk's primary. Up to
 * max_inflight sub-requests run at once, on system_unbound_wq. The data
 * lands in one buffer for the request, which is then copied into the
 * folios.
 *
 * A sub-request whose server fails (no connection, a timeout, an error
 * other than ENOENT, a reply that does not add up) goes to the next
 * replica of the chunk's group at once; ENOENT (the chunk was never
 * written) and bytes past the chunk's stored length are holes and read as
 * zeros, as is everything past i_size. When no replica answers, the read
 * fails with -EIO.
 *
 * Ownership: the reading task waits for its sub-requests killably, so a
 * killed reader leaves while they still run. The request (its buffer and
 * sub-requests) is therefore refcounted: the reader holds a reference and
 * every queued sub-request another, and the last put frees it. The work
 * items only touch the request and the mount; umount drains the mount's
 * workqueue (aifs_data_close()) before the mount is freed.
 */
#define pr_fmt(fmt) "aifs: " fmt

#include <linux/highmem.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/refcount.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "internal.h"

/* Largest CHUNK_READ: the connection layer buffers a whole reply. */
#define AIFS_DATA_MAX_IO	BIT(20)

/**
 * struct aifs_read_sub - the part of a read within one chunk
 * @work: runs aifs_read_sub_work()
 * @rreq: the read
 * @start: offset of the part in the read
 * @len: bytes
 * @err: outcome
 */
struct aifs_read_sub {
	struct work_struct work;
	struct aifs_read_req *rreq;
	u32 start;
	u32 len;
	int err;
};

/**
 * struct aifs_read_req - one read of [pos, pos + len) of a file
 * @ref: the reader's reference and one per queued sub-request
 * @done: completed when the last sub-request of a batch has run
 * @pending: sub-requests of the batch still running
 * @fsi: the mount
 * @ino: the file
 * @layout: its layout, copied at the start of the read
 * @pos: first byte
 * @buf: where the bytes go; zeros past i_size
 * @nr: entries of @subs
 * @subs: the sub-requests
 */
struct aifs_read_req {
	refcount_t ref;
	struct completion done;
	atomic_t pending;
	struct aifs_fs_info *fsi;
	u64 ino;
	struct aifs_layout layout;
	loff_t pos;
	u8 *buf;
	u32 nr;
	struct aifs_read_sub *subs;
};

static void aifs_read_req_put(struct aifs_read_req *rreq)
{
	if (refcount_dec_and_test(&rreq->ref)) {
		kvfree(rreq->buf);
		kfree(rreq->subs);
		kfree(rreq);
	}
}

static unsigned long aifs_read_timeout(struct aifs_fs_info *fsi)
{
	return msecs_to_jiffies(aifs_get_uint(&fsi->opts, AIFS_OPT_TIMEO) * 100);
}

/* Whether a CHUNK_READ reply adds up for @len bytes at @off of a chunk. */
static bool aifs_read_rep_ok(const struct aifs_read_req *rreq,
			     const struct aifs_chunk_read_rep *rep,
			     u32 off, u32 len)
{
	u32 chunk_len = le32_to_cpu(rep->chunk_len);
	u32 data_len = le32_to_cpu(rep->data_len);
	u32 want = chunk_len > off ? min(chunk_len - off, len) : 0;

	if (chunk_len > le32_to_cpu(rreq->layout.chunk_size))
		return false;
	if (chunk_len && !le64_to_cpu(rep->version))
		return false;
	return data_len == want;
}

/* One CHUNK_READ to @conn: 0 with the bytes (holes zeroed) at @dst. */
static int aifs_chunk_read(struct aifs_read_req *rreq, struct aifs_conn *conn,
			   u32 index, u32 off, u32 len, u8 *dst)
{
	struct aifs_chunk_read_req req = {
		.id.ino = cpu_to_le64(rreq->ino),
		.id.index = cpu_to_le32(index),
		.offset = cpu_to_le32(off),
		.length = cpu_to_le32(len),
	};
	struct aifs_span parts[AIFS_MSG_MAX_PARTS] = {};
	u8 wire[AIFS_CHUNK_READ_REQ_SIZE];
	struct aifs_chunk_read_rep rep;
	u32 max = AIFS_CHUNK_READ_REP_SIZE + len;
	void *buf;
	int ret;

	memcpy(req.id.fs_uuid, rreq->fsi->session.fs_uuid, 16);
	ret = aifs_msg_encode(AIFS_OP_CHUNK_READ, false, wire, sizeof(wire),
			      &req, sizeof(req), NULL);
	if (ret < 0)
		return -EINVAL;
	buf = kvmalloc(max, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	ret = aifs_conn_call(conn, AIFS_OP_CHUNK_READ, wire, sizeof(wire), buf,
			     max, aifs_read_timeout(rreq->fsi));
	aifs_stats_call(rreq->fsi, AIFS_PEER_DS, AIFS_OP_CHUNK_READ,
			sizeof(wire), ret);
	aifs_stat_add(rreq->fsi, AIFS_CHUNK_READ_BYTES, len);
	if (ret == -ENOENT) {
		/* never written: a hole */
		memset(dst, 0, len);
		ret = 0;
		goto out;
	}
	if (ret < 0)
		goto out;
	ret = aifs_msg_decode(AIFS_OP_CHUNK_READ, true, buf, ret, &rep,
			      sizeof(rep), parts);
	if (ret || !aifs_read_rep_ok(rreq, &rep, off, len)) {
		pr_warn_ratelimited("malformed CHUNK_READ reply for %llu:%u\n",
				    rreq->ino, index);
		ret = -EPROTO;
		goto out;
	}
	memcpy(dst, parts[0].data, parts[0].len);
	memset(dst + parts[0].len, 0, len - parts[0].len);
out:
	kvfree(buf);
	return ret;
}

/*
 * The sub-request from each replica of its chunk's group in turn. A killed
 * reader (running it inline) and a mount going away stop the search.
 */
static int aifs_read_sub_issue(struct aifs_read_sub *sub)
{
	struct aifs_read_req *rreq = sub->rreq;
	const struct aifs_layout *l = &rreq->layout;
	u32 chunk = le32_to_cpu(l->chunk_size);
	u64 pos = rreq->pos + sub->start;
	u32 index = div_u64(pos, chunk), off = pos & (chunk - 1);
	u32 stripes = le16_to_cpu(l->stripe_count);
	u32 width = le16_to_cpu(l->target_count) / stripes;
	u32 g = index % stripes * width, r, id;
	u8 *dst = rreq->buf + sub->start;
	struct aifs_conn *conn;
	int err = -EIO;

	for (r = 0; r < width; r++) {
		id = le32_to_cpu(l->targets[g + r]);
		conn = aifs_data_conn(rreq->fsi, id);
		err = IS_ERR(conn) ? PTR_ERR(conn) :
		      aifs_chunk_read(rreq, conn, index, off, sub->len, dst);
		if (!err || err == -ESHUTDOWN || fatal_signal_pending(current))
			return err;
		/* aifs_data_conn() logs why it has no connection */
		if (!IS_ERR(conn))
			pr_warn_ratelimited("chunk %llu:%u from data server %u: %pe\n",
					    rreq->ino, index, id, ERR_PTR(err));
	}
	pr_warn_ratelimited("no data server answered for chunk %llu:%u (%d)\n",
			    rreq->ino, index, err);
	return -EIO;
}

static void aifs_read_sub_work(struct work_struct *work)
{
	struct aifs_read_sub *sub = container_of(work, struct aifs_read_sub,
						 work);
	struct aifs_read_req *rreq = sub->rreq;

	sub->err = aifs_read_sub_issue(sub);
	if (atomic_dec_and_test(&rreq->pending))
		complete(&rreq->done);
	aifs_read_req_put(rreq);
}

/* A layout the split below can trust. */
static bool aifs_layout_ok(const struct aifs_layout *l)
{
	u32 chunk = le32_to_cpu(l->chunk_size);
	u32 stripes = le16_to_cpu(l->stripe_count);
	u32 targets = le16_to_cpu(l->target_count);

	return l->type == AIFS_LAYOUT_REPLICA && is_power_of_2(chunk) &&
	       chunk >= AIFS_CHUNK_SIZE_MIN && chunk <= AIFS_CHUNK_SIZE_MAX &&
	       stripes && targets && targets % stripes == 0 &&
	       targets / stripes <= AIFS_MAX_REPLICAS &&
	       targets <= AIFS_LAYOUT_MAX_TARGETS;
}

/* Split @len bytes at chunk boundaries; with @subs NULL, only count. */
static u32 aifs_read_split(struct aifs_read_req *rreq, u32 len,
			   struct aifs_read_sub *subs)
{
	u32 chunk = le32_to_cpu(rreq->layout.chunk_size), start, n, nr = 0;

	for (start = 0; start < len; start += n, nr++) {
		n = chunk - ((rreq->pos + start) & (chunk - 1));
		n = min3(n, len - start, AIFS_DATA_MAX_IO);
		if (subs) {
			subs[nr].rreq = rreq;
			subs[nr].start = start;
			subs[nr].len = n;
			INIT_WORK(&subs[nr].work, aifs_read_sub_work);
		}
	}
	return nr;
}

/*
 * Run the sub-requests, up to max_inflight at once on the mount's
 * workqueue (a single one in the reader's own context), and wait for
 * them killably: a killed reader leaves them to finish on their own.
 */
static int aifs_read_run(struct aifs_read_req *rreq)
{
	u32 inflight = aifs_get_uint(&rreq->fsi->opts, AIFS_OPT_MAX_INFLIGHT);
	struct aifs_read_sub *subs = rreq->subs;
	u32 i, j, end;
	int err = 0;

	if (rreq->nr == 1)
		return aifs_read_sub_issue(&subs[0]);
	inflight = max(inflight, 1U);
	for (i = 0; i < rreq->nr && !err; i = end) {
		end = min(rreq->nr, i + inflight);
		atomic_set(&rreq->pending, end - i);
		reinit_completion(&rreq->done);
		for (j = i; j < end; j++) {
			refcount_inc(&rreq->ref);
			queue_work(rreq->fsi->data.wq, &subs[j].work);
		}
		if (wait_for_completion_killable(&rreq->done))
			return -EINTR;
		for (j = i; j < end; j++)
			err = err ?: subs[j].err;
	}
	return err;
}

/* Copy the layout under i_lock, where OPEN updates it, and check it. */
static int aifs_read_layout(struct inode *inode, struct aifs_layout *layout)
{
	struct aifs_inode_info *ai = AIFS_I(inode);
	bool has_layout;

	spin_lock(&inode->i_lock);
	has_layout = ai->has_layout;
	*layout = ai->layout;
	spin_unlock(&inode->i_lock);
	return has_layout && aifs_layout_ok(layout) ? 0 : -EIO;
}

/* Set up the sub-requests of the first @len bytes of @rreq. */
static int aifs_read_prepare(struct aifs_read_req *rreq, struct inode *inode,
			     u32 len)
{
	int err = aifs_read_layout(inode, &rreq->layout);

	if (err)
		return err;
	rreq->nr = aifs_read_split(rreq, len, NULL);
	rreq->subs = kcalloc(rreq->nr, sizeof(*rreq->subs), GFP_KERNEL);
	if (!rreq->subs)
		return -ENOMEM;
	aifs_read_split(rreq, len, rreq->subs);
	return 0;
}

/*
 * Read [pos, pos + len) of @inode: a request whose buffer holds the
 * bytes, for the caller to put, or an ERR_PTR (-EIO, -ENOMEM, -EINTR).
 */
static struct aifs_read_req *aifs_read_range(struct inode *inode, loff_t pos,
					     size_t len)
{
	loff_t size = i_size_read(inode);
	struct aifs_read_req *rreq;
	u32 want;
	int err;

	rreq = kzalloc(sizeof(*rreq), GFP_KERNEL);
	if (!rreq)
		return ERR_PTR(-ENOMEM);
	refcount_set(&rreq->ref, 1);
	init_completion(&rreq->done);
	rreq->fsi = AIFS_SB(inode->i_sb);
	rreq->ino = inode->i_ino;
	rreq->pos = pos;
	rreq->buf = kvzalloc(len, GFP_KERNEL);
	err = rreq->buf ? 0 : -ENOMEM;
	want = pos < size ? min_t(loff_t, len, size - pos) : 0;
	if (!err && want)
		err = aifs_read_prepare(rreq, inode, want);
	if (!err && rreq->nr)
		err = aifs_read_run(rreq);
	if (!err)
		return rreq;
	aifs_read_req_put(rreq);
	return ERR_PTR(err);
}

static void aifs_folio_fill(struct folio *folio, const u8 *src)
{
	long i;

	for (i = 0; i < folio_nr_pages(folio); i++)
		memcpy_to_page(folio_page(folio, i), 0, src + i * PAGE_SIZE,
			       PAGE_SIZE);
}

static int aifs_read_folio(struct file *file, struct folio *folio)
{
	struct aifs_read_req *rreq;

	rreq = aifs_read_range(folio->mapping->host, folio_pos(folio),
			       folio_size(folio));
	if (!IS_ERR(rreq)) {
		aifs_folio_fill(folio, rreq->buf);
		folio_mark_uptodate(folio);
		aifs_read_req_put(rreq);
	}
	folio_unlock(folio);
	return PTR_ERR_OR_ZERO(rreq);
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

/*
 * Readahead marks the folios it fills with AIFS_FOLIO_READAHEAD as their
 * private data, so that their release or invalidation can tell whether the
 * application read them: filemap_read() marks every folio it copies from
 * accessed (PG_referenced, or PG_active on a second access), and so does
 * unmapping a page an mmap touched. Limits, documented in
 * Documentation/kernel-client.md: reclaim clears PG_referenced before it
 * releases a folio, so a folio read once and then reclaimed counts as
 * wasted; a folio that refaults may come back active without a read.
 */
#define AIFS_FOLIO_READAHEAD	((void *)1UL)

static void aifs_readahead(struct readahead_control *rac)
{
	struct aifs_fs_info *fsi = AIFS_SB(rac->mapping->host->i_sb);
	struct aifs_read_req *rreq;
	struct folio *folio;
	loff_t pos;

	aifs_readahead_align(rac);
	pos = readahead_pos(rac);
	rreq = aifs_read_range(rac->mapping->host, pos,
			       readahead_length(rac));
	while ((folio = readahead_folio(rac))) {
		if (!IS_ERR(rreq)) {
			aifs_folio_fill(folio,
					rreq->buf + (folio_pos(folio) - pos));
			folio_attach_private(folio, AIFS_FOLIO_READAHEAD);
			aifs_stat_add(fsi, AIFS_RA_PAGES, folio_nr_pages(folio));
			folio_mark_uptodate(folio);
		}
		folio_unlock(folio);
	}
	if (!IS_ERR(rreq))
		aifs_read_req_put(rreq);
}

/* A folio readahead filled leaves the page cache: was it read? */
static void aifs_readahead_forget(struct folio *folio)
{
	struct aifs_fs_info *fsi = AIFS_SB(folio->mapping->host->i_sb);
	long pages = folio_nr_pages(folio);

	if (folio_get_private(folio) != AIFS_FOLIO_READAHEAD)
		return;
	folio_detach_private(folio);
	if (folio_test_referenced(folio) || folio_test_active(folio))
		aifs_stat_add(fsi, AIFS_RA_USED, pages);
	else
		aifs_stat_add(fsi, AIFS_RA_WASTED, pages);
}

static bool aifs_release_folio(struct folio *folio, gfp_t gfp)
{
	aifs_readahead_forget(folio);
	return true;
}

static void aifs_invalidate_folio(struct folio *folio, size_t offset,
				  size_t len)
{
	if (offset == 0 && len == folio_size(folio))
		aifs_readahead_forget(folio);
}

const struct address_space_operations aifs_aops = {
	.read_folio	= aifs_read_folio,
	.readahead	= aifs_readahead,
	.release_folio	= aifs_release_folio,
	.invalidate_folio = aifs_invalidate_folio,
	/* moves the private data along, unlike the default, which drops it */
	.migrate_folio	= filemap_migrate_folio,
};
