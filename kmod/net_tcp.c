// SPDX-License-Identifier: GPL-2.0
/*
 * aifs - the TCP transport: a kernel socket per connection.
 *
 * Connect as fs/smb/client does: a blocking kernel_connect() whose wait is
 * bounded by the socket's send timeout. The socket belongs to the mount's
 * network namespace, which a kernel socket does not pin, so the transport
 * holds a reference on it as net/sunrpc does.
 */
#define pr_fmt(fmt) "aifs: " fmt

#include <linux/errno.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/net.h>
#include <linux/signal.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "compat.h"
#include "transport.h"

/**
 * struct aifs_tcp - a TCP transport
 * @xprt: what the connection sees
 * @sock: the connected socket
 * @net: namespace of @sock, referenced while @sock lives
 */
struct aifs_tcp {
	struct aifs_xprt xprt;
	struct socket *sock;
	struct net *net;
};

static struct aifs_tcp *to_tcp(struct aifs_xprt *xprt)
{
	return container_of(xprt, struct aifs_tcp, xprt);
}

static struct aifs_xprt *aifs_tcp_connect(struct net *net,
					  const struct sockaddr_storage *addr,
					  unsigned long timeout)
{
	int addrlen = addr->ss_family == AF_INET6 ?
		      sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
	struct aifs_tcp *tcp;
	struct sock *sk;
	int err;

	tcp = kzalloc(sizeof(*tcp), GFP_KERNEL);
	if (!tcp)
		return ERR_PTR(-ENOMEM);
	tcp->xprt.ops = &aifs_tcp_transport;

	err = sock_create_kern(net, addr->ss_family, SOCK_STREAM, IPPROTO_TCP,
			       &tcp->sock);
	if (err)
		goto out_free;
	tcp->net = get_net(net);

	sk = tcp->sock->sk;
	/* the file system's own I/O must not recurse into it for memory */
	sk->sk_allocation = GFP_NOFS;
	/* requests are small and answered one by one: no Nagle delay */
	tcp_sock_set_nodelay(sk);
	/* bounds the blocking connect below; send() sets it per call */
	sk->sk_sndtimeo = timeout;

	err = kernel_connect(tcp->sock, (struct aifs_sockaddr *)addr, addrlen,
			     0);
	switch (err) {
	case 0:
		return &tcp->xprt;
	case -EINPROGRESS:
		/* inet_stream_connect()'s way of saying the wait timed out */
		err = -ETIMEDOUT;
		break;
	case -ERESTARTSYS:
		err = -EINTR;
		break;
	}
	sock_release(tcp->sock);
	put_net(tcp->net);
out_free:
	kfree(tcp);
	return ERR_PTR(err);
}

/*
 * The wait for room in the socket would end early on any signal, and a
 * send cut short leaves half a frame on the stream: the connection would
 * be lost to a SIGCHLD. So, as smb_send_kvec() does, every signal but
 * SIGKILL is blocked while sending, which makes the wait killable and
 * bounded by @timeout.
 */
static int aifs_tcp_send(struct aifs_xprt *xprt, struct iov_iter *iter,
			 bool more, unsigned long timeout)
{
	struct socket *sock = to_tcp(xprt)->sock;
	struct msghdr msg = {
		.msg_flags = MSG_NOSIGNAL | (more ? MSG_MORE : 0),
		.msg_iter = *iter,
	};
	size_t len = iov_iter_count(iter);
	sigset_t mask, old;
	int ret;

	WRITE_ONCE(sock->sk->sk_sndtimeo, timeout);
	siginitsetinv(&mask, sigmask(SIGKILL));
	sigprocmask(SIG_BLOCK, &mask, &old);
	ret = sock_sendmsg(sock, &msg);
	sigprocmask(SIG_SETMASK, &old, NULL);
	*iter = msg.msg_iter;

	if (ret == len)
		return 0;
	if (ret >= 0 || ret == -EAGAIN)
		/* short: the wait for room timed out or was killed */
		return fatal_signal_pending(current) ? -EINTR : -ETIMEDOUT;
	return ret == -ERESTARTSYS ? -EINTR : ret;
}

static int aifs_tcp_recv(struct aifs_xprt *xprt, struct iov_iter *iter)
{
	struct socket *sock = to_tcp(xprt)->sock;
	struct msghdr msg = { .msg_iter = *iter };
	int ret = 0;

	/* MSG_WAITALL still returns early on a signal or a shutdown */
	while (msg_data_left(&msg)) {
		ret = sock_recvmsg(sock, &msg, MSG_WAITALL);
		if (ret == 0)
			ret = -ECONNRESET;	/* end of stream, or shutdown */
		if (ret < 0)
			break;
		ret = 0;
	}
	*iter = msg.msg_iter;
	return ret;
}

static void aifs_tcp_shutdown(struct aifs_xprt *xprt)
{
	/* wakes a receiver sleeping in recvmsg, which then sees the end */
	kernel_sock_shutdown(to_tcp(xprt)->sock, SHUT_RDWR);
}

static void aifs_tcp_destroy(struct aifs_xprt *xprt)
{
	struct aifs_tcp *tcp = to_tcp(xprt);

	sock_release(tcp->sock);
	put_net(tcp->net);
	kfree(tcp);
}

const struct aifs_transport_ops aifs_tcp_transport = {
	.name		= "tcp",
	.connect	= aifs_tcp_connect,
	.send		= aifs_tcp_send,
	.recv		= aifs_tcp_recv,
	.shutdown	= aifs_tcp_shutdown,
	.destroy	= aifs_tcp_destroy,
};
