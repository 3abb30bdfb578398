// SPDX-License-Identifier: GPL-2.0
/* ->create is not told whether the open asked for O_EXCL (after 6.12). */
#include <linux/fs.h>

static int aifs_probe_create(struct mnt_idmap *idmap, struct inode *dir,
			     struct dentry *dentry, umode_t mode)
{
	return 0;
}

const struct inode_operations aifs_probe_iops = {
	.create	= aifs_probe_create,
};
