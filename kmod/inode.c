// SPDX-License-Identifier: GPL-2.0
/*
 * aifs - inodes: the inode cache, building and updating inodes from the
 * attributes the MDS sends, the attribute cache, getattr and setattr.
 *
 * An inode is found by (inode number, generation) with iget5_locked().
 * Its attributes come from the replies of the MDS, which carry the
 * attributes of everything an operation touched; each update restarts the
 * attribute cache's clock (attr_timeout seconds). getattr refetches
 * expired attributes, and opening a file or directory always refetches
 * them (close-to-open).
 *
 * Attributes are untrusted input. The codec has checked the file type,
 * the inode number and the times; here a link count or size out of range,
 * or a device number that does not fit, makes the reply -EIO, and an
 * inode whose file type changed under the same number is marked stale:
 * the server reused or corrupted it, and every later use is -ESTALE.
 */
#define pr_fmt(fmt) "aifs: " fmt

#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/kdev_t.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/posix_acl.h>
#include <linux/slab.h>
#include <linux/writeback.h>
#include <linux/xattr.h>

#include "internal.h"

/* Largest link count believed; more is a broken or hostile server. */
#define AIFS_NLINK_MAX	((u32)INT_MAX)

static struct kmem_cache *aifs_inode_cachep;

static void aifs_inode_init_once(void *p)
{
	struct aifs_inode_info *ai = p;

	inode_init_once(&ai->vfs_inode);
}

int aifs_inode_cache_init(void)
{
	aifs_inode_cachep = kmem_cache_create("aifs_inode_cache",
					      sizeof(struct aifs_inode_info), 0,
					      SLAB_RECLAIM_ACCOUNT |
					      AIFS_SLAB_SPREAD | SLAB_ACCOUNT,
					      aifs_inode_init_once);
	return aifs_inode_cachep ? 0 : -ENOMEM;
}

void aifs_inode_cache_exit(void)
{
	/* free_inode runs after an RCU grace period: wait for all of them */
	rcu_barrier();
	kmem_cache_destroy(aifs_inode_cachep);
}

struct inode *aifs_alloc_inode(struct super_block *sb)
{
	struct aifs_inode_info *ai;

	ai = alloc_inode_sb(sb, aifs_inode_cachep, GFP_KERNEL);
	if (!ai)
		return NULL;
	ai->generation = 0;
	ai->change = 0;
	ai->attr_expire = jiffies;
	ai->blksize = 0;
	ai->flags = 0;
	ai->symlink = NULL;
	ai->has_layout = false;
	ai->mds_size = 0;
	atomic_set(&ai->punches, 0);
	return &ai->vfs_inode;
}

void aifs_free_inode(struct inode *inode)
{
	struct aifs_inode_info *ai = AIFS_I(inode);

	kfree(ai->symlink);
	kmem_cache_free(aifs_inode_cachep, ai);
}

/* Regular files and special files alike. */
const struct inode_operations aifs_file_iops = {
	.getattr	= aifs_getattr,
	.setattr	= aifs_setattr,
	.listxattr	= aifs_listxattr,
	AIFS_ACL_IOPS(aifs_get_acl, aifs_set_acl),
};

static struct timespec64 aifs_ts_from_wire(const struct aifs_timespec *w)
{
	return (struct timespec64){ .tv_sec = (s64)le64_to_cpu(w->sec),
				    .tv_nsec = le32_to_cpu(w->nsec) };
}

