/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The stream of frames over RDMA in userspace (rdma-core): rdma_cm sets up
 * a reliable-connected queue pair, SEND messages carry the bytes with the
 * receive credits of aifs_proto.h.  Nothing here blocks but connecting:
 * aifs_rdma_fd() is a descriptor that turns readable when completions
 * wait, aifs_rdma_poll() takes them in and tells what is ready.  The
 * servers drive it from their event loop; libaifs's connections from a
 * thread of their own.  One connection may be used from several threads.
 */
#ifndef AIFS_RDMA_H
#define AIFS_RDMA_H

#include <stdbool.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "aifs/libaifs.h"

/* Room for "[address]:port". */
#define AIFS_RDMA_NAME_MAX	80

#define AIFS_RDMA_READABLE	0x1U	/* recv has bytes, the end or an error */
#define AIFS_RDMA_WRITABLE	0x2U	/* sendv can take bytes (or fail) */

/* An I/O buffer: any request's data, and the blocks around it. */
#define AIFS_RDMA_BUF_SIZE	AIFS_MAX_PAYLOAD

struct aifs_rdma;
struct aifs_rdma_buf;
struct aifs_rdma_listener;

/*
 * Connect to @host:@port before @deadline (ms of aifs_now_ms(), -1: none).
 * -ECONNREFUSED (rejected), -EHOSTUNREACH, -ETIMEDOUT, -ENODEV (no RDMA
 * here at all) or another -errno.
 */
int aifs_rdma_connect(const char *host, const char *port, s64 deadline,
		      struct aifs_rdma **rdmap);

/* Listen on @addr ("::": all) and @port; @name gets the address taken. */
int aifs_rdma_listen(const char *addr, int port,
		     struct aifs_rdma_listener **lp, char *name);

/* Readable when connection requests (or other cm events) wait. */
int aifs_rdma_listener_fd(const struct aifs_rdma_listener *l);

/*
 * Take the cm events that wait; the first connection request accepted
 * ends the call with the new connection in *@rdmap and its peer in
 * @name.  -EAGAIN when none is left.
 */
int aifs_rdma_accept(struct aifs_rdma_listener *l, struct aifs_rdma **rdmap,
		     char *name);

void aifs_rdma_listener_close(struct aifs_rdma_listener *l);

/* The completion channel: readable when completions wait. */
int aifs_rdma_fd(const struct aifs_rdma *r);

/* A requester's rdma_cm channel (the server went away): -1 on a server. */
int aifs_rdma_cm_fd(const struct aifs_rdma *r);

/* Take in what completed; AIFS_RDMA_READABLE | AIFS_RDMA_WRITABLE. */
unsigned int aifs_rdma_poll(struct aifs_rdma *r);

/* As recv(2) on a non-blocking socket: > 0, 0 at the end, -EAGAIN, -errno. */
ssize_t aifs_rdma_recv(struct aifs_rdma *r, void *buf, size_t len);

/* As sendmsg(2) on a non-blocking socket: bytes taken, -EAGAIN, -errno. */
ssize_t aifs_rdma_sendv(struct aifs_rdma *r, const struct iovec *iov,
			int iovcnt);

/* End our stream after what was sent (the peer reads end of stream). */
void aifs_rdma_shutdown(struct aifs_rdma *r);

/* Make every call fail and the peer see the connection gone. */
void aifs_rdma_disconnect(struct aifs_rdma *r);

/*
 * Disconnect and drop the caller's reference: everything is freed with
 * the last one (aifs_rdma_get()).
 */
void aifs_rdma_close(struct aifs_rdma *r);

/*
 * A requester's memory the peer may RDMA-READ and WRITE, in the
 * connection's own protection domain (a server's connections share theirs:
 * -EINVAL).
 */
struct aifs_rdma_lent;
int aifs_rdma_lend(struct aifs_rdma *r, void *buf, size_t len,
		   struct aifs_rdma_seg *seg, struct aifs_rdma_lent **lp);
void aifs_rdma_take_back(struct aifs_rdma_lent *l);

/* One more reference to @r, for a thread that moves bulk data on it. */
void aifs_rdma_get(struct aifs_rdma *r);
void aifs_rdma_put(struct aifs_rdma *r);

/*
 * Bulk data (AIFS_IO_RDMA): I/O buffers of AIFS_RDMA_BUF_SIZE bytes,
 * registered once with @r's device and shared by its connections, at most
 * aifs_rdma_set_buffers() of them per device (default 8): a caller waits
 * for one while all are taken, so a thread should hold one at a time.
 * Give it back before dropping the reference to @r.
 */
void aifs_rdma_set_buffers(unsigned int nr);
int aifs_rdma_buf_get(struct aifs_rdma *r, struct aifs_rdma_buf **bp);
void *aifs_rdma_buf_data(const struct aifs_rdma_buf *b);
void aifs_rdma_buf_put(struct aifs_rdma_buf *b);

/*
 * RDMA WRITE (@to_peer) @len bytes at @off of @b into the peer's @seg, or
 * RDMA READ them from it, and wait until it completed.  A bad key or
 * address from the peer fails the connection (-EIO); past @deadline (ms
 * of aifs_now_ms(), -1: none) the connection fails with -ETIMEDOUT.
 * -EINVAL when @len does not fit @b or @seg.
 */
int aifs_rdma_transfer(struct aifs_rdma *r, struct aifs_rdma_buf *b,
		       size_t off, u32 len, const struct aifs_rdma_seg *seg,
		       bool to_peer, s64 deadline);

#endif /* AIFS_RDMA_H */
