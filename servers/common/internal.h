/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Server runtime internals, one section per .c file.
 */
#ifndef AIFS_SERVER_INTERNAL_H
#define AIFS_SERVER_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

#include "aifs/fail.h"
#include "aifs/libaifs.h"
#include "aifs/loop.h"
#include "aifs/server.h"
#include "aifs/transport.h"
#include "list.h"

struct MHD_Daemon;

/* Opcodes a handler can be registered for: 0..AIFS_SERVER_MAX_OPCODE-1. */
#define AIFS_SERVER_MAX_OPCODE	512

/* Largest payload accepted before AUTH succeeded: HELLO or AUTH. */
#define AIFS_HANDSHAKE_MAX_PAYLOAD	256

/* How long a closing connection may keep sending before it is cut. */
#define AIFS_LINGER_MS		2000

/* How often the timeouts of connections are looked at. */
#define AIFS_CRON_MS		100

/*
 * The states of a connection.
 *
 * HELLO, AUTH: the handshake, each waiting for that one opcode; anything
 *	else earns EACCES and CLOSING.  handshake_timeout bounds both.
 * READY: authenticated; requests are dispatched.
 * CLOSING: an error reply is queued and nothing more is read; once the
 *	queue has drained the sending side is shut down: LINGER.
 * LINGER: whatever the peer still sends is read and dropped, so that
 *	closing does not reset the connection (and destroy the error reply
 *	on its way) under unread data; closed at end of stream or after
 *	AIFS_LINGER_MS.
 * CLOSED: the transport is closed and the peer off the server's list;
 *	the struct lives on while a worker still holds a job of it.
 */
enum aifs_peer_state {
	AIFS_PEER_HELLO,
	AIFS_PEER_AUTH,
	AIFS_PEER_READY,
	AIFS_PEER_CLOSING,
	AIFS_PEER_LINGER,
	AIFS_PEER_CLOSED,
};

/* A reply waiting to be sent. */
struct aifs_outmsg {
	struct aifs_list link;
	struct aifs_frame_hdr hdr;
	void *payload;
	u32 len;			/* of the payload */
	size_t sent;			/* of header plus payload */
};

/* One connection, owned by the loop thread. */
struct aifs_peer {
	struct aifs_list link;		/* in srv->peers */
	struct aifs_server *srv;
	struct aifs_endpoint ep;
	enum aifs_peer_state state;
	int refs;			/* srv->peers, jobs, running callbacks */
	unsigned int watched;		/* AIFS_EV_* asked of the loop */
	u16 version;
	bool authenticated;
	u64 session_id;
	u8 client_uuid[16];		/* from HELLO */
	u8 nonce_c[AIFS_NONCE_SIZE];
	u8 nonce_s[AIFS_NONCE_SIZE];

	/* Input, one frame at a time. */
	struct aifs_frame_hdr in_hdr;
	size_t in_hdr_got;
	u8 *in_payload;
	size_t in_payload_got;

	/* Output. */
	struct aifs_list outq;
	size_t out_bytes;
	unsigned int inflight;		/* requests dispatched, not replied */

	/* aifs_now_ms() stamps. */
	u64 since;			/* entered this state */
	u64 last_rx;			/* last byte read, or reading resumed */
	u64 last_tx;			/* last byte sent, or queue filled */
};

/* A request on its way through a handler. */
struct aifs_job {
	struct aifs_list link;		/* in a worker queue */
	struct aifs_request req;
	aifs_handler_fn *fn;
	int ret;			/* what fn returned */
	struct aifs_peer *peer;
	void *payload;			/* req.payload, owned */
	u64 arrived_ns;			/* aifs_metrics_clock(): latency */
};

struct aifs_workers {
	bool started;
	pthread_t *threads;
	int nr_threads;
	pthread_mutex_t lock;		/* protects what follows */
	pthread_cond_t wake;
	struct aifs_list todo;
	struct aifs_list done;
	unsigned int queued;		/* jobs in @todo */
	unsigned int busy;		/* threads running a job */
	bool exiting;
	int efd;			/* eventfd: @done has jobs */
};

struct aifs_handler {
	aifs_handler_fn *fn;
	unsigned int flags;
};

/*
 * Latency buckets of the request histogram: upper bounds from 25 us to
 * 10 s, NVMe reads at the low end, commits and forwards further up.
 */
