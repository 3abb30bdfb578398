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
 * what is free. Bulk data goes through the message buffers too: moving it
 * by RDMA READ and WRITE into registered folios is the next step.
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

#include "transport.h"

/* What we offer: messages of 16 KiB, 32 at once. */
#define AIFS_RDMA_MSG_SIZE	(16U << 10)
#define AIFS_RDMA_CREDITS	32
#define AIFS_RDMA_NR_RECV	(AIFS_RDMA_CREDITS + AIFS_RDMA_RESERVE)
/* The peer's credits are known only once connected: room for the most. */
#define AIFS_RDMA_MAX_SEND	(AIFS_RDMA_MAX_CREDITS + AIFS_RDMA_RESERVE)
#define MSG_HDR			sizeof(struct aifs_rdma_msg)

struct aifs_rdma;

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
 * @lock: guards what follows
 * @wait: the receiver and the sender wait here
 * @flow: the credits
 * @recv: @flow.my_credits + AIFS_RDMA_RESERVE receive buffers
 * @ready: received messages with data, oldest first
 * @ready_off: bytes of the first one read already
 * @send: @nr_send send buffers
 * @nr_send: @peer_credits + AIFS_RDMA_RESERVE
 * @free: send buffers not in use
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

	spinlock_t lock;		/* guards what follows */
	wait_queue_head_t wait;
	struct aifs_rdma_flow flow;
	struct aifs_rdma_buf recv[AIFS_RDMA_NR_RECV];
	struct list_head ready;
	u32 ready_off;
	struct aifs_rdma_buf *send;
	u32 nr_send;
	struct list_head free;
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
 * Only the connection's receiver calls this, so the first ready message
 * stays first while its bytes are copied out without the lock.
 */
static int aifs_rdma_recv(struct aifs_xprt *xprt, struct iov_iter *iter)
{
	struct aifs_rdma *r = to_rdma(xprt);
	struct aifs_rdma_buf *b;
	size_t n;
	int err;

	while (iov_iter_count(iter)) {
		if (wait_event_interruptible(r->wait, aifs_rdma_can_recv(r)))
			return -EINTR;
		b = aifs_rdma_first(r, &err);
		if (!b)
			return err;
		n = min_t(size_t, b->len - r->ready_off, iov_iter_count(iter));
		if (copy_to_iter(b->data + MSG_HDR + r->ready_off, n, iter) != n)
			return -EFAULT;
		aifs_rdma_consume(r, b, n);
	}
	return 0;
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
	struct aifs_rdma_buf *b;
	size_t n;
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
		b = aifs_rdma_take(r, &err);
		if (err)
			return err;
		if (!b)
			continue;
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
	rdma_disconnect(r->id);
	wake_up_all(&r->wait);
}

/* ---- setting up and tearing down ---- */

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
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
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
			/* one more each for ib_drain_qp()'s marker */
			.max_send_wr = AIFS_RDMA_MAX_SEND + 1,
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
 * After ib_drain_qp() every completion has run: no buffer is in use. The
 * id goes last; destroying it waits for a running event handler.
 */
static void aifs_rdma_destroy(struct aifs_xprt *xprt)
{
	struct aifs_rdma *r = to_rdma(xprt);
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
	kfree(r->send);
	if (r->cq)
		ib_free_cq(r->cq);
	if (r->pd)
		ib_dealloc_pd(r->pd);
	rdma_destroy_id(r->id);
	kfree(r);
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
	err = rdma_connect(r->id, &param);
	err = aifs_rdma_cm_wait(r, err, deadline);
	if (!err)
		err = aifs_rdma_alloc_send(r);
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
};
