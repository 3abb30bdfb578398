// SPDX-License-Identifier: GPL-2.0
/* ->mkdir hands back a dentry (after 6.12). */
#include <linux/fs.h>

static struct dentry *aifs_probe_mkdir(struct mnt_idmap *idmap,
				       struct inode *dir, struct dentry *dentry,
				       umode_t mode)
{
	return NULL;
}

const struct inode_operations aifs_probe_iops = {
	.mkdir	= aifs_probe_mkdir,
};
