// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The stream of frames over RDMA (see aifs/rdma.h and the credit rules in
 * aifs_proto.h), in the manner of rsockets: the bytes are copied into and
 * out of registered message buffers, one SEND per message.
 *
 * Receive slot i lives at rbuf + i * my_msg; a slot that holds data waits
 * on the ready ring until the application has read all of it, and is
 * posted again then (a credit owed to the peer).  Send slots are taken
 * from a free stack and come back with their completion.  Every work
 * request is signalled, so completions alone tell what is free; wr_id is
 * the slot, with SEND_TAG for sends, or an RDMA operation with OP_TAG.
 *
 * Bulk data (a server's side of AIFS_IO_RDMA): the connections of one
 * device share its protection domain, so that a pool of I/O buffers
 * registered once serves them all; a request's handler takes a buffer,
 * RDMA-READs a write's data into it or RDMA-WRITEs a read's data from it
 * (aifs_rdma_transfer(), which waits for the completion), and gives it
 * back.  Buffers are registered for local access only: a peer can reach
 * no memory of ours.  A handler holds a reference to its connection, which
 * the server may close meanwhile: the memory stays until the last one
 * goes, and the waiter takes completions in itself when nobody else does.
 */
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_cma.h>

#include "internal.h"
#include "aifs/rdma.h"

/* What we offer: messages of 32 KiB, 32 at once (1 MiB per direction). */
#define RDMA_MSG_SIZE		(32U << 10)
#define RDMA_CREDITS		32
#define RDMA_BACKLOG		512
#define RDMA_POLL_BATCH		32
#define SEND_TAG		(1ULL << 32)
#define OP_TAG			(1ULL << 63)
/* RDMA READs and WRITEs of one connection in flight at once. */
#define RDMA_MAX_OPS		16
/* How often a waiter for an operation takes completions in itself (ms). */
#define RDMA_OP_POLL_MS		100

#define MSG_HDR			sizeof(struct aifs_rdma_msg)

/* A device's protection domain and I/O buffer pool, shared. */
struct rdma_dev {
	struct rdma_dev *next;
	struct ibv_context *verbs;
	struct ibv_pd *pd;
	int refs;
	struct aifs_rdma_buf *free;	/* buffers not in use */
	u32 nr_bufs;			/* all of them */
};

struct aifs_rdma_buf {
	void *data;			/* AIFS_RDMA_BUF_SIZE bytes */
	struct ibv_mr *mr;
	struct rdma_dev *dev;
	struct aifs_rdma_buf *next;	/* on the free list */
};

/* An RDMA READ or WRITE, waited for by the thread that posted it. */
struct rdma_op {
	bool done;
	int err;
};

static pthread_mutex_t rdma_devs_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t rdma_bufs_freed = PTHREAD_COND_INITIALIZER;
static struct rdma_dev *rdma_devs;
static u32 rdma_max_bufs = 8;

struct aifs_rdma {
	pthread_mutex_t lock;
	int refs;
	struct rdma_event_channel *ech;	/* a requester's own; else NULL */
	struct rdma_cm_id *id;
	struct rdma_dev *dev;
	struct ibv_pd *pd;
	struct ibv_comp_channel *cch;
	struct ibv_cq *cq;
	bool has_qp;
	u32 peer_credits, peer_msg;	/* what the peer advertised */
	struct aifs_rdma_flow flow;

	u8 *rbuf;
	struct ibv_mr *rmr;
	u32 nr_recv;
	u32 *rlen;			/* data bytes in each receive slot */
	u32 *ready;			/* ring of slots with data, in order */
	u32 ready_head, ready_count, ready_off;

	u8 *sbuf;
	struct ibv_mr *smr;
	u32 nr_send;
	u32 *sfree;			/* stack of free send slots */
	u32 nr_sfree;

	bool fin_wanted, fin_sent;
	bool gone;			/* flushed: the connection ended */
	int err;			/* -errno once it failed */

	pthread_cond_t op_done;		/* an RDMA READ or WRITE completed */
	u32 nr_ops;			/* in flight */
};

struct aifs_rdma_listener {
	struct rdma_event_channel *ech;
	struct rdma_cm_id *id;
};

static void rdma_name(struct sockaddr *sa, char *name)
{
	aifs_addr_name(sa, sa->sa_family == AF_INET6 ?
		       sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in),
		       name, AIFS_RDMA_NAME_MAX);
}

/* The peer's private data: what it can receive, within our bounds. */
static int rdma_take_peer(struct aifs_rdma *r, const void *data, u8 len)
{
	return aifs_rdma_cm_data_check(data, len, &r->peer_credits,
				       &r->peer_msg);
}

