// SPDX-License-Identifier: GPL-2.0
/*
 * aifs - the RDMA transport: the stream of frames carried in SEND messages
 * over a reliable-connected queue pair, under the credit rules of
 * aifs_proto.h (struct aifs_rdma_flow, shared with the servers' side).
 *
 * rdma_cm sets the connection up step by step from the connecting task,
 * which waits for each step killably and within the connect's timeout, as
 * xprtrdma does. Completions run in ib_comp_wq (IB_POLL_WORKQUEUE): a
 * receive puts its buffer on the ready list, from which the connection's
 * receiver copies the bytes straight into their destination (the page
 * cache for a read) and posts the buffer again; a send completion frees
 * its buffer. Every work request is signalled, so completions alone say
 * what is free.
 *
 * Bulk data moves by RDMA: the pages of a read or a write (folios of the
 * page cache, or the user pages of O_DIRECT) are lent to the server for
 * one request by fast registration (FRWR), as xprtrdma does: a REG_MR work
 * request goes on the send queue before the SEND of the request, so the
 * server never sees a key that is not valid yet; the server RDMA-WRITEs a
 * read's data before its reply (ordered before it on its queue pair) and
 * RDMA-READs a write's data before it answers. After the reply, LOCAL_INV
 * takes the key back and its completion is waited for: only then may the
 * pages go back to their owner. A connection has a fixed pool of
 * registrations; when none is free, or the pages do not map as one
 * segment, the data goes through the message buffers instead.
 *
 * A device that goes away takes every established transport on it with
 * it at once (aifs_rdma_detach(), from rdma_cm's DEVICE_REMOVAL): the
 * removal must not wait for the umount of the mounts using it.
 */
#define pr_fmt(fmt) "aifs: " fmt

#include <linux/errno.h>
#include <linux/list.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include <aifs/aifs_codec.h>

#include "internal.h"
#include "transport.h"

/* What we offer: messages of 16 KiB, 32 at once. */
#define AIFS_RDMA_MSG_SIZE	(16U << 10)
#define AIFS_RDMA_CREDITS	32
#define AIFS_RDMA_NR_RECV	(AIFS_RDMA_CREDITS + AIFS_RDMA_RESERVE)
/* The peer's credits are known only once connected: room for the most. */
#define AIFS_RDMA_MAX_SEND	(AIFS_RDMA_MAX_CREDITS + AIFS_RDMA_RESERVE)
#define MSG_HDR			sizeof(struct aifs_rdma_msg)

/*
 * Registrations of a connection: half of max_inflight's default, as a
 * mount's requests spread over its data servers.
 */
#define AIFS_RDMA_NR_MR		32
/* Pages of the largest request, from any offset in its first page. */
#define AIFS_RDMA_MR_PAGES	(AIFS_DATA_MAX_IO / PAGE_SIZE + 1)
/* RDMA READs of a write's data the server may have in flight at once. */
#define AIFS_RDMA_READS		16

struct aifs_rdma;

/**
 * struct aifs_xprt_reg - pages lent to the server: one registration
 * @reg_cqe: completion of its REG_MR
 * @inv_cqe: completion of its LOCAL_INV
 * @inv_done: the LOCAL_INV completed
 * @link: on the free list
 * @mr: the memory region
 * @dir: DMA_FROM_DEVICE (a read's pages) or DMA_TO_DEVICE (a write's)
 * @nents: entries of @sg in use
 * @sg: the pages; each holds a reference taken with it
 */
struct aifs_xprt_reg {
	struct ib_cqe reg_cqe;
	struct ib_cqe inv_cqe;
	struct completion inv_done;
	struct list_head link;
	struct ib_mr *mr;
	enum dma_data_direction dir;
	int nents;
	struct scatterlist sg[AIFS_RDMA_MR_PAGES];
};

/**
 * struct aifs_rdma_buf - one message buffer, mapped for the device
 * @cqe: completion of the work request using it
 * @link: on the ready list (receive) or the free list (send)
 * @data: AIFS_RDMA_MSG_SIZE (receive) or the peer's message size (send)
 * @dma: @data's device address
 * @len: a received message's bytes of data
 */
struct aifs_rdma_buf {
	struct ib_cqe cqe;
	struct list_head link;
	void *data;
	u64 dma;
	u32 len;
};

