// SPDX-License-Identifier: GPL-2.0
/* generic_fillattr() is told what the caller asked for (6.6). */
#include <linux/fs.h>
#include <linux/stat.h>

void aifs_probe(struct inode *inode, struct kstat *stat)
{
	generic_fillattr(NULL, STATX_BASIC_STATS, inode, stat);
}