static int rdma_nonblock(int fd)
{
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

static struct aifs_rdma *rdma_alloc(void)
{
	struct aifs_rdma *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->op_done, NULL);
	r->refs = 1;
	return r;
}

/* ---- devices: one protection domain each, and the I/O buffers ---- */

static struct rdma_dev *rdma_dev_get(struct ibv_context *verbs)
{
	struct rdma_dev *d;

	pthread_mutex_lock(&rdma_devs_lock);
	for (d = rdma_devs; d && d->verbs != verbs; d = d->next)
		;
	if (!d) {
		d = calloc(1, sizeof(*d));
		if (d)
			d->pd = ibv_alloc_pd(verbs);
		if (d && !d->pd) {
			free(d);
			d = NULL;
		}
		if (d) {
			d->verbs = verbs;
			d->next = rdma_devs;
			rdma_devs = d;
		}
	}
	if (d)
		d->refs++;
	pthread_mutex_unlock(&rdma_devs_lock);
	return d;
}

static void rdma_buf_free(struct aifs_rdma_buf *b)
{
	if (b->mr)
		ibv_dereg_mr(b->mr);
	free(b->data);
	free(b);
}

/* The last connection of a device went: every buffer is back. */
static void rdma_dev_put(struct rdma_dev *d)
{
	struct rdma_dev **pos;
	struct aifs_rdma_buf *b;

	pthread_mutex_lock(&rdma_devs_lock);
	if (--d->refs) {
		pthread_mutex_unlock(&rdma_devs_lock);
		return;
	}
	for (pos = &rdma_devs; *pos != d; pos = &(*pos)->next)
		;
	*pos = d->next;
	pthread_mutex_unlock(&rdma_devs_lock);
	while ((b = d->free)) {
		d->free = b->next;
		rdma_buf_free(b);
	}
	ibv_dealloc_pd(d->pd);
	free(d);
}

void aifs_rdma_set_buffers(unsigned int nr)
{
	pthread_mutex_lock(&rdma_devs_lock);
	rdma_max_bufs = nr ? nr : 1;
	pthread_mutex_unlock(&rdma_devs_lock);
}

static struct aifs_rdma_buf *rdma_buf_new(struct rdma_dev *d)
{
	struct aifs_rdma_buf *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->dev = d;
	if (posix_memalign(&b->data, 4096, AIFS_RDMA_BUF_SIZE))
		b->data = NULL;
	if (b->data)
		b->mr = ibv_reg_mr(d->pd, b->data, AIFS_RDMA_BUF_SIZE,
				   IBV_ACCESS_LOCAL_WRITE);
	if (!b->mr) {
		rdma_buf_free(b);
		return NULL;
	}
	return b;
}

int aifs_rdma_buf_get(struct aifs_rdma *r, struct aifs_rdma_buf **bp)
{
	struct rdma_dev *d = r->dev;
	struct aifs_rdma_buf *b = NULL;

	if (!d)
		return -EINVAL;

	pthread_mutex_lock(&rdma_devs_lock);
	while (!d->free && d->nr_bufs >= rdma_max_bufs)
		pthread_cond_wait(&rdma_bufs_freed, &rdma_devs_lock);
	if (d->free) {
		b = d->free;
		d->free = b->next;
	} else {
		d->nr_bufs++;	/* registered outside the lock */
	}
	pthread_mutex_unlock(&rdma_devs_lock);
	if (!b)
		b = rdma_buf_new(d);
	if (!b) {
		pthread_mutex_lock(&rdma_devs_lock);
		d->nr_bufs--;
		pthread_cond_broadcast(&rdma_bufs_freed);
		pthread_mutex_unlock(&rdma_devs_lock);
		return -ENOMEM;
	}
	*bp = b;
	return 0;
}

void *aifs_rdma_buf_data(const struct aifs_rdma_buf *b)
{
	return b->data;
}

struct aifs_rdma_lent {
	struct ibv_mr *mr;
};

int aifs_rdma_lend(struct aifs_rdma *r, void *buf, size_t len,
		   struct aifs_rdma_seg *seg, struct aifs_rdma_lent **lp)
{
	struct aifs_rdma_lent *l;

