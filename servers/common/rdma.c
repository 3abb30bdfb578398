// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The RDMA transport: libaifs's stream over rdma-core (aifs/rdma.h), on
 * the server's event loop.  The listener's descriptor is the rdma_cm event
 * channel, a connection's its completion channel.
 */
#include <errno.h>

#include "aifs/loop.h"
#include "aifs/rdma.h"
#include "aifs/server.h"
#include "aifs/transport.h"

const char *const aifs_rdma_mode_names[] = { "no", "yes", "auto", NULL };

static int rdma_listen(struct aifs_endpoint *l, const char *addr, int port)
{
	struct aifs_rdma_listener *rl;
	int err;

	err = aifs_rdma_listen(addr, port, &rl, l->name);
	if (err)
		return err;
	l->priv = rl;
	l->fd = aifs_rdma_listener_fd(rl);
	l->port = port;
	l->listening = true;
	return 0;
}

static int rdma_accept(struct aifs_endpoint *l, struct aifs_endpoint *ep)
{
	struct aifs_rdma *r;
	int err;

	err = aifs_rdma_accept(l->priv, &r, ep->name);
	if (err)
		return err;
	ep->priv = r;
	ep->fd = aifs_rdma_fd(r);
	ep->ops = &aifs_rdma_transport;
	return 0;
}

static ssize_t rdma_recv(struct aifs_endpoint *ep, void *buf, size_t len)
{
	return aifs_rdma_recv(ep->priv, buf, len);
}

static ssize_t rdma_sendv(struct aifs_endpoint *ep, const struct iovec *iov,
			  int iovcnt)
{
	return aifs_rdma_sendv(ep->priv, iov, iovcnt);
}

static void rdma_shutdown(struct aifs_endpoint *ep)
{
	aifs_rdma_shutdown(ep->priv);
}

static void rdma_close(struct aifs_endpoint *ep)
{
	if (ep->listening)
		aifs_rdma_listener_close(ep->priv);
	else
		aifs_rdma_close(ep->priv);
	ep->priv = NULL;
	ep->fd = -1;
}

static unsigned int rdma_ready(struct aifs_endpoint *ep)
{
	unsigned int ready = aifs_rdma_poll(ep->priv), events = 0;

	if (ready & AIFS_RDMA_READABLE)
		events |= AIFS_EV_READ;
	if (ready & AIFS_RDMA_WRITABLE)
		events |= AIFS_EV_WRITE;
	return events;
}

const struct aifs_transport_ops aifs_rdma_transport = {
	.name = "rdma",
	.listen = rdma_listen,
	.accept = rdma_accept,
	.recv = rdma_recv,
	.sendv = rdma_sendv,
	.shutdown = rdma_shutdown,
	.close = rdma_close,
	.ready = rdma_ready,
};
