// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The byte stream under a connection: a non-blocking TCP socket, or an RDMA
 * connection (aifs/rdma.h) whose completions a thread of the stream's own
 * takes in, waking whoever waits for them, since several threads (the
 * reader, the senders) wait on one connection and a completion event goes
 * to one poller only.
 */
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "internal.h"

/* Connect a non-blocking socket to one address before @deadline. */
static int tcp_connect_addr(const struct addrinfo *ai, s64 deadline)
{
	int fd, err, one = 1;
	socklen_t len = sizeof(err);

	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    IPPROTO_TCP);
	if (fd < 0)
		return -errno;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0 &&
	    errno != EINPROGRESS) {
		err = -errno;
		goto out_close;
	}
	err = aifs_fd_wait(fd, POLLOUT, deadline);
	if (err)
		goto out_close;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
		err = errno;
	if (err) {
		err = -err;
		goto out_close;
	}
	/* Requests are small and latency-bound: no Nagle delay. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
out_close:
	close(fd);
	return err;
}

/* Try every address of host:port in turn. */
static int tcp_connect(const char *host, const char *port, s64 deadline)
{
	const struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
	};
	struct addrinfo *list, *ai;
	int fd = -EHOSTUNREACH, ret;

	/* Resolver failures have no errno: the host cannot be reached. */
	ret = getaddrinfo(host, port, &hints, &list);
	if (ret)
		return ret == EAI_SYSTEM ? -errno : -EHOSTUNREACH;
	for (ai = list; ai; ai = ai->ai_next) {
		fd = tcp_connect_addr(ai, deadline);
		if (fd >= 0 || fd == -ETIMEDOUT)
			break;
	}
	freeaddrinfo(list);
	return fd;
}

/* The RDMA stream's thread: take completions in, wake the waiters. */
static void *stream_progress(void *arg)
{
	struct aifs_stream *s = arg;
	struct pollfd pfd[3] = {
		{ .fd = s->stop_fd, .events = POLLIN },
		{ .fd = aifs_rdma_fd(s->rdma), .events = POLLIN },
		{ .fd = aifs_rdma_cm_fd(s->rdma), .events = POLLIN },
	};

	while (!(pfd[0].revents & POLLIN)) {
		if (poll(pfd, 3, -1) < 0 && errno != EINTR)
			break;
		aifs_rdma_poll(s->rdma);
		pthread_mutex_lock(&s->lock);
		s->seq++;
		pthread_cond_broadcast(&s->cond);
		pthread_mutex_unlock(&s->lock);
	}
	return NULL;
}

static int stream_start_rdma(struct aifs_stream *s)
{
	pthread_condattr_t attr;
	int err;

	s->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (s->stop_fd < 0)
		return -errno;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cond, &attr);
	pthread_condattr_destroy(&attr);
	pthread_mutex_init(&s->lock, NULL);
	err = -pthread_create(&s->thread, NULL, stream_progress, s);
	if (err) {
		pthread_mutex_destroy(&s->lock);
		pthread_cond_destroy(&s->cond);
		close(s->stop_fd);
	}
	return err;
}

int aifs_stream_connect(struct aifs_stream *s, enum aifs_transport transport,
			const char *host, const char *port, s64 deadline)
{
	int err;

	*s = (struct aifs_stream){ .fd = -1, .stop_fd = -1 };
	if (transport == AIFS_TRANSPORT_TCP) {
		s->fd = tcp_connect(host, port, deadline);
		return s->fd < 0 ? s->fd : 0;
	}
	err = aifs_rdma_connect(host, port, deadline, &s->rdma);
	if (err)
		return err;
	err = stream_start_rdma(s);
	if (err)
		aifs_rdma_close(s->rdma);
	return err;
}

ssize_t aifs_stream_sendv(struct aifs_stream *s, const struct iovec *iov,
			  int iovcnt)
{
	struct msghdr msg = {
		.msg_iov = (struct iovec *)iov,
		.msg_iovlen = iovcnt,
	};
	ssize_t n;

	if (s->rdma)
		return aifs_rdma_sendv(s->rdma, iov, iovcnt);
	do {
		n = sendmsg(s->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
	} while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

ssize_t aifs_stream_recv(struct aifs_stream *s, void *buf, size_t len)
{
	ssize_t n;

	if (s->rdma)
		return aifs_rdma_recv(s->rdma, buf, len);
	do {
		n = recv(s->fd, buf, len, MSG_DONTWAIT);
	} while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

/* Until the thread took something in after @seen, or @deadline. */
static int stream_wait_rdma(struct aifs_stream *s, u64 seen, s64 deadline)
{
	struct timespec ts = {
		.tv_sec = deadline / 1000,
		.tv_nsec = deadline % 1000 * 1000000,
	};
	int err = 0;

	pthread_mutex_lock(&s->lock);
	while (s->seq == seen && !err)
		err = deadline < 0 ? pthread_cond_wait(&s->cond, &s->lock) :
			pthread_cond_timedwait(&s->cond, &s->lock, &ts);
	pthread_mutex_unlock(&s->lock);
	return err == ETIMEDOUT ? -ETIMEDOUT : -err;
}

int aifs_stream_wait(struct aifs_stream *s, bool write, s64 deadline)
{
	unsigned int want = write ? AIFS_RDMA_WRITABLE : AIFS_RDMA_READABLE;
	u64 seen;
	int err;

	if (!s->rdma)
		return aifs_fd_wait(s->fd, write ? POLLOUT : POLLIN, deadline);
	for (;;) {
		pthread_mutex_lock(&s->lock);
		seen = s->seq;
		pthread_mutex_unlock(&s->lock);
		if (aifs_rdma_poll(s->rdma) & want)
			return 0;
		err = stream_wait_rdma(s, seen, deadline);
		if (err)
			return err;
	}
}

void aifs_stream_break(struct aifs_stream *s)
{
	if (s->rdma)
		aifs_rdma_disconnect(s->rdma);
	else
		shutdown(s->fd, SHUT_RDWR);
}

void aifs_stream_close(struct aifs_stream *s)
{
	u64 one = 1;

	if (!s->rdma) {
		close(s->fd);
		return;
	}
	if (write(s->stop_fd, &one, sizeof(one)) == sizeof(one))
		pthread_join(s->thread, NULL);
	aifs_rdma_close(s->rdma);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->cond);
	close(s->stop_fd);
}
