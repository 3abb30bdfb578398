/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * libaifs internals: the connection and its frame I/O.
 */
#ifndef LIBAIFS_INTERNAL_H
#define LIBAIFS_INTERNAL_H

#include <pthread.h>

#include "aifs/libaifs.h"
#include "aifs/rdma.h"

/* A caller of aifs_call() waiting for its reply; lives on its stack. */
struct aifs_pending {
	struct aifs_pending *next;
	u64 request_id;
	bool done;
	int err;			/* when done: 0 or why no reply came */
	struct aifs_reply reply;
	pthread_cond_t cond;
};

/**
 * struct aifs_stream - the bytes under a connection (stream.c)
 * @fd:      the TCP socket (-1 over RDMA)
 * @rdma:    the RDMA connection (NULL over TCP); and for it:
 * @thread:  takes its completions in
 * @stop_fd: eventfd that ends @thread
 * @lock:    protects @seq
 * @cond:    signalled when @seq moves
 * @seq:     counts the rounds of @thread
 */
struct aifs_stream {
	int fd;
	struct aifs_rdma *rdma;
	pthread_t thread;
	int stop_fd;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	u64 seq;
};

/*
 * One connection.  Frames go out whole under @send_lock; one reader thread
 * takes every reply off the stream and hands it to its waiter.
 */
struct aifs_conn {
	struct aifs_stream stream;
	u16 version;
	u64 session_id;
	int call_timeout_ms;		/* of the per-message API */
	pthread_t reader;
	pthread_mutex_t send_lock;
	pthread_mutex_t lock;		/* protects what follows */
	pthread_condattr_t condattr;	/* CLOCK_MONOTONIC for timed waits */
	u64 next_request_id;
	struct aifs_pending *pending;
	int broken;			/* -errno once the stream is unusable */
};

/* The time left until @deadline (-1: none), for poll(). */
int aifs_ms_left(s64 deadline);

/* stream.c: as their socket calls, over either transport */
int aifs_stream_connect(struct aifs_stream *s, enum aifs_transport transport,
			const char *host, const char *port, s64 deadline);
ssize_t aifs_stream_sendv(struct aifs_stream *s, const struct iovec *iov,
			  int iovcnt);
ssize_t aifs_stream_recv(struct aifs_stream *s, void *buf, size_t len);
/* Until @s can be written (@write) or read; -ETIMEDOUT past @deadline. */
int aifs_stream_wait(struct aifs_stream *s, bool write, s64 deadline);
/* Fail every call in progress and to come; the peer sees the end. */
void aifs_stream_break(struct aifs_stream *s);
void aifs_stream_close(struct aifs_stream *s);

/* frame.c */
/* Wait until @fd is ready for @events (poll); -ETIMEDOUT past @deadline. */
int aifs_fd_wait(int fd, short events, s64 deadline);
int aifs_frame_send(struct aifs_stream *s, struct aifs_frame_hdr *hdr,
		    const struct iovec *iov, int iovcnt, s64 deadline,
		    bool *partial);
int aifs_frame_recv(struct aifs_stream *s, struct aifs_frame_hdr *hdr,
		    void **payload, s64 deadline);

/* handshake.c */
int aifs_handshake(struct aifs_conn *conn, const struct aifs_connect_opts *opts,
		   s64 deadline);

#endif /* LIBAIFS_INTERNAL_H */
