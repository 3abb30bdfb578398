// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Names: CREATE, MKDIR, MKNOD, SYMLINK, LINK, UNLINK, RMDIR, RENAME (and
 * READLINK).  Every change runs on the writer thread inside a nested
 * transaction of its batch, so an operation that fails half-way leaves
 * nothing behind; the checks come first all the same, in the order the
 * kernel's VFS makes them, so that the errors are the ones POSIX
 * programs expect.
 */
#include <stdlib.h>
#include <string.h>

#include "mds.h"

/* A name added to a directory, from CREATE, MKDIR, MKNOD or SYMLINK. */
struct new_entry {
	struct mds_cred cred;
	struct aifs_span name;
	u32 mode;		/* as asked for: the umask is not applied yet */
	u32 umask;
	u32 rdev_major;
	u32 rdev_minor;
};

static void new_entry_from_create(struct new_entry *e,
				  const struct aifs_create_req *in,
				  const struct aifs_span *name, u32 type)
{
	mds_cred_from_wire(&e->cred, &in->cred);
	e->name = *name;
	e->mode = type | (le32_to_cpu(in->mode) & 07777);
	e->umask = le32_to_cpu(in->umask);
	e->rdev_major = le32_to_cpu(in->rdev_major);
	e->rdev_minor = le32_to_cpu(in->rdev_minor);
}

/*
 * The owner of a new inode: the caller, with the directory's group when
 * the directory is setgid (new directories inherit the bit); a file
 * keeps its own setgid bit only for a member of its group.
 */
static void new_owner(const struct new_entry *e, const struct mds_inode *dir,
		      u32 *mode, u32 *gid)
{
	*mode = e->mode;
	*gid = e->cred.gid;
	if (!(dir->mode & S_ISGID))
		return;
	*gid = dir->gid;
	if (S_ISDIR(*mode))
		*mode |= S_ISGID;
	else if ((*mode & S_ISGID) && e->cred.uid &&
		 !mds_in_group(&e->cred, *gid))
		*mode &= ~S_ISGID;
}

/*
 * Make the inode of @e in @dir and its entry; writes both records, and
 * the ACLs it inherits (or the umask when @dir has no default ACL).
 */
static int add_new_entry(struct mds_txn *t, const struct new_entry *e,
			 struct mds_inode *dir, struct mds_inode *inode)
{
	struct mds_dentry d;
	u32 mode, gid;
	int err;

	err = mds_dentry_get(t, dir->ino, &e->name, &d);
	if (err != -ENOENT)
		return err ? err : -EEXIST;
	if (S_ISDIR(e->mode) && dir->nlink >= MDS_LINK_MAX)
		return -EMLINK;
	new_owner(e, dir, &mode, &gid);
	mds_inode_init(t, inode, mds_inode_alloc_ino(t), mode, e->cred.uid,
		       gid);
	inode->rdev_major = e->rdev_major;
	inode->rdev_minor = e->rdev_minor;
	if (!S_ISLNK(mode)) {
		err = mds_acl_inherit(t, dir, inode, e->umask);
		if (err)
			return err;
	}
	if (S_ISDIR(mode)) {
		inode->parent = dir->ino;
		inode->layout = dir->layout;
		dir->nlink++;
	} else if (S_ISREG(mode)) {
		inode->layout = dir->layout;
		err = mds_layout_assign(t, &inode->layout);
		if (err)
			return err;
	}
	err = mds_dentry_add(t, dir, &e->name, inode);
	if (!err)
		err = mds_inode_put(t, inode);
	if (!err)
		err = mds_inode_put(t, dir);
	return err;
}

/* The directory a name is added to. */
static int get_new_parent(struct mds_txn *t, const struct mds_cred *cred,
			  __le64 ino, struct mds_inode *dir)
{
	int err = mds_inode_get(t, le64_to_cpu(ino), dir);

	return err ? err : mds_may_change_dir(t, cred, dir);
}

static int reply_entry(struct aifs_request *req, const struct mds_inode *dir,
		       const struct mds_inode *inode)
{
	struct aifs_entry_rep rep;

	mds_inode_to_attr(dir, &rep.dir);
	mds_inode_to_attr(inode, &rep.attr);
	return mds_reply(req, &rep, sizeof(rep), NULL);
}

/*
 * The file type MKNOD makes: devices only for root (CAP_MKNOD), no
 * directories; no type at all means a regular file, as mknod(2).
 */
static int mknod_type(const struct aifs_create_req *in, u32 *type)
{
	*type = le32_to_cpu(in->mode) & S_IFMT;
	switch (*type) {
	case S_IFCHR:
	case S_IFBLK:
		return le32_to_cpu(in->cred.uid) ? -EPERM : 0;
	case S_IFIFO:
	case S_IFSOCK:
	case S_IFREG:
		return 0;
	case 0:
		*type = S_IFREG;
		return 0;
	default:
		return -EINVAL;
	}
}

