// SPDX-License-Identifier: GPL-2.0
/*
 * aifs - a mount's session with its metadata server: choosing the server,
 * the handshake, the keepalive, reconnecting, the hard and soft retries of
 * a call, and the teardown.
 *
 * The session's connection is replaced, never repaired: once it has failed
 * (closed by the server, a timeout, a broken frame), the next call dials
 * the servers of the source again, in order, with the same client uuid in
 * HELLO (one per loaded module, auth.c), and swaps the new connection in.
 * A connection is referenced by every call using it, so the old one is
 * freed when its last call has returned.
 *
 * A call keeps its request id across its tries. Every request that changes
 * something is answered from the MDS's reply cache, keyed by (client uuid,
 * request id), when it was applied before: a create whose reply was lost
 * with the connection is answered "created", not EEXIST, on the new one.
 *
 * A try is bounded by timeo: a dial and the request. A try that failed
 * early waits for the end of its timeo before the next, killably, so that
 * a dead cluster costs one dial per timeo, not a busy loop; only the first
 * try after a connection that worked until now dials at once. A hard mount
 * tries until the call succeeds, the task is killed or umount -f ends it
 * (-EIO, aifs_session_abort()); a soft mount gives up after retrans + 1
 * tries with -EIO, as NFS does. A task that cannot be
 * killed (a worker, the keepalive) and a mount still being made try once.
 *
 * The MDS keeps the handles of open files across a reconnection (they
 * belong to the client uuid, for open_grace_ms after its last session
 * ended), not across its own restart. A CLOSE is sent once, on the
 * connection there is, and not retried: close(2) never waits for a dead
 * cluster.
 */
#define pr_fmt(fmt) "aifs: " fmt

#include <crypto/hash.h>
#include <linux/jiffies.h>
#include <linux/sched/signal.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>

#include "internal.h"
#include "transport.h"

/* The session's connection with a reference, or NULL when it has failed. */
static struct aifs_conn *aifs_session_live(struct aifs_session *s)
{
	struct aifs_conn *conn = NULL;

	spin_lock(&s->lock);
	if (!aifs_conn_error(s->conn))
		conn = aifs_conn_get(s->conn);
	spin_unlock(&s->lock);
	return conn;
}

/*
 * A PING every timeo/2 finds a dead server or a broken path while the
 * mount is idle, so that the next request reconnects at once instead of
 * failing after its own timeout. Any reply, even an error, shows the
 * server alive; a failed PING has closed the connection and said why in
 * the kernel log. Reconnecting is left to the next call: umount must never
 * wait for a dial here.
 */
static void aifs_keepalive(struct work_struct *work)
{
	struct aifs_fs_info *fsi = container_of(to_delayed_work(work),
						struct aifs_fs_info,
						session.keepalive);
	struct aifs_session *s = &fsi->session;
	unsigned long timeout = aifs_timeo_jiffies(&fsi->opts);
	struct aifs_conn *conn;

	conn = aifs_session_live(s);
	if (conn) {
		aifs_conn_call(conn, AIFS_OP_PING, NULL, 0, NULL, 0, timeout);
		aifs_conn_put(conn);
	}
	queue_delayed_work(system_long_wq, &s->keepalive, timeout / 2);
}

/*
 * Connect to @addr and authenticate; @hmac is keyed with the secret. With
 * @fc, the mount's first connection: every failure is told. A reconnect
 * checks that the server still serves the mount's file system.
 */
static struct aifs_conn *aifs_session_try(struct aifs_fs_info *fsi,
					  struct fs_context *fc, struct net *net,
					  const struct aifs_transport_ops *ops,
					  const struct sockaddr_storage *addr,
					  struct crypto_shash *hmac,
					  unsigned long timeout,
					  struct aifs_handshake *hs)
{
	struct aifs_session *s = &fsi->session;
	struct p_log quiet = { .prefix = "aifs" };
	struct aifs_conn *conn;
	int err;