	if (r->dev)
		return -EINVAL;
	l = malloc(sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->mr = ibv_reg_mr(r->pd, buf, len, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
	if (!l->mr) {
		free(l);
		return -errno;
	}
	seg->addr = cpu_to_le64((uintptr_t)buf);
	seg->rkey = cpu_to_le32(l->mr->rkey);
	seg->len = cpu_to_le32(len);
	*lp = l;
	return 0;
}

void aifs_rdma_take_back(struct aifs_rdma_lent *l)
{
	ibv_dereg_mr(l->mr);
	free(l);
}

void aifs_rdma_buf_put(struct aifs_rdma_buf *b)
{
	struct rdma_dev *d = b->dev;

	pthread_mutex_lock(&rdma_devs_lock);
	b->next = d->free;
	d->free = b;
	pthread_cond_broadcast(&rdma_bufs_freed);
	pthread_mutex_unlock(&rdma_devs_lock);
}

/* ---- the data path; r->lock held ---- */

/* The connection failed: record why and let the peer see it. */
static void rdma_fail(struct aifs_rdma *r, int err)
{
	if (!r->err)
		r->err = err;
	rdma_disconnect(r->id);
}

static int rdma_post_recv(struct aifs_rdma *r, u32 slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(r->rbuf + (size_t)slot * RDMA_MSG_SIZE),
		.length = RDMA_MSG_SIZE,
		.lkey = r->rmr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;
	int err = ibv_post_recv(r->id->qp, &wr, &bad);

	if (err)
		rdma_fail(r, -err);
	return -err;
}

/* Send @len bytes of data from @iov (may be 0), the credits owed, @flags. */
static size_t rdma_post_send(struct aifs_rdma *r, const struct iovec **iov,
			     int *iovcnt, size_t *off, u16 flags)
{
	u32 slot = r->sfree[r->nr_sfree - 1];
	u8 *msg = r->sbuf + (size_t)slot * r->peer_msg;
	size_t room = r->peer_msg - MSG_HDR, len = 0, n;
	struct aifs_rdma_msg hdr;
	struct ibv_sge sge = { .addr = (uintptr_t)msg, .lkey = r->smr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = SEND_TAG | slot,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;
	int err;

	while (*iovcnt && len < room) {
		n = (*iov)->iov_len - *off;
		if (n > room - len)
			n = room - len;
		memcpy(msg + MSG_HDR + len, (u8 *)(*iov)->iov_base + *off, n);
		len += n;
		*off += n;
		if (*off == (*iov)->iov_len) {
			(*iov)++;
			(*iovcnt)--;
			*off = 0;
		}
	}
	aifs_rdma_flow_send(&r->flow, &hdr, len, flags);
	memcpy(msg, &hdr, MSG_HDR);
	sge.length = MSG_HDR + len;
	err = ibv_post_send(r->id->qp, &wr, &bad);
	if (err) {
		rdma_fail(r, -err);
		return 0;
	}
	r->nr_sfree--;
	return len;
}

static bool rdma_usable(const struct aifs_rdma *r)
{
	return !r->err && !r->gone;
}

/* Messages without data: the end of our stream, credits coming due. */
static void rdma_send_control(struct aifs_rdma *r)
{
	int none = 0;

	if (!rdma_usable(r) || !r->nr_sfree)
		return;
	if (r->fin_wanted && !r->fin_sent) {
		rdma_post_send(r, NULL, &none, NULL, AIFS_RDMA_FIN);
		r->fin_sent = rdma_usable(r);
	} else if (aifs_rdma_flow_due(&r->flow)) {
		rdma_post_send(r, NULL, &none, NULL, 0);
	}
}

static void rdma_received(struct aifs_rdma *r, u32 slot, u32 byte_len)
{
	struct aifs_rdma_msg hdr = { 0 };
	u32 len;

	memcpy(&hdr, r->rbuf + (size_t)slot * RDMA_MSG_SIZE,
	       byte_len < MSG_HDR ? byte_len : MSG_HDR);
	if (aifs_rdma_flow_received(&r->flow, &hdr, byte_len)) {
		rdma_fail(r, -EPROTO);
		return;
	}
	len = le32_to_cpu(hdr.len);
	if (!len) {
		rdma_post_recv(r, slot);
		return;
	}
	r->rlen[slot] = len;
	r->ready[(r->ready_head + r->ready_count) % r->nr_recv] = slot;
	r->ready_count++;
}

static int rdma_wc_errno(enum ibv_wc_status status)
{
	return status == IBV_WC_RETRY_EXC_ERR ||
	       status == IBV_WC_RNR_RETRY_EXC_ERR ? -ECONNRESET : -EIO;
}

static void rdma_op_completed(struct aifs_rdma *r, const struct ibv_wc *wc)
{
	struct rdma_op *op = (struct rdma_op *)(uintptr_t)(wc->wr_id & ~OP_TAG);

	r->nr_ops--;
	op->done = true;
	if (wc->status == IBV_WC_SUCCESS)
		return;
	/* a bad key or length from the peer also lands here */
	op->err = wc->status == IBV_WC_WR_FLUSH_ERR ? -ECONNRESET :
		  rdma_wc_errno(wc->status);
	if (wc->status == IBV_WC_WR_FLUSH_ERR)
		r->gone = true;
	else
		rdma_fail(r, op->err);
}

static void rdma_completed(struct aifs_rdma *r, const struct ibv_wc *wc)
{
	if (wc->wr_id & OP_TAG) {
		rdma_op_completed(r, wc);
		pthread_cond_broadcast(&r->op_done);
		return;
	}
	if (wc->wr_id & SEND_TAG)
		r->sfree[r->nr_sfree++] = (u32)wc->wr_id;
	if (wc->status == IBV_WC_WR_FLUSH_ERR) {
		r->gone = true;
	} else if (wc->status != IBV_WC_SUCCESS) {
		rdma_fail(r, rdma_wc_errno(wc->status));
	} else if (wc->wr_id & SEND_TAG) {
		return;
	} else if (wc->opcode != IBV_WC_RECV ||
		   wc->wc_flags & (IBV_WC_WITH_IMM | IBV_WC_WITH_INV)) {
		/* a write with immediate needs no key when empty: not ours */
		rdma_fail(r, -EPROTO);
	} else {
		rdma_received(r, (u32)wc->wr_id, wc->byte_len);
	}
}

/* A requester's own cm events: the server went away. */
static void rdma_take_cm_events(struct aifs_rdma *r)
{
	struct rdma_cm_event *ev;

	if (!r->ech)
		return;
	while (!rdma_get_cm_event(r->ech, &ev)) {
		if (ev->event == RDMA_CM_EVENT_DISCONNECTED ||
		    ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL)
			rdma_disconnect(r->id);
		rdma_ack_cm_event(ev);
	}
}

/*
 * Empty the completion queue.  Whoever calls this, the owner of the
 * completion channel learns what came from the state it finds.
 */
static void rdma_poll_cq(struct aifs_rdma *r)
{
	struct ibv_wc wc[RDMA_POLL_BATCH];
	int i, n;

	do {
		n = ibv_poll_cq(r->cq, RDMA_POLL_BATCH, wc);
		for (i = 0; i < n; i++)
			rdma_completed(r, &wc[i]);
	} while (n == RDMA_POLL_BATCH);
	if (n < 0)
		rdma_fail(r, -EIO);
	rdma_send_control(r);
}

/*
 * Take the completion event, arm for the next, then empty the queue: a
 * completion that came in between is polled here, not lost.
 */
static void rdma_progress(struct aifs_rdma *r)
{
	struct ibv_cq *cq;
	void *ctx;

	rdma_take_cm_events(r);
	if (!ibv_get_cq_event(r->cch, &cq, &ctx)) {
		ibv_ack_cq_events(cq, 1);
		if (ibv_req_notify_cq(r->cq, 0))
			rdma_fail(r, -EIO);
	}
	rdma_poll_cq(r);
}

unsigned int aifs_rdma_poll(struct aifs_rdma *r)
{
	unsigned int ready = 0;

	pthread_mutex_lock(&r->lock);
	rdma_progress(r);
	if (r->ready_count || r->flow.fin_received || !rdma_usable(r))
		ready |= AIFS_RDMA_READABLE;
	if ((r->flow.send_credits && r->nr_sfree) || !rdma_usable(r))
		ready |= AIFS_RDMA_WRITABLE;
	pthread_mutex_unlock(&r->lock);
	return ready;
}

/* Copy out of the ready slots; each emptied slot is posted again. */
static size_t rdma_copy_out(struct aifs_rdma *r, u8 *buf, size_t len)
{
	size_t done = 0, n;
	u32 slot;

	while (done < len && r->ready_count) {
		slot = r->ready[r->ready_head];
		n = r->rlen[slot] - r->ready_off;
		if (n > len - done)
			n = len - done;
		memcpy(buf + done, r->rbuf + (size_t)slot * RDMA_MSG_SIZE +
		       MSG_HDR + r->ready_off, n);
		done += n;
		r->ready_off += n;
		if (r->ready_off < r->rlen[slot])
			break;
		r->ready_off = 0;
		r->ready_head = (r->ready_head + 1) % r->nr_recv;
		r->ready_count--;
		if (rdma_post_recv(r, slot))
			break;
		aifs_rdma_flow_read(&r->flow);
	}
	return done;
}

ssize_t aifs_rdma_recv(struct aifs_rdma *r, void *buf, size_t len)
{
	ssize_t ret;

	pthread_mutex_lock(&r->lock);
	rdma_progress(r);
	ret = rdma_copy_out(r, buf, len);
	if (ret)
		rdma_send_control(r);
	else if (r->err)
		ret = r->err;
	else if (!r->flow.fin_received && !r->gone)
		ret = -EAGAIN;
	pthread_mutex_unlock(&r->lock);
	return ret;
}

ssize_t aifs_rdma_sendv(struct aifs_rdma *r, const struct iovec *iov,
			int iovcnt)
{
	size_t total = 0, off = 0;
	ssize_t ret;

	pthread_mutex_lock(&r->lock);
	rdma_progress(r);
	while (iovcnt && rdma_usable(r) && !r->fin_sent &&
	       r->flow.send_credits && r->nr_sfree)
		total += rdma_post_send(r, &iov, &iovcnt, &off, 0);
	if (total)
		ret = total;
	else if (r->err)
		ret = r->err;
	else if (r->gone || r->fin_sent)
		ret = -EPIPE;
	else
		ret = -EAGAIN;
	pthread_mutex_unlock(&r->lock);
	return ret;
}

void aifs_rdma_shutdown(struct aifs_rdma *r)
{
	pthread_mutex_lock(&r->lock);
	r->fin_wanted = true;
	rdma_send_control(r);
	pthread_mutex_unlock(&r->lock);
}

void aifs_rdma_disconnect(struct aifs_rdma *r)
{
	pthread_mutex_lock(&r->lock);
	rdma_disconnect(r->id);
	pthread_mutex_unlock(&r->lock);
}

static int rdma_post_op(struct aifs_rdma *r, struct rdma_op *op,
			struct aifs_rdma_buf *b, size_t off, u32 len,
			const struct aifs_rdma_seg *seg, bool to_peer)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)b->data + off,
		.length = len,
		.lkey = b->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = OP_TAG | (uintptr_t)op,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = to_peer ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = {
			.remote_addr = le64_to_cpu(seg->addr),
			.rkey = le32_to_cpu(seg->rkey),
		},
	};
	struct ibv_send_wr *bad;
	int err = ibv_post_send(r->id->qp, &wr, &bad);