/* MKDIR (@type S_IFDIR) and MKNOD (@type 0: from the request). */
static int apply_mknod_type(struct mds_txn *t, struct mds_op *op, u32 type)
{
	struct aifs_span name[AIFS_MSG_MAX_PARTS];
	struct aifs_create_req in;
	struct mds_inode dir, inode;
	struct new_entry e;
	int err;

	err = mds_decode(op->req, &in, sizeof(in), name);
	if (!err && !type)
		err = mknod_type(&in, &type);
	if (err)
		return err;
	new_entry_from_create(&e, &in, name, type);
	err = get_new_parent(t, &e.cred, in.parent, &dir);
	if (!err)
		err = add_new_entry(t, &e, &dir, &inode);
	return err ? err : reply_entry(op->req, &dir, &inode);
}

static int apply_mkdir(struct mds_txn *t, struct mds_op *op)
{
	return apply_mknod_type(t, op, S_IFDIR);
}

int mds_handle_mkdir(struct aifs_request *req)
{
	return mds_write(req, apply_mkdir);
}

static int apply_mknod(struct mds_txn *t, struct mds_op *op)
{
	return apply_mknod_type(t, op, 0);
}

int mds_handle_mknod(struct aifs_request *req)
{
	return mds_write(req, apply_mknod);
}

/*
 * CREATE: a new regular file, opened; without AIFS_OPEN_EXCL an existing
 * file of the name is opened instead (atomic_open).
 */
static int create(struct mds_txn *t, const struct aifs_create_req *in,
		  const struct aifs_span *name, struct aifs_request *req,
		  struct aifs_create_rep *rep)
{
	u32 flags = le32_to_cpu(in->open_flags) & ~AIFS_OPEN_EXCL;
	struct mds_inode dir, inode;
	bool created = false;
	struct mds_dentry d;
	struct new_entry e;
	int err;

	new_entry_from_create(&e, in, name, S_IFREG);
	err = mds_inode_get(t, le64_to_cpu(in->parent), &dir);
	if (!err)
		err = mds_may_lookup(t, &e.cred, &dir);
	if (!err)
		err = mds_dentry_get(t, dir.ino, name, &d);
	if (!err) {
		if (le32_to_cpu(in->open_flags) & AIFS_OPEN_EXCL)
			return -EEXIST;
		err = mds_inode_get(t, d.ino, &inode);
	} else if (err == -ENOENT) {
		err = mds_may_change_dir(t, &e.cred, &dir);
		if (!err)
			err = add_new_entry(t, &e, &dir, &inode);
		created = true;
	}
	if (err)
		return err;
	mds_inode_to_attr(&dir, &rep->dir);
	/* The creator opens what it made, whatever the mode says. */
	return mds_open_inode(t, req, created ? NULL : &e.cred, &inode, flags,
			      &rep->open);
}

static int apply_create(struct mds_txn *t, struct mds_op *op)
{
	struct aifs_span name[AIFS_MSG_MAX_PARTS];
	struct aifs_create_rep rep;
	struct aifs_create_req in;
	int err;

	err = mds_decode(op->req, &in, sizeof(in), name);
	if (!err && (le32_to_cpu(in.mode) & S_IFMT) &&
	    !S_ISREG(le32_to_cpu(in.mode)))
		err = -EINVAL;
	if (!err)
		err = create(t, &in, name, op->req, &rep);
	return err ? err : mds_reply(op->req, &rep, sizeof(rep), NULL);
}

int mds_handle_create(struct aifs_request *req)
{
	return mds_write(req, apply_create);
}

static int apply_symlink(struct mds_txn *t, struct mds_op *op)
{
	struct aifs_span parts[AIFS_MSG_MAX_PARTS];
	struct aifs_symlink_req in;
	struct mds_inode dir, inode;
	struct new_entry e;
	int err;

	err = mds_decode(op->req, &in, sizeof(in), parts);
	if (err)
		return err;
	mds_cred_from_wire(&e.cred, &in.cred);
	e.name = parts[0];
	e.mode = S_IFLNK | 0777;
	e.umask = 0;
	e.rdev_major = e.rdev_minor = 0;
	err = get_new_parent(t, &e.cred, in.parent, &dir);
	if (!err)
		err = add_new_entry(t, &e, &dir, &inode);
	if (err)
		return err;
	inode.size = parts[1].len;
	err = mds_inode_put(t, &inode);
	if (!err)
		err = mds_db_put(t, MDS_DB_SYMLINKS, &inode.ino,
				 sizeof(inode.ino), parts[1].data,
				 parts[1].len, 0);
	return err ? err : reply_entry(op->req, &dir, &inode);
}