	conn = aifs_conn_open(net, addr, ops, timeout);
	if (IS_ERR(conn)) {
		if (fc && PTR_ERR(conn) != -EINTR)
			warn_plog(&fc->log, "cannot connect to server %pISpc over %s: %pe",
				  addr, ops->name, conn);
		return conn;
	}

	err = aifs_handshake(conn, fc ? &fc->log : &quiet, hmac, hs, timeout);
	if (!err && !fc && memcmp(hs->fs_uuid, s->fs_uuid, sizeof(s->fs_uuid))) {
		pr_warn_ratelimited("server %pISpc serves another file system\n",
				    addr);
		err = -ESTALE;
	}
	if (err) {
		aifs_conn_close(conn);
		return ERR_PTR(err);
	}
	return conn;
}

/*
 * Try each server of the source in order, over @ops, until one accepts and
 * proves the shared secret. A refused authentication ends the search:
 * every server of a file system has the same secret.
 */
static struct aifs_conn *aifs_session_dial(struct aifs_fs_info *fsi,
					   struct fs_context *fc,
					   struct net *net,
					   const struct aifs_transport_ops *ops,
					   unsigned long timeout,
					   struct aifs_handshake *hs)
{
	const struct aifs_mount_options *opts = &fsi->opts;
	struct aifs_conn *conn = ERR_PTR(-ENOENT);
	struct crypto_shash *hmac;
	unsigned int i;
	int err;

	hmac = crypto_alloc_shash("hmac(sha256)", 0, 0);
	if (IS_ERR(hmac))
		return ERR_CAST(hmac);
	err = crypto_shash_setkey(hmac, opts->secret, strlen(opts->secret));
	if (err) {
		conn = ERR_PTR(err);
		goto out;
	}

	for (i = 0; i < opts->nr_servers; i++) {
		conn = aifs_session_try(fsi, fc, net, ops, &opts->servers[i],
					hmac, timeout, hs);
		err = PTR_ERR_OR_ZERO(conn);
		if (!err || err == -EACCES || err == -ENOMEM)
			goto out;
		if (err == -EINTR || fatal_signal_pending(current)) {
			conn = ERR_PTR(-EINTR);
			goto out;
		}
	}
	if (fc)
		errorfc(fc, "cannot reach any server of %s: %pe", fc->source,
			conn);
out:
	/* the key lives in the transform: do not keep it longer */
	crypto_free_shash(hmac);
	return conn;
}

/* Make @conn the session's connection; returns the one it replaces. */
static struct aifs_conn *aifs_session_install(struct aifs_session *s,
					      struct aifs_conn *conn,
					      const struct aifs_handshake *hs)
{
	struct aifs_conn *old;
	bool was_down;

	spin_lock(&s->lock);
	old = s->conn;
	s->conn = conn;
	s->server = conn->addr;
	s->version = hs->version;
	s->id = hs->session_id;
	was_down = s->down;
	s->down = false;
	spin_unlock(&s->lock);
	if (was_down)
		pr_info("server %pISpc OK\n", &conn->addr);
	return old;
}

/*
 * Dial again with every signal but SIGKILL blocked: a connect cut short by
 * a SIGCHLD would fail a stat(2) with EINTR, which it may not return.
 */
static struct aifs_conn *aifs_session_redial(struct aifs_fs_info *fsi,
					     unsigned long timeout)
{
	struct aifs_session *s = &fsi->session;
	struct aifs_handshake hs;
	struct aifs_conn *conn;
	sigset_t mask, old;

	siginitsetinv(&mask, sigmask(SIGKILL));
	sigprocmask(SIG_BLOCK, &mask, &old);
	conn = aifs_session_dial(fsi, NULL, s->net,
				 aifs_transport_get(fsi->transport), timeout,
				 &hs);
	/*
	 * transport=auto: RDMA that went away (a device removed) leaves TCP;
	 * the next redial tries RDMA first again.
	 */
	if (IS_ERR(conn) && aifs_transport_fallback(fsi, PTR_ERR(conn)))
		conn = aifs_session_dial(fsi, NULL, s->net, &aifs_tcp_transport,
					 timeout, &hs);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (!IS_ERR(conn)) {
		aifs_conn_put(aifs_session_install(s, conn, &hs));
		aifs_stat_add(fsi, AIFS_C_RECONNECTS, 1);
	}
	return conn;
}