	if (err) {
		rdma_fail(r, -err);
		return -err;
	}
	r->nr_ops++;
	return 0;
}

/*
 * Wait a little for an operation to complete, with r->lock held, and take
 * completions in (the server may have stopped watching a closed
 * connection).  Past @deadline the connection fails, which flushes what
 * is in flight.
 */
static void rdma_op_wait(struct aifs_rdma *r, s64 deadline)
{
	struct timespec ts;

	if (!aifs_ms_left(deadline) && !r->err)
		rdma_fail(r, -ETIMEDOUT);
	aifs_time_after_ms(CLOCK_REALTIME, RDMA_OP_POLL_MS, &ts);
	pthread_cond_timedwait(&r->op_done, &r->lock, &ts);
	rdma_poll_cq(r);
}

int aifs_rdma_transfer(struct aifs_rdma *r, struct aifs_rdma_buf *b,
		       size_t off, u32 len, const struct aifs_rdma_seg *seg,
		       bool to_peer, s64 deadline)
{
	struct rdma_op op = { 0 };
	int err;

	if (off + len > AIFS_RDMA_BUF_SIZE || len > le32_to_cpu(seg->len))
		return -EINVAL;
	pthread_mutex_lock(&r->lock);
	for (;;) {
		err = r->err ? r->err : r->gone ? -ECONNRESET : 0;
		if (err || r->nr_ops < RDMA_MAX_OPS)
			break;
		rdma_op_wait(r, deadline);
	}
	if (!err)
		err = rdma_post_op(r, &op, b, off, len, seg, to_peer);
	while (!err && !op.done)
		rdma_op_wait(r, deadline);
	if (!err)
		err = op.err;
	pthread_mutex_unlock(&r->lock);
	return err;
}

