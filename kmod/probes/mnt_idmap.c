// SPDX-License-Identifier: GPL-2.0
/* Inode operations take the mount's idmapping, not a user namespace (6.3). */
#include <linux/fs.h>

static int aifs_probe_setattr(struct mnt_idmap *idmap, struct dentry *dentry,
			      struct iattr *iattr)
{
	return setattr_prepare(idmap, dentry, iattr);
}

const struct inode_operations aifs_probe_iops = {
	.setattr	= aifs_probe_setattr,
};