/*
 * A working connection with a reference: the session's, or a new one when
 * that has failed (@dialed says so).
 */
static struct aifs_conn *aifs_session_connect(struct aifs_fs_info *fsi,
					      unsigned long timeout,
					      bool *dialed)
{
	struct aifs_session *s = &fsi->session;
	struct aifs_conn *conn;

	*dialed = false;
	conn = aifs_session_live(s);
	if (conn)
		return conn;
	if (mutex_lock_killable(&s->connect_lock))
		return ERR_PTR(-EINTR);
	/* another task may have reconnected while we waited */
	conn = aifs_session_live(s);
	if (!conn && READ_ONCE(s->closing)) {
		conn = ERR_PTR(-ESHUTDOWN);
	} else if (!conn) {
		*dialed = true;
		conn = aifs_session_redial(fsi, timeout);
		if (!IS_ERR(conn))
			conn = aifs_session_live(s);
		/* failed already: the next try dials again */
		if (!conn)
			conn = ERR_PTR(-ECONNRESET);
	}
	mutex_unlock(&s->connect_lock);
	return conn;
}

/*
 * Whether @err, the result of a call on @conn, calls for another try: the
 * connection failed under it. Not when the server broke the protocol
 * (-EPROTO, -EIO): it would get the request again and again.
 */
static bool aifs_session_lost(struct aifs_conn *conn, int err)
{
	int why;

	if (err >= 0 || err == -EINTR || err == -ENOMEM)
		return false;
	why = aifs_conn_error(conn);
	return why && why != -EPROTO && why != -EIO && why != -ESHUTDOWN;
}

/* How many tries a call gets. */
static unsigned int aifs_session_tries(struct aifs_fs_info *fsi)
{
	/* a mount being made reports the error; a worker cannot be killed */
	if (!(READ_ONCE(fsi->sb->s_flags) & SB_ACTIVE) ||
	    (current->flags & PF_KTHREAD))
		return 1;
	if (READ_ONCE(fsi->opts.soft))
		return aifs_get_uint(&fsi->opts, AIFS_OPT_RETRANS) + 1;
	return UINT_MAX;
}

/*
 * Say once per outage, as NFS does, that a call waits for the server.
 * Limited per mount, so that a server going up and down for one mount
 * does not silence the news of another's outage.
 */
static void aifs_session_not_responding(struct aifs_session *s)
{
	struct sockaddr_storage addr;
	bool first;

	spin_lock(&s->lock);
	first = !s->down;
	s->down = true;
	addr = s->server;
	spin_unlock(&s->lock);
	if (first && __ratelimit(&s->chatter))
		pr_warn("server %pISpc not responding, still trying\n", &addr);
}

/**
 * aifs_session_server - the address of the session's server
 * @fsi: the mount
 * @addr: out: the address
 */
void aifs_session_server(struct aifs_fs_info *fsi,
			 struct sockaddr_storage *addr)
{
	spin_lock(&fsi->session.lock);
	*addr = fsi->session.server;
	spin_unlock(&fsi->session.lock);
}

/**
 * aifs_session_id - the server's id of the session's current connection
 * @fsi: the mount
 */
u64 aifs_session_id(struct aifs_fs_info *fsi)
{
	u64 id;

	spin_lock(&fsi->session.lock);
	id = fsi->session.id;
	spin_unlock(&fsi->session.lock);
	return id;
}