int aifs_rdma_fd(const struct aifs_rdma *r)
{
	return r->cch->fd;
}

int aifs_rdma_cm_fd(const struct aifs_rdma *r)
{
	return r->ech ? r->ech->fd : -1;
}

/* ---- setting up and tearing down ---- */

static int rdma_alloc_slots(u8 **buf, struct ibv_mr **mr, struct ibv_pd *pd,
			    u32 count, u32 size)
{
	*buf = malloc((size_t)count * size);
	if (!*buf)
		return -ENOMEM;
	*mr = ibv_reg_mr(pd, *buf, (size_t)count * size, IBV_ACCESS_LOCAL_WRITE);
	return *mr ? 0 : -errno;
}

/* The receive side, queue pair and all, on @r->id's device. */
static int rdma_setup_recv(struct aifs_rdma *r)
{
	struct ibv_context *dev = r->id->verbs;
	u32 max_send = AIFS_RDMA_MAX_CREDITS + AIFS_RDMA_RESERVE +
		       RDMA_MAX_OPS, i;
	struct ibv_qp_init_attr qp = {
		.qp_type = IBV_QPT_RC,
		.cap = {
			.max_send_wr = max_send,
			.max_recv_wr = RDMA_CREDITS + AIFS_RDMA_RESERVE,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};
	int err;

	r->nr_recv = RDMA_CREDITS + AIFS_RDMA_RESERVE;
	r->rlen = calloc(r->nr_recv, sizeof(*r->rlen));
	r->ready = calloc(r->nr_recv, sizeof(*r->ready));
	/*
	 * A server's connections share the device's domain (and so its I/O
	 * buffers), where nothing is registered for remote access; a
	 * requester, which lends memory, has a domain of its own.
	 */
	if (r->ech) {
		r->pd = ibv_alloc_pd(dev);
	} else {
		r->dev = rdma_dev_get(dev);
		r->pd = r->dev ? r->dev->pd : NULL;
	}
	r->cch = ibv_create_comp_channel(dev);
	if (!r->rlen || !r->ready || !r->pd || !r->cch)
		return -ENOMEM;
	err = rdma_nonblock(r->cch->fd);
	if (err)
		return err;
	r->cq = ibv_create_cq(dev, r->nr_recv + max_send, r, r->cch, 0);
	if (!r->cq)
		return -ENOMEM;
	err = ibv_req_notify_cq(r->cq, 0);
	if (err)
		return -err;
	qp.send_cq = qp.recv_cq = r->cq;
	if (rdma_create_qp(r->id, r->pd, &qp))
		return -errno;
	r->has_qp = true;
	err = rdma_alloc_slots(&r->rbuf, &r->rmr, r->pd, r->nr_recv,
			       RDMA_MSG_SIZE);
	for (i = 0; !err && i < r->nr_recv; i++)
		err = rdma_post_recv(r, i);
	return err;
}

/* The send side, once the peer said what it receives. */
static int rdma_setup_send(struct aifs_rdma *r)
{
	u32 i;

	r->nr_send = r->peer_credits + AIFS_RDMA_RESERVE;
	aifs_rdma_flow_init(&r->flow, RDMA_CREDITS, r->peer_credits);
	r->sfree = calloc(r->nr_send, sizeof(*r->sfree));
	if (!r->sfree)
		return -ENOMEM;
	for (i = 0; i < r->nr_send; i++)
		r->sfree[r->nr_sfree++] = i;
	return rdma_alloc_slots(&r->sbuf, &r->smr, r->pd, r->nr_send,
				r->peer_msg);
}

static struct rdma_conn_param rdma_conn_param(struct aifs_rdma_cm_data *mine)
{
	aifs_rdma_cm_data_init(mine, RDMA_CREDITS, RDMA_MSG_SIZE);
	return (struct rdma_conn_param){
		.private_data = mine,
		.private_data_len = sizeof(*mine),
		.retry_count = 7,
		/* 7: retry forever, a short receiver only slows its peer */
		.rnr_retry_count = 7,
	};
}

void aifs_rdma_get(struct aifs_rdma *r)
{
	pthread_mutex_lock(&r->lock);
	r->refs++;
	pthread_mutex_unlock(&r->lock);
}

static void rdma_free(struct aifs_rdma *r)
{
	if (r->has_qp)
		rdma_destroy_qp(r->id);
	if (r->smr)
		ibv_dereg_mr(r->smr);
	if (r->rmr)
		ibv_dereg_mr(r->rmr);
	if (r->cq)
		ibv_destroy_cq(r->cq);
	if (r->cch)
		ibv_destroy_comp_channel(r->cch);
	if (r->dev)
		rdma_dev_put(r->dev);
	else if (r->pd)
		ibv_dealloc_pd(r->pd);
	if (r->id)
		rdma_destroy_id(r->id);
	if (r->ech)
		rdma_destroy_event_channel(r->ech);
	free(r->sbuf);
	free(r->rbuf);
	free(r->sfree);
	free(r->ready);
	free(r->rlen);
	pthread_cond_destroy(&r->op_done);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

void aifs_rdma_put(struct aifs_rdma *r)
{
	bool last;

	pthread_mutex_lock(&r->lock);
	last = !--r->refs;
	pthread_mutex_unlock(&r->lock);
	if (last)
		rdma_free(r);
}

void aifs_rdma_close(struct aifs_rdma *r)
{
	pthread_mutex_lock(&r->lock);
	if (r->id)
		rdma_disconnect(r->id);
	pthread_mutex_unlock(&r->lock);
	aifs_rdma_put(r);
}

/* ---- requester ---- */

static int rdma_cm_errno(enum rdma_cm_event_type type)
{
	switch (type) {
	case RDMA_CM_EVENT_REJECTED:
		return -ECONNREFUSED;
	case RDMA_CM_EVENT_ROUTE_ERROR:
		return -ENETUNREACH;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		return -ENODEV;
	default:
		return -EHOSTUNREACH;
	}
}

/* Wait for the cm event @want; an ESTABLISHED one gives the peer's data. */
static int rdma_wait_event(struct aifs_rdma *r, enum rdma_cm_event_type want,
			   s64 deadline)
{
	enum rdma_cm_event_type got;
	struct rdma_cm_event *ev;
	int err;

	for (;;) {
		if (!rdma_get_cm_event(r->ech, &ev))
			break;
		if (errno != EAGAIN)
			return -errno;
		err = aifs_fd_wait(r->ech->fd, POLLIN, deadline);
		if (err)
			return err;
	}
	got = ev->event;
	err = got == want ? 0 : rdma_cm_errno(got);
	if (!err && got == RDMA_CM_EVENT_ESTABLISHED)
		err = rdma_take_peer(r, ev->param.conn.private_data,
				     ev->param.conn.private_data_len);
	rdma_ack_cm_event(ev);
	return err;
}

static int rdma_connect_addr(struct aifs_rdma *r, struct sockaddr *sa,
			     s64 deadline)
{
	struct aifs_rdma_cm_data mine;
	struct rdma_conn_param param = rdma_conn_param(&mine);
	int ms = aifs_ms_left(deadline), err;

	/* the server RDMA-READs the data of writes: as many as the device takes */
	param.responder_resources = RDMA_MAX_RESP_RES;
	if (ms < 0)
		ms = AIFS_CONNECT_TIMEOUT_MS;
	if (rdma_resolve_addr(r->id, NULL, sa, ms))
		return -errno;
	err = rdma_wait_event(r, RDMA_CM_EVENT_ADDR_RESOLVED, deadline);
	if (err)
		return err;
	if (rdma_resolve_route(r->id, ms))
		return -errno;
	err = rdma_wait_event(r, RDMA_CM_EVENT_ROUTE_RESOLVED, deadline);
	if (!err)
		err = rdma_setup_recv(r);
	if (err)
		return err;
	if (rdma_connect(r->id, &param))
		return -errno;
	err = rdma_wait_event(r, RDMA_CM_EVENT_ESTABLISHED, deadline);
	if (!err)
		err = rdma_setup_send(r);
	return err;
}

int aifs_rdma_connect(const char *host, const char *port, s64 deadline,
		      struct aifs_rdma **rdmap)
{
	const struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
	};
	struct addrinfo *list;
	struct aifs_rdma *r;
	int err;

	err = getaddrinfo(host, port, &hints, &list);
	if (err)
		return err == EAI_SYSTEM ? -errno : -EHOSTUNREACH;
	r = rdma_alloc();
	if (!r) {
		err = -ENOMEM;
		goto out;
	}
	/* No rdma_cm device node: no RDMA on this machine. */
	r->ech = rdma_create_event_channel();
	if (!r->ech) {
		err = errno == ENOENT ? -ENODEV : -errno;
		goto out;
	}
	err = rdma_nonblock(r->ech->fd);
	if (!err && rdma_create_id(r->ech, &r->id, r, RDMA_PS_TCP))
		err = -errno;
	if (!err)
		err = rdma_connect_addr(r, list->ai_addr, deadline);
out:
	freeaddrinfo(list);
	if (err && r)
		aifs_rdma_close(r);
	if (!err)
		*rdmap = r;
	return err;
}

/* ---- server ---- */

int aifs_rdma_listen(const char *addr, int port,
		     struct aifs_rdma_listener **lp, char *name)
{
	const struct addrinfo hints = {
		.ai_socktype = SOCK_STREAM,
		.ai_flags = AI_PASSIVE | AI_NUMERICSERV,
	};
	struct aifs_rdma_listener *l;
	struct addrinfo *list;
	char service[8];
	int err;

	snprintf(service, sizeof(service), "%d", port);
	if (getaddrinfo(addr, service, &hints, &list))
		return -EADDRNOTAVAIL;
	l = calloc(1, sizeof(*l));
	if (!l) {
		err = -ENOMEM;
		goto out;
	}
	l->ech = rdma_create_event_channel();
	if (!l->ech) {
		err = errno == ENOENT ? -ENODEV : -errno;
		goto out;
	}
	err = rdma_nonblock(l->ech->fd);
	if (!err && (rdma_create_id(l->ech, &l->id, NULL, RDMA_PS_TCP) ||
		     rdma_bind_addr(l->id, list->ai_addr) ||
		     rdma_listen(l->id, RDMA_BACKLOG)))
		err = -errno;
out:
	freeaddrinfo(list);
	if (err && l)
		aifs_rdma_listener_close(l);
	if (err)
		return err;
	rdma_name(rdma_get_local_addr(l->id), name);
	*lp = l;
	return 0;
}

int aifs_rdma_listener_fd(const struct aifs_rdma_listener *l)
{
	return l->ech->fd;
}

void aifs_rdma_listener_close(struct aifs_rdma_listener *l)
{
	if (l->id)
		rdma_destroy_id(l->id);
	if (l->ech)
		rdma_destroy_event_channel(l->ech);
	free(l);
}

/*
 * The RDMA READs we may have in flight: what the peer takes (its
 * responder resources) and the device allows.
 */
static u8 rdma_read_depth(struct rdma_cm_id *id, u8 peer_allows)
{
	struct ibv_device_attr attr;
	int max = RDMA_MAX_OPS;

	if (!ibv_query_device(id->verbs, &attr) &&
	    attr.max_qp_init_rd_atom < max)
		max = attr.max_qp_init_rd_atom;
	return peer_allows < max ? peer_allows : max;
}

/* A connection request: its queue pair, then accept; rejected if bad. */
static int rdma_take_request(struct rdma_cm_id *id, const void *data, u8 len,
			     u8 read_depth, struct aifs_rdma **rdmap,
			     char *name)
{
	struct aifs_rdma_cm_data mine;
	struct rdma_conn_param param = rdma_conn_param(&mine);
	struct aifs_rdma *r;
	int err;

	r = rdma_alloc();
	if (!r) {
		rdma_reject(id, NULL, 0);
		rdma_destroy_id(id);
		return -ENOMEM;
	}
	r->id = id;
	id->context = r;
	/* RDMA READs of write data, as many as the requester takes at once */
	param.initiator_depth = rdma_read_depth(id, read_depth);
	err = rdma_take_peer(r, data, len);
	if (!err)
		err = rdma_setup_recv(r);
	if (!err)
		err = rdma_setup_send(r);
	if (err)
		rdma_reject(id, NULL, 0);
	else if (rdma_accept(id, &param))
		err = -errno;
	if (err) {
		aifs_rdma_close(r);
		return err;
	}
	rdma_name(rdma_get_peer_addr(id), name);
	*rdmap = r;
	return 0;
}

int aifs_rdma_accept(struct aifs_rdma_listener *l, struct aifs_rdma **rdmap,
		     char *name)
{
	struct aifs_rdma_cm_data data;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	struct aifs_rdma *r;
	u8 len, depth;

	while (!rdma_get_cm_event(l->ech, &ev)) {
		id = ev->id;
		switch (ev->event) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			len = ev->param.conn.private_data_len;
			if (len > sizeof(data))
				len = sizeof(data);
			memcpy(&data, ev->param.conn.private_data, len);
			/* rdma_cm turns the requester's view round to ours */
			depth = ev->param.conn.initiator_depth;
			rdma_ack_cm_event(ev);
			if (!rdma_take_request(id, &data, len, depth, rdmap,
					       name))
				return 0;
			continue;
		case RDMA_CM_EVENT_DISCONNECTED:
		case RDMA_CM_EVENT_DEVICE_REMOVAL:
		case RDMA_CM_EVENT_CONNECT_ERROR:
		case RDMA_CM_EVENT_UNREACHABLE:
		case RDMA_CM_EVENT_REJECTED:
			/* One accepted: its receives flush, its owner sees it. */
			r = id != l->id ? id->context : NULL;
			rdma_ack_cm_event(ev);
			if (r)
				aifs_rdma_disconnect(r);
			continue;
		default:
			rdma_ack_cm_event(ev);
		}
	}
	return errno == EAGAIN ? -EAGAIN : -errno;
}