/**
 * struct aifs_rdma - an RDMA transport
 * @xprt: what the connection sees
 * @id: the rdma_cm id; its qp, device and port
 * @pd: protection domain of @id's device
 * @cq: completions of both queues
 * @cm_done: an rdma_cm step ended, with @cm_err
 * @cm_err: 0 or why the step failed
 * @peer_credits: data messages the peer receives at once
 * @peer_msg: the largest message it receives
 * @regs: the registrations, @nr_regs of them
 * @nr_regs: 0 when the device has no fast registration
 * @reg_pages: pages one registration maps, at most AIFS_RDMA_MR_PAGES
 * @verbs_sem: held for reading by whoever posts work requests or touches
 *	the buffers outside completion handlers; for writing by
 *	aifs_rdma_detach(), which frees them when the device goes away
 * @established: connected, the send side set up; under @verbs_sem
 * @detached: the device went away and took everything but the memory of
 *	this struct with it; under @verbs_sem
 * @dying: aifs_rdma_destroy() tears it down, a removal of the device
 *	leaves it to that; under @verbs_sem
 * @lock: guards what follows
 * @wait: the receiver and the sender wait here
 * @flow: the credits
 * @recv: @flow.my_credits + AIFS_RDMA_RESERVE receive buffers
 * @ready: received messages with data, oldest first
 * @ready_off: bytes of the first one read already
 * @send: @nr_send send buffers
 * @nr_send: @peer_credits + AIFS_RDMA_RESERVE
 * @free: send buffers not in use
 * @free_regs: registrations not in use
 * @gone: the connection ended (flushed, disconnected, shut down)
 * @err: 0, or the error that broke the connection
 */
struct aifs_rdma {
	struct aifs_xprt xprt;
	struct rdma_cm_id *id;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct completion cm_done;
	int cm_err;
	u32 peer_credits;
	u32 peer_msg;
	struct aifs_xprt_reg *regs;
	u32 nr_regs;
	u32 reg_pages;
	struct rw_semaphore verbs_sem;
	bool established;
	bool detached;
	bool dying;

	spinlock_t lock;		/* guards what follows */
	wait_queue_head_t wait;
	struct aifs_rdma_flow flow;
	struct aifs_rdma_buf recv[AIFS_RDMA_NR_RECV];
	struct list_head ready;
	u32 ready_off;
	struct aifs_rdma_buf *send;
	u32 nr_send;
	struct list_head free;
	struct list_head free_regs;
	bool gone;
	int err;
};

static struct aifs_rdma *to_rdma(struct aifs_xprt *xprt)
{
	return container_of(xprt, struct aifs_rdma, xprt);
}

static struct ib_device *aifs_rdma_dev(struct aifs_rdma *r)
{
	return r->id->device;
}

/* The connection broke: the first error sticks. @r->lock held. */
static void aifs_rdma_fail_locked(struct aifs_rdma *r, int err)
{
	if (!r->err && err)
		r->err = err;
	r->gone = true;
}

/* ---- the data path ---- */

static void aifs_rdma_recv_done(struct ib_cq *cq, struct ib_wc *wc);
static void aifs_rdma_send_done(struct ib_cq *cq, struct ib_wc *wc);

static int aifs_rdma_post_recv(struct aifs_rdma *r, struct aifs_rdma_buf *b)
{
	struct ib_sge sge = {
		.addr = b->dma,
		.length = AIFS_RDMA_MSG_SIZE,
		.lkey = r->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &b->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	b->cqe.done = aifs_rdma_recv_done;
	ib_dma_sync_single_for_device(aifs_rdma_dev(r), b->dma,
				      AIFS_RDMA_MSG_SIZE, DMA_FROM_DEVICE);
	return ib_post_recv(r->id->qp, &wr, NULL);
}

/* Send @b with @len bytes of data after its header. @r->lock held. */
static int aifs_rdma_post_send(struct aifs_rdma *r, struct aifs_rdma_buf *b,
			       u32 len)
{
	struct ib_sge sge = {
		.addr = b->dma,
		.length = MSG_HDR + len,
		.lkey = r->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe = &b->cqe,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	int err;

	aifs_rdma_flow_send(&r->flow, b->data, len, 0);
	b->cqe.done = aifs_rdma_send_done;
	ib_dma_sync_single_for_device(aifs_rdma_dev(r), b->dma, MSG_HDR + len,
				      DMA_TO_DEVICE);
	err = ib_post_send(r->id->qp, &wr, NULL);
	if (err) {
		list_add(&b->link, &r->free);
		aifs_rdma_fail_locked(r, err);
	}
	return err;
}

/* Credits come due with no data to carry them: a message of their own. */
static void aifs_rdma_send_credits(struct aifs_rdma *r)
{
	struct aifs_rdma_buf *b;

	if (r->gone || !aifs_rdma_flow_due(&r->flow) || list_empty(&r->free))
		return;
	b = list_first_entry(&r->free, struct aifs_rdma_buf, link);
	list_del(&b->link);
	aifs_rdma_post_send(r, b, 0);
}

static void aifs_rdma_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct aifs_rdma_buf *b = container_of(wc->wr_cqe, struct aifs_rdma_buf,
					       cqe);
	struct aifs_rdma *r = cq->cq_context;
	struct aifs_rdma_msg hdr = {};

	spin_lock(&r->lock);
	if (wc->status != IB_WC_SUCCESS) {
		/* flushed: the end, not an error of its own */
		aifs_rdma_fail_locked(r, wc->status == IB_WC_WR_FLUSH_ERR ?
					 0 : -ECONNRESET);
		goto out;
	}
	/* a SEND of the protocol, not a write with immediate, nothing more */
	if (wc->opcode != IB_WC_RECV || wc->byte_len > AIFS_RDMA_MSG_SIZE ||
	    wc->wc_flags & (IB_WC_WITH_IMM | IB_WC_WITH_INVALIDATE)) {
		pr_warn_ratelimited("server %pISpc sent what is not a message\n",
				    &r->id->route.addr.dst_addr);
		aifs_rdma_fail_locked(r, -EPROTO);
		goto out;
	}
	ib_dma_sync_single_for_cpu(aifs_rdma_dev(r), b->dma, wc->byte_len,
				   DMA_FROM_DEVICE);
	memcpy(&hdr, b->data, min_t(u32, wc->byte_len, MSG_HDR));
	if (aifs_rdma_flow_received(&r->flow, &hdr, wc->byte_len)) {
		pr_warn_ratelimited("server %pISpc broke the RDMA credit rules\n",
				    &r->id->route.addr.dst_addr);
		aifs_rdma_fail_locked(r, -EPROTO);
		goto out;
	}
	b->len = le32_to_cpu(hdr.len);
	if (b->len)
		list_add_tail(&b->link, &r->ready);
	else if (aifs_rdma_post_recv(r, b))
		aifs_rdma_fail_locked(r, -EIO);
	aifs_rdma_send_credits(r);
out:
	spin_unlock(&r->lock);
	wake_up_all(&r->wait);
}

static void aifs_rdma_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct aifs_rdma_buf *b = container_of(wc->wr_cqe, struct aifs_rdma_buf,
					       cqe);
	struct aifs_rdma *r = cq->cq_context;

	spin_lock(&r->lock);
	list_add(&b->link, &r->free);
	if (wc->status != IB_WC_SUCCESS)
		aifs_rdma_fail_locked(r, wc->status == IB_WC_WR_FLUSH_ERR ?
					 0 : -ECONNRESET);
	else
		aifs_rdma_send_credits(r);
	spin_unlock(&r->lock);
	wake_up_all(&r->wait);
}