/* What the codec cannot know: limits of this kernel. */
static int aifs_attr_check_local(struct super_block *sb,
				 const struct aifs_attr *attr)
{
	u32 mode = le32_to_cpu(attr->mode);
	u32 major = le32_to_cpu(attr->rdev_major);
	u32 minor = le32_to_cpu(attr->rdev_minor);

	if (le32_to_cpu(attr->nlink) > AIFS_NLINK_MAX ||
	    le64_to_cpu(attr->size) > (u64)MAX_LFS_FILESIZE ||
	    le64_to_cpu(attr->ino) > (u64)ULONG_MAX ||
	    !uid_valid(make_kuid(sb->s_user_ns, le32_to_cpu(attr->uid))) ||
	    !gid_valid(make_kgid(sb->s_user_ns, le32_to_cpu(attr->gid))))
		return -EIO;
	if ((S_ISCHR(mode) || S_ISBLK(mode)) &&
	    (major >= (1U << (32 - MINORBITS)) || minor > MINORMASK))
		return -EIO;
	return 0;
}

static void aifs_set_stale(struct inode *inode)
{
	if (!test_and_set_bit(AIFS_I_STALE, &AIFS_I(inode)->flags))
		pr_warn_ratelimited("inode %llu changed type on the server, now stale\n",
				    (u64)inode->i_ino);
}

/**
 * aifs_inode_update - take the attributes of a reply
 * @inode: the inode they describe
 * @attr: attributes checked by the codec
 *
 * The cached ACLs are forgotten when the server's change counter moved:
 * the ACLs may have changed with it (a chmod rewrites the access ACL);
 * so is S_NOSEC, for setuid bits or a security.capability set elsewhere.
 *
 * Return: 0, -EIO for attributes out of range or of another inode,
 * -ESTALE when the inode is stale (its type changed).
 */
int aifs_inode_update(struct inode *inode, const struct aifs_attr *attr)
{
	struct aifs_inode_info *ai = AIFS_I(inode);
	struct super_block *sb = inode->i_sb;
	u32 mode = le32_to_cpu(attr->mode);
	struct timespec64 mtime = aifs_ts_from_wire(&attr->mtime);
	bool changed, written;
	u32 timeout;
	int err;

	err = aifs_attr_check_local(sb, attr);
	if (err)
		return err;
	if (le64_to_cpu(attr->ino) != inode->i_ino ||
	    le64_to_cpu(attr->generation) != ai->generation)
		return -EIO;
	if ((inode->i_mode & S_IFMT) != (mode & S_IFMT)) {
		aifs_set_stale(inode);
		return -ESTALE;
	}
	if (test_bit(AIFS_I_STALE, &ai->flags))
		return -ESTALE;

	timeout = aifs_get_uint(&AIFS_SB(sb)->opts, AIFS_OPT_ATTR_TIMEOUT);
	spin_lock(&inode->i_lock);
	/* writes not committed yet: the MDS's size and mtime are behind */
	written = test_bit(AIFS_I_WRITTEN, &ai->flags);
	inode->i_mode = (inode->i_mode & S_IFMT) | (mode & ~S_IFMT);
	set_nlink(inode, le32_to_cpu(attr->nlink));
	inode->i_uid = make_kuid(sb->s_user_ns, le32_to_cpu(attr->uid));
	inode->i_gid = make_kgid(sb->s_user_ns, le32_to_cpu(attr->gid));
	ai->mds_size = le64_to_cpu(attr->size);
	if (!written || ai->mds_size > i_size_read(inode))
		i_size_write(inode, ai->mds_size);
	inode->i_blocks = le64_to_cpu(attr->blocks);
	aifs_inode_set_times(inode, aifs_ts_from_wire(&attr->atime),
			     written ? NULL : &mtime,
			     aifs_ts_from_wire(&attr->ctime));
	changed = ai->change != le64_to_cpu(attr->change);
	if (changed)
		inode->i_flags &= ~S_NOSEC;
	ai->change = le64_to_cpu(attr->change);
	ai->blksize = le32_to_cpu(attr->blksize);
	ai->attr_expire = jiffies + (unsigned long)timeout * HZ;
	spin_unlock(&inode->i_lock);
	if (changed)
		forget_all_cached_acls(inode);
	return 0;
}

/**
 * aifs_inode_update_own - take the attributes of this client's own change
 * @inode: the inode the change was made to
 * @attr: the attributes of the MDS's reply to it
 *
 * The cached pages hold the change already: the next OPEN drops them only
 * if the counter moves past this reply.
 *
 * Return: as aifs_inode_update().
 */
