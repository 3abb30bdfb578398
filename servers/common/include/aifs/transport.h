/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Transports carry the byte stream of frames between a server and its
 * peers.  The server runtime does the framing, handshake and dispatch and
 * reaches the wire only through these ops, so that the RDMA transport
 * plugs in beside TCP as a second table (as 9p's struct p9_trans_module).
 *
 * Every descriptor a transport hands out is non-blocking and is watched by
 * the server's event loop.  For TCP it is the socket: readable means recv()
 * may make progress, writable means sendv() may.  For RDMA it is the
 * completion channel, which only turns readable: the user keeps it watched
 * for reading whatever it wants, and asks ready() what the endpoint can
 * do (which the loop cannot see: aifs_loop_set_ready()).
 */
#ifndef AIFS_TRANSPORT_H
#define AIFS_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>

/* Room for "[address]:port" of any transport. */
#define AIFS_ADDR_NAME_MAX	80

struct aifs_transport_ops;

/**
 * struct aifs_endpoint - one side of a transport: a listener or a connection
 * @fd:        the descriptor the event loop watches
 * @name:      the peer's (connection) or own (listener) address, for logs
 * @port:      a listener's port (the one taken, for port 0)
 * @ops:       the transport that made it
 * @priv:      the transport's own state
 * @listening: a listener (for close)
 */
struct aifs_endpoint {
	int fd;
	char name[AIFS_ADDR_NAME_MAX];
	int port;
	const struct aifs_transport_ops *ops;
	void *priv;
	bool listening;
};

/**
 * struct aifs_transport_ops - one way of carrying aifs frames
 * @name:     the transport's name in logs and configs ("tcp")
 * @listen:   open a listening endpoint on @addr (a host name or numeric
 *            address, "::" for all) and @port (0: any free port); fills
 *            @l (whose name then tells the port taken); 0 or -errno
 * @accept:   take one pending connection from listener @l into @ep;
 *            0, -EAGAIN when none is pending, or -errno
 * @recv:     read up to @len bytes from @ep; the count (> 0), 0 once the
 *            peer closed, -EAGAIN when nothing is ready, or -errno
 * @sendv:    write from @iov[0..@iovcnt); the count written (possibly less
 *            than asked), -EAGAIN when nothing could be, or -errno
 * @shutdown: stop sending: the peer sees the end of the stream after what
 *            was sent, while we can still read (and drain) its data
 * @close:    release @ep (connection or listener) and its descriptor
 * @ready:    NULL when the descriptor's readiness tells all (TCP); else
 *            take in what the descriptor signalled and return what @ep
 *            can do now: AIFS_EV_READ (recv has bytes, the end or an
 *            error), AIFS_EV_WRITE (sendv can take bytes or fails)
 */
struct aifs_transport_ops {
	const char *name;
	int (*listen)(struct aifs_endpoint *l, const char *addr, int port);
	int (*accept)(struct aifs_endpoint *l, struct aifs_endpoint *ep);
	ssize_t (*recv)(struct aifs_endpoint *ep, void *buf, size_t len);
	ssize_t (*sendv)(struct aifs_endpoint *ep, const struct iovec *iov,
			 int iovcnt);
	void (*shutdown)(struct aifs_endpoint *ep);
	void (*close)(struct aifs_endpoint *ep);
	unsigned int (*ready)(struct aifs_endpoint *ep);
};

extern const struct aifs_transport_ops aifs_tcp_transport;
extern const struct aifs_transport_ops aifs_rdma_transport;

#endif /* AIFS_TRANSPORT_H */
