// SPDX-License-Identifier: GPL-2.0
/*
 * aifs - names: lookup, create, mkdir, mknod, symlink, link, unlink, rmdir,
 * rename and symlink targets, each one MDS request.
 *
 * Replies carry the attributes of the directories and inodes an operation
 * touched (struct aifs_entry_rep, aifs_rename_rep): the caches are
 * updated from them without another round trip. Permissions are checked
 * twice: by the VFS against the cached attributes, and by the MDS against
 * the caller's credentials, which is the check that counts.
 */
#define pr_fmt(fmt) "aifs: " fmt

#include <linux/namei.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "internal.h"

static struct aifs_span aifs_dentry_span(const struct dentry *dentry)
{
	return (struct aifs_span){ dentry->d_name.name, dentry->d_name.len };
}

/*
 * A directory's attributes after an operation on it; a failure to take
 * them (a stale directory) does not undo the operation, so it only makes
 * the next getattr ask again.
 */
static void aifs_dir_update(struct inode *dir, const struct aifs_attr *attr)
{
	if (aifs_inode_update(dir, attr))
		WRITE_ONCE(AIFS_I(dir)->attr_expire, jiffies);
}

/*
 * Attributes of an inode a reply names that may not be the one we cache
 * (another client may have replaced the name meanwhile).
 */
static void aifs_other_update(struct inode *inode, const struct aifs_attr *attr)
{
	if (inode && le64_to_cpu(attr->ino) == inode->i_ino)
		aifs_dir_update(inode, attr);
	else if (inode)
		WRITE_ONCE(AIFS_I(inode)->attr_expire, jiffies);
}

/* LOOKUP, UNLINK, RMDIR: a name in a directory, an entry in the reply. */
int aifs_name_call(struct super_block *sb, u64 dir, u16 op,
		   struct aifs_span name, struct aifs_entry_rep *rep)
{
	struct aifs_name_req req = { .ino = cpu_to_le64(dir) };
	struct aifs_mds_msg m = {
		.op = op,
		.req = &req, .req_size = sizeof(req),
		.req_parts = { name },
		.rep = rep, .rep_size = sizeof(*rep),
	};

	if (name.len > AIFS_NAME_MAX)
		return -ENAMETOOLONG;
	return aifs_mds_call(sb, &m);
}

/*
 * Attach the inode of @attr to the new @dentry of @dir. A directory that
 * already has a dentry elsewhere, or an inode of another type than was
 * asked for, can only come from a broken server: -EIO.
 */
static int aifs_instantiate(struct inode *dir, struct dentry *dentry,
			    const struct aifs_attr *dattr,
			    const struct aifs_attr *attr, umode_t type)
{
	struct inode *inode;
	struct dentry *alias;

	aifs_dir_update(dir, dattr);
	inode = aifs_iget(dir->i_sb, attr);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	if ((inode->i_mode & S_IFMT) != type) {
		iput(inode);
		return -EIO;
	}
	if (S_ISDIR(type)) {
		alias = d_find_any_alias(inode);
		if (alias) {
			dput(alias);
			iput(inode);
			return -EIO;
		}
	}
	d_instantiate(dentry, inode);
	aifs_dentry_set_expiry(dentry);
	return 0;
}

static struct dentry *aifs_lookup(struct inode *dir, struct dentry *dentry,
				  unsigned int flags)
{
	struct aifs_entry_rep rep;
	struct inode *inode = NULL;
	int err;

	err = aifs_name_call(dir->i_sb, dir->i_ino, AIFS_OP_LOOKUP,
			     aifs_dentry_span(dentry), &rep);
	if (err && err != -ENOENT)
		return ERR_PTR(err);
	if (!err) {
		aifs_dir_update(dir, &rep.dir);
		inode = aifs_iget(dir->i_sb, &rep.attr);
		if (IS_ERR(inode))
			return ERR_CAST(inode);
	}
	/* positive, or negative (ENOENT): trusted for dentry_timeout */
	aifs_dentry_set_expiry(dentry);
	return d_splice_alias(inode, dentry);
}

