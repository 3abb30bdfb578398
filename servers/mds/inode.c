// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Inode records: reading, writing, numbering, timestamps, the end of an
 * inode's life (freed, or kept as an orphan while a client holds it open),
 * GETATTR and SETATTR.
 */
#include <stdlib.h>
#include <string.h>

#include "mds.h"

#define NSEC_PER_SEC	1000000000LL

int mds_inode_get(struct mds_txn *t, u64 ino, struct mds_inode *inode)
{
	MDB_val v;
	int err;

	err = mds_db_get(t, MDS_DB_INODES, &ino, sizeof(ino), &v);
	if (err)
		return err == -ENOENT ? -ESTALE : err;
	if (v.mv_size != sizeof(*inode)) {
		aifs_err("inode %llu: record of %zu bytes", (unsigned long long)ino,
			 v.mv_size);
		return -EIO;
	}
	memcpy(inode, v.mv_data, sizeof(*inode));
	return 0;
}

int mds_inode_put(struct mds_txn *t, struct mds_inode *inode)
{
	return mds_db_put(t, MDS_DB_INODES, &inode->ino, sizeof(inode->ino),
			  inode, sizeof(*inode), 0);
}

/* A directory to look into or change: ESTALE, ENOTDIR. */
int mds_inode_get_dir(struct mds_txn *t, u64 ino, struct mds_inode *dir)
{
	int err = mds_inode_get(t, ino, dir);

	if (!err && !S_ISDIR(dir->mode))
		return -ENOTDIR;
	return err;
}

void mds_inode_init(struct mds_txn *t, struct mds_inode *inode, u64 ino,
		    u32 mode, u32 uid, u32 gid)
{
	memset(inode, 0, sizeof(*inode));
	inode->ino = ino;
	inode->generation = 1;
	inode->change = 1;
	inode->atime = inode->mtime = inode->ctime = inode->btime = t->now;
	inode->mode = mode;
	inode->nlink = S_ISDIR(mode) ? 2 : 1;
	inode->uid = uid;
	inode->gid = gid;
	inode->next_seq = 1;
}

/* Numbers are never reused, so generation stays 1. */
u64 mds_inode_alloc_ino(struct mds_txn *t)
{
	t->mds->super_dirty = true;
	return t->mds->super.next_ino++;
}

void mds_inode_touch(struct mds_txn *t, struct mds_inode *inode,
		     unsigned int what)
{
	if (what & MDS_ATIME)
		inode->atime = t->now;
	if (what & MDS_MTIME)
		inode->mtime = t->now;
	if (what & MDS_CTIME)
		inode->ctime = t->now;
	inode->change++;
}

static void time_to_wire(s64 ns, struct aifs_timespec *ts)
{
	s64 sec = ns / NSEC_PER_SEC, nsec = ns % NSEC_PER_SEC;

	if (nsec < 0) {
		sec--;
		nsec += NSEC_PER_SEC;
	}
	ts->sec = cpu_to_le64(sec);
	ts->nsec = cpu_to_le32(nsec);
	ts->reserved = 0;
}

s64 mds_time_from_wire(const struct aifs_timespec *ts)
{
	return (s64)le64_to_cpu(ts->sec) * NSEC_PER_SEC + le32_to_cpu(ts->nsec);
}

void mds_inode_to_attr(const struct mds_inode *inode, struct aifs_attr *attr)
{
	u32 chunk = le32_to_cpu(inode->layout.chunk_size);

	memset(attr, 0, sizeof(*attr));
	attr->ino = cpu_to_le64(inode->ino);
	attr->generation = cpu_to_le64(inode->generation);
	attr->size = cpu_to_le64(inode->size);
	attr->blocks = cpu_to_le64((inode->size + 511) / 512);
	attr->change = cpu_to_le64(inode->change);
	time_to_wire(inode->atime, &attr->atime);
	time_to_wire(inode->mtime, &attr->mtime);
	time_to_wire(inode->ctime, &attr->ctime);
	time_to_wire(inode->btime, &attr->btime);
	attr->mode = cpu_to_le32(inode->mode);
	attr->nlink = cpu_to_le32(inode->nlink);
	attr->uid = cpu_to_le32(inode->uid);
	attr->gid = cpu_to_le32(inode->gid);
	attr->rdev_major = cpu_to_le32(inode->rdev_major);
	attr->rdev_minor = cpu_to_le32(inode->rdev_minor);
	attr->blksize = cpu_to_le32(chunk ? chunk : AIFS_CHUNK_SIZE_DEFAULT);
	attr->flags = cpu_to_le32(inode->flags);
}

/* Remove an inode and all it owns; its chunks go to the deletion queue. */
int mds_inode_free(struct mds_txn *t, struct mds_inode *inode)
{
	struct mds_key prefix;
	int err;

	err = mds_db_del(t, MDS_DB_INODES, &inode->ino, sizeof(inode->ino));
	if (!err && S_ISLNK(inode->mode))
		err = mds_db_del(t, MDS_DB_SYMLINKS, &inode->ino,
				 sizeof(inode->ino));
	if (!err) {
		mds_key_name(&prefix, inode->ino, NULL, 0);
		err = mds_db_del_prefix(t, MDS_DB_XATTRS, prefix.bytes,
					prefix.len);
	}
	if (!err && S_ISREG(inode->mode))
		err = mds_chunks_free(t, inode);
	return err;
}