static bool aifs_rdma_can_recv(struct aifs_rdma *r)
{
	bool ret;

	spin_lock(&r->lock);
	ret = !list_empty(&r->ready) || r->flow.fin_received || r->gone;
	spin_unlock(&r->lock);
	return ret;
}

static bool aifs_rdma_can_send(struct aifs_rdma *r)
{
	bool ret;

	spin_lock(&r->lock);
	ret = (r->flow.send_credits && !list_empty(&r->free)) || r->gone;
	spin_unlock(&r->lock);
	return ret;
}

/* The first message with data, or NULL with the end or the error in @err. */
static struct aifs_rdma_buf *aifs_rdma_first(struct aifs_rdma *r, int *err)
{
	struct aifs_rdma_buf *b;

	spin_lock(&r->lock);
	b = list_first_entry_or_null(&r->ready, struct aifs_rdma_buf, link);
	*err = r->err ? r->err : -ECONNRESET;
	spin_unlock(&r->lock);
	return b;
}

/* @n more bytes of the first ready message were read. */
static void aifs_rdma_consume(struct aifs_rdma *r, struct aifs_rdma_buf *b,
			      size_t n)
{
	spin_lock(&r->lock);
	r->ready_off += n;
	if (r->ready_off == b->len) {
		r->ready_off = 0;
		list_del(&b->link);
		if (aifs_rdma_post_recv(r, b))
			aifs_rdma_fail_locked(r, -EIO);
		else
			aifs_rdma_flow_read(&r->flow);
		aifs_rdma_send_credits(r);
	}
	spin_unlock(&r->lock);
}

/*
 * Copy out of the first ready message. Only the connection's receiver
 * calls this, so that message stays first while its bytes are copied out
 * without the lock; @r->verbs_sem held, so its buffer stays too.
 */
static int aifs_rdma_copy_out(struct aifs_rdma *r, struct iov_iter *iter)
{
	struct aifs_rdma_buf *b;
	size_t n;
	int err;

	if (r->detached)
		return r->err ?: -ECONNRESET;
	b = aifs_rdma_first(r, &err);
	if (!b)
		return err;
	n = min_t(size_t, b->len - r->ready_off, iov_iter_count(iter));
	if (copy_to_iter(b->data + MSG_HDR + r->ready_off, n, iter) != n)
		return -EFAULT;
	aifs_rdma_consume(r, b, n);
	return 0;
}

static int aifs_rdma_recv(struct aifs_xprt *xprt, struct iov_iter *iter)
{
	struct aifs_rdma *r = to_rdma(xprt);
	int err = 0;

	while (iov_iter_count(iter) && !err) {
		if (wait_event_interruptible(r->wait, aifs_rdma_can_recv(r)))
			return -EINTR;
		down_read(&r->verbs_sem);
		err = aifs_rdma_copy_out(r, iter);
		up_read(&r->verbs_sem);
	}
	return err;
}