int aifs_inode_update_own(struct inode *inode, const struct aifs_attr *attr)
{
	int err = aifs_inode_update(inode, attr);

	if (!err) {
		spin_lock(&inode->i_lock);
		AIFS_I(inode)->cache_change = le64_to_cpu(attr->change);
		spin_unlock(&inode->i_lock);
	}
	return err;
}

static void aifs_inode_set_ops(struct inode *inode, const struct aifs_attr *attr)
{
	umode_t mode = le32_to_cpu(attr->mode);

	inode->i_mode = mode & S_IFMT;
	switch (mode & S_IFMT) {
	case S_IFDIR:
		inode->i_op = &aifs_dir_iops;
		inode->i_fop = &aifs_dir_fops;
		break;
	case S_IFREG:
		inode->i_op = &aifs_file_iops;
		inode->i_fop = &aifs_file_fops;
		inode->i_mapping->a_ops = &aifs_aops;
		break;
	case S_IFLNK:
		inode->i_op = &aifs_symlink_iops;
		inode_nohighmem(inode);
		break;
	default:
		inode->i_op = &aifs_file_iops;
		init_special_inode(inode, mode & S_IFMT,
				   MKDEV(le32_to_cpu(attr->rdev_major),
					 le32_to_cpu(attr->rdev_minor)));
		break;
	}
}

static int aifs_iget_test(struct inode *inode, void *data)
{
	const struct aifs_attr *attr = data;

	return inode->i_ino == le64_to_cpu(attr->ino) &&
	       AIFS_I(inode)->generation == le64_to_cpu(attr->generation);
}

static int aifs_iget_set(struct inode *inode, void *data)
{
	const struct aifs_attr *attr = data;

	inode->i_ino = le64_to_cpu(attr->ino);
	inode->i_generation = (u32)le64_to_cpu(attr->generation);
	AIFS_I(inode)->generation = le64_to_cpu(attr->generation);
	return 0;
}

/**
 * aifs_iget - the inode of a reply's attributes, new or cached
 * @sb: the mount
 * @attr: attributes checked by the codec
 *
 * Return: the inode with its attributes updated, or ERR_PTR(-EIO) for
 * attributes out of range, ERR_PTR(-ESTALE) when a cached inode of that
 * number has another file type.
 */
struct inode *aifs_iget(struct super_block *sb, const struct aifs_attr *attr)
{
	struct inode *inode;
	int err;

	err = aifs_attr_check_local(sb, attr);
	if (err)
		return ERR_PTR(err);
	inode = iget5_locked(sb, (unsigned long)le64_to_cpu(attr->ino),
			     aifs_iget_test, aifs_iget_set, (void *)attr);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	if (aifs_inode_is_new(inode))
		aifs_inode_set_ops(inode, attr);
	err = aifs_inode_update(inode, attr);
	if (aifs_inode_is_new(inode)) {
		if (err) {
			iget_failed(inode);
			return ERR_PTR(err);
		}
		unlock_new_inode(inode);
	} else if (err) {
		iput(inode);
		return ERR_PTR(err);
	}
	return inode;
}

/* GETATTR of inode @ino into @attr. */
int aifs_getattr_call(struct super_block *sb, u64 ino, struct aifs_attr *attr)
{
	struct aifs_ino_req req = { .ino = cpu_to_le64(ino) };
	struct aifs_mds_msg m = {
		.op = AIFS_OP_GETATTR,
		.req = &req, .req_size = sizeof(req),
		.rep = attr, .rep_size = sizeof(struct aifs_attr_rep),
	};

	return aifs_mds_call(sb, &m);
}

/**
 * aifs_revalidate - refetch an inode's attributes if they expired
 * @inode: the inode
 * @force: refetch even if they have not (close-to-open)
 *
 * Return: 0 or a negative errno; an inode the server no longer has is
 * marked stale (-ESTALE).
 */
