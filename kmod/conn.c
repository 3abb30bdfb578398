// SPDX-License-Identifier: GPL-2.0
/*
 * aifs - a connection to one server: framing, outstanding requests and the
 * receive path.
 *
 * Receive path: one kernel thread per connection sleeps in the transport's
 * blocking recv(), as fs/smb/client's cifsd does, rather than
 * sk_data_ready() callbacks feeding a work item as net/ceph does. A thread
 * can read a header, find the request it answers and receive the payload
 * straight into that request's buffer with no partial-frame state machine;
 * the RDMA transport can block on its completions behind the same recv().
 * Its cost, a sleeping thread per server connection, is small for the
 * number of servers a mount talks to.
 *
 * Bulk data is not copied: a request may carry a data sink, an iov_iter
 * over the page cache (aifs_conn_call_data()). The first bytes of the
 * reply's payload, the fixed part of the message, go to the request's own
 * small buffer, the rest from the socket straight into the sink, and the
 * payload's CRC32C is chained over both. While the receiver writes into a
 * sink, the sink's owner must not let it go: a data call therefore returns
 * only once its request is completed, and a timeout (or a fatal signal)
 * closes the connection first, which ends a receive under way.
 *
 * Writes go the other way (aifs_conn_call_write()): the frame's payload is
 * the request's fixed part and then an iov_iter over the pages of the
 * data, sent by a second send() right after the first; the payload CRC32C
 * is chained over both before anything is sent, so the pages must not
 * change meanwhile (the superblock asks for stable writes).
 *
 * Requests: each has an id, from one counter for the whole module, so that
 * a request resent on a new connection keeps its id and no other request
 * of this client takes it while the MDS's reply cache remembers it (its
 * entries live minutes; the 32-bit counter wraps after 2^32 requests).
 * The table of outstanding requests, @reqs, owns a reference to every
 * request in it; whoever removes a request from the table (the receiver
 * with its reply, or aifs_conn_fail() with an error) completes it and drops
 * that reference. The caller waits with its own reference, killable and
 * bounded by the timeout. A killed caller just leaves: its request stays in
 * the table until the reply comes, so a late reply is not mistaken for a
 * stray one. A timeout closes the connection, failing every request on it.
 *
 * Every frame received is untrusted: anything that is not a well-formed
 * reply to an outstanding request, of that request's opcode, no larger
 * than what the request can hold, closes the connection; its requests fail
 * with -EPROTO, or -EIO for corrupted bytes. Nothing is allocated on the
 * strength of a length received.
 */
#define pr_fmt(fmt) "aifs: " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/highmem.h>
#include <linux/kref.h>
#include <linux/kthread.h>
#include <linux/overflow.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/xarray.h>

#include <aifs/aifs_codec.h>

#include "internal.h"
#include "transport.h"

/**
 * struct aifs_req - an outstanding request
 * @ref: references: the caller's, and the table's while in it
 * @done: completed when @status is final
 * @opcode: of the request; the reply must carry the same
 * @status: 0, or a negative errno (from the server or the connection)
 * @reply_len: bytes of payload received
 * @reply_size: room in @reply
 * @data: NULL, or where the payload past @reply_size goes: the caller's,
 *	in use by the receiver until @done
 * @reply: the reply's payload, or its first @reply_size bytes
 */
struct aifs_req {
	struct kref ref;
	struct completion done;
	u16 opcode;
	int status;
	u32 reply_len;
	u32 reply_size;
	struct iov_iter *data;
	u8 reply[];
};

static void aifs_req_release(struct kref *ref)
{
	kfree(container_of(ref, struct aifs_req, ref));
}

static void aifs_req_put(struct aifs_req *req)
{
	kref_put(&req->ref, aifs_req_release);
}

/*
 * Called by whoever removed @req from the table, with the table's
 * reference, which this drops.
 */
static void aifs_req_finish(struct aifs_req *req, int status)
{
	req->status = status;
	complete(&req->done);
	aifs_req_put(req);
}

static atomic_t aifs_request_ids = ATOMIC_INIT(0);

/**
 * aifs_conn_new_id - a request id no other request of this client has
 *
 * Return: the id, to give aifs_conn_call_id() as many times as the request
 * is sent.
 */
