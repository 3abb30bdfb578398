// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Connections: connect, authenticate, then any number of threads calling
 * aifs_call() at once.  Each caller sends its frame whole under send_lock
 * and sleeps on its own aifs_pending; the reader thread owns the receive
 * side of the socket and wakes the caller whose request id a reply carries.
 * A reply whose caller gave up (timeout) is dropped.
 *
 * Request id 0 is never used by a caller: a server answers a frame it could
 * not trust (bad magic or header CRC) with request id 0 and closes, which
 * fails every call in flight with that status.
 */
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "internal.h"

/* Mark the stream unusable and fail every waiter; @conn->lock held. */
static void conn_break_locked(struct aifs_conn *conn, int err)
{
	struct aifs_pending *p;

	if (!conn->broken)
		conn->broken = err;
	for (p = conn->pending; p; p = p->next) {
		p->done = true;
		p->err = conn->broken;
		pthread_cond_signal(&p->cond);
	}
	conn->pending = NULL;
}

static void conn_break(struct aifs_conn *conn, int err)
{
	pthread_mutex_lock(&conn->lock);
	conn_break_locked(conn, err);
	pthread_mutex_unlock(&conn->lock);
	/* Wake the reader too, and make the peer see the end. */
	aifs_stream_break(&conn->stream);
}

/* Take the waiter of @request_id off the list; @conn->lock held. */
static struct aifs_pending *conn_unlink(struct aifs_conn *conn, u64 request_id)
{
	struct aifs_pending **pp, *p;

	for (pp = &conn->pending; (p = *pp); pp = &p->next) {
		if (p->request_id == request_id) {
			*pp = p->next;
			return p;
		}
	}
	return NULL;
}

/* Hand one received frame to its waiter; an error breaks the stream. */
static int conn_deliver(struct aifs_conn *conn,
			const struct aifs_frame_hdr *hdr, void *payload)
{
	u64 request_id = le64_to_cpu(hdr->request_id);
	u32 status = le32_to_cpu(hdr->status);
	struct aifs_pending *p;

	if (!(le32_to_cpu(hdr->flags) & AIFS_FLAG_REPLY) ||
	    status > AIFS_MAX_STATUS)
		return -EPROTO;
	if (!request_id)
		return status ? -(int)status : -EPROTO;
	pthread_mutex_lock(&conn->lock);
	p = conn_unlink(conn, request_id);
	if (p) {
		p->reply.status = status;
		p->reply.map_epoch = le64_to_cpu(hdr->map_epoch);
		p->reply.payload = payload;
		p->reply.len = le32_to_cpu(hdr->payload_len);
		p->done = true;
		pthread_cond_signal(&p->cond);
	}
	pthread_mutex_unlock(&conn->lock);
	if (!p)
		free(payload);
	return 0;
}

static void *conn_reader(void *arg)
{
	struct aifs_conn *conn = arg;
	struct aifs_frame_hdr hdr;
	void *payload;
	int err;

	do {
		err = aifs_frame_recv(&conn->stream, &hdr, &payload, -1);
		if (!err) {
			err = conn_deliver(conn, &hdr, payload);
			if (err)
				free(payload);
		}
	} while (!err);
	conn_break(conn, err);
	return NULL;
}

static int conn_init_locks(struct aifs_conn *conn)
{
	int err;

	err = pthread_condattr_init(&conn->condattr);
	if (err)
		return -err;
	pthread_condattr_setclock(&conn->condattr, CLOCK_MONOTONIC);
	pthread_mutex_init(&conn->lock, NULL);
	pthread_mutex_init(&conn->send_lock, NULL);
	return 0;
}

static void conn_destroy_locks(struct aifs_conn *conn)
{
	pthread_mutex_destroy(&conn->send_lock);
	pthread_mutex_destroy(&conn->lock);
	pthread_condattr_destroy(&conn->condattr);
}

int aifs_connect(const struct aifs_connect_opts *opts, struct aifs_conn **connp)
{
	int timeout = opts->timeout_ms ? opts->timeout_ms : AIFS_CONNECT_TIMEOUT_MS;
	s64 deadline = aifs_now_ms() + timeout;
	struct aifs_conn *conn;
	int err;

	conn = calloc(1, sizeof(*conn));
	if (!conn)
		return -ENOMEM;
	/*
	 * Servers answer a retried request from their reply cache, keyed by
	 * the client uuid and the request id: ids must not repeat across the
	 * connections of one client, so each connection starts at random
	 * (below 2^62, far from the wrap to 0, which means "no request").
	 */
	err = aifs_random(&conn->next_request_id, sizeof(conn->next_request_id));
	if (err)
		goto out_free;
	conn->next_request_id = (conn->next_request_id >> 2) + 1;
	conn->call_timeout_ms = opts->call_timeout_ms ? opts->call_timeout_ms :
							 AIFS_CALL_TIMEOUT_MS;
	err = conn_init_locks(conn);
	if (err)
		goto out_free;
	err = aifs_stream_connect(&conn->stream, opts->transport, opts->host,
				  opts->port, deadline);
	if (err)
		goto out_locks;
	err = aifs_handshake(conn, opts, deadline);
	if (err)
		goto out_close;
	err = -pthread_create(&conn->reader, NULL, conn_reader, conn);
	if (err)
		goto out_close;
	*connp = conn;
	return 0;
out_close:
	aifs_stream_close(&conn->stream);
out_locks:
	conn_destroy_locks(conn);
out_free:
	free(conn);
	return err;
}