int aifs_revalidate(struct inode *inode, bool force)
{
	struct aifs_inode_info *ai = AIFS_I(inode);
	struct aifs_attr attr;
	int err;

	if (test_bit(AIFS_I_STALE, &ai->flags))
		return -ESTALE;
	if (!force && time_before(jiffies, READ_ONCE(ai->attr_expire)))
		return 0;
	err = aifs_getattr_call(inode->i_sb, inode->i_ino, &attr);
	if (err == -ENOENT || err == -ESTALE) {
		set_bit(AIFS_I_STALE, &ai->flags);
		return -ESTALE;
	}
	return err ?: aifs_inode_update(inode, &attr);
}

int aifs_getattr(struct aifs_idmap *idmap, const struct path *path,
		 struct kstat *stat, u32 request_mask, unsigned int flags)
{
	struct inode *inode = d_inode(path->dentry);
	u32 sync = flags & AT_STATX_SYNC_TYPE;
	int err;

	if (sync != AT_STATX_DONT_SYNC) {
		err = aifs_revalidate(inode, sync == AT_STATX_FORCE_SYNC);
		if (err)
			return err;
	}
	aifs_fillattr(idmap, request_mask, inode, stat);
	if (AIFS_I(inode)->blksize)
		stat->blksize = AIFS_I(inode)->blksize;
	if ((request_mask & STATX_DIOALIGN) && S_ISREG(inode->i_mode)) {
		stat->result_mask |= STATX_DIOALIGN;
		stat->dio_mem_align = AIFS_DIO_ALIGN;
		stat->dio_offset_align = AIFS_DIO_ALIGN;
	}
	return 0;
}

void aifs_ts_to_wire(struct aifs_timespec *w, const struct timespec64 *ts)
{
	w->sec = cpu_to_le64(ts->tv_sec);
	w->nsec = cpu_to_le32(ts->tv_nsec);
}

/* The MDS's handle of the open file a setattr came through (ftruncate). */
static u64 aifs_setattr_handle(struct inode *inode, const struct iattr *iattr)
{
	const struct aifs_file *af;

	if (!(iattr->ia_valid & ATTR_FILE) || !S_ISREG(inode->i_mode))
		return 0;
	af = iattr->ia_file->private_data;
	return af ? af->handle : 0;
}

/*
 * The data servers may hold bytes of this client past the size the MDS
 * knows: a truncation must cut them even when it is not below that size.
 */
static bool aifs_wrote_past_mds_size(struct inode *inode)
{
	bool past;

	spin_lock(&inode->i_lock);
	past = i_size_read(inode) > AIFS_I(inode)->mds_size;
	spin_unlock(&inode->i_lock);
	return past;
}

/*
 * chmod, chown, utimens and truncate. The VFS holds i_rwsem: no write
 * runs meanwhile; for a truncation, aifs_setattr() holds off stores
 * through a mapping too.
 */
static int aifs_setattr_call(struct aifs_idmap *idmap,
			     struct dentry *dentry, struct iattr *iattr)
{
	struct inode *inode = d_inode(dentry);
	unsigned int ia = iattr->ia_valid;
	struct aifs_setattr_req req = {
		.ino = cpu_to_le64(inode->i_ino),
		.handle = cpu_to_le64(aifs_setattr_handle(inode, iattr)),
	};
	struct aifs_attr_rep rep;
	struct aifs_mds_msg m = {
		.op = AIFS_OP_SETATTR,
		.req = &req, .req_size = sizeof(req),
		.rep = &rep, .rep_size = sizeof(rep),
	};
	bool written = false;
	u32 valid = 0;
	int err;