u32 aifs_conn_new_id(void)
{
	return (u32)atomic_inc_return(&aifs_request_ids);
}

/**
 * aifs_conn_fail - close a connection because of an error
 * @conn: the connection
 * @err: negative errno that its outstanding and future requests get
 *
 * The first error sticks. Wakes every waiter and shuts the transport down,
 * so that the receiver stops. Sleeps.
 *
 * Return: true if this was the first error, which the caller may report.
 */
bool aifs_conn_fail(struct aifs_conn *conn, int err)
{
	struct aifs_req *req;
	unsigned long id;
	bool first;

	xa_lock(&conn->reqs);
	first = !conn->error;
	if (first)
		WRITE_ONCE(conn->error, err);	/* the receiver peeks */
	xa_for_each(&conn->reqs, id, req) {
		__xa_erase(&conn->reqs, id);
		aifs_req_finish(req, conn->error);
	}
	xa_unlock(&conn->reqs);

	if (first)
		conn->xprt->ops->shutdown(conn->xprt);
	return first;
}

/**
 * aifs_conn_error - whether a connection is closed, and why
 * @conn: the connection
 *
 * Return: 0 while it works, else the error that closed it.
 */
int aifs_conn_error(struct aifs_conn *conn)
{
	int err;

	xa_lock(&conn->reqs);
	err = conn->error;
	xa_unlock(&conn->reqs);
	return err;
}

/**
 * aifs_conn_broke - whether a request failed because its link broke
 * @conn: the connection the request went on
 * @err: what the request returned
 *
 * A connection that closed on a broken link (the server closed it, a
 * receive or an RDMA completion failed, a frame made no sense) rather
 * than on a server that stopped answering (-ETIMEDOUT) or a mount going
 * away (-ESHUTDOWN): the server may well be fine, and a new connection
 * at once is worth a try.
 *
 * Return: true when @err is the error that closed @conn and a link's.
 */
bool aifs_conn_broke(struct aifs_conn *conn, int err)
{
	return err && aifs_conn_error(conn) == err && err != -ETIMEDOUT &&
	       err != -ESHUTDOWN;
}

/**
 * aifs_conn_map_epoch - the newest cluster map a reply announced
 * @conn: the connection
 *
 * Every reply's header carries the server's map epoch; a caller compares
 * it with the map it has after its call returned.
 *
 * Return: the highest epoch seen in a well-formed reply, 0 before any.
 */
u64 aifs_conn_map_epoch(struct aifs_conn *conn)
{
	return READ_ONCE(conn->map_epoch);
}

static void aifs_conn_report(struct aifs_conn *conn, int err, const char *why)
{
	if (aifs_conn_fail(conn, err))
		pr_warn("server %pISpc: %s (%pe), closing the connection\n",
			&conn->addr, why, ERR_PTR(err));
}

static const char *aifs_recv_failed(int err)
{
	return err == -ECONNRESET ? "connection closed by the server" :
				    "receive failed";
}

/* Receive exactly @len bytes into @buf. */
static int aifs_conn_recv_buf(struct aifs_conn *conn, void *buf, size_t len)
{
	struct kvec vec = { .iov_base = buf, .iov_len = len };
	struct iov_iter iter;

	iov_iter_kvec(&iter, ITER_DEST, &vec, 1, len);
	return conn->xprt->ops->recv(conn->xprt, &iter);
}

/*
 * CRC32C of the @len bytes of the page-backed @iter, chained onto @crc:
 * the pages are mapped one at a time, as they may be highmem.
 */
static int aifs_iter_crc32c(struct iov_iter *iter, size_t len, u32 *crc)
{
	struct page *pages[16];
	size_t off, n;
	ssize_t got;
	void *p;
	int i;

	while (len) {
		got = iov_iter_get_pages2(iter, pages, len, ARRAY_SIZE(pages),
					  &off);
		if (got <= 0)
			return got ? got : -EFAULT;
		len -= got;
		for (i = 0; got; i++, off = 0) {
			n = min_t(size_t, got, PAGE_SIZE - off);
			p = kmap_local_page(pages[i]);
			*crc = crc32c(*crc, p + off, n);
			kunmap_local(p);
			put_page(pages[i]);
			got -= n;
		}
	}
	return 0;
}

