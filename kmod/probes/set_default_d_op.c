// SPDX-License-Identifier: GPL-2.0
/* A super block's dentry operations are set by a call (after 6.12). */
#include <linux/dcache.h>
#include <linux/fs.h>

void aifs_probe(struct super_block *sb, const struct dentry_operations *ops)
{
	set_default_d_op(sb, ops);
}