	err = setattr_prepare(idmap, dentry, iattr);
	if (err)
		return err;
	if ((ia & ATTR_FORCE) && (ia & (ATTR_KILL_SUID | ATTR_KILL_SGID))) {
		/* a write's: the server drops the bits from its own mode */
		valid |= AIFS_SETATTR_KILL_SUID;
	} else if (ia & ATTR_MODE) {
		valid |= AIFS_SETATTR_MODE;
		req.mode = cpu_to_le32(iattr->ia_mode & ~S_IFMT);
	}
	if (ia & ATTR_UID) {
		valid |= AIFS_SETATTR_UID;
		req.uid = cpu_to_le32(from_kuid(inode->i_sb->s_user_ns,
						iattr->ia_uid));
	}
	if (ia & ATTR_GID) {
		valid |= AIFS_SETATTR_GID;
		req.gid = cpu_to_le32(from_kgid(inode->i_sb->s_user_ns,
						iattr->ia_gid));
	}
	if (ia & ATTR_SIZE) {
		/*
		 * The dirty data goes first, so that none lands on the data
		 * servers after the MDS cut the chunks; this client's writes
		 * then count as committed by the SETATTR, which sets the size.
		 */
		err = aifs_punch_wait(inode) ?:
		      filemap_write_and_wait(inode->i_mapping) ?:
		      aifs_ec_cut_tail(inode, iattr->ia_size);
		if (err)
			return err;
		written = test_and_clear_bit(AIFS_I_WRITTEN,
					     &AIFS_I(inode)->flags);
		valid |= AIFS_SETATTR_SIZE;
		if (aifs_wrote_past_mds_size(inode))
			valid |= AIFS_SETATTR_CUT;
		req.size = cpu_to_le64(iattr->ia_size);
	}
	if (ia & ATTR_ATIME) {
		valid |= ia & ATTR_ATIME_SET ? AIFS_SETATTR_ATIME :
					       AIFS_SETATTR_ATIME_NOW;
		aifs_ts_to_wire(&req.atime, &iattr->ia_atime);
	}
	if (ia & ATTR_MTIME) {
		valid |= ia & ATTR_MTIME_SET ? AIFS_SETATTR_MTIME :
					       AIFS_SETATTR_MTIME_NOW;
		aifs_ts_to_wire(&req.mtime, &iattr->ia_mtime);
	}
	req.valid = cpu_to_le32(valid);
	err = aifs_mds_call(inode->i_sb, &m);
	if (err && written)
		set_bit(AIFS_I_WRITTEN, &AIFS_I(inode)->flags);
	if (!err)
		err = aifs_inode_update_own(inode, &rep.attr);
	/* the cached bytes past the new size go; i_size is the MDS's now */
	if (!err && (ia & ATTR_SIZE))
		truncate_pagecache(inode, iattr->ia_size);
	return err;
}

/*
 * A truncation holds the invalidate_lock, which page_mkwrite takes
 * shared (mmap.c), from its writeback until the page cache is cut: a page
 * dirtied through a mapping in between could be written back after the
 * MDS cut the chunks, and bring old bytes back past the new size.
 */
int aifs_setattr(struct aifs_idmap *idmap, struct dentry *dentry,
		 struct iattr *iattr)
{
	struct address_space *mapping = d_inode(dentry)->i_mapping;
	int err;

	if (!(iattr->ia_valid & ATTR_SIZE))
		return aifs_setattr_call(idmap, dentry, iattr);
	filemap_invalidate_lock(mapping);
	err = aifs_setattr_call(idmap, dentry, iattr);
	filemap_invalidate_unlock(mapping);
	return err;
}

/**
 * aifs_inode_written - the page cache of a file took a write
 * @inode: the file
 * @end: where the write ended; i_size grows to it
 *
 * From now on the size and mtime are this client's until they are
 * committed (aifs_inode_commit(), or CLOSE): replies of the MDS do not
 * shrink the size nor move the mtime back meanwhile. Under i_lock, which
 * aifs_inode_update() takes too.
 */
void aifs_inode_written(struct inode *inode, loff_t end)
{
	spin_lock(&inode->i_lock);
	set_bit(AIFS_I_WRITTEN, &AIFS_I(inode)->flags);
	if (end > i_size_read(inode))
		i_size_write(inode, end);
	spin_unlock(&inode->i_lock);
}

