// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Connections: framing over the transport, the output queue with its
 * back-pressure, dispatch to handlers, timeouts and closing (the states are
 * described in internal.h).  Everything here runs on the loop thread.
 *
 * Lifetime: a peer holds one reference for the server's list (dropped when
 * it is closed), one per job in flight and one while an event callback
 * runs, so that closing it in the middle of a callback or while a worker
 * has its request never frees it under anyone's feet.
 */
#include <stdlib.h>
#include <string.h>

#include "aifs/rdma.h"
#include "internal.h"

/* Frames read per readiness event, so that one busy peer cannot starve. */
#define PEER_FRAMES_PER_EVENT	16

/* Replies gathered into one sendv(): header and payload of each. */
#define PEER_SEND_MSGS		32

static void peer_set_state(struct aifs_peer *peer, enum aifs_peer_state state)
{
	peer->state = state;
	peer->since = aifs_now_ms();
}

static size_t peer_output_limit(const struct aifs_peer *peer)
{
	return (size_t)peer->srv->cfg->output_limit_kib << 10;
}

static bool peer_wants_input(const struct aifs_peer *peer)
{
	switch (peer->state) {
	case AIFS_PEER_HELLO:
	case AIFS_PEER_AUTH:
	case AIFS_PEER_LINGER:
		return true;
	case AIFS_PEER_READY:
		/*
		 * Back-pressure: no new request from a peer that does not
		 * read its replies or has its fill of requests in flight;
		 * TCP then pushes back on it.
		 */
		return !peer->srv->stopping &&
		       peer->inflight < (unsigned int)peer->srv->cfg->max_inflight &&
		       peer->out_bytes <= peer_output_limit(peer);
	default:
		return false;
	}
}

/*
 * What the descriptor is watched for: what the peer wants, and always
 * reading for a transport whose descriptor signals completions of any
 * kind (RDMA: credits that let it send come in as receives).
 */
static unsigned int peer_watch_events(const struct aifs_peer *peer,
				      unsigned int wanted)
{
	return peer->ep.ops->ready ? wanted | AIFS_EV_READ : wanted;
}

/* Ask the loop for what the peer can use now. */
static void peer_update(struct aifs_peer *peer)
{
	unsigned int events = 0;

	if (peer->state == AIFS_PEER_CLOSED)
		return;
	if (peer_wants_input(peer))
		events |= AIFS_EV_READ;
	if (!aifs_list_empty(&peer->outq))
		events |= AIFS_EV_WRITE;
	/* A stall is counted from when we listen again, not from before. */
	if (events & ~peer->watched & AIFS_EV_READ)
		peer->last_rx = aifs_now_ms();
	if (aifs_loop_modify(peer->srv->loop, peer->ep.fd,
			     peer_watch_events(peer, events))) {
		aifs_peer_close(peer, "cannot watch the connection");
		return;
	}
	peer->watched = events;
	if (peer->ep.ops->ready)
		aifs_loop_set_ready(peer->srv->loop, peer->ep.fd,
				    peer->ep.ops->ready(&peer->ep) & events);
}

static void peer_free_output(struct aifs_peer *peer)
{
	struct aifs_list *pos, *tmp;
	struct aifs_outmsg *msg;

	aifs_list_for_each_safe(pos, tmp, &peer->outq) {
		msg = container_of(pos, struct aifs_outmsg, link);
		free(msg->payload);
		free(msg);
	}
	aifs_list_init(&peer->outq);
	peer->out_bytes = 0;
}

void aifs_peer_put(struct aifs_peer *peer)
{
	struct aifs_server *srv = peer->srv;

	if (--peer->refs)
		return;
	/* No request of the session is left anywhere: it is over. */
	if (peer->authenticated && srv->session_end)
		srv->session_end(srv->data, peer->session_id,
				 peer->client_uuid);
	free(peer->in_payload);
	free(peer);
}

void aifs_peer_close(struct aifs_peer *peer, const char *why)
{
	struct aifs_server *srv = peer->srv;

	if (peer->state == AIFS_PEER_CLOSED)
		return;
	if (why)
		aifs_warn("%s: closing: %s", peer->ep.name, why);
	else
		aifs_dbg("%s: closed", peer->ep.name);
	aifs_loop_unwatch(srv->loop, peer->ep.fd);
	peer->ep.ops->close(&peer->ep);
	peer_free_output(peer);
	peer_set_state(peer, AIFS_PEER_CLOSED);
	aifs_list_del(&peer->link);
	srv->nr_peers--;
	aifs_metrics_add(&srv->metrics.connections, -1);
	aifs_server_peer_gone(srv);
	aifs_peer_put(peer);
}

