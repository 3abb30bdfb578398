// SPDX-License-Identifier: GPL-2.0
/*
 * aifs - the dentry cache: names, positive and negative, are trusted for
 * dentry_timeout seconds after the MDS last confirmed them (their expiry
 * in jiffies is in d_time); then the next path walk asks again with a
 * LOOKUP and keeps the dentry only if the name still leads to the same
 * inode (number and generation), or still to none.
 */
#include <linux/jiffies.h>
#include <linux/namei.h>

#include "internal.h"

/* The MDS has just confirmed @dentry (positive or negative). */
void aifs_dentry_set_expiry(struct dentry *dentry)
{
	struct aifs_fs_info *fsi = AIFS_SB(dentry->d_sb);
	unsigned long t = aifs_get_uint(&fsi->opts, AIFS_OPT_DENTRY_TIMEOUT);

	WRITE_ONCE(dentry->d_time, jiffies + t * HZ);
}

/*
 * Whether @dentry is still good without asking the MDS: 1 yes, 0 no,
 * -ECHILD to be asked again outside an RCU walk, else AIFS_D_ASK.
 */
static int aifs_d_known(struct dentry *dentry, unsigned int flags)
{
	struct inode *inode = d_inode_rcu(dentry);

	if (IS_ROOT(dentry))
		return 1;
	if (inode && test_bit(AIFS_I_STALE, &AIFS_I(inode)->flags))
		return 0;
	if (time_before(jiffies, READ_ONCE(dentry->d_time)))
		return 1;
	if (flags & LOOKUP_RCU)
		return -ECHILD;
	return AIFS_D_ASK;
}

/* Whether @name in directory @dir_ino still names @dentry's inode. */
static int aifs_d_ask(struct dentry *dentry, u64 dir_ino,
		      const struct qstr *name)
{
	struct inode *inode = d_inode(dentry);
	struct aifs_entry_rep rep;
	int err;

	err = aifs_name_call(dentry->d_sb, dir_ino, AIFS_OP_LOOKUP,
			     (struct aifs_span){ name->name, name->len }, &rep);
	if (err == -ENOENT)
		err = inode ? 0 : 1;
	else if (!err && (!inode || le64_to_cpu(rep.attr.ino) != inode->i_ino ||
			  le64_to_cpu(rep.attr.generation) !=
			  AIFS_I(inode)->generation))
		err = 0;
	else if (!err)
		err = aifs_inode_update(inode, &rep.attr) ? 0 : 1;
	if (err == 1)
		aifs_dentry_set_expiry(dentry);
	return err;
}

AIFS_D_REVALIDATE(aifs_d_revalidate, aifs_d_known, aifs_d_ask)

const struct dentry_operations aifs_dentry_ops = {
	.d_revalidate	= aifs_d_revalidate,
};