/*
 * CREATE, MKDIR, MKNOD share the request. On a SB_POSIXACL superblock the
 * VFS leaves the umask to the file system: the MDS applies it, or in its
 * stead the directory's default ACL (acl.c).
 */
static int aifs_make_call(struct inode *dir, struct dentry *dentry, u16 op,
			  umode_t mode, dev_t rdev, u32 open_flags,
			  void *rep, u32 rep_size)
{
	struct aifs_create_req req = {
		.parent = cpu_to_le64(dir->i_ino),
		.mode = cpu_to_le32(mode),
		.umask = cpu_to_le32(IS_POSIXACL(dir) ? current_umask() : 0),
		.rdev_major = cpu_to_le32(MAJOR(rdev)),
		.rdev_minor = cpu_to_le32(MINOR(rdev)),
		.open_flags = cpu_to_le32(open_flags),
	};
	struct aifs_mds_msg m = {
		.op = op,
		.req = &req, .req_size = sizeof(req),
		.req_parts = { aifs_dentry_span(dentry) },
		.rep = rep, .rep_size = rep_size,
	};

	if (dentry->d_name.len > AIFS_NAME_MAX)
		return -ENAMETOOLONG;
	return aifs_mds_call(dir->i_sb, &m);
}

static int aifs_mknod_type(struct inode *dir, struct dentry *dentry,
			   u16 op, umode_t mode, dev_t rdev)
{
	struct aifs_entry_rep rep;
	int err;

	err = aifs_make_call(dir, dentry, op, mode, rdev, 0, &rep, sizeof(rep));
	return err ?: aifs_instantiate(dir, dentry, &rep.dir, &rep.attr,
				       mode & S_IFMT);
}

static int aifs_make_dir(struct inode *dir, struct dentry *dentry,
			 umode_t mode)
{
	return aifs_mknod_type(dir, dentry, AIFS_OP_MKDIR, S_IFDIR | mode, 0);
}

AIFS_MKDIR(aifs_mkdir, aifs_make_dir)

static int aifs_mknod(struct aifs_idmap *idmap, struct inode *dir,
		      struct dentry *dentry, umode_t mode, dev_t rdev)
{
	return aifs_mknod_type(dir, dentry, AIFS_OP_MKNOD, mode, rdev);
}

/*
 * The MDS opens what CREATE makes; with no data path yet nothing uses the
 * open, so it is closed at once. The read and write paths will keep it,
 * through atomic_open.
 */
static void aifs_close_handle(struct inode *dir, const struct aifs_attr *attr,
			      __le64 handle)
{
	struct aifs_close_req req = { .ino = attr->ino, .handle = handle };
	struct aifs_attr_rep rep;
	struct aifs_mds_msg m = {
		.op = AIFS_OP_CLOSE,
		.req = &req, .req_size = sizeof(req),
		.rep = &rep, .rep_size = sizeof(rep),
	};
	int err;

	/* a failure leaves the open to the end of the session */
	err = aifs_mds_call(dir->i_sb, &m);
	if (err)
		pr_debug("CLOSE of inode %llu: %d\n", le64_to_cpu(attr->ino), err);
}

static int aifs_create_file(struct inode *dir, struct dentry *dentry,
			    umode_t mode, bool excl)
{
	struct aifs_create_rep *rep;
	int err;

	rep = kmalloc(sizeof(*rep), GFP_NOFS);
	if (!rep)
		return -ENOMEM;
	err = aifs_make_call(dir, dentry, AIFS_OP_CREATE, S_IFREG | mode, 0,
			     AIFS_OPEN_RDONLY | (excl ? AIFS_OPEN_EXCL : 0),
			     rep, sizeof(*rep));
	if (!err) {
		aifs_close_handle(dir, &rep->open.attr, rep->open.handle);
		err = aifs_instantiate(dir, dentry, &rep->dir, &rep->open.attr,
				       S_IFREG);
	}
	kfree(rep);
	return err;
}

AIFS_CREATE(aifs_create, aifs_create_file)