/* ---- output ---- */

static void peer_queue(struct aifs_peer *peer, u16 opcode, u64 request_id,
		       u32 status, void *payload, u32 len)
{
	u32 flags = AIFS_FLAG_REPLY | (len ? AIFS_FLAG_PAYLOAD_CRC : 0);
	struct aifs_outmsg *msg;

	msg = calloc(1, sizeof(*msg));
	if (!msg) {
		free(payload);
		aifs_peer_close(peer, "out of memory for a reply");
		return;
	}
	aifs_frame_hdr_init(&msg->hdr, opcode, flags, request_id, len);
	msg->hdr.version = cpu_to_le16(peer->version);
	msg->hdr.status = cpu_to_le32(status);
	msg->hdr.map_epoch = cpu_to_le64(__atomic_load_n(&peer->srv->map_epoch,
							 __ATOMIC_RELAXED));
	if (len)
		msg->hdr.payload_crc = cpu_to_le32(aifs_crc32c(payload, len));
	aifs_frame_hdr_seal(&msg->hdr);
	msg->payload = payload;
	msg->len = len;
	if (aifs_list_empty(&peer->outq))
		peer->last_tx = aifs_now_ms();
	aifs_list_add_tail(&msg->link, &peer->outq);
	peer->out_bytes += sizeof(msg->hdr) + len;
}

/* The unsent parts of the first queued replies, as iovecs. */
static int peer_gather(struct aifs_peer *peer, struct iovec *iov)
{
	struct aifs_list *pos;
	struct aifs_outmsg *msg;
	size_t hdr_len, off;
	int n = 0;

	for (pos = peer->outq.next; pos != &peer->outq; pos = pos->next) {
		if (n + 2 > 2 * PEER_SEND_MSGS)
			break;
		msg = container_of(pos, struct aifs_outmsg, link);
		hdr_len = sizeof(msg->hdr);
		off = msg->sent;
		if (off < hdr_len) {
			iov[n].iov_base = (u8 *)&msg->hdr + off;
			iov[n++].iov_len = hdr_len - off;
			off = hdr_len;
		}
		if (msg->len) {
			iov[n].iov_base = (u8 *)msg->payload + off - hdr_len;
			iov[n++].iov_len = msg->len - (off - hdr_len);
		}
	}
	return n;
}

/* Account for @n bytes sent, freeing the replies sent whole. */
static void peer_consume(struct aifs_peer *peer, size_t n)
{
	struct aifs_outmsg *msg;
	size_t left;

	peer->out_bytes -= n;
	while (n) {
		msg = aifs_list_first(&peer->outq, struct aifs_outmsg, link);
		left = sizeof(msg->hdr) + msg->len - msg->sent;
		if (n < left) {
			msg->sent += n;
			return;
		}
		n -= left;
		aifs_list_del(&msg->link);
		free(msg->payload);
		free(msg);
	}
}

/* The output queue just emptied. */
static void peer_drained(struct aifs_peer *peer)
{
	if (peer->state == AIFS_PEER_CLOSING) {
		peer->ep.ops->shutdown(&peer->ep);
		peer_set_state(peer, AIFS_PEER_LINGER);
	} else if (peer->srv->stopping && !peer->inflight) {
		aifs_peer_close(peer, NULL);
	}
}

static void peer_flush(struct aifs_peer *peer)
{
	struct iovec iov[2 * PEER_SEND_MSGS];
	ssize_t n;
	char why[80];

	while (!aifs_list_empty(&peer->outq)) {
		n = peer->ep.ops->sendv(&peer->ep, iov,
						peer_gather(peer, iov));
		if (n == -EAGAIN)
			break;
		if (n < 0) {
			snprintf(why, sizeof(why), "send: %s", strerror(-n));
			aifs_peer_close(peer, why);
			return;
		}
		peer_consume(peer, n);
		aifs_metrics_add(&peer->srv->metrics.tx_bytes, n);
		peer->last_tx = aifs_now_ms();
	}
	if (aifs_list_empty(&peer->outq))
		peer_drained(peer);
	peer_update(peer);
}