int mds_handle_symlink(struct aifs_request *req)
{
	return mds_write(req, apply_symlink);
}

static int readlink_target(struct mds_txn *t, struct aifs_request *req,
			   const void *arg, const struct aifs_span *parts)
{
	const struct aifs_ino_req *in = arg;
	struct aifs_readlink_rep rep = { 0 };
	struct mds_inode inode;
	MDB_val v;
	int err;

	(void)parts;
	err = mds_inode_get(t, le64_to_cpu(in->ino), &inode);
	if (err)
		return err;
	if (!S_ISLNK(inode.mode))
		return -EINVAL;
	err = mds_db_get(t, MDS_DB_SYMLINKS, &inode.ino, sizeof(inode.ino), &v);
	if (err)
		return err == -ENOENT ? -EIO : err;
	return mds_reply_data(req, &rep, sizeof(rep), v.mv_data, v.mv_size);
}

int mds_handle_readlink(struct aifs_request *req)
{
	struct aifs_ino_req in;

	return mds_read(req, &in, sizeof(in), readlink_target);
}

static int apply_link(struct mds_txn *t, struct mds_op *op)
{
	struct aifs_span name[AIFS_MSG_MAX_PARTS];
	struct mds_inode dir, inode;
	struct aifs_link_req in;
	struct mds_dentry d;
	struct mds_cred cred;
	int err;

	err = mds_decode(op->req, &in, sizeof(in), name);
	if (err)
		return err;
	mds_cred_from_wire(&cred, &in.cred);
	err = mds_inode_get(t, le64_to_cpu(in.ino), &inode);
	if (!err)
		err = get_new_parent(t, &cred, in.new_parent, &dir);
	if (err)
		return err;
	if (S_ISDIR(inode.mode))
		return -EPERM;
	if (!inode.nlink)
		return -ENOENT;
	if (inode.nlink >= MDS_LINK_MAX)
		return -EMLINK;
	err = mds_dentry_get(t, dir.ino, &name[0], &d);
	if (err != -ENOENT)
		return err ? err : -EEXIST;
	inode.nlink++;
	mds_inode_touch(t, &inode, MDS_CTIME);
	err = mds_dentry_add(t, &dir, &name[0], &inode);
	if (!err)
		err = mds_inode_put(t, &inode);
	if (!err)
		err = mds_inode_put(t, &dir);
	return err ? err : reply_entry(op->req, &dir, &inode);
}

int mds_handle_link(struct aifs_request *req)
{
	return mds_write(req, apply_link);
}

/* UNLINK and RMDIR. */
static int remove_entry(struct mds_txn *t, struct mds_op *op, bool rmdir)
{
	struct aifs_span name[AIFS_MSG_MAX_PARTS];
	struct mds_inode dir, inode;
	struct aifs_name_req in;
	struct mds_dentry d;
	struct mds_cred cred;
	int err;

	err = mds_decode(op->req, &in, sizeof(in), name);
	if (err)
		return err;
	mds_cred_from_wire(&cred, &in.cred);
	err = mds_inode_get_dir(t, le64_to_cpu(in.ino), &dir);
	if (!err)
		err = mds_may_lookup(t, &cred, &dir);
	if (!err)
		err = mds_dentry_get(t, dir.ino, name, &d);
	if (!err)
		err = mds_inode_get(t, d.ino, &inode);
	if (!err)
		err = mds_may_delete(t, &cred, &dir, &inode);
	if (err)
		return err;
	if (rmdir && !S_ISDIR(inode.mode))
		return -ENOTDIR;
	if (!rmdir && S_ISDIR(inode.mode))
		return -EISDIR;
	if (rmdir && inode.entries)
		return -ENOTEMPTY;
	err = mds_dentry_del(t, &dir, name, &d);
	if (err)
		return err;
	if (rmdir)
		dir.nlink--;
	err = mds_inode_drop_link(t, &inode);
	if (!err)
		err = mds_inode_put(t, &dir);
	return err ? err : reply_entry(op->req, &dir, &inode);
}

static int apply_unlink(struct mds_txn *t, struct mds_op *op)
{
	return remove_entry(t, op, false);
}

static int apply_rmdir(struct mds_txn *t, struct mds_op *op)
{
	return remove_entry(t, op, true);
}

int mds_handle_unlink(struct aifs_request *req)
{
	return mds_write(req, apply_unlink);
}

int mds_handle_rmdir(struct aifs_request *req)
{
	return mds_write(req, apply_rmdir);
}
