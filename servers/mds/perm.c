// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Permission checks, as generic_permission() and may_delete() in the
 * kernel: the mode bits of the owner, the group or the others, root
 * (uid 0) passing everything but execution of a file that nobody may
 * execute, and the sticky bit restricting deletion.  For others than the
 * owner, an access ACL decides instead of the group and other bits
 * (acl.c), when the group bits (an ACL's mask) give anything at all, as
 * the kernel's acl_permission_check().  The client sends its
 * fsuid, fsgid and groups in every request (struct aifs_cred); the MDS
 * trusts the authenticated client's word, as NFS does with AUTH_SYS.
 */
#include "mds.h"

void mds_cred_from_wire(struct mds_cred *cred, const struct aifs_cred *w)
{
	u32 i;

	cred->uid = le32_to_cpu(w->uid);
	cred->gid = le32_to_cpu(w->gid);
	cred->ngroups = le32_to_cpu(w->ngroups);
	if (cred->ngroups > AIFS_CRED_MAX_GROUPS)
		cred->ngroups = AIFS_CRED_MAX_GROUPS;
	for (i = 0; i < cred->ngroups; i++)
		cred->groups[i] = le32_to_cpu(w->groups[i]);
}

bool mds_in_group(const struct mds_cred *cred, u32 gid)
{
	u32 i;

	if (cred->gid == gid)
		return true;
	for (i = 0; i < cred->ngroups; i++)
		if (cred->groups[i] == gid)
			return true;
	return false;
}

bool mds_is_owner(const struct mds_cred *cred, const struct mds_inode *inode)
{
	return !cred->uid || cred->uid == inode->uid;
}

/* @mode for @inode, without setgid unless @cred is root or in its group. */
u32 mds_strip_sgid(const struct mds_cred *cred, const struct mds_inode *inode,
		   u32 mode)
{
	if (cred->uid && !mds_in_group(cred, inode->gid))
		mode &= ~S_ISGID;
	return mode;
}

/* 0, -EACCES or -EIO (a broken ACL): may @cred do @mask (MDS_MAY_*)? */
int mds_permission(struct mds_txn *t, const struct mds_cred *cred,
		   const struct mds_inode *inode, int mask)
{
	u32 mode = inode->mode;
	int err;

	if (!cred->uid) {
		/* Root executes only what someone may execute (or a dir). */
		if (!(mask & MDS_MAY_EXEC) || S_ISDIR(mode) || (mode & 0111))
			return 0;
		return -EACCES;
	}
	if (cred->uid == inode->uid)
		return (mask & ~(mode >> 6) & 7) ? -EACCES : 0;
	if (mode & S_IRWXG) {
		err = mds_acl_permission(t, cred, inode, mask);
		if (err != -EAGAIN)
			return err;
	}
	if (mds_in_group(cred, inode->gid))
		mode >>= 3;
	return (mask & ~mode & 7) ? -EACCES : 0;
}

int mds_may_lookup(struct mds_txn *t, const struct mds_cred *cred,
		   const struct mds_inode *dir)
{
	if (!S_ISDIR(dir->mode))
		return -ENOTDIR;
	return mds_permission(t, cred, dir, MDS_MAY_EXEC);
}

/* Adding or removing entries of @dir. */
int mds_may_change_dir(struct mds_txn *t, const struct mds_cred *cred,
		       const struct mds_inode *dir)
{
	if (!S_ISDIR(dir->mode))
		return -ENOTDIR;
	if (!dir->nlink)
		return -ENOENT;		/* removed while we came */
	return mds_permission(t, cred, dir, MDS_MAY_WRITE | MDS_MAY_EXEC);
}

/* Removing @victim from @dir: write access and the sticky bit's rule. */
int mds_may_delete(struct mds_txn *t, const struct mds_cred *cred,
		   const struct mds_inode *dir, const struct mds_inode *victim)
{
	int err = mds_may_change_dir(t, cred, dir);

	if (err)
		return err;
	if ((dir->mode & S_ISVTX) && cred->uid && cred->uid != dir->uid &&
	    cred->uid != victim->uid)
		return -EPERM;
	return 0;
}