/*
 * A free send buffer with a credit to spend; NULL with *@err 0 when a
 * credit message took the last buffer since the wait, or with the error.
 */
static struct aifs_rdma_buf *aifs_rdma_take(struct aifs_rdma *r, int *err)
{
	struct aifs_rdma_buf *b = NULL;

	*err = 0;
	spin_lock(&r->lock);
	if (r->gone) {
		*err = r->err ? r->err : -ECONNRESET;
	} else if (r->flow.send_credits) {
		b = list_first_entry_or_null(&r->free, struct aifs_rdma_buf,
					     link);
		if (b)
			list_del(&b->link);
	}
	spin_unlock(&r->lock);
	return b;
}

/* One message of @iter's bytes, if a buffer and a credit are free. */
static int aifs_rdma_fill(struct aifs_rdma *r, struct iov_iter *iter)
{
	struct aifs_rdma_buf *b;
	size_t n;
	int err;

	if (r->detached)
		return r->err ?: -ECONNRESET;
	b = aifs_rdma_take(r, &err);
	if (!b)
		return err;
	n = min_t(size_t, r->peer_msg - MSG_HDR, iov_iter_count(iter));
	if (copy_from_iter(b->data + MSG_HDR, n, iter) != n) {
		spin_lock(&r->lock);
		list_add(&b->link, &r->free);
		spin_unlock(&r->lock);
		return -EFAULT;
	}
	spin_lock(&r->lock);
	err = aifs_rdma_post_send(r, b, n);
	spin_unlock(&r->lock);
	return err;
}

/*
 * The caller serialises sends; credit messages of the receive side may
 * take free buffers meanwhile, but never credits, so a buffer taken with
 * a credit in sight keeps it. @more is of no use here: each send fills
 * messages of its own.
 */
static int aifs_rdma_send(struct aifs_xprt *xprt, struct iov_iter *iter,
			  bool more, unsigned long timeout)
{
	struct aifs_rdma *r = to_rdma(xprt);
	long left;
	int err;

	while (iov_iter_count(iter)) {
		left = wait_event_killable_timeout(r->wait,
						   aifs_rdma_can_send(r),
						   timeout);
		if (left < 0)
			return -EINTR;
		if (!left)
			return -ETIMEDOUT;
		down_read(&r->verbs_sem);
		err = aifs_rdma_fill(r, iter);
		up_read(&r->verbs_sem);
		if (err)
			return err;
	}
	return 0;
}

static void aifs_rdma_shutdown(struct aifs_xprt *xprt)
{
	struct aifs_rdma *r = to_rdma(xprt);

	spin_lock(&r->lock);
	aifs_rdma_fail_locked(r, 0);
	spin_unlock(&r->lock);
	/* the queue pair errs: whatever is posted flushes */
	down_read(&r->verbs_sem);
	if (!r->detached)
		rdma_disconnect(r->id);
	up_read(&r->verbs_sem);
	wake_up_all(&r->wait);
}

/* ---- lending pages to the server ---- */

static void aifs_rdma_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct aifs_rdma *r = cq->cq_context;

	if (wc->status == IB_WC_SUCCESS)
		return;
	/* the queue pair is in error: every request on it fails */
	spin_lock(&r->lock);
	aifs_rdma_fail_locked(r, wc->status == IB_WC_WR_FLUSH_ERR ?
				 0 : -EIO);
	spin_unlock(&r->lock);
	wake_up_all(&r->wait);
}

static void aifs_rdma_inv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct aifs_xprt_reg *reg = container_of(wc->wr_cqe,
						 struct aifs_xprt_reg, inv_cqe);

	aifs_rdma_reg_done(cq, wc);
	complete(&reg->inv_done);
}

static struct aifs_xprt_reg *aifs_rdma_take_reg(struct aifs_rdma *r)
{
	struct aifs_xprt_reg *reg = NULL;

	spin_lock(&r->lock);
	if (!r->gone) {
		reg = list_first_entry_or_null(&r->free_regs,
					       struct aifs_xprt_reg, link);
		if (reg)
			list_del(&reg->link);
	}
	spin_unlock(&r->lock);
	return reg;
}

static void aifs_rdma_put_reg(struct aifs_rdma *r, struct aifs_xprt_reg *reg)
{
	spin_lock(&r->lock);
	list_add(&reg->link, &r->free_regs);
	spin_unlock(&r->lock);
}

static void aifs_rdma_put_pages(struct aifs_xprt_reg *reg)
{
	int i;

	for (i = 0; i < reg->nents; i++)
		put_page(sg_page(&reg->sg[i]));
	reg->nents = 0;
}

/*
 * The pages of @iter into @reg's scatterlist, one entry per page, each
 * with a reference. False when they need more entries than it has.
 */