static int aifs_symlink(struct aifs_idmap *idmap, struct inode *dir,
			struct dentry *dentry, const char *target)
{
	struct aifs_symlink_req req = { .parent = cpu_to_le64(dir->i_ino) };
	struct aifs_entry_rep rep;
	size_t len = strlen(target);
	struct aifs_mds_msg m = {
		.op = AIFS_OP_SYMLINK,
		.req = &req, .req_size = sizeof(req),
		.req_parts = { aifs_dentry_span(dentry), { target, len } },
		.rep = &rep, .rep_size = sizeof(rep),
	};
	int err;

	if (dentry->d_name.len > AIFS_NAME_MAX || len > AIFS_SYMLINK_MAX)
		return -ENAMETOOLONG;
	err = aifs_mds_call(dir->i_sb, &m);
	return err ?: aifs_instantiate(dir, dentry, &rep.dir, &rep.attr,
				       S_IFLNK);
}

static int aifs_link(struct dentry *old_dentry, struct inode *dir,
		     struct dentry *dentry)
{
	struct inode *inode = d_inode(old_dentry);
	struct aifs_link_req req = {
		.ino = cpu_to_le64(inode->i_ino),
		.new_parent = cpu_to_le64(dir->i_ino),
	};
	struct aifs_entry_rep rep;
	struct aifs_mds_msg m = {
		.op = AIFS_OP_LINK,
		.req = &req, .req_size = sizeof(req),
		.req_parts = { aifs_dentry_span(dentry) },
		.rep = &rep, .rep_size = sizeof(rep),
	};
	int err;

	if (dentry->d_name.len > AIFS_NAME_MAX)
		return -ENAMETOOLONG;
	err = aifs_mds_call(dir->i_sb, &m);
	if (err)
		return err;
	aifs_dir_update(dir, &rep.dir);
	err = aifs_inode_update(inode, &rep.attr);
	if (err)
		return err;
	ihold(inode);
	d_instantiate(dentry, inode);
	aifs_dentry_set_expiry(dentry);
	return 0;
}

static int aifs_remove(struct inode *dir, struct dentry *dentry, u16 op)
{
	struct aifs_entry_rep rep;
	int err;

	err = aifs_name_call(dir->i_sb, dir->i_ino, op,
			     aifs_dentry_span(dentry), &rep);
	if (err)
		return err;
	aifs_dir_update(dir, &rep.dir);
	aifs_other_update(d_inode(dentry), &rep.attr);
	return 0;
}

static int aifs_unlink(struct inode *dir, struct dentry *dentry)
{
	return aifs_remove(dir, dentry, AIFS_OP_UNLINK);
}

static int aifs_rmdir(struct inode *dir, struct dentry *dentry)
{
	return aifs_remove(dir, dentry, AIFS_OP_RMDIR);
}

static int aifs_rename(struct aifs_idmap *idmap,
		       struct inode *old_dir, struct dentry *old_dentry,
		       struct inode *new_dir, struct dentry *new_dentry,
		       unsigned int flags)
{
	struct aifs_rename_req req = {
		.old_parent = cpu_to_le64(old_dir->i_ino),
		.new_parent = cpu_to_le64(new_dir->i_ino),
		.flags = cpu_to_le32(flags),
	};
	struct aifs_rename_rep *rep;
	struct aifs_mds_msg m = {
		.op = AIFS_OP_RENAME,
		.req = &req, .req_size = sizeof(req),
		.req_parts = { aifs_dentry_span(old_dentry),
			       aifs_dentry_span(new_dentry) },
		.rep_size = sizeof(*rep),
	};
	int err;

	/* no whiteouts: aifs is no overlayfs upper layer */
	if (flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE))
		return -EINVAL;
	if (new_dentry->d_name.len > AIFS_NAME_MAX)
		return -ENAMETOOLONG;
	rep = kmalloc(sizeof(*rep), GFP_NOFS);
	if (!rep)
		return -ENOMEM;
	m.rep = rep;
	err = aifs_mds_call(old_dir->i_sb, &m);
	if (!err) {
		aifs_dir_update(old_dir, &rep->old_dir);
		if (new_dir != old_dir)
			aifs_dir_update(new_dir, &rep->new_dir);
		aifs_other_update(d_inode(old_dentry), &rep->attr);
		if (rep->target.ino)
			aifs_other_update(d_inode(new_dentry), &rep->target);
		aifs_dentry_set_expiry(new_dentry);
		aifs_dentry_set_expiry(old_dentry);
	}
	kfree(rep);
	return err;
}

