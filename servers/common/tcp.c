// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The TCP transport: non-blocking sockets, IPv4 and IPv6 (an IPv6 listener
 * on "::" takes IPv4 peers as well).
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "aifs/libaifs.h"
#include "aifs/transport.h"

#define TCP_BACKLOG	512

static int tcp_bind(const struct addrinfo *ai)
{
	int fd, err, one = 1, zero = 0;

	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    ai->ai_protocol);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ai->ai_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	if (bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 ||
	    listen(fd, TCP_BACKLOG) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

static int tcp_listen(struct aifs_endpoint *l, const char *addr, int port)
{
	const struct addrinfo hints = {
		.ai_socktype = SOCK_STREAM,
		.ai_flags = AI_PASSIVE | AI_NUMERICSERV,
	};
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	struct addrinfo *list, *ai;
	char service[8];
	int fd = -EADDRNOTAVAIL;

	snprintf(service, sizeof(service), "%d", port);
	if (getaddrinfo(addr, service, &hints, &list))
		return -EADDRNOTAVAIL;
	/* A name may resolve to several addresses: the first that binds. */
	for (ai = list; ai && fd < 0; ai = ai->ai_next)
		fd = tcp_bind(ai);
	freeaddrinfo(list);
	if (fd < 0)
		return fd;
	/* The name and port tell the port the kernel chose for port 0. */
	getsockname(fd, (struct sockaddr *)&ss, &len);
	aifs_addr_name((struct sockaddr *)&ss, len, l->name, sizeof(l->name));
	l->port = aifs_addr_port((struct sockaddr *)&ss);
	l->fd = fd;
	l->listening = true;
	return 0;
}

static int tcp_accept(struct aifs_endpoint *l, struct aifs_endpoint *ep)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int fd, one = 1;

	fd = accept4(l->fd, (struct sockaddr *)&ss, &len,
		     SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	/* Requests and replies are small and latency-bound: no Nagle. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	aifs_addr_name((struct sockaddr *)&ss, len, ep->name, sizeof(ep->name));
	ep->fd = fd;
	ep->ops = &aifs_tcp_transport;
	return 0;
}

static ssize_t tcp_recv(struct aifs_endpoint *ep, void *buf, size_t len)
{
	ssize_t n;

	do {
		n = recv(ep->fd, buf, len, 0);
	} while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

static ssize_t tcp_sendv(struct aifs_endpoint *ep, const struct iovec *iov,
			 int iovcnt)
{
	struct msghdr msg = {
		.msg_iov = (struct iovec *)iov,
		.msg_iovlen = iovcnt,
	};
	ssize_t n;

	do {
		n = sendmsg(ep->fd, &msg, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

static void tcp_shutdown(struct aifs_endpoint *ep)
{
	shutdown(ep->fd, SHUT_WR);
}

static void tcp_close(struct aifs_endpoint *ep)
{
	close(ep->fd);
	ep->fd = -1;
}

const struct aifs_transport_ops aifs_tcp_transport = {
	.name = "tcp",
	.listen = tcp_listen,
	.accept = tcp_accept,
	.recv = tcp_recv,
	.sendv = tcp_sendv,
	.shutdown = tcp_shutdown,
	.close = tcp_close,
};