static bool aifs_rdma_get_pages(struct aifs_rdma *r,
				struct aifs_xprt_reg *reg,
				const struct iov_iter *iter)
{
	struct page *pages[16];
	struct iov_iter it = *iter;
	size_t start, len;
	ssize_t got;
	int i, n;

	reg->nents = 0;
	sg_init_table(reg->sg, r->reg_pages);
	while (iov_iter_count(&it)) {
		n = min_t(int, ARRAY_SIZE(pages), r->reg_pages - reg->nents);
		got = n ? iov_iter_get_pages2(&it, pages, iov_iter_count(&it),
					      n, &start) : 0;
		if (got <= 0)
			goto fail;
		n = DIV_ROUND_UP(start + got, PAGE_SIZE);
		for (i = 0; i < n; i++) {
			len = min_t(size_t, PAGE_SIZE - start, got);
			sg_set_page(&reg->sg[reg->nents++], pages[i], len,
				    start);
			got -= len;
			start = 0;
		}
	}
	sg_mark_end(&reg->sg[reg->nents - 1]);
	return true;
fail:
	aifs_rdma_put_pages(reg);
	return false;
}

/* Map @reg's pages for the device and post its REG_MR. */
static int aifs_rdma_post_reg(struct aifs_rdma *r, struct aifs_xprt_reg *reg,
			      struct aifs_rdma_seg *seg)
{
	struct ib_device *dev = aifs_rdma_dev(r);
	struct ib_reg_wr wr = {
		.wr = {
			.wr_cqe = &reg->reg_cqe,
			.opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED,
		},
		.mr = reg->mr,
		.access = reg->dir == DMA_FROM_DEVICE ?
			  IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE :
			  IB_ACCESS_REMOTE_READ,
	};
	int mapped, err = -EIO;

	mapped = ib_dma_map_sg(dev, reg->sg, reg->nents, reg->dir);
	if (!mapped)
		return -EIO;
	/* fewer than all: a gap between pages, which one region cannot map */
	if (ib_map_mr_sg(reg->mr, reg->sg, mapped, NULL, PAGE_SIZE) != mapped)
		goto unmap;
	ib_update_fast_reg_key(reg->mr, ib_inc_rkey(reg->mr->rkey));
	wr.key = reg->mr->rkey;
	reg->reg_cqe.done = aifs_rdma_reg_done;
	err = ib_post_send(r->id->qp, &wr.wr, NULL);
	if (err)
		goto unmap;
	seg->addr = cpu_to_le64(reg->mr->iova);
	seg->rkey = cpu_to_le32(reg->mr->rkey);
	seg->len = cpu_to_le32(reg->mr->length);
	return 0;
unmap:
	ib_dma_unmap_sg(dev, reg->sg, reg->nents, reg->dir);
	return err;
}

static struct aifs_xprt_reg *aifs_rdma_lend(struct aifs_rdma *r,
					    const struct iov_iter *iter,
					    struct aifs_rdma_seg *seg)
{
	struct aifs_xprt_reg *reg;

	if (r->detached)
		return NULL;
	reg = aifs_rdma_take_reg(r);
	if (!reg)
		return NULL;
	reg->dir = iov_iter_rw(iter) == READ ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
	if (!aifs_rdma_get_pages(r, reg, iter))
		goto fail;
	if (aifs_rdma_post_reg(r, reg, seg)) {
		aifs_rdma_put_pages(reg);
		goto fail;
	}
	return reg;
fail:
	aifs_rdma_put_reg(r, reg);
	return NULL;
}

static struct aifs_xprt_reg *aifs_rdma_register(struct aifs_xprt *xprt,
						const struct iov_iter *iter,
						struct aifs_rdma_seg *seg)
{
	struct aifs_rdma *r = to_rdma(xprt);
	struct aifs_xprt_reg *reg;

	if (!iov_iter_count(iter))
		return NULL;
	down_read(&r->verbs_sem);
	reg = aifs_rdma_lend(r, iter, seg);
	up_read(&r->verbs_sem);
	return reg;
}

/*
 * LOCAL_INV, and wait for it: flushed at once on a queue pair in error.
 * Should it not even post, the queue pair is put in error, which ends all
 * access from the server just as well. @r->verbs_sem held.
 */
static void aifs_rdma_invalidate(struct aifs_rdma *r,
				 struct aifs_xprt_reg *reg)
{
	struct ib_send_wr wr = {
		.wr_cqe = &reg->inv_cqe,
		.opcode = IB_WR_LOCAL_INV,
		.send_flags = IB_SEND_SIGNALED,
		.ex.invalidate_rkey = reg->mr->rkey,
	};