void aifs_peer_reply(struct aifs_peer *peer, u16 opcode, u64 request_id,
		     u32 status, void *payload, u32 len)
{
	peer_queue(peer, opcode, request_id, status, payload, len);
	peer_flush(peer);
}

/*
 * A protocol error: answer with @err and close.  @req is the header of the
 * offending frame, or NULL when not even its request id can be trusted.
 */
void aifs_peer_fail(struct aifs_peer *peer, const struct aifs_frame_hdr *req,
		    int err, const char *why)
{
	aifs_warn("%s: %s (%s)", peer->ep.name, why, strerror(-err));
	peer_set_state(peer, AIFS_PEER_CLOSING);
	aifs_peer_reply(peer, req ? le16_to_cpu(req->opcode) : 0,
			req ? le64_to_cpu(req->request_id) : 0, -err, NULL, 0);
}

/* ---- requests ---- */

void aifs_job_free(struct aifs_job *job)
{
	free(job->payload);
	free(job->req.reply);
	if (job->req.rdma)
		aifs_rdma_put(job->req.rdma);
	aifs_peer_put(job->peer);
	free(job);
}

/* The reply status of a finished job; a misbehaving handler gets EIO. */
static u32 peer_job_status(struct aifs_job *job)
{
	struct aifs_request *req = &job->req;

	if (req->reply_len > AIFS_MAX_PAYLOAD || (req->reply_len && !req->reply)) {
		aifs_err("handler of opcode %u: bad reply of %u bytes",
			 req->opcode, req->reply_len);
		free(req->reply);
		req->reply = NULL;
		req->reply_len = 0;
		return EIO;
	}
	if (job->ret > 0 || job->ret < -AIFS_MAX_STATUS) {
		aifs_err("handler of opcode %u returned %d", req->opcode,
			 job->ret);
		return EIO;
	}
	return -job->ret;
}

void aifs_peer_complete(struct aifs_job *job)
{
	struct aifs_peer *peer = job->peer;
	struct aifs_request *req = &job->req;
	u32 status = peer_job_status(job);

	peer->inflight--;
	aifs_metrics_request(&peer->srv->metrics, req->opcode, status,
			     job->arrived_ns);
	if (peer->state == AIFS_PEER_READY &&
	    !aifs_fail(AIFS_FAIL_REPLY_DROP, req->opcode, NULL)) {
		aifs_peer_reply(peer, req->opcode, req->request_id, status,
				req->reply, req->reply_len);
		req->reply = NULL;
	}
	aifs_job_free(job);
}

static void peer_dispatch(struct aifs_peer *peer,
			  const struct aifs_frame_hdr *hdr, void *payload)
{
	struct aifs_server *srv = peer->srv;
	u16 opcode = le16_to_cpu(hdr->opcode);
	const struct aifs_handler *h;
	struct aifs_job *job;

	if (opcode == AIFS_OP_HELLO || opcode == AIFS_OP_AUTH) {
		free(payload);
		aifs_peer_fail(peer, hdr, -EPROTO, "handshake repeated");
		return;
	}
	h = opcode < AIFS_SERVER_MAX_OPCODE ? &srv->handlers[opcode] : NULL;
	if (!h || !h->fn) {
		/* Maybe a newer peer: say so, and stay connected. */
		free(payload);
		aifs_dbg("%s: opcode %u not supported", peer->ep.name, opcode);
		aifs_peer_reply(peer, opcode, le64_to_cpu(hdr->request_id),
				EOPNOTSUPP, NULL, 0);
		return;
	}
	job = calloc(1, sizeof(*job));
	if (!job) {
		free(payload);
		aifs_peer_fail(peer, hdr, -ENOMEM, "out of memory for a request");
		return;
	}
	job->req = (struct aifs_request){
		.opcode = opcode,
		.version = peer->version,
		.request_id = le64_to_cpu(hdr->request_id),
		.session_id = peer->session_id,
		.payload = payload,
		.payload_len = le32_to_cpu(hdr->payload_len),
		.data = srv->data,
	};
	memcpy(job->req.client_uuid, peer->client_uuid,
	       sizeof(job->req.client_uuid));
	if (peer->ep.ops == &aifs_rdma_transport) {
		job->req.rdma = peer->ep.priv;
		aifs_rdma_get(job->req.rdma);
	}
	job->payload = payload;
	job->arrived_ns = aifs_metrics_clock();
	job->fn = h->fn;
	job->peer = peer;
	peer->refs++;
	peer->inflight++;
	if (h->flags & AIFS_HANDLER_PEER) {
		aifs_workers_submit(&srv->peer_workers, job);
		return;
	}
	if (h->flags & AIFS_HANDLER_BLOCKING) {
		aifs_workers_submit(&srv->workers, job);
		return;
	}
	job->ret = h->fn(&job->req);
	aifs_peer_complete(job);
}