/* READLINK into a new NUL-terminated string. */
static char *aifs_readlink_call(struct inode *inode)
{
	struct aifs_ino_req req = { .ino = cpu_to_le64(inode->i_ino) };
	struct aifs_readlink_rep rep;
	struct aifs_mds_msg m = {
		.op = AIFS_OP_READLINK,
		.req = &req, .req_size = sizeof(req),
		.rep = &rep, .rep_size = sizeof(rep),
		.rep_max = AIFS_READLINK_REP_SIZE + AIFS_SYMLINK_MAX,
	};
	char *target = NULL;
	int err;

	m.rep_buf = kmalloc(m.rep_max, GFP_NOFS);
	if (!m.rep_buf)
		return ERR_PTR(-ENOMEM);
	err = aifs_mds_call(inode->i_sb, &m);
	if (!err)
		target = kmemdup_nul(m.rep_parts[0].data, m.rep_parts[0].len,
				     GFP_NOFS);
	kfree(m.rep_buf);
	if (err)
		return ERR_PTR(err);
	return target ?: ERR_PTR(-ENOMEM);
}

/* A symlink's target never changes: it is read once and kept. */
static const char *aifs_get_link(struct dentry *dentry, struct inode *inode,
				 struct delayed_call *done)
{
	struct aifs_inode_info *ai = AIFS_I(inode);
	char *target = READ_ONCE(ai->symlink);

	if (target)
		return target;
	if (!dentry)
		return ERR_PTR(-ECHILD);
	target = aifs_readlink_call(inode);
	if (IS_ERR(target))
		return target;
	if (cmpxchg(&ai->symlink, NULL, target)) {
		kfree(target);
		target = ai->symlink;
	}
	return target;
}

const struct inode_operations aifs_dir_iops = {
	.lookup		= aifs_lookup,
	.create		= aifs_create,
	.mkdir		= aifs_mkdir,
	.mknod		= aifs_mknod,
	.symlink	= aifs_symlink,
	.link		= aifs_link,
	.unlink		= aifs_unlink,
	.rmdir		= aifs_rmdir,
	.rename		= aifs_rename,
	.getattr	= aifs_getattr,
	.setattr	= aifs_setattr,
	.listxattr	= aifs_listxattr,
	AIFS_ACL_IOPS(aifs_get_acl, aifs_set_acl),
};

const struct inode_operations aifs_symlink_iops = {
	.get_link	= aifs_get_link,
	.getattr	= aifs_getattr,
	.setattr	= aifs_setattr,
	.listxattr	= aifs_listxattr,
};

/**
 * aifs_lookup_path - the attributes of a directory of the file system
 * @sb: the mount being set up
 * @path: normalised absolute path ("/" or "/a/b")
 * @attr: out: its attributes
 *
 * Return: 0, -ENOENT, -ENOTDIR, or the error of a request.
 */
int aifs_lookup_path(struct super_block *sb, const char *path,
		     struct aifs_attr *attr)
{
	struct aifs_entry_rep *rep;
	const char *p = path, *end;
	int err;

	rep = kmalloc(sizeof(*rep), GFP_KERNEL);
	if (!rep)
		return -ENOMEM;
	err = aifs_getattr_call(sb, AIFS_ROOT_INO, &rep->attr);
	while (!err) {
		*attr = rep->attr;
		while (*p == '/')
			p++;
		if (!*p)
			break;
		if (!S_ISDIR(le32_to_cpu(attr->mode))) {
			err = -ENOTDIR;
			break;
		}
		end = strchrnul(p, '/');
		err = aifs_name_call(sb, le64_to_cpu(attr->ino), AIFS_OP_LOOKUP,
				     (struct aifs_span){ p, end - p }, rep);
		p = end;
	}
	kfree(rep);
	if (!err && !S_ISDIR(le32_to_cpu(attr->mode)))
		err = -ENOTDIR;
	return err;
}
