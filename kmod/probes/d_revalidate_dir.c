// SPDX-License-Identifier: GPL-2.0
/* ->d_revalidate is told the directory and a stable name (after 6.12). */
#include <linux/dcache.h>
#include <linux/fs.h>

static int aifs_probe_revalidate(struct inode *dir, const struct qstr *name,
				 struct dentry *dentry, unsigned int flags)
{
	return 1;
}

const struct dentry_operations aifs_probe_dops = {
	.d_revalidate	= aifs_probe_revalidate,
};
