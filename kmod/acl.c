// SPDX-License-Identifier: GPL-2.0
/*
 * aifs - POSIX ACLs, as fs/ceph/acl.c and fs/9p/acl.c: the ACLs are the
 * xattrs system.posix_acl_access and system.posix_acl_default of the MDS,
 * in the kernel's posix_acl_xattr format with the ids of the superblock's
 * user namespace (those of struct aifs_cred).
 *
 * The MDS interprets them (Documentation/mds.md): setting the access ACL
 * sets the mode, chmod rewrites the ACL, new inodes inherit the default
 * ACL of their directory in the CREATE/MKDIR/MKNOD that makes them (the
 * request carries the caller's umask, which the VFS leaves to a
 * SB_POSIXACL file system), and its permission checks evaluate the ACL.
 * So the client neither calls posix_acl_chmod() nor posix_acl_create():
 * each of those changes is one request, atomic on the MDS.
 *
 * Here the ACLs are fetched for generic_permission() and kept in the
 * inode's ACL cache, which aifs_inode_update() empties whenever the MDS's
 * change counter of the inode moved. A value from the MDS is untrusted: one
 * that posix_acl_from_xattr() or posix_acl_valid() refuses is -EIO.
 */
#define pr_fmt(fmt) "aifs: " fmt

#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/posix_acl.h>
#include <linux/posix_acl_xattr.h>
#include <linux/slab.h>
#include <linux/xattr.h>

#include "internal.h"

static const char *aifs_acl_name(int type)
{
	return type == ACL_TYPE_ACCESS ? XATTR_NAME_POSIX_ACL_ACCESS :
					 XATTR_NAME_POSIX_ACL_DEFAULT;
}

/* The ACL in @value (@len bytes) from the MDS: NULL, an ACL or -EIO. */
static struct posix_acl *aifs_acl_from_value(struct inode *inode,
					     const void *value, size_t len)
{
	struct user_namespace *ns = inode->i_sb->s_user_ns;
	struct posix_acl *acl;

	acl = posix_acl_from_xattr(ns, value, len);
	if (!IS_ERR_OR_NULL(acl) && posix_acl_valid(ns, acl)) {
		posix_acl_release(acl);
		acl = ERR_PTR(-EINVAL);
	}
	if (IS_ERR(acl) && PTR_ERR(acl) != -ENOMEM) {
		pr_warn_ratelimited("malformed ACL of inode %llu from the server\n",
				    (u64)inode->i_ino);
		return ERR_PTR(-EIO);
	}
	return acl;
}

/*
 * ->get_acl, or ->get_inode_acl where permission checks have one of
 * their own (compat.h): the VFS caches what this returns.
 */
struct posix_acl *aifs_get_acl(struct inode *inode, int type, bool rcu)
{
	struct posix_acl *acl;
	ssize_t len;
	void *value;

	if (rcu)
		return ERR_PTR(-ECHILD);
	value = kvmalloc(AIFS_XATTR_SIZE_MAX, GFP_KERNEL);
	if (!value)
		return ERR_PTR(-ENOMEM);
	len = aifs_getxattr_call(inode, aifs_acl_name(type), value,
				 AIFS_XATTR_SIZE_MAX);
	if (len == -ENODATA)
		acl = NULL;
	else if (len < 0)
		acl = ERR_PTR(len);
	else
		acl = aifs_acl_from_value(inode, value, len);
	kvfree(value);
	return acl;
}

/*
 * ->set_acl, from the VFS's system.posix_acl_* handlers, which checked
 * ownership and the ACL. The MDS sets the mode from an access ACL and
 * keeps none that says no more than the mode; the reply's attributes
 * bring the mode, and the cache gets what the MDS kept.
 */
int aifs_set_acl(struct aifs_idmap *idmap, struct AIFS_ACL_FILE *file,
		 struct posix_acl *acl, int type)
{
	struct inode *inode = aifs_acl_file_inode(file);
	void *value = NULL;
	size_t size = 0;
	int err;

	if (acl) {
		if (posix_acl_xattr_size(acl->a_count) > AIFS_XATTR_SIZE_MAX)
			return -E2BIG;
		value = aifs_acl_to_xattr(inode->i_sb->s_user_ns, acl, &size);
		if (IS_ERR(value))
			return PTR_ERR(value);
	}
	err = aifs_setxattr_call(inode, aifs_acl_name(type), value, size, 0);
	if (!acl && err == -ENODATA)
		err = 0;	/* removing no ACL, as other file systems */
	if (err)
		goto out;
	if (type == ACL_TYPE_ACCESS && acl && !posix_acl_equiv_mode(acl, NULL))
		acl = NULL;
	set_cached_acl(inode, type, acl);
out:
	kfree(value);
	return err;
}