/*
 * One name of @inode is gone (a directory's only one): free it when it
 * was the last and nobody holds it open, else keep it, on the orphan list
 * if it has no name left.
 */
int mds_inode_drop_link(struct mds_txn *t, struct mds_inode *inode)
{
	int err;

	inode->nlink = S_ISDIR(inode->mode) ? 0 : inode->nlink - 1;
	mds_inode_touch(t, inode, MDS_CTIME);
	if (inode->nlink)
		return mds_inode_put(t, inode);
	if (!mds_opens_busy(t->mds, inode->ino))
		return mds_inode_free(t, inode);
	err = mds_inode_put(t, inode);
	if (!err)
		err = mds_db_put(t, MDS_DB_ORPHANS, &inode->ino,
				 sizeof(inode->ino), NULL, 0, 0);
	return err;
}

int mds_reply_attr(struct aifs_request *req,
			    const struct mds_inode *inode)
{
	struct aifs_attr_rep rep;

	mds_inode_to_attr(inode, &rep.attr);
	return mds_reply(req, &rep, sizeof(rep), NULL);
}

static int getattr(struct mds_txn *t, struct aifs_request *req,
		   const void *arg, const struct aifs_span *parts)
{
	const struct aifs_ino_req *in = arg;
	struct mds_inode inode;
	int err;

	(void)parts;
	err = mds_inode_get(t, le64_to_cpu(in->ino), &inode);
	return err ? err : mds_reply_attr(req, &inode);
}

int mds_handle_getattr(struct aifs_request *req)
{
	struct aifs_ino_req in;

	return mds_read(req, &in, sizeof(in), getattr);
}

/*
 * chmod: the owner (or root); setgid dropped unless in the file's group.
 * An access ACL follows the new mode.
 */
static int setattr_mode(struct mds_txn *t, const struct mds_cred *cred,
			struct mds_inode *inode, u32 mode)
{
	if (!mds_is_owner(cred, inode))
		return -EPERM;
	mode = mds_strip_sgid(cred, inode, mode & 07777);
	inode->mode = (inode->mode & S_IFMT) | mode;
	return mds_acl_chmod(t, inode);
}

/* What a write may do: with write access, or a handle open for writing. */
static int setattr_may_write(struct mds_txn *t, const struct mds_cred *cred,
			     const struct mds_inode *inode, u64 handle)
{
	if (mds_opens_writable(t->mds, handle, inode->ino))
		return 0;
	return mds_permission(t, cred, inode, MDS_MAY_WRITE);
}

/* A write's removal of setuid and setgid (AIFS_SETATTR_KILL_SUID). */
static int setattr_kill_suid(struct mds_txn *t, const struct mds_cred *cred,
			     struct mds_inode *inode, u64 handle)
{
	int err = setattr_may_write(t, cred, inode, handle);

	if (err)
		return err;
	inode->mode &= ~S_ISUID;
	if (inode->mode & S_IXGRP)
		inode->mode &= ~S_ISGID;
	return 0;
}

/*
 * chown: root only, but the owner may give the file to a group of its
 * own.  A file's setuid (and group-executable setgid) bits do not survive
 * a change of owner.
 */
static int setattr_owner(const struct mds_cred *cred, struct mds_inode *inode,
			 u32 valid, u32 uid, u32 gid)
{
	bool new_uid = (valid & AIFS_SETATTR_UID) && uid != inode->uid;
	bool new_gid = (valid & AIFS_SETATTR_GID) && gid != inode->gid;

	if (cred->uid && (new_uid || (new_gid && (cred->uid != inode->uid ||
						  !mds_in_group(cred, gid)))))
		return -EPERM;
	if (new_uid)
		inode->uid = uid;
	if (new_gid)
		inode->gid = gid;
	if ((new_uid || new_gid) && !S_ISDIR(inode->mode)) {
		inode->mode &= ~S_ISUID;
		if (inode->mode & S_IXGRP)
			inode->mode &= ~S_ISGID;
	}
	return 0;
}

/*
 * truncate (SIZE), or the commit of a client's writes (SIZE_GROW): write
 * access, or a handle opened for writing (ftruncate, fsync).  A truncation
 * cuts the chunks when the size goes down, and also when the client says
 * it wrote past the size this MDS knows (CUT): those bytes are on the data
 * servers already.
 */
static int setattr_size(struct mds_txn *t, const struct mds_cred *cred,
			struct mds_inode *inode, u64 handle, u64 size,
			u32 valid)
{
	u64 max = (u64)le32_to_cpu(inode->layout.chunk_size) << 32;
	bool cut = size < inode->size || (valid & AIFS_SETATTR_CUT);
	int err;

	if (S_ISDIR(inode->mode))
		return -EISDIR;
	if (!S_ISREG(inode->mode))
		return -EINVAL;
	err = setattr_may_write(t, cred, inode, handle);
	if (err)
		return err;
	if (size > max)
		return -EFBIG;
	if (valid & AIFS_SETATTR_SIZE_GROW) {
		if (size <= inode->size)
			return 0;
		cut = false;
	}
	if (cut) {
		err = mds_chunks_cut(t, inode, size);
		if (err)
			return err;
		mds_opens_truncated(t->mds, handle, inode->ino);
	} else if (size == inode->size) {
		return 0;
	}
	inode->size = size;
	mds_inode_touch(t, inode, MDS_MTIME);
	return 0;
}