#define AIFS_METRICS_BUCKETS	18

/*
 * One opcode's requests, written by the loop thread alone, read by the
 * HTTP thread: every field is accessed with relaxed atomics.  The buckets
 * are not cumulative; the last one is +Inf.
 */
struct aifs_op_stats {
	u64 buckets[AIFS_METRICS_BUCKETS + 1];
	u64 errors;
	u64 sum_ns;
};

struct aifs_metrics {
	struct aifs_op_stats ops[AIFS_SERVER_MAX_OPCODE];
	u64 rx_bytes, tx_bytes;
	u64 accepted;
	u64 connections;		/* open now */
	u64 start_time;			/* Unix seconds */
	u64 start_ns;			/* aifs_metrics_clock() */
	aifs_metrics_fn *fn;		/* the server's own */
	struct MHD_Daemon *httpd;
};

/* TCP, and RDMA where the machine has it. */
#define SERVER_MAX_LISTENERS	2

struct aifs_listener {
	struct aifs_server *srv;
	struct aifs_endpoint ep;
	u64 paused_until;		/* out of descriptors: wait a little */
};

struct aifs_server {
	const struct aifs_server_config *cfg;
	void *data;
	struct aifs_loop *loop;
	struct aifs_listener listeners[SERVER_MAX_LISTENERS];
	int nr_listeners;
	struct aifs_secret secret;
	struct aifs_list peers;
	unsigned int nr_peers;
	u64 next_session_id;
	struct aifs_workers workers;
	struct aifs_workers peer_workers;	/* AIFS_HANDLER_PEER, if any */
	int sigfd;
	bool stopping;
	u64 stop_deadline;
	u8 fs_uuid[16];			/* sent in HELLO replies */
	u64 map_epoch;			/* in every reply; atomic access */
	aifs_session_fn *session_start;
	aifs_session_fn *session_end;
	aifs_reload_fn *reload;
	struct aifs_handler handlers[AIFS_SERVER_MAX_OPCODE];
	struct aifs_metrics metrics;
};

/* peer.c */
int aifs_peer_accept(struct aifs_server *srv, struct aifs_peer *peer);
void aifs_peer_close(struct aifs_peer *peer, const char *why);
void aifs_peer_put(struct aifs_peer *peer);
void aifs_peer_reply(struct aifs_peer *peer, u16 opcode, u64 request_id,
		     u32 status, void *payload, u32 len);
void aifs_peer_fail(struct aifs_peer *peer, const struct aifs_frame_hdr *req,
		    int err, const char *why);
void aifs_peer_complete(struct aifs_job *job);
void aifs_peer_check_time(struct aifs_peer *peer, u64 now);
void aifs_peer_stop(struct aifs_peer *peer);
void aifs_job_free(struct aifs_job *job);

/* handshake.c */
void aifs_peer_handshake(struct aifs_peer *peer,
			 const struct aifs_frame_hdr *hdr, const void *payload);

/* workers.c */
int aifs_workers_start(struct aifs_workers *w, int nr_threads);
void aifs_workers_submit(struct aifs_workers *w, struct aifs_job *job);
void aifs_workers_take_done(struct aifs_workers *w, struct aifs_list *jobs);
void aifs_workers_stop(struct aifs_workers *w, struct aifs_list *leftover);

/* workers.c: what a scrape reports of a pool (zeros if not started) */
void aifs_workers_load(struct aifs_workers *w, unsigned int *queued,
		       unsigned int *busy);

/* metrics.c */
u64 aifs_metrics_clock(void);
void aifs_metrics_init(struct aifs_metrics *m);
/* Add @n to @counter: the loop thread's side of a counter. */
void aifs_metrics_add(u64 *counter, s64 n);
/* A reply with @status to a request that arrived at @arrived_ns. */
void aifs_metrics_request(struct aifs_metrics *m, u16 opcode, u32 status,
			  u64 arrived_ns);
/* Every metric of @srv, the runtime's and its own, to @out: 0 or -ENOMEM. */
int aifs_metrics_write(struct aifs_server *srv, FILE *out);

/* metrics_http.c */
int aifs_metrics_http_start(struct aifs_server *srv);
void aifs_metrics_http_stop(struct aifs_server *srv);

/* server.c */
void aifs_server_peer_gone(struct aifs_server *srv);

#endif /* AIFS_SERVER_INTERNAL_H */