	reinit_completion(&reg->inv_done);
	reg->inv_cqe.done = aifs_rdma_inv_done;
	if (ib_post_send(r->id->qp, &wr, NULL)) {
		spin_lock(&r->lock);
		aifs_rdma_fail_locked(r, -EIO);
		spin_unlock(&r->lock);
		rdma_disconnect(r->id);
		wake_up_all(&r->wait);
	} else {
		wait_for_completion(&reg->inv_done);
	}
	ib_dma_unmap_sg(aifs_rdma_dev(r), reg->sg, reg->nents, reg->dir);
}

/*
 * A detached transport unmapped every registration already. The pages go
 * before the lock does: aifs_rdma_free_regs() takes a registration that
 * still has pages for one still mapped.
 */
static void aifs_rdma_unregister(struct aifs_xprt *xprt,
				 struct aifs_xprt_reg *reg)
{
	struct aifs_rdma *r = to_rdma(xprt);

	down_read(&r->verbs_sem);
	if (!r->detached)
		aifs_rdma_invalidate(r, reg);
	aifs_rdma_put_pages(reg);
	up_read(&r->verbs_sem);
	aifs_rdma_put_reg(r, reg);
}

/*
 * The registrations, if the device has fast registration; without, or
 * short of memory for them, the data goes through the message buffers.
 */
static void aifs_rdma_alloc_regs(struct aifs_rdma *r)
{
	const struct ib_device_attr *attrs = &aifs_rdma_dev(r)->attrs;
	struct aifs_xprt_reg *reg;
	u32 i;

	if (!(attrs->device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS))
		return;
	r->reg_pages = min_t(u32, attrs->max_fast_reg_page_list_len,
			     AIFS_RDMA_MR_PAGES);
	r->regs = kvcalloc(AIFS_RDMA_NR_MR, sizeof(*r->regs), GFP_KERNEL);
	if (!r->regs)
		return;
	for (i = 0; i < AIFS_RDMA_NR_MR; i++) {
		reg = &r->regs[i];
		reg->mr = ib_alloc_mr(r->pd, IB_MR_TYPE_MEM_REG, r->reg_pages);
		if (IS_ERR(reg->mr))
			break;
		init_completion(&reg->inv_done);
		list_add_tail(&reg->link, &r->free_regs);
		r->nr_regs++;
	}
}

/*
 * The queue pair drained: no registration is in the device's hands, but
 * those lent and not yet taken back are still mapped. Their pages stay
 * with them until aifs_rdma_unregister().
 */
static void aifs_rdma_free_regs(struct aifs_rdma *r)
{
	struct aifs_xprt_reg *reg;
	u32 i;

	for (i = 0; i < r->nr_regs; i++) {
		reg = &r->regs[i];
		if (reg->nents)
			ib_dma_unmap_sg(aifs_rdma_dev(r), reg->sg, reg->nents,
					reg->dir);
		ib_dereg_mr(reg->mr);
	}
	r->nr_regs = 0;
}

/* ---- setting up and tearing down ---- */

/* Wait for the rdma_cm step just started (@err: how starting it went). */
static int aifs_rdma_cm_wait(struct aifs_rdma *r, int err,
			     unsigned long deadline)
{
	unsigned long wait = time_before(jiffies, deadline) ?
			     deadline - jiffies : 1;
	long left;

	if (err)
		return err;
	left = wait_for_completion_killable_timeout(&r->cm_done, wait);
	if (left < 0)
		return -EINTR;
	if (!left)
		return -ETIMEDOUT;
	reinit_completion(&r->cm_done);
	return r->cm_err;
}

static int aifs_rdma_map(struct aifs_rdma *r, struct aifs_rdma_buf *b,
			 u32 size, enum dma_data_direction dir)
{
	b->data = kmalloc(size, GFP_KERNEL);
	if (!b->data)
		return -ENOMEM;
	b->dma = ib_dma_map_single(aifs_rdma_dev(r), b->data, size, dir);
	if (ib_dma_mapping_error(aifs_rdma_dev(r), b->dma)) {
		kfree(b->data);
		b->data = NULL;
		return -ENOMEM;
	}
	return 0;
}

static void aifs_rdma_unmap(struct aifs_rdma *r, struct aifs_rdma_buf *b,
			    u32 size, enum dma_data_direction dir)
{
	if (!b->data)
		return;
	ib_dma_unmap_single(aifs_rdma_dev(r), b->dma, size, dir);
	kfree(b->data);
}