/* A soft mount's call that ran out of tries. */
static int aifs_session_give_up(struct aifs_fs_info *fsi)
{
	struct sockaddr_storage addr;

	aifs_session_server(fsi, &addr);
	if (__ratelimit(&fsi->session.chatter))
		pr_warn("server %pISpc not responding, timed out\n", &addr);
	return -EIO;
}

/* A request sent once on the connection there is, if any: no dial. */
static int aifs_session_call_once(struct aifs_fs_info *fsi, u16 op,
				  const void *payload, u32 len, void *reply,
				  u32 reply_size)
{
	struct aifs_conn *conn;
	int ret;

	conn = aifs_session_live(&fsi->session);
	if (!conn)
		return -ENOTCONN;
	ret = aifs_conn_call(conn, op, payload, len, reply, reply_size,
			     aifs_timeo_jiffies(&fsi->opts));
	aifs_conn_put(conn);
	return ret;
}

/**
 * aifs_session_call - a request to the metadata server, retried as the
 *	mount's hard/soft, timeo and retrans options say
 * @fsi: the mount
 * @op: enum aifs_opcode
 * @payload: the encoded request
 * @len: its length
 * @reply: where the reply's payload goes
 * @reply_size: room at @reply
 * @once: send on the connection there is, once, without dialing: a CLOSE,
 *	which must not hold close(2) on a dead cluster (the MDS releases the
 *	opens of a client that does not come back)
 *
 * Return: as aifs_conn_call(); -EIO when a soft mount gave up; -ENOTCONN
 * when @once found no connection.
 */
int aifs_session_call(struct aifs_fs_info *fsi, u16 op, const void *payload,
		      u32 len, void *reply, u32 reply_size, bool once)
{
	struct aifs_session *s = &fsi->session;
	unsigned int try, tries = aifs_session_tries(fsi);
	unsigned long timeout, deadline;
	int aborts = atomic_read(&fsi->aborts);
	struct aifs_conn *conn;
	u32 id = aifs_conn_new_id();
	bool dialed, lost, spared = false;
	int ret;

	if (once)
		return aifs_session_call_once(fsi, op, payload, len, reply,
					      reply_size);
	for (try = 1;; try++) {
		timeout = aifs_timeo_jiffies(&fsi->opts);
		deadline = jiffies + timeout;
		conn = aifs_session_connect(fsi, timeout, &dialed);
		if (IS_ERR(conn)) {
			ret = PTR_ERR(conn);
			if (ret == -EINTR || ret == -ENOMEM || ret == -ESHUTDOWN)
				return ret;
		} else {
			ret = aifs_conn_call_id(conn, id, op, payload, len,
						reply, reply_size, timeout);
			lost = aifs_session_lost(conn, ret);
			if (!lost)
				aifs_data_map_seen(fsi, aifs_conn_map_epoch(conn));
			aifs_conn_put(conn);
			if (!lost)
				return ret;
		}
		if (tries == 1)
			return ret;
		if (aifs_aborted(fsi, aborts))
			return -EIO;
		aifs_session_not_responding(s);
		if (IS_ERR(conn) || dialed) {
			if (time_before(jiffies, deadline))
				wait_event_killable_timeout(fsi->abort_wait,
							    aifs_aborted(fsi, aborts),
							    deadline - jiffies);
			if (fatal_signal_pending(current))
				return -EINTR;
			if (aifs_aborted(fsi, aborts))
				return -EIO;
		} else if (!spared && time_before(jiffies, deadline)) {
			/*
			 * A connection that worked until now, lost before our
			 * timeo was up (the keepalive's PING timed out on it):
			 * not a try of ours, once per call. Dial again at once.
			 */
			spared = true;
			try--;
		}
		if (try >= tries)
			return aifs_session_give_up(fsi);
		aifs_stat_add(fsi, AIFS_C_RETRIES, 1);
	}
}