/*
 * utimes: an explicit time needs ownership; "now" also write access.
 */
static int setattr_times(struct mds_txn *t, const struct mds_cred *cred,
			 struct mds_inode *inode,
			 const struct aifs_setattr_req *in, u32 valid)
{
	if (valid & (AIFS_SETATTR_ATIME | AIFS_SETATTR_MTIME)) {
		if (!mds_is_owner(cred, inode))
			return -EPERM;
	} else if (!mds_is_owner(cred, inode) &&
		   mds_permission(t, cred, inode, MDS_MAY_WRITE)) {
		return -EACCES;
	}
	if (valid & AIFS_SETATTR_ATIME)
		inode->atime = mds_time_from_wire(&in->atime);
	if (valid & AIFS_SETATTR_MTIME)
		inode->mtime = mds_time_from_wire(&in->mtime);
	if (valid & AIFS_SETATTR_ATIME_NOW)
		inode->atime = t->now;
	if (valid & AIFS_SETATTR_MTIME_NOW)
		inode->mtime = t->now;
	return 0;
}

#define SETATTR_TIMES	(AIFS_SETATTR_ATIME | AIFS_SETATTR_MTIME | \
			 AIFS_SETATTR_ATIME_NOW | AIFS_SETATTR_MTIME_NOW)

static int apply_setattr(struct mds_txn *t, struct mds_op *op)
{
	struct aifs_setattr_req in;
	struct mds_inode inode;
	struct mds_cred cred;
	u32 valid;
	int err;

	err = mds_decode(op->req, &in, sizeof(in), NULL);
	if (!err)
		err = mds_inode_get(t, le64_to_cpu(in.ino), &inode);
	if (err)
		return err;
	mds_cred_from_wire(&cred, &in.cred);
	valid = le32_to_cpu(in.valid);
	if (valid & (AIFS_SETATTR_UID | AIFS_SETATTR_GID))
		err = setattr_owner(&cred, &inode, valid, le32_to_cpu(in.uid),
				    le32_to_cpu(in.gid));
	if (!err && (valid & AIFS_SETATTR_MODE))
		err = setattr_mode(t, &cred, &inode, le32_to_cpu(in.mode));
	if (!err && (valid & AIFS_SETATTR_KILL_SUID))
		err = setattr_kill_suid(t, &cred, &inode,
					le64_to_cpu(in.handle));
	if (!err && (valid & AIFS_SETATTR_SIZE) && mds_archiving(t, inode.ino))
		err = -EBUSY;	/* an archive reads the chunks */
	if (!err && (valid & (AIFS_SETATTR_SIZE | AIFS_SETATTR_SIZE_GROW)))
		err = setattr_size(t, &cred, &inode, le64_to_cpu(in.handle),
				   le64_to_cpu(in.size), valid);
	if (!err && (valid & SETATTR_TIMES))
		err = setattr_times(t, &cred, &inode, &in, valid);
	if (err)
		return err;
	mds_inode_touch(t, &inode, MDS_CTIME);
	err = mds_inode_put(t, &inode);
	return err ? err : mds_reply_attr(op->req, &inode);
}

int mds_handle_setattr(struct aifs_request *req)
{
	return mds_write(req, apply_setattr);
}

/*
 * From inode @*cursor on, the records @fn takes, @take_max at most,
 * looking at @looked_max at most; *@cursor moves past those looked at,
 * to UINT64_MAX at the end of the table.  The number taken, or -errno.
 */
int mds_inode_scan(struct mds *mds, u64 *cursor, unsigned int looked_max,
		   unsigned int take_max, mds_scan_fn *fn, void *arg)
{
	MDB_val k = { sizeof(*cursor), cursor }, v;
	unsigned int looked = 0, taken = 0;
	struct mds_inode inode;
	MDB_cursor *cur;
	struct mds_txn t;
	int rc, err;

	err = mds_read_begin(mds, &t);
	if (err)
		return err;
	err = mds_db_cursor(&t, MDS_DB_INODES, &cur);
	if (err)
		goto out;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
	     !rc && taken < take_max && looked < looked_max;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT), looked++) {
		memcpy(cursor, k.mv_data, sizeof(*cursor));
		(*cursor)++;
		if (v.mv_size != sizeof(inode))
			continue;	/* check.c reports it */
		memcpy(&inode, v.mv_data, sizeof(inode));
		taken += fn(&inode, arg);
	}
	if (rc == MDB_NOTFOUND)
		*cursor = UINT64_MAX;
	mdb_cursor_close(cur);
	err = taken;
out:
	mds_read_end(&t);
	return err;
}
