// SPDX-License-Identifier: GPL-2.0
/*
 * The ACL for permission checks comes from ->get_inode_acl, and ->set_acl
 * names the file by its dentry (6.2).
 */
#include <linux/fs.h>
#include <linux/posix_acl.h>

static struct posix_acl *aifs_probe_get(struct inode *inode, int type,
					bool rcu)
{
	return NULL;
}

const struct inode_operations aifs_probe_iops = {
	.get_inode_acl	= aifs_probe_get,
};