/**
 * aifs_session_open - connect a new mount to its metadata server
 * @fsi: the mount, with its options
 * @fc: its mount context, for the network namespace and error messages
 *
 * Tries the servers of the source in order until one accepts and proves
 * the shared secret. On success the session stays until
 * aifs_session_close().
 *
 * Return: 0; -EACCES; -EINTR on a fatal signal; or the error of the last
 * server tried (-ECONNREFUSED, -ETIMEDOUT, -EHOSTUNREACH,
 * -EPROTONOSUPPORT, -EPROTO ...).
 */
int aifs_session_open(struct aifs_fs_info *fsi, struct fs_context *fc)
{
	struct aifs_session *s = &fsi->session;
	struct aifs_handshake hs;
	struct aifs_conn *conn;

	conn = aifs_session_dial(fsi, fc, fc->net_ns,
				 aifs_transport_get(fsi->transport),
				 aifs_timeo_jiffies(&fsi->opts), &hs);
	if (IS_ERR(conn) && aifs_transport_fallback(fsi, PTR_ERR(conn))) {
		infofc(fc, "transport=auto: no RDMA to the servers, using tcp");
		fsi->transport = AIFS_TRANSPORT_TCP;
		conn = aifs_session_dial(fsi, fc, fc->net_ns,
					 &aifs_tcp_transport,
					 aifs_timeo_jiffies(&fsi->opts), &hs);
	}
	if (IS_ERR(conn))
		return PTR_ERR(conn);

	mutex_init(&s->connect_lock);
	spin_lock_init(&s->lock);
	ratelimit_state_init(&s->chatter, DEFAULT_RATELIMIT_INTERVAL,
			     DEFAULT_RATELIMIT_BURST);
	s->net = get_net(fc->net_ns);
	memcpy(s->fs_uuid, hs.fs_uuid, sizeof(s->fs_uuid));
	aifs_session_install(s, conn, &hs);
	INIT_DELAYED_WORK(&s->keepalive, aifs_keepalive);
	queue_delayed_work(system_long_wq, &s->keepalive,
			   aifs_timeo_jiffies(&fsi->opts) / 2);
	return 0;
}

/**
 * aifs_session_shutdown - fail the session's calls for good: umount began
 * @fsi: the mount
 *
 * A call in flight (a background MAP_GET) ends at once, and no task dials
 * the servers again: umount never waits for a dead cluster.
 */
void aifs_session_shutdown(struct aifs_fs_info *fsi)
{
	struct aifs_session *s = &fsi->session;
	struct aifs_conn *conn;

	if (!s->conn)
		return;
	WRITE_ONCE(s->closing, true);
	spin_lock(&s->lock);
	conn = aifs_conn_get(s->conn);
	spin_unlock(&s->lock);
	aifs_conn_fail(conn, -ESHUTDOWN);
	aifs_conn_put(conn);
}

/**
 * aifs_session_abort - fail the call in flight to the MDS (umount -f)
 * @fsi: the mount
 *
 * The connection is failed with -EIO, which no call tries again
 * (aifs_session_lost()); the next call dials the servers again.
 */
void aifs_session_abort(struct aifs_fs_info *fsi)
{
	struct aifs_conn *conn;

	if (!fsi->session.conn)
		return;
	conn = aifs_session_live(&fsi->session);
	if (!conn)
		return;
	aifs_conn_fail(conn, -EIO);
	aifs_conn_put(conn);
}

/**
 * aifs_session_close - end a mount's session, if it has one
 * @fsi: the mount
 *
 * Fails what is outstanding, stops the keepalive, closes the connection.
 * No call may be running: the superblock is gone.
 */
void aifs_session_close(struct aifs_fs_info *fsi)
{
	struct aifs_session *s = &fsi->session;

	if (!s->conn)
		return;
	/* ends a PING in flight at once */
	aifs_conn_fail(s->conn, -ESHUTDOWN);
	cancel_delayed_work_sync(&s->keepalive);
	aifs_conn_close(s->conn);
	s->conn = NULL;
	put_net(s->net);
	mutex_destroy(&s->connect_lock);
}
