// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The module's generic netlink family (aifs_genl.h) from user space, with
 * libnl-genl: a mount's statistics by its st_dev.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <sys/time.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include "cli.h"

/* What the callbacks of one STATS_GET leave. */
struct genl_reply {
	struct cli_mount_stats *st;
	int error;	/* the kernel's, negative, from its error message */
	bool got;	/* the statistics */
	bool acked;	/* the acknowledgement that ends the exchange */
};

/* A reply the module owes must not hang the command. */
#define GENL_TIMEOUT_S	10

/* Up to @max u64 of an array attribute into @dst; the rest stays zero. */
static void genl_copy_u64s(u64 *dst, size_t max, const struct nlattr *a)
{
	size_t n;

	if (!a)
		return;
	n = nla_len(a) / sizeof(u64);
	memcpy(dst, nla_data(a), (n < max ? n : max) * sizeof(u64));
}

static int genl_stats_parse(struct nl_msg *msg, void *arg)
{
	struct genl_reply *r = arg;
	struct cli_mount_stats *st = r->st;
	struct nlattr *tb[AIFS_GENL_A_MAX + 1];

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, AIFS_GENL_A_MAX, NULL) ||
	    !tb[AIFS_GENL_A_MOUNT_ID] || !tb[AIFS_GENL_A_AGE_MS])
		return NL_SKIP;
	st->id = nla_get_u32(tb[AIFS_GENL_A_MOUNT_ID]);
	st->age_ms = nla_get_u64(tb[AIFS_GENL_A_AGE_MS]);
	if (tb[AIFS_GENL_A_TRANSPORT])
		nla_strlcpy(st->transport, tb[AIFS_GENL_A_TRANSPORT],
			    sizeof(st->transport));
	genl_copy_u64s(st->count, AIFS_NR_COUNTERS, tb[AIFS_GENL_A_COUNTERS]);
	genl_copy_u64s(st->mds_ops, AIFS_STATS_NR_OPS,
		       tb[AIFS_GENL_A_MDS_OPS]);
	genl_copy_u64s(&st->lat[0][0], AIFS_LAT_CLASSES * AIFS_LAT_BUCKETS,
		       tb[AIFS_GENL_A_LATENCY]);
	r->got = true;
	return NL_OK;
}

static int genl_acked(struct nl_msg *msg, void *arg)
{
	struct genl_reply *r = arg;

	(void)msg;
	r->acked = true;
	return NL_STOP;
}

static int genl_error(struct sockaddr_nl *nla, struct nlmsgerr *err,
		      void *arg)
{
	struct genl_reply *r = arg;

	(void)nla;
	r->error = err->error;
	return NL_STOP;
}

static int genl_stats_send(struct nl_sock *sk, int family, dev_t dev)
{
	struct nl_msg *msg = nlmsg_alloc();
	int err = -NLE_NOMEM;

	if (!msg)
		return err;
	if (genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, 0,
			AIFS_GENL_CMD_STATS_GET, AIFS_GENL_VERSION) &&
	    !nla_put_u32(msg, AIFS_GENL_A_DEV_MAJOR, major(dev)) &&
	    !nla_put_u32(msg, AIFS_GENL_A_DEV_MINOR, minor(dev)))
		err = nl_send_auto(sk, msg);
	nlmsg_free(msg);
	return err < 0 ? err : 0;
}

/*
 * The statistics of the aifs mount whose st_dev is @dev into @st: 0,
 * -ENOENT when the module is not loaded, -ENODEV when @dev is no aifs
 * mount, another negative errno when netlink failed (said on stderr).
 */
int cli_stats_get(dev_t dev, struct cli_mount_stats *st)
{
	struct timeval timeout = { .tv_sec = GENL_TIMEOUT_S };
	struct genl_reply r = { .st = st };
	struct nl_sock *sk = nl_socket_alloc();
	int family, err = -ENOMEM;

	memset(st, 0, sizeof(*st));
	if (!sk)
		return err;
	err = genl_connect(sk);
	if (!err && setsockopt(nl_socket_get_fd(sk), SOL_SOCKET, SO_RCVTIMEO,
			       &timeout, sizeof(timeout)))
		err = -nl_syserr2nlerr(errno);
	if (err)
		goto out;
	family = genl_ctrl_resolve(sk, AIFS_GENL_NAME);
	if (family < 0) {
		err = -ENOENT;
		goto out_quiet;
	}
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, genl_stats_parse,
			    &r);
	nl_socket_modify_cb(sk, NL_CB_ACK, NL_CB_CUSTOM, genl_acked, &r);
	nl_socket_modify_err_cb(sk, NL_CB_CUSTOM, genl_error, &r);
	err = genl_stats_send(sk, family, dev);
	/* the reply, then the acknowledgement; or only an error */
	while (!err && !r.error && !r.acked)
		err = nl_recvmsgs_default(sk);
	if (r.error) {
		err = r.error;
		goto out_quiet;
	}
	if (!err && !r.got)
		err = -NLE_MSG_TRUNC;	/* acknowledged, with no statistics */
out:
	if (err)
		fprintf(stderr, "aifs: generic netlink: %s\n", nl_geterror(err));
	err = err ? -EIO : 0;
out_quiet:
	nl_socket_free(sk);
	return err;
}
