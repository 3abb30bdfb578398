// SPDX-License-Identifier: GPL-2.0
/*
 * aifs - a mount's session with its metadata server: choosing the server,
 * the handshake, the keepalive and the teardown.
 */
#define pr_fmt(fmt) "aifs: " fmt

#include <crypto/hash.h>
#include <linux/jiffies.h>
#include <linux/sched/signal.h>
#include <linux/workqueue.h>

#include "internal.h"
#include "transport.h"

/* The mount's timeo (tenths of a second) in jiffies. */
static unsigned long aifs_timeout(struct aifs_fs_info *fsi)
{
	return msecs_to_jiffies(aifs_get_uint(&fsi->opts, AIFS_OPT_TIMEO) * 100);
}

/*
 * A PING every timeo/2 finds a dead server or a broken path while the
 * mount is idle, so that the next request fails at once instead of after
 * its own timeout. Any reply, even an error, shows the server alive; a
 * failed PING has closed the connection and said why in the kernel log.
 */
static void aifs_keepalive(struct work_struct *work)
{
	struct aifs_fs_info *fsi = container_of(to_delayed_work(work),
						struct aifs_fs_info,
						session.keepalive);
	struct aifs_session *s = &fsi->session;
	unsigned long timeout = aifs_timeout(fsi);

	aifs_conn_call(s->conn, AIFS_OP_PING, NULL, 0, NULL, 0, timeout);
	if (!aifs_conn_error(s->conn))
		queue_delayed_work(system_long_wq, &s->keepalive, timeout / 2);
}

/* Connect to @addr and authenticate; @hmac is keyed with the secret. */
static int aifs_session_try(struct aifs_fs_info *fsi, struct fs_context *fc,
			    const struct sockaddr_storage *addr,
			    struct crypto_shash *hmac)
{
	struct aifs_session *s = &fsi->session;
	struct aifs_handshake hs;
	struct aifs_conn *conn;
	int err;

	conn = aifs_conn_open(fc->net_ns, addr, &aifs_tcp_transport,
			      aifs_timeout(fsi));
	if (IS_ERR(conn)) {
		err = PTR_ERR(conn);
		if (err != -EINTR)
			warn_plog(&fc->log, "cannot connect to server %pISpc: %pe",
				  addr, conn);
		return err;
	}

	err = aifs_handshake(conn, &fc->log, hmac, &hs, aifs_timeout(fsi));
	if (err) {
		aifs_conn_close(conn);
		return err;
	}

	s->conn = conn;
	s->server = *addr;
	s->version = hs.version;
	s->id = hs.session_id;
	memcpy(s->fs_uuid, hs.fs_uuid, sizeof(s->fs_uuid));
	return 0;
}

/**
 * aifs_session_open - connect a new mount to its metadata server
 * @fsi: the mount, with its options
 * @fc: its mount context, for the network namespace and error messages
 *
 * Tries the servers of the source in order until one accepts and proves
 * the shared secret. A refused authentication ends the search: every
 * server of a file system has the same secret. On success the session
 * stays until aifs_session_close().
 *
 * Return: 0; -EACCES; -EINTR on a fatal signal; or the error of the last
 * server tried (-ECONNREFUSED, -ETIMEDOUT, -EHOSTUNREACH,
 * -EPROTONOSUPPORT, -EPROTO ...).
 */
int aifs_session_open(struct aifs_fs_info *fsi, struct fs_context *fc)
{
	const struct aifs_mount_options *opts = &fsi->opts;
	struct crypto_shash *hmac;
	unsigned int i;
	int err;

	hmac = crypto_alloc_shash("hmac(sha256)", 0, 0);
	if (IS_ERR(hmac))
		return PTR_ERR(hmac);
	err = crypto_shash_setkey(hmac, opts->secret, strlen(opts->secret));
	if (err)
		goto out;

	for (i = 0; i < opts->nr_servers; i++) {
		err = aifs_session_try(fsi, fc, &opts->servers[i], hmac);
		if (!err || err == -EACCES || err == -ENOMEM)
			goto out;
		if (err == -EINTR || fatal_signal_pending(current)) {
			err = -EINTR;
			goto out;
		}
	}
	errorfc(fc, "cannot reach any server of %s: %pe", fc->source,
		ERR_PTR(err));
out:
	/* the key lives in the transform: do not keep it longer */
	crypto_free_shash(hmac);
	if (!err) {
		INIT_DELAYED_WORK(&fsi->session.keepalive, aifs_keepalive);
		queue_delayed_work(system_long_wq, &fsi->session.keepalive,
				   aifs_timeout(fsi) / 2);
	}
	return err;
}

/**
 * aifs_session_close - end a mount's session, if it has one
 * @fsi: the mount
 *
 * Fails what is outstanding, stops the keepalive, closes the connection.
 */
void aifs_session_close(struct aifs_fs_info *fsi)
{
	struct aifs_session *s = &fsi->session;

	if (!s->conn)
		return;
	/* ends a PING in flight at once, and with it the keepalive */
	aifs_conn_fail(s->conn, -ESHUTDOWN);
	cancel_delayed_work_sync(&s->keepalive);
	aifs_conn_close(s->conn);
	s->conn = NULL;
}