/*
 * Receive the @len bytes of payload of @req's reply: the first ones into
 * its buffer, the rest into its data sink; then check the CRC over both.
 */
static int aifs_conn_recv_payload(struct aifs_conn *conn,
				  const struct aifs_frame_hdr *hdr,
				  struct aifs_req *req, u32 len,
				  const char **why)
{
	u32 head = min(len, req->reply_size);
	struct iov_iter data;
	u32 crc;
	int err;

	err = aifs_conn_recv_buf(conn, req->reply, head);
	if (!err && len > head) {
		iov_iter_truncate(req->data, len - head);
		data = *req->data;	/* for the CRC below */
		err = conn->xprt->ops->recv(conn->xprt, req->data);
	}
	if (err) {
		*why = aifs_recv_failed(err);
		return err;
	}
	crc = crc32c(~0U, req->reply, head);
	if (len > head)
		err = aifs_iter_crc32c(&data, len - head, &crc);
	if (err || aifs_frame_crc_check(hdr, ~crc)) {
		*why = "payload CRC mismatch";
		return -EIO;
	}
	return 0;
}

/*
 * Receive one frame and hand it to its request. On error, @why says what
 * was wrong with the frame.
 */
/* Read @len bytes of a frame and drop them (fault point reply_drop). */
static int aifs_conn_discard(struct aifs_conn *conn, u32 len, const char **why)
{
	u8 buf[256];
	u32 n;
	int err;

	for (; len; len -= n) {
		n = min_t(u32, len, sizeof(buf));
		err = aifs_conn_recv_buf(conn, buf, n);
		if (err) {
			*why = aifs_recv_failed(err);
			return err;
		}
	}
	return 0;
}

static int aifs_conn_recv_frame(struct aifs_conn *conn, const char **why)
{
	struct aifs_frame_hdr hdr;
	struct aifs_req *req;
	u32 len, status;
	u64 id;
	int err;

	err = aifs_conn_recv_buf(conn, &hdr, sizeof(hdr));
	if (err) {
		*why = aifs_recv_failed(err);
		return err;
	}

	err = aifs_frame_hdr_check(&hdr, AIFS_MAX_PAYLOAD);
	switch (err) {
	case 0:
		break;
	case -EBADMSG:
		*why = "bad frame header (magic, CRC or flags)";
		return -EIO;
	case -EPROTONOSUPPORT:
		*why = "frame of an unknown protocol version";
		return -EPROTO;
	default:
		*why = "frame larger than the protocol allows";
		return -EPROTO;
	}
	if (!(le32_to_cpu(hdr.flags) & AIFS_FLAG_REPLY)) {
		*why = "unexpected request from the server";
		return -EPROTO;
	}

	/* lost on the way: its call times out */
	if (aifs_fail(AIFS_FAIL_REPLY_DROP, le16_to_cpu(hdr.opcode), &status))
		return aifs_conn_discard(conn, le32_to_cpu(hdr.payload_len),
					 why);

	id = le64_to_cpu(hdr.request_id);
	req = NULL;
	if (id <= U32_MAX)
		req = xa_erase(&conn->reqs, id);
	if (!req) {
		*why = "reply to no outstanding request";
		return -EPROTO;
	}

	/* ours now: whatever happens, it is completed below */
	len = le32_to_cpu(hdr.payload_len);
	status = le32_to_cpu(hdr.status);
	if (le16_to_cpu(hdr.opcode) != req->opcode) {
		*why = "reply with another opcode than its request";
		err = -EPROTO;
	} else if (status && len) {
		*why = "error reply with a payload";
		err = -EPROTO;
	} else if (len > req->reply_size +
			 (req->data ? iov_iter_count(req->data) : 0)) {
		*why = "reply larger than its request allows";
		err = -EPROTO;
	} else {
		err = aifs_conn_recv_payload(conn, &hdr, req, len, why);
	}
	req->reply_len = len;
	/* before the completion, so that the caller sees it on return */
	if (!err && le64_to_cpu(hdr.map_epoch) > conn->map_epoch)
		WRITE_ONCE(conn->map_epoch, le64_to_cpu(hdr.map_epoch));
	/*
	 * A bad reply fails the connection, saying why, before its caller
	 * wakes: the caller's own teardown of the connection must not come
	 * first and leave the reason unsaid.
	 */
	if (err)
		aifs_conn_report(conn, err, *why);
	aifs_req_finish(req, err ? err : -(int)status);
	return err;
}