/* Protection domain, completion queue, queue pair, posted receives. */
static int aifs_rdma_create_qp(struct aifs_rdma *r)
{
	struct ib_qp_init_attr attr = {
		.cap = {
			/*
			 * a REG_MR and a LOCAL_INV per registration; one
			 * more each for ib_drain_qp()'s marker
			 */
			.max_send_wr = AIFS_RDMA_MAX_SEND +
				       2 * AIFS_RDMA_NR_MR + 1,
			.max_recv_wr = AIFS_RDMA_NR_RECV + 1,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	struct ib_device *dev = aifs_rdma_dev(r);
	int i, err;

	r->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(r->pd)) {
		err = PTR_ERR(r->pd);
		r->pd = NULL;
		return err;
	}
	r->cq = ib_alloc_cq_any(dev, r, attr.cap.max_send_wr +
				attr.cap.max_recv_wr, IB_POLL_WORKQUEUE);
	if (IS_ERR(r->cq)) {
		err = PTR_ERR(r->cq);
		r->cq = NULL;
		return err;
	}
	attr.send_cq = r->cq;
	attr.recv_cq = r->cq;
	err = rdma_create_qp(r->id, r->pd, &attr);
	if (err)
		return err;
	aifs_rdma_alloc_regs(r);
	for (i = 0; i < AIFS_RDMA_NR_RECV; i++) {
		err = aifs_rdma_map(r, &r->recv[i], AIFS_RDMA_MSG_SIZE,
				    DMA_FROM_DEVICE);
		if (!err)
			err = aifs_rdma_post_recv(r, &r->recv[i]);
		if (err)
			return err;
	}
	return 0;
}

/* The send buffers, once the peer said how large and how many. */
static int aifs_rdma_alloc_send(struct aifs_rdma *r)
{
	u32 i;
	int err;

	r->nr_send = r->peer_credits + AIFS_RDMA_RESERVE;
	r->send = kcalloc(r->nr_send, sizeof(*r->send), GFP_KERNEL);
	if (!r->send)
		return -ENOMEM;
	for (i = 0; i < r->nr_send; i++) {
		err = aifs_rdma_map(r, &r->send[i], r->peer_msg, DMA_TO_DEVICE);
		if (err)
			return err;
		list_add(&r->send[i].link, &r->free);
	}
	spin_lock(&r->lock);
	r->flow.peer_credits = r->peer_credits;
	r->flow.send_credits = r->peer_credits;
	spin_unlock(&r->lock);
	return 0;
}

/*
 * Everything of the device's: after ib_drain_qp() every completion has
 * run, so no buffer is in use.
 */
static void aifs_rdma_release(struct aifs_rdma *r)
{
	u32 i;

	if (r->id->qp) {
		rdma_disconnect(r->id);
		ib_drain_qp(r->id->qp);
		rdma_destroy_qp(r->id);
	}
	for (i = 0; i < AIFS_RDMA_NR_RECV; i++)
		aifs_rdma_unmap(r, &r->recv[i], AIFS_RDMA_MSG_SIZE,
				DMA_FROM_DEVICE);
	for (i = 0; r->send && i < r->nr_send; i++)
		aifs_rdma_unmap(r, &r->send[i], r->peer_msg, DMA_TO_DEVICE);
	aifs_rdma_free_regs(r);
	if (r->cq)
		ib_free_cq(r->cq);
	if (r->pd)
		ib_dealloc_pd(r->pd);
}

/*
 * The device goes away (rdma_cm's DEVICE_REMOVAL, from its handler): let
 * go of all of it now, or its removal would wait for the umount. What
 * runs on the transport meanwhile finds it detached and fails. The id
 * goes with the handler's return. @r->verbs_sem held for writing.
 */
static void aifs_rdma_detach(struct aifs_rdma *r)
{
	spin_lock(&r->lock);
	/* as a closed connection: connect again at once (TCP, for auto) */
	aifs_rdma_fail_locked(r, -ECONNRESET);
	spin_unlock(&r->lock);
	wake_up_all(&r->wait);
	aifs_rdma_release(r);
	r->detached = true;
	pr_warn("server %pISpc: RDMA device %s removed\n",
		&r->id->route.addr.dst_addr, dev_name(&r->id->device->dev));
}

/*
 * The id goes last; destroying it waits for a running event handler.
 * Once detached, the id is rdma_cm's and @r may go as soon as the lock
 * does: aifs_rdma_device_removed() touches nothing of it after.
 */
static void aifs_rdma_destroy(struct aifs_xprt *xprt)
{
	struct aifs_rdma *r = to_rdma(xprt);
	bool detached;

	down_write(&r->verbs_sem);
	detached = r->detached;
	r->dying = true;
	up_write(&r->verbs_sem);
	if (!detached) {
		aifs_rdma_release(r);
		rdma_destroy_id(r->id);
	}
	kfree(r->send);
	kvfree(r->regs);
	kfree(r);
}

/*
 * An established transport detaches at once, unless being destroyed
 * already; one still connecting fails its connect, which destroys it.
 * Decided and done under @r->verbs_sem, which aifs_rdma_establish() takes
 * to say established and aifs_rdma_destroy() to say dying.
 */
static bool aifs_rdma_device_removed(struct aifs_rdma *r)
{
	bool detach;

	down_write(&r->verbs_sem);
	detach = r->established && !r->dying;
	if (detach)
		aifs_rdma_detach(r);
	up_write(&r->verbs_sem);
	return detach;
}

static int aifs_rdma_cm_handler(struct rdma_cm_id *id,
				struct rdma_cm_event *ev)
{
	struct aifs_rdma *r = id->context;
	int err = 0;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		err = aifs_rdma_cm_data_check(ev->param.conn.private_data,
					      ev->param.conn.private_data_len,
					      &r->peer_credits, &r->peer_msg);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
		err = -EHOSTUNREACH;
		break;
	case RDMA_CM_EVENT_ROUTE_ERROR:
		err = -ENETUNREACH;
		break;
	case RDMA_CM_EVENT_REJECTED:
		err = -ECONNREFUSED;
		break;
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		err = -EHOSTUNREACH;
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		if (aifs_rdma_device_removed(r))
			return 1;	/* rdma_cm destroys the id */
		fallthrough;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_ADDR_CHANGE:
		spin_lock(&r->lock);
		aifs_rdma_fail_locked(r, 0);
		spin_unlock(&r->lock);
		wake_up_all(&r->wait);
		err = -ECONNRESET;
		break;
	default:
		return 0;
	}
	r->cm_err = err;
	complete(&r->cm_done);
	/* not the error: a non-zero return would destroy the id */
	return 0;
}

