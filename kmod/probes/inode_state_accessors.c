// SPDX-License-Identifier: GPL-2.0
/* An inode's state flags are read through accessors (after 6.12). */
#include <linux/fs.h>

bool aifs_probe(struct inode *inode)
{
	return inode_state_read_once(inode) & I_NEW;
}