static int aifs_conn_receiver(void *data)
{
	struct aifs_conn *conn = data;
	const char *why;
	int err;

	/*
	 * After a shutdown TCP still hands out what was queued: stop at the
	 * first error, ours or the transport's.
	 */
	do {
		err = aifs_conn_recv_frame(conn, &why);
	} while (!err && !READ_ONCE(conn->error));
	/* said already if a bad reply's caller was woken with it */
	if (err)
		aifs_conn_report(conn, err, why);

	/* kthread_stop() needs the thread to be there until it is called */
	set_current_state(TASK_IDLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_IDLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/**
 * aifs_transport_get - the operations of a transport
 * @transport: AIFS_TRANSPORT_TCP or AIFS_TRANSPORT_RDMA
 *
 * Return: the ops, or NULL for RDMA in a build without it.
 */
const struct aifs_transport_ops *aifs_transport_get(enum aifs_transport transport)
{
	if (transport != AIFS_TRANSPORT_RDMA)
		return &aifs_tcp_transport;
#if IS_ENABLED(CONFIG_INFINIBAND_ADDR_TRANS)
	return &aifs_rdma_transport;
#else
	return NULL;
#endif
}

/**
 * aifs_transport_fallback - may a failed RDMA connect be tried over TCP?
 * @fsi: the mount
 * @err: how the connect (or its handshake) failed
 *
 * Return: true when transport=auto chose RDMA and @err is not one TCP
 * would meet too (a refused secret, a fatal signal).
 */
bool aifs_transport_fallback(const struct aifs_fs_info *fsi, int err)
{
	return fsi->opts.transport == AIFS_TRANSPORT_AUTO &&
	       fsi->transport == AIFS_TRANSPORT_RDMA &&
	       err != -EACCES && err != -EINTR;
}

/**
 * aifs_conn_open - connect to a server and start receiving
 * @net: network namespace of the mount
 * @addr: the server
 * @ops: transport to use
 * @timeout: jiffies the connect may take
 *
 * Return: the connection, or an ERR_PTR() with the error of the connect
 * (see &aifs_transport_ops.connect).
 */
struct aifs_conn *aifs_conn_open(struct net *net,
				 const struct sockaddr_storage *addr,
				 const struct aifs_transport_ops *ops,
				 unsigned long timeout)
{
	struct aifs_conn *conn;
	int err;

	conn = kzalloc(sizeof(*conn), GFP_KERNEL);
	if (!conn)
		return ERR_PTR(-ENOMEM);
	kref_init(&conn->ref);
	conn->addr = *addr;
	conn->version = AIFS_PROTO_VERSION;
	mutex_init(&conn->send_lock);
	xa_init(&conn->reqs);

	conn->xprt = ops->connect(net, addr, timeout);
	if (IS_ERR(conn->xprt)) {
		err = PTR_ERR(conn->xprt);
		goto out_free;
	}

	conn->receiver = kthread_run(aifs_conn_receiver, conn, "aifs-recv");
	if (IS_ERR(conn->receiver)) {
		err = PTR_ERR(conn->receiver);
		goto out_xprt;
	}
	return conn;

out_xprt:
	ops->destroy(conn->xprt);
out_free:
	mutex_destroy(&conn->send_lock);
	kfree(conn);
	return ERR_PTR(err);
}

static void aifs_conn_release(struct kref *ref)
{
	struct aifs_conn *conn = container_of(ref, struct aifs_conn, ref);

	kthread_stop(conn->receiver);
	conn->xprt->ops->destroy(conn->xprt);
	xa_destroy(&conn->reqs);
	mutex_destroy(&conn->send_lock);
	kfree(conn);
}

/**
 * aifs_conn_get - take a reference on a connection
 * @conn: the connection
 *
 * Return: @conn, which stays allocated until aifs_conn_put().
 */
struct aifs_conn *aifs_conn_get(struct aifs_conn *conn)
{
	kref_get(&conn->ref);
	return conn;
}

/**
 * aifs_conn_put - drop a reference on a connection
 * @conn: the connection, or NULL
 *
 * The last one stops the receiver and frees everything. Sleeps.
 */
void aifs_conn_put(struct aifs_conn *conn)
{
	if (conn)
		kref_put(&conn->ref, aifs_conn_release);
}

/**
 * aifs_conn_close - close a connection and drop the opener's reference
 * @conn: the connection, or NULL
 *
 * Fails whatever is outstanding with -ESHUTDOWN; once nobody else holds a
 * reference, stops the receiver and frees everything. The caller may not
 * start a request on @conn any more.
 */
void aifs_conn_close(struct aifs_conn *conn)
{
	if (!conn)
		return;
	aifs_conn_fail(conn, -ESHUTDOWN);
	aifs_conn_put(conn);
}

/**
 * aifs_conn_set_version - speak the version the handshake negotiated
 * @conn: the connection
 * @version: protocol version for the frames sent from now on
 */
void aifs_conn_set_version(struct aifs_conn *conn, u16 version)
{
	WRITE_ONCE(conn->version, version);
}

/* Put @req in the table under @id, unless the connection is closed. */
static int aifs_conn_add(struct aifs_conn *conn, struct aifs_req *req, u32 id)
{
	int err;

	kref_get(&req->ref);
	xa_lock(&conn->reqs);
	err = conn->error;
	if (!err) {
		/* -EBUSY only if 2^32 requests went by while @id waited */
		err = __xa_insert(&conn->reqs, id, req, GFP_NOFS);
		/*
		 * That drops the lock to allocate memory, but only before it
		 * stores @req: the entry is ours if a failure came meanwhile.
		 */
		if (!err && conn->error) {
			__xa_erase(&conn->reqs, id);
			err = conn->error;
		}
	}
	xa_unlock(&conn->reqs);
	if (err) {
		aifs_req_put(req);
		return err;
	}
	return 0;
}

/* Take @req, never sent, out of the table again. */
static void aifs_conn_forget(struct aifs_conn *conn, struct aifs_req *req,
			     u32 id)
{
	bool mine;

	xa_lock(&conn->reqs);
	mine = xa_load(&conn->reqs, id) == req;
	if (mine)
		__xa_erase(&conn->reqs, id);
	xa_unlock(&conn->reqs);
	/* if not, aifs_conn_fail() took it and dropped the table's reference */
	if (mine)
		aifs_req_put(req);
}

/* The CRC32C of a frame's payload: @len bytes at @payload, then @data. */
static int aifs_conn_payload_crc(const void *payload, u32 len,
				 const struct iov_iter *data, u32 *crc)
{
	struct iov_iter iter;

	*crc = crc32c(~0U, payload, len);
	if (!data || !iov_iter_count(data))
		return 0;
	iter = *data;	/* the copy is consumed, the original sent */
	return aifs_iter_crc32c(&iter, iov_iter_count(&iter), crc);
}

/*
 * Send a frame whose payload is @len bytes at @payload followed by the
 * bytes of @data (NULL: none): the header and @payload in one send, @data
 * straight from its pages in a second.
 */
static void aifs_conn_send(struct aifs_conn *conn, u32 id, u16 opcode,
			   const void *payload, u32 len, struct iov_iter *data,
			   unsigned long timeout)
{
	u32 total = len + (data ? iov_iter_count(data) : 0);
	struct aifs_frame_hdr hdr;
	struct iov_iter iter;
	struct kvec vec[2];
	u32 crc;
	int err;

	aifs_frame_hdr_init(&hdr, opcode, total ? AIFS_FLAG_PAYLOAD_CRC : 0,
			    id, total);
	hdr.version = cpu_to_le16(READ_ONCE(conn->version));
	err = aifs_conn_payload_crc(payload, len, data, &crc);
	if (err)
		goto out;
	if (total)
		hdr.payload_crc = cpu_to_le32(~crc);
	aifs_frame_hdr_seal(&hdr);

	vec[0].iov_base = &hdr;
	vec[0].iov_len = sizeof(hdr);
	vec[1].iov_base = (void *)payload;
	vec[1].iov_len = len;
	iov_iter_kvec(&iter, ITER_SOURCE, vec, len ? 2 : 1, sizeof(hdr) + len);
	err = conn->xprt->ops->send(conn->xprt, &iter, total > len, timeout);
	if (!err && total > len)
		err = conn->xprt->ops->send(conn->xprt, data, false, timeout);
out:
	/* part of the frame may have gone: the stream is lost */
	if (err)
		aifs_conn_report(conn, err, "send failed");
}

/*
 * Wait for @req's reply. A data call does not return before its request
 * completed, as the receiver may be writing into its sink: when it stops
 * waiting, it closes the connection, which ends such a receive at once.
 */
static int aifs_conn_wait(struct aifs_conn *conn, struct aifs_req *req,
			  unsigned long timeout)
{
	long left = wait_for_completion_killable_timeout(&req->done, timeout);

	if (left > 0)
		return 0;
	if (!left)
		aifs_conn_report(conn, -ETIMEDOUT, "no reply in time");
	else if (req->data)
		aifs_conn_report(conn, -EINTR,
				 "caller killed while its data came");
	/* a reply, if it comes, completes a request with no sink for nobody */
	if (req->data)
		wait_for_completion(&req->done);
	return left ? -EINTR : -ETIMEDOUT;
}

/*
 * A call: @out (NULL: nothing) is sent after the @len bytes at @payload;
 * the reply's first @reply_size bytes go to @reply, the rest to @data.
 */
static int aifs_conn_do_call(struct aifs_conn *conn, u32 id, u16 opcode,
			     const void *payload, u32 len,
			     struct iov_iter *out, void *reply,
			     u32 reply_size, struct iov_iter *data,
			     unsigned long timeout)
{
	struct aifs_req *req;
	int err;

	req = kmalloc(struct_size(req, reply, reply_size), GFP_NOFS);
	if (!req)
		return -ENOMEM;
	kref_init(&req->ref);
	init_completion(&req->done);
	req->opcode = opcode;
	req->status = 0;
	req->reply_len = 0;
	req->reply_size = reply_size;
	req->data = data;

	err = aifs_conn_add(conn, req, id);
	if (err)
		goto out;

	if (mutex_lock_killable(&conn->send_lock)) {
		aifs_conn_forget(conn, req, id);
		err = -EINTR;
		goto out;
	}
	/* on failure this fails @req too: the wait below returns at once */
	aifs_conn_send(conn, id, opcode, payload, len, out, timeout);
	mutex_unlock(&conn->send_lock);

	err = aifs_conn_wait(conn, req, timeout) ?: req->status;
	if (!err && req->reply_len)
		memcpy(reply, req->reply, min(req->reply_len, reply_size));
	if (!err)
		err = req->reply_len;
out:
	aifs_req_put(req);
	return err;
}

/**
 * aifs_conn_call_id - send a request under a given id and wait for its reply
 * @conn: the connection
 * @id: from aifs_conn_new_id(); a request sent again keeps its id
 * @opcode: enum aifs_opcode
 * @payload: the encoded request
 * @len: its length, at most AIFS_MAX_PAYLOAD
 * @reply: where the reply's payload goes
 * @reply_size: room at @reply; a longer reply is a protocol error
 * @timeout: jiffies to wait for the reply (and for room to send)
 *
 * The wait ends on a fatal signal. When the reply does not come in time,
 * the connection is closed.
 *
 * Return: the length of the reply's payload, the server's status as a
 * negative errno, -ETIMEDOUT, -EINTR, or the error that closed the
 * connection (-ECONNRESET, -EPROTO, -EIO ...).
 */
int aifs_conn_call_id(struct aifs_conn *conn, u32 id, u16 opcode,
		      const void *payload, u32 len, void *reply,
		      u32 reply_size, unsigned long timeout)
{
	return aifs_conn_do_call(conn, id, opcode, payload, len, NULL, reply,
				 reply_size, NULL, timeout);
}

/**
 * aifs_conn_call - send a new request and wait for its reply
 * @conn: the connection
 * @opcode: enum aifs_opcode
 * @payload: the encoded request
 * @len: its length, at most AIFS_MAX_PAYLOAD
 * @reply: where the reply's payload goes
 * @reply_size: room at @reply
 * @timeout: jiffies to wait for the reply (and for room to send)
 *
 * aifs_conn_call_id() with a new id.
 *
 * Return: as aifs_conn_call_id().
 */
int aifs_conn_call(struct aifs_conn *conn, u16 opcode, const void *payload,
		   u32 len, void *reply, u32 reply_size, unsigned long timeout)
{
	return aifs_conn_call_id(conn, aifs_conn_new_id(), opcode, payload,
				 len, reply, reply_size, timeout);
}

/**
 * aifs_conn_call_data - a new request whose reply carries bulk data
 * @conn: the connection
 * @opcode: enum aifs_opcode
 * @payload: the encoded request
 * @len: its length, at most AIFS_MAX_PAYLOAD
 * @head: where the first @head_size bytes of the reply's payload go: its
 *	fixed part
 * @head_size: room at @head
 * @data: page-backed (ITER_XARRAY, ITER_BVEC) destination of the rest of
 *	the payload, received into it straight from the transport; a reply
 *	larger than @head_size plus its count is a protocol error
 * @timeout: jiffies to wait for the reply (and for room to send)
 *
 * As aifs_conn_call(), but the call returns only when the receiver is done
 * with @data: after a timeout or a fatal signal it closes the connection,
 * and waits for the receive under way, if any, to end. Meant for kernel
 * threads, which are not killed. @data is advanced by what was received.
 *
 * Return: as aifs_conn_call_id(): the length of the whole payload, or a
 * negative errno. Whatever the outcome, @data may have been written.
 */
int aifs_conn_call_data(struct aifs_conn *conn, u16 opcode,
			const void *payload, u32 len, void *head,
			u32 head_size, struct iov_iter *data,
			unsigned long timeout)
{
	return aifs_conn_do_call(conn, aifs_conn_new_id(), opcode, payload,
				 len, NULL, head, head_size, data, timeout);
}

/**
 * aifs_conn_call_write - a new request that carries bulk data
 * @conn: the connection
 * @opcode: enum aifs_opcode
 * @payload: the encoded fixed part of the request
 * @len: its length
 * @data: page-backed (ITER_XARRAY, ITER_BVEC) source of the rest of the
 *	payload, sent straight from its pages; @len plus its count is at
 *	most AIFS_MAX_PAYLOAD. The pages must not change until the call
 *	is over, as the payload CRC32C is computed before they are sent.
 * @reply: where the reply's payload goes
 * @reply_size: room at @reply
 * @timeout: jiffies to wait for the reply (and for room to send)
 *
 * As aifs_conn_call(). The frame is sent whole before the call waits, so
 * @data is no longer used once it returns, whatever the outcome.
 *
 * Return: as aifs_conn_call_id().
 */
int aifs_conn_call_write(struct aifs_conn *conn, u16 opcode,
			 const void *payload, u32 len, struct iov_iter *data,
			 void *reply, u32 reply_size, unsigned long timeout)
{
	return aifs_conn_do_call(conn, aifs_conn_new_id(), opcode, payload,
				 len, data, reply, reply_size, NULL, timeout);
}

/**
 * aifs_conn_lend - lend the server the pages of a request's data
 * @conn: the connection the request goes on
 * @data: page-backed, at most AIFS_DATA_MAX_IO bytes; a destination (a
 *	read's) or a source (a write's); not advanced
 * @seg: out: the pages as the request describes them (AIFS_IO_RDMA)
 *
 * Return: NULL when the data must go in the stream (TCP, or nothing to
 * lend with now), else what aifs_conn_take_back() ends once the reply came
 * or the call failed.
 */
struct aifs_xprt_reg *aifs_conn_lend(struct aifs_conn *conn,
				     const struct iov_iter *data,
				     struct aifs_rdma_seg *seg)
{
	const struct aifs_transport_ops *ops = conn->xprt->ops;

	return ops->register_data ? ops->register_data(conn->xprt, data, seg) :
				    NULL;
}

/**
 * aifs_conn_take_back - end what aifs_conn_lend() lent
 * @conn: the connection
 * @reg: its return value; NULL does nothing
 *
 * When it returns, the server can no longer reach the pages.
 */
void aifs_conn_take_back(struct aifs_conn *conn, struct aifs_xprt_reg *reg)
{
	if (reg)
		conn->xprt->ops->unregister_data(conn->xprt, reg);
}