/**
 * aifs_inode_commit - tell the MDS the size and mtime of this client's writes
 * @inode: the file, its dirty data written back
 * @handle: the MDS's handle of an open of it for writing
 *
 * Sends SETATTR when writes moved them since the last commit; the size
 * when it grew past what the MDS last said, as SIZE_GROW: a size another
 * client grew meanwhile is not cut back.
 * The mtime is the MDS's "now": an explicit one needs the file's owner.
 *
 * Return: 0 or the call's negative errno (the writes stay uncommitted).
 */
int aifs_inode_commit(struct inode *inode, u64 handle)
{
	struct aifs_inode_info *ai = AIFS_I(inode);
	struct aifs_setattr_req req = {
		.ino = cpu_to_le64(inode->i_ino),
		.handle = cpu_to_le64(handle),
	};
	struct aifs_attr_rep rep;
	struct aifs_mds_msg m = {
		.op = AIFS_OP_SETATTR,
		.req = &req, .req_size = sizeof(req),
		.rep = &rep, .rep_size = sizeof(rep),
	};
	u32 valid = AIFS_SETATTR_MTIME_NOW;
	int err;

	if (!test_and_clear_bit(AIFS_I_WRITTEN, &ai->flags))
		return 0;
	spin_lock(&inode->i_lock);
	if (i_size_read(inode) > ai->mds_size) {
		valid |= AIFS_SETATTR_SIZE_GROW;
		req.size = cpu_to_le64(i_size_read(inode));
	}
	spin_unlock(&inode->i_lock);
	req.valid = cpu_to_le32(valid);
	err = aifs_mds_call(inode->i_sb, &m);
	if (err) {
		set_bit(AIFS_I_WRITTEN, &ai->flags);
		return err;
	}
	return aifs_inode_update_own(inode, &rep.attr);
}

/**
 * aifs_write_inode - super_operations->write_inode
 * @inode: an inode the VFS writes back
 * @wbc: the flusher's (it does not wait) or sync's (WB_SYNC_ALL: it does)
 *
 * A file whose last CLOSE could not commit the size and mtime of its
 * writes (the MDS was away, or the writer was killed while its data was on
 * its way: the close waits for neither) is dirty, so that it is not
 * evicted with them: they are committed here, with no open handle (the
 * MDS checks write access), and the inode stays dirty while that fails,
 * unless the file is gone. Only then: the writes of a file open go with
 * its fsync or CLOSE, and the inode is dirtied by every mtime update.
 * Data written since (a new open) goes first: the flusher tries again
 * later, sync(2) and umount wait for it here (sync's writeback of the
 * data does not wait before it calls this).
 *
 * Return: 0 or the commit's negative errno.
 */
int aifs_write_inode(struct inode *inode, struct writeback_control *wbc)
{
	struct aifs_inode_info *ai = AIFS_I(inode);
	struct address_space *mapping = inode->i_mapping;
	int err = 0;

	if (!test_and_clear_bit(AIFS_I_UNCLOSED, &ai->flags))
		return 0;
	if (wbc->sync_mode == WB_SYNC_ALL)
		filemap_fdatawait_keep_errors(mapping);
	if (mapping_tagged(mapping, PAGECACHE_TAG_DIRTY) ||
	    mapping_tagged(mapping, PAGECACHE_TAG_WRITEBACK))
		err = -EAGAIN;
	else
		err = aifs_inode_commit(inode, 0);
	if (err && err != -ESTALE) {
		set_bit(AIFS_I_UNCLOSED, &ai->flags);
		mark_inode_dirty_sync(inode);
	}
	return err == -EAGAIN ? 0 : err;
}

/* Close-to-open: what another client changed is seen from this open on. */
int aifs_open(struct inode *inode, struct file *file)
{
	return aifs_revalidate(inode, true);
}
