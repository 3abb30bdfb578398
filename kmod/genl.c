// SPDX-License-Identifier: GPL-2.0
/*
 * aifs - the generic netlink family "aifs": a mount's statistics for the
 * aifs command (aifs stats). The messages are in aifs_genl.h.
 *
 * A mount is named by its st_dev, which any process that can see the
 * mount point has; the superblock is found among aifs's own with
 * iterate_supers_type(), which holds it (s_umount) while its counters are
 * summed, so a concurrent umount waits.
 */
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/slab.h>
#include <net/genetlink.h>

#include "internal.h"

/* What STATS_GET answers of the mount it found. */
struct aifs_genl_stats {
	dev_t dev;
	bool found;
	u32 id;
	u64 age_ms;
	const char *transport;
	struct aifs_stats sum;
};

static void aifs_genl_match(struct super_block *sb, void *arg)
{
	struct aifs_genl_stats *st = arg;
	struct aifs_fs_info *fsi = AIFS_SB(sb);

	if (st->found || sb->s_dev != st->dev)
		return;
	st->found = true;
	st->id = fsi->id;
	st->age_ms = div_u64(ktime_get_boottime_ns() - fsi->born_ns,
			     NSEC_PER_MSEC);
	st->transport = aifs_transport_name(READ_ONCE(fsi->transport));
	aifs_stats_sum(fsi, &st->sum);
}

static size_t aifs_genl_stats_size(void)
{
	return nla_total_size(sizeof(u32)) * 3 +
	       nla_total_size_64bit(sizeof(u64)) +
	       nla_total_size(sizeof("rdma")) +
	       nla_total_size(sizeof_field(struct aifs_stats, count)) +
	       nla_total_size(sizeof_field(struct aifs_stats, mds_ops)) +
	       nla_total_size(sizeof_field(struct aifs_stats, lat));
}

static int aifs_genl_stats_put(struct sk_buff *msg, u32 major, u32 minor,
			       const struct aifs_genl_stats *st)
{
	if (nla_put_u32(msg, AIFS_GENL_A_DEV_MAJOR, major) ||
	    nla_put_u32(msg, AIFS_GENL_A_DEV_MINOR, minor) ||
	    nla_put_u32(msg, AIFS_GENL_A_MOUNT_ID, st->id) ||
	    nla_put_u64_64bit(msg, AIFS_GENL_A_AGE_MS, st->age_ms,
			      AIFS_GENL_A_PAD) ||
	    nla_put_string(msg, AIFS_GENL_A_TRANSPORT, st->transport) ||
	    nla_put(msg, AIFS_GENL_A_COUNTERS, sizeof(st->sum.count),
		    st->sum.count) ||
	    nla_put(msg, AIFS_GENL_A_MDS_OPS, sizeof(st->sum.mds_ops),
		    st->sum.mds_ops) ||
	    nla_put(msg, AIFS_GENL_A_LATENCY, sizeof(st->sum.lat),
		    st->sum.lat))
		return -EMSGSIZE;
	return 0;
}

static int aifs_genl_stats_get(struct sk_buff *skb, struct genl_info *info);

static const struct nla_policy aifs_genl_policy[AIFS_GENL_A_MAX + 1] = {
	[AIFS_GENL_A_DEV_MAJOR] = { .type = NLA_U32 },
	[AIFS_GENL_A_DEV_MINOR] = { .type = NLA_U32 },
};

static const struct genl_small_ops aifs_genl_ops[] = {
	{
		.cmd = AIFS_GENL_CMD_STATS_GET,
		.doit = aifs_genl_stats_get,
	},
};

static struct genl_family aifs_genl_family __ro_after_init = {
	.name = AIFS_GENL_NAME,
	.version = AIFS_GENL_VERSION,
	.maxattr = AIFS_GENL_A_MAX,
	.policy = aifs_genl_policy,
	.module = THIS_MODULE,
	.small_ops = aifs_genl_ops,
	.n_small_ops = ARRAY_SIZE(aifs_genl_ops),
};

static int aifs_genl_stats_get(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *const *attrs = info->attrs;
	struct aifs_genl_stats *st;
	struct sk_buff *msg;
	u32 major, minor;
	void *hdr;
	int err;

	if (!attrs[AIFS_GENL_A_DEV_MAJOR] || !attrs[AIFS_GENL_A_DEV_MINOR]) {
		GENL_SET_ERR_MSG(info, "the mount's device number is missing");
		return -EINVAL;
	}
	major = nla_get_u32(attrs[AIFS_GENL_A_DEV_MAJOR]);
	minor = nla_get_u32(attrs[AIFS_GENL_A_DEV_MINOR]);
	if (major >= 1U << (32 - MINORBITS) || minor > MINORMASK) {
		GENL_SET_ERR_MSG(info, "no such device number");
		return -EINVAL;
	}
	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	st->dev = MKDEV(major, minor);
	iterate_supers_type(&aifs_fs_type, aifs_genl_match, st);
	err = -ENODEV;
	if (!st->found)
		goto out;
	err = -ENOMEM;
	msg = genlmsg_new(aifs_genl_stats_size(), GFP_KERNEL);
	if (!msg)
		goto out;
	hdr = genlmsg_put_reply(msg, info, &aifs_genl_family, 0,
				AIFS_GENL_CMD_STATS_GET);
	err = -EMSGSIZE;
	if (!hdr || aifs_genl_stats_put(msg, major, minor, st)) {
		nlmsg_free(msg);
		goto out;
	}
	genlmsg_end(msg, hdr);
	err = genlmsg_reply(msg, info);
out:
	kfree(st);
	return err;
}

int __init aifs_genl_init(void)
{
	return genl_register_family(&aifs_genl_family);
}

void aifs_genl_exit(void)
{
	genl_unregister_family(&aifs_genl_family);
}