static int conn_send(struct aifs_conn *conn, u16 opcode, u64 request_id,
		     const struct iovec *iov, int iovcnt, s64 deadline)
{
	struct aifs_frame_hdr hdr;
	bool partial;
	int err;

	aifs_frame_hdr_init(&hdr, opcode, 0, request_id, 0);
	hdr.version = cpu_to_le16(conn->version);
	pthread_mutex_lock(&conn->send_lock);
	err = aifs_frame_send(&conn->stream, &hdr, iov, iovcnt, deadline,
			      &partial);
	pthread_mutex_unlock(&conn->send_lock);
	/* Half a frame on the wire: nothing after it can be understood. */
	if (err && partial)
		conn_break(conn, err);
	return err;
}

/* Sleep until the reply came, the stream broke or @deadline passed. */
static int conn_wait(struct aifs_conn *conn, struct aifs_pending *p,
		     s64 deadline)
{
	struct timespec ts = {
		.tv_sec = deadline / 1000,
		.tv_nsec = deadline % 1000 * 1000000,
	};
	int err = 0;

	pthread_mutex_lock(&conn->lock);
	while (!p->done && err != ETIMEDOUT) {
		if (deadline < 0)
			err = pthread_cond_wait(&p->cond, &conn->lock);
		else
			err = pthread_cond_timedwait(&p->cond, &conn->lock, &ts);
	}
	if (p->done) {
		err = p->err;
	} else {
		conn_unlink(conn, p->request_id);
		err = -ETIMEDOUT;
	}
	pthread_mutex_unlock(&conn->lock);
	return err;
}

int aifs_call_id(struct aifs_conn *conn, u16 opcode, u64 *request_id,
		 const struct iovec *iov, int iovcnt, struct aifs_reply *reply,
		 int timeout_ms)
{
	s64 deadline = timeout_ms < 0 ? -1 : (s64)(aifs_now_ms() + timeout_ms);
	struct aifs_pending p = { 0 };
	int err;

	*reply = (struct aifs_reply){ 0 };
	pthread_cond_init(&p.cond, &conn->condattr);
	pthread_mutex_lock(&conn->lock);
	err = conn->broken;
	if (!err) {
		if (!*request_id)
			*request_id = conn->next_request_id++;
		p.request_id = *request_id;
		p.next = conn->pending;
		conn->pending = &p;
	}
	pthread_mutex_unlock(&conn->lock);
	if (err)
		goto out;
	err = conn_send(conn, opcode, p.request_id, iov, iovcnt, deadline);
	if (err) {
		pthread_mutex_lock(&conn->lock);
		conn_unlink(conn, p.request_id);
		pthread_mutex_unlock(&conn->lock);
		goto out;
	}
	err = conn_wait(conn, &p, deadline);
	if (!err)
		*reply = p.reply;
out:
	pthread_cond_destroy(&p.cond);
	return err;
}

int aifs_call(struct aifs_conn *conn, u16 opcode, const struct iovec *iov,
	      int iovcnt, struct aifs_reply *reply, int timeout_ms)
{
	u64 request_id = 0;

	return aifs_call_id(conn, opcode, &request_id, iov, iovcnt, reply,
			    timeout_ms);
}

void aifs_reply_free(struct aifs_reply *reply)
{
	free(reply->payload);
	reply->payload = NULL;
	reply->len = 0;
}

int aifs_ping(struct aifs_conn *conn, int timeout_ms)
{
	struct aifs_reply reply;
	int err;

	err = aifs_call(conn, AIFS_OP_PING, NULL, 0, &reply, timeout_ms);
	if (err)
		return err;
	aifs_reply_free(&reply);
	return -(int)reply.status;
}

u16 aifs_conn_version(const struct aifs_conn *conn)
{
	return conn->version;
}

u64 aifs_conn_session(const struct aifs_conn *conn)
{
	return conn->session_id;
}

void aifs_close(struct aifs_conn *conn)
{
	conn_break(conn, -ECONNABORTED);
	pthread_join(conn->reader, NULL);
	aifs_stream_close(&conn->stream);
	conn_destroy_locks(conn);
	free(conn);
}

int aifs_lend(struct aifs_conn *conn, void *buf, size_t len,
	      struct aifs_rdma_seg *seg, struct aifs_lent **lentp)
{
	if (!conn->stream.rdma)
		return -EOPNOTSUPP;
	return aifs_rdma_lend(conn->stream.rdma, buf, len, seg,
			      (struct aifs_rdma_lent **)lentp);
}

void aifs_take_back(struct aifs_lent *lent)
{
	aifs_rdma_take_back((struct aifs_rdma_lent *)lent);
}