static int aifs_rdma_establish(struct aifs_rdma *r,
			       const struct sockaddr_storage *addr,
			       unsigned long timeout)
{
	unsigned long deadline = jiffies + timeout;
	unsigned int ms = jiffies_to_msecs(timeout) ?: 1;
	struct aifs_rdma_cm_data mine;
	struct rdma_conn_param param = {
		.private_data = &mine,
		.private_data_len = sizeof(mine),
		.retry_count = 7,
		/* 7: retry forever, a receiver short of buffers only slows us */
		.rnr_retry_count = 7,
	};
	int err;

	err = rdma_resolve_addr(r->id, NULL, (struct sockaddr *)addr, ms);
	/* no RDMA device for the address; ENODEV would read "no such fs" */
	if (err == -ENODEV || err == -EADDRNOTAVAIL)
		err = -ENETUNREACH;
	err = aifs_rdma_cm_wait(r, err, deadline);
	if (err)
		return err;
	err = rdma_resolve_route(r->id, ms);
	err = aifs_rdma_cm_wait(r, err, deadline);
	if (!err)
		err = aifs_rdma_create_qp(r);
	if (err)
		return err;
	aifs_rdma_cm_data_init(&mine, AIFS_RDMA_CREDITS, AIFS_RDMA_MSG_SIZE);
	/* the server RDMA-READs the data of writes */
	param.responder_resources = min_t(int, AIFS_RDMA_READS,
					  aifs_rdma_dev(r)->attrs.max_qp_rd_atom);
	err = rdma_connect(r->id, &param);
	err = aifs_rdma_cm_wait(r, err, deadline);
	if (!err)
		err = aifs_rdma_alloc_send(r);
	if (err)
		return err;
	/* a removal under way saw us connecting: it waits for our failure */
	down_write(&r->verbs_sem);
	spin_lock(&r->lock);
	err = r->gone ? (r->err ?: -ECONNRESET) : 0;
	spin_unlock(&r->lock);
	r->established = !err;
	up_write(&r->verbs_sem);
	return err;
}

static struct aifs_xprt *aifs_rdma_connect(struct net *net,
					   const struct sockaddr_storage *addr,
					   unsigned long timeout)
{
	struct aifs_rdma *r;
	int err;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return ERR_PTR(-ENOMEM);
	r->xprt.ops = &aifs_rdma_transport;
	init_completion(&r->cm_done);
	spin_lock_init(&r->lock);
	init_waitqueue_head(&r->wait);
	INIT_LIST_HEAD(&r->ready);
	INIT_LIST_HEAD(&r->free);
	INIT_LIST_HEAD(&r->free_regs);
	init_rwsem(&r->verbs_sem);
	/* no credits to spend until the server says how many it has */
	aifs_rdma_flow_init(&r->flow, AIFS_RDMA_CREDITS, 0);

	r->id = rdma_create_id(net, aifs_rdma_cm_handler, r, RDMA_PS_TCP,
			       IB_QPT_RC);
	if (IS_ERR(r->id)) {
		err = PTR_ERR(r->id);
		kfree(r);
		return ERR_PTR(err);
	}
	err = aifs_rdma_establish(r, addr, timeout);
	if (err) {
		aifs_rdma_destroy(&r->xprt);
		return ERR_PTR(err);
	}
	return &r->xprt;
}

const struct aifs_transport_ops aifs_rdma_transport = {
	.name		= "rdma",
	.connect	= aifs_rdma_connect,
	.send		= aifs_rdma_send,
	.recv		= aifs_rdma_recv,
	.shutdown	= aifs_rdma_shutdown,
	.destroy	= aifs_rdma_destroy,
	.register_data	= aifs_rdma_register,
	.unregister_data = aifs_rdma_unregister,
};