/* ---- input ---- */

/* Bytes read (> 0), 0 when nothing is ready, -1 when the peer is gone. */
static ssize_t peer_recv(struct aifs_peer *peer, void *buf, size_t len)
{
	ssize_t n = peer->ep.ops->recv(&peer->ep, buf, len);
	char why[80];

	if (n > 0) {
		peer->last_rx = aifs_now_ms();
		aifs_metrics_add(&peer->srv->metrics.rx_bytes, n);
		return n;
	}
	if (n == -EAGAIN)
		return 0;
	if (n < 0) {
		snprintf(why, sizeof(why), "receive: %s", strerror(-n));
		aifs_peer_close(peer, why);
	} else {
		aifs_peer_close(peer, peer->in_hdr_got ?
				"end of stream in the middle of a frame" : NULL);
	}
	return -1;
}

/* The header is in: check it before anything is allocated for it. */
static int peer_check_hdr(struct aifs_peer *peer)
{
	struct aifs_frame_hdr *hdr = &peer->in_hdr;
	u32 max = peer->state == AIFS_PEER_READY ? AIFS_MAX_PAYLOAD :
						   AIFS_HANDSHAKE_MAX_PAYLOAD;
	u32 len;
	int err;

	err = aifs_frame_hdr_check(hdr, max);
	if (err) {
		/* Bad magic or CRC: not even the request id can be trusted. */
		aifs_peer_fail(peer, err == -EBADMSG ? NULL : hdr, err,
			       "bad frame header");
		return err;
	}
	len = le32_to_cpu(hdr->payload_len);
	if (!len)
		return 0;
	peer->in_payload = malloc(len);
	if (!peer->in_payload) {
		aifs_peer_fail(peer, hdr, -ENOMEM, "out of memory for a request");
		return -ENOMEM;
	}
	return 0;
}

/* 1 when a whole frame is in, 0 when more is to come, -1 when failed. */
static int peer_read_frame(struct aifs_peer *peer)
{
	struct aifs_frame_hdr *hdr = &peer->in_hdr;
	size_t len;
	ssize_t n;

	if (peer->in_hdr_got < sizeof(*hdr)) {
		n = peer_recv(peer, (u8 *)hdr + peer->in_hdr_got,
			      sizeof(*hdr) - peer->in_hdr_got);
		if (n <= 0)
			return n;
		peer->in_hdr_got += n;
		if (peer->in_hdr_got < sizeof(*hdr))
			return 0;
		if (peer_check_hdr(peer))
			return -1;
	}
	len = le32_to_cpu(hdr->payload_len);
	if (peer->in_payload_got < len) {
		n = peer_recv(peer, peer->in_payload + peer->in_payload_got,
			      len - peer->in_payload_got);
		if (n <= 0)
			return n;
		peer->in_payload_got += n;
		if (peer->in_payload_got < len)
			return 0;
	}
	if (aifs_frame_payload_check(hdr, peer->in_payload)) {
		aifs_peer_fail(peer, hdr, -EBADMSG, "payload CRC mismatch");
		return -1;
	}
	return 1;
}

static void peer_on_frame(struct aifs_peer *peer)
{
	struct aifs_frame_hdr hdr = peer->in_hdr;
	void *payload = peer->in_payload;

	peer->in_hdr_got = 0;
	peer->in_payload = NULL;
	peer->in_payload_got = 0;
	if (le32_to_cpu(hdr.flags) & AIFS_FLAG_REPLY) {
		/* Servers send no requests: a reply answers nothing. */
		free(payload);
		aifs_peer_fail(peer, &hdr, -EPROTO, "unexpected reply");
		return;
	}
	if (peer->state == AIFS_PEER_READY) {
		peer_dispatch(peer, &hdr, payload);
		return;
	}
	aifs_peer_handshake(peer, &hdr, payload);
	free(payload);
}

