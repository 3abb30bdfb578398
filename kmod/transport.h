/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aifs - the transport interface: how a connection (conn.c) moves the bytes
 * of its frames, whatever carries them.
 *
 * A transport offers a reliable, ordered byte stream to one server, in the
 * manner of net/9p's struct p9_trans_module: TCP (net_tcp.c) maps it onto
 * a kernel socket; RDMA (net_rdma.c) maps it onto SEND/RECV messages
 * (copying out of its receive buffers) behind the same operations. recv()
 * and send() take an iov_iter so that the data of a read goes from the
 * socket straight into the page cache, and that of a write straight from
 * it. A transport that lets the server move bulk data itself (RDMA WRITE
 * into the pages of a read, RDMA READ from those of a write) lends it the
 * pages for the time of one request: register_data() before the request,
 * unregister_data() after its reply.
 */
#ifndef _AIFS_TRANSPORT_H
#define _AIFS_TRANSPORT_H

#include <linux/socket.h>
#include <linux/types.h>
#include <linux/uio.h>

struct net;
struct aifs_rdma_seg;
struct aifs_xprt;
struct aifs_xprt_reg;

/**
 * struct aifs_transport_ops - operations of one kind of transport
 * @name: as in the transport= mount option and in sysfs
 * @connect: open a transport to @addr in network namespace @net, giving
 *	up after @timeout jiffies (-ETIMEDOUT) or on a fatal signal
 *	(-EINTR). Sleeps. Returns the new transport or an ERR_PTR(): the
 *	errno of the failed connect (-ECONNREFUSED, -EHOSTUNREACH,
 *	-ENETUNREACH ...) or -ENOMEM.
 * @send: send all bytes of @iter (kvecs of the connection's, or the page
 *	cache a write's data comes from), waiting at most @timeout jiffies
 *	for room; @more says that another send of the same frame follows at
 *	once (TCP: MSG_MORE, so that a frame's head and data share
 *	segments). The caller serialises sends. Returns 0 or a negative
 *	errno; after an error some of the bytes may have gone, so the stream
 *	is unusable and the caller must close it.
 * @recv: receive exactly iov_iter_count(@iter) bytes into @iter (a
 *	buffer of the connection's, or the page cache a request's data goes
 *	to), advancing it, sleeping as long as it takes. Only the
 *	connection's receiver calls it. Returns 0, -ECONNRESET when the peer
 *	closed the stream or @shutdown was called, or another negative
 *	errno; after an error, part of @iter may have been written.
 * @shutdown: stop all traffic: a @recv or @send sleeping now or later
 *	returns an error at once. Safe from any context that may sleep, and
 *	more than once.
 * @destroy: free the transport. No @send or @recv may be running, and no
 *	registration may be left.
 * @register_data: NULL for a transport that carries bulk data only in its
 *	stream (TCP). Else lend the server the pages of @iter (page-backed,
 *	at most AIFS_DATA_MAX_IO bytes; a destination for a read, a source
 *	for a write) and describe them in @seg. Returns the registration, or
 *	NULL when the pages cannot be lent now (every registration in use,
 *	pages that do not map as one segment, the transport down): their
 *	data then goes in the stream. May sleep; @iter is not advanced.
 * @unregister_data: take the pages of @reg back. When it returns, the
 *	server can no longer reach them and a read's data is visible to the
 *	CPU. Sleeps, briefly.
 */
struct aifs_transport_ops {
	const char *name;
	struct aifs_xprt *(*connect)(struct net *net,
				     const struct sockaddr_storage *addr,
				     unsigned long timeout);
	int (*send)(struct aifs_xprt *xprt, struct iov_iter *iter, bool more,
		    unsigned long timeout);
	int (*recv)(struct aifs_xprt *xprt, struct iov_iter *iter);
	void (*shutdown)(struct aifs_xprt *xprt);
	void (*destroy)(struct aifs_xprt *xprt);
	struct aifs_xprt_reg *(*register_data)(struct aifs_xprt *xprt,
					       const struct iov_iter *iter,
					       struct aifs_rdma_seg *seg);
	void (*unregister_data)(struct aifs_xprt *xprt,
				struct aifs_xprt_reg *reg);
};

/**
 * struct aifs_xprt - the part of a transport the connection sees
 * @ops: its operations
 *
 * Each transport embeds this in its own state and finds that state with
 * container_of().
 */
struct aifs_xprt {
	const struct aifs_transport_ops *ops;
};

extern const struct aifs_transport_ops aifs_tcp_transport;
#if IS_ENABLED(CONFIG_INFINIBAND_ADDR_TRANS)
extern const struct aifs_transport_ops aifs_rdma_transport;
#endif

#endif /* _AIFS_TRANSPORT_H */
