// SPDX-License-Identifier: GPL-2.0
/*
 * aifs - requests to the metadata server: the caller's credentials, the
 * encoding, the call on the session's connection and the decoding of the
 * reply, in one place, so that every VFS operation is a few lines.
 *
 * A reply is untrusted: the codec checks its lengths, counts, names and
 * attributes before anything here uses it, and a reply it refuses fails
 * the call with -EIO. A server's status is passed on as the errno of the
 * call when it is one a system call may return; anything else (0 is not
 * sent as an error; 512 and above are the kernel's internal codes, such as
 * -ERESTARTSYS, which must never reach user space) becomes -EIO.
 */
#define pr_fmt(fmt) "aifs: " fmt

#include <linux/cred.h>
#include <linux/slab.h>
#include <linux/uidgid.h>
#include <linux/wait.h>

#include "internal.h"

/* Largest errno a server may hand to a system call (below ERESTARTSYS). */
#define AIFS_MAX_USER_ERRNO	511

/* Who asks: fsuid, fsgid and the first AIFS_CRED_MAX_GROUPS groups. */
static void aifs_mds_cred(struct super_block *sb, struct aifs_cred *wire)
{
	const struct cred *cred = current_cred();
	struct user_namespace *ns = sb->s_user_ns;
	unsigned int i, n = 0;

	memset(wire, 0, sizeof(*wire));
	wire->uid = cpu_to_le32(from_kuid_munged(ns, cred->fsuid));
	wire->gid = cpu_to_le32(from_kgid_munged(ns, cred->fsgid));
	if (cred->group_info)
		n = min_t(unsigned int, cred->group_info->ngroups,
			  AIFS_CRED_MAX_GROUPS);
	for (i = 0; i < n; i++) {
		kgid_t gid = cred->group_info->gid[i];

		wire->groups[i] = cpu_to_le32(from_kgid_munged(ns, gid));
	}
	wire->ngroups = cpu_to_le32(n);
}

static int aifs_mds_malformed(struct aifs_fs_info *fsi, u16 op, int err)
{
	struct sockaddr_storage addr;

	aifs_session_server(fsi, &addr);
	pr_warn_ratelimited("server %pISpc: malformed %s reply (%d)\n", &addr,
			    aifs_opcode_name(op), err);
	return -EIO;
}

/**
 * aifs_mds_init - set up a mount's bound on outstanding MDS requests
 * @fsi: the mount
 */
void aifs_mds_init(struct aifs_fs_info *fsi)
{
	atomic_set(&fsi->mds.inflight, 0);
	init_waitqueue_head(&fsi->mds.wait);
}

/*
 * Take one of the max_inflight slots. The bound is read at every try, so
 * that a change made at run time applies to the requests waiting already.
 */
static bool aifs_mds_slot_try(struct aifs_fs_info *fsi)
{
	int max = aifs_get_uint(&fsi->opts, AIFS_OPT_MAX_INFLIGHT);
	int cur = atomic_read(&fsi->mds.inflight);

	do {
		if (cur >= max)
			return false;
	} while (!atomic_try_cmpxchg(&fsi->mds.inflight, &cur, cur + 1));
	return true;
}

static int aifs_mds_slot_get(struct aifs_fs_info *fsi)
{
	/* exclusive: a freed slot wakes one waiter, not all of them */
	if (wait_event_killable_exclusive(fsi->mds.wait,
					  aifs_mds_slot_try(fsi)))
		return -EINTR;
	return 0;
}

static void aifs_mds_slot_put(struct aifs_fs_info *fsi)
{
	atomic_dec(&fsi->mds.inflight);
	wake_up(&fsi->mds.wait);
}

/**
 * aifs_mds_wake - let waiters for a slot look at max_inflight again
 * @fsi: the mount, whose max_inflight was just raised
 */
void aifs_mds_wake(struct aifs_fs_info *fsi)
{
	wake_up_all(&fsi->mds.wait);
}

/* One call on the session, within max_inflight, counted. */
static int aifs_mds_send(struct aifs_fs_info *fsi, u16 op, const void *buf,
			 u32 len, void *rep, u32 rep_len, bool once)
{
	u64 start;
	int ret;

	ret = aifs_mds_slot_get(fsi);
	if (ret)
		return ret;
	start = ktime_get_ns();
	ret = aifs_session_call(fsi, op, buf, len, rep, rep_len, once);
	aifs_mds_slot_put(fsi);
	aifs_stats_call(fsi, AIFS_PEER_MDS, op, len, ret, start);
	return ret;
}

/**
 * aifs_mds_call - one namespace request and its validated reply
 * @sb: the mount
 * @m: the request; on success the reply's fixed struct is in @m->rep and
 *	its parts point into @m->rep_buf
 *
 * The call is retried across reconnections as the mount's hard/soft
 * options say (aifs_session_call()).
 *
 * Return: 0, the server's errno, -EIO for a reply the codec refuses or
 * when a soft mount gave up, or the error of the connection (-ETIMEDOUT,
 * -ECONNRESET, -EINTR ...).
 */
int aifs_mds_call(struct super_block *sb, struct aifs_mds_msg *m)
{
	struct aifs_fs_info *fsi = AIFS_SB(sb);
	u32 len = m->req_size, rep_len;
	void *buf, *rep;
	int i, ret;

	for (i = 0; i < AIFS_MSG_MAX_PARTS; i++)
		len += m->req_parts[i].len;
	if (len > AIFS_MAX_PAYLOAD)
		return -EINVAL;
	buf = kmalloc(len, GFP_NOFS);
	if (!buf)
		return -ENOMEM;
	aifs_mds_cred(sb, m->req);
	ret = aifs_msg_encode(m->op, false, buf, len, m->req, m->req_size,
			      m->req_parts);
	if (ret < 0) {
		/* names and sizes are checked by the callers: a bug here */
		pr_warn_ratelimited("cannot encode %s: %d\n",
				    aifs_opcode_name(m->op), ret);
		ret = ret == -ENAMETOOLONG ? ret : -EINVAL;
		goto out;
	}

	rep = m->rep_buf;
	rep_len = m->rep_max;
	if (!rep) {
		rep = kmalloc(m->rep_size, GFP_NOFS);
		rep_len = m->rep_size;
		if (!rep) {
			ret = -ENOMEM;
			goto out;
		}
	}
	ret = aifs_mds_send(fsi, m->op, buf, len, rep, rep_len, m->once);
	if (ret >= 0) {
		memset(m->rep_parts, 0, sizeof(m->rep_parts));
		ret = aifs_msg_decode(m->op, true, rep, ret, m->rep,
				      m->rep_size, m->rep_parts);
		if (ret)
			ret = aifs_mds_malformed(fsi, m->op, ret);
	} else if (ret < -AIFS_MAX_USER_ERRNO) {
		ret = -EIO;
	}
	if (!m->rep_buf)
		kfree(rep);
out:
	kfree(buf);
	return ret;
}