/* LINGER: read and drop until the peer ends its stream. */
static void peer_drain(struct aifs_peer *peer)
{
	u8 buf[4096];
	ssize_t n;
	int i;

	for (i = 0; i < PEER_FRAMES_PER_EVENT; i++) {
		n = peer->ep.ops->recv(&peer->ep, buf, sizeof(buf));
		if (n == -EAGAIN)
			return;
		if (n <= 0) {
			aifs_peer_close(peer, NULL);
			return;
		}
	}
}

static void peer_on_input(struct aifs_peer *peer)
{
	int i;

	if (peer->state == AIFS_PEER_LINGER) {
		peer_drain(peer);
		return;
	}
	/* Until the budget is spent, or a frame changed what we read. */
	for (i = 0; i < PEER_FRAMES_PER_EVENT && peer_wants_input(peer) &&
		    peer->state != AIFS_PEER_LINGER; i++) {
		if (peer_read_frame(peer) <= 0)
			break;
		peer_on_frame(peer);
	}
	peer_update(peer);
}

static void peer_on_event(struct aifs_loop *loop, int fd, unsigned int events,
			  void *data)
{
	struct aifs_peer *peer = data;

	(void)loop;
	(void)fd;
	peer->refs++;
	if (peer->ep.ops->ready)
		events = peer->ep.ops->ready(&peer->ep) & peer->watched;
	if (events & AIFS_EV_WRITE)
		peer_flush(peer);
	if ((events & AIFS_EV_READ) && peer->state != AIFS_PEER_CLOSED)
		peer_on_input(peer);
	/* What the transport took in may have made something ready. */
	if (peer->ep.ops->ready)
		peer_update(peer);
	aifs_peer_put(peer);
}

/* ---- life cycle ---- */

/* Take a freshly accepted connection in; closes it on failure. */
int aifs_peer_accept(struct aifs_server *srv, struct aifs_peer *peer)
{
	int err;

	peer->srv = srv;
	peer->refs = 1;
	peer->version = AIFS_PROTO_MIN_VERSION;
	aifs_list_init(&peer->outq);
	peer_set_state(peer, AIFS_PEER_HELLO);
	peer->last_rx = peer->since;
	err = aifs_loop_watch(srv->loop, peer->ep.fd, AIFS_EV_READ,
			      peer_on_event, peer);
	if (err) {
		aifs_warn("%s: cannot watch the connection: %s", peer->ep.name,
			  strerror(-err));
		peer->ep.ops->close(&peer->ep);
		free(peer);
		return err;
	}
	peer->watched = AIFS_EV_READ;
	aifs_list_add_tail(&peer->link, &srv->peers);
	srv->nr_peers++;
	aifs_metrics_add(&srv->metrics.accepted, 1);
	aifs_metrics_add(&srv->metrics.connections, 1);
	aifs_dbg("%s: connected", peer->ep.name);
	return 0;
}

void aifs_peer_check_time(struct aifs_peer *peer, u64 now)
{
	const struct aifs_server_config *cfg = peer->srv->cfg;
	u64 io_ms = cfg->io_timeout * 1000ULL;

	switch (peer->state) {
	case AIFS_PEER_HELLO:
	case AIFS_PEER_AUTH:
		if (now - peer->since >= cfg->handshake_timeout * 1000ULL)
			aifs_peer_close(peer, "no handshake in time");
		return;
	case AIFS_PEER_LINGER:
		if (now - peer->since >= AIFS_LINGER_MS)
			aifs_peer_close(peer, NULL);
		return;
	default:
		break;
	}
	if ((peer->watched & AIFS_EV_READ) && peer->in_hdr_got &&
	    now - peer->last_rx >= io_ms)
		aifs_peer_close(peer, "stalled in the middle of a frame");
	else if (!aifs_list_empty(&peer->outq) && now - peer->last_tx >= io_ms)
		aifs_peer_close(peer, "does not read its replies");
}

/* The server stops: finish what is in flight, then close. */
void aifs_peer_stop(struct aifs_peer *peer)
{
	if (peer->state == AIFS_PEER_READY &&
	    (peer->inflight || !aifs_list_empty(&peer->outq))) {
		peer_update(peer);
		return;
	}
	aifs_peer_close(peer, NULL);
}
