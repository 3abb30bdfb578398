// SPDX-License-Identifier: GPL-2.0
/*
 * aifs - open regular files: OPEN and CLOSE with the MDS, reads and writes
 * through the page cache (addr.c fills it, write.c writes it back), fsync.
 *
 * OPEN returns the file's attributes, its layout and a handle. The layout
 * is kept in the inode, where readahead (which may have no file) finds it;
 * the handle in the file, for CLOSE at release. Close-to-open: the
 * attributes of OPEN are taken, and when the server's change counter
 * moved since the last OPEN or this client's own last change the cached
 * pages are dropped (dirty ones written first: launder_folio). A close writes the dirty data back
 * (flush) and CLOSE commits the size and mtime the writes made; fsync
 * commits them with SETATTR. fallocate punches holes on the data servers
 * and grows the size as a write does; SEEK_DATA and SEEK_HOLE see the
 * whole file as data. O_DIRECT reads and writes bypass the page cache
 * (direct.c).
 */
#define pr_fmt(fmt) "aifs: " fmt

#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/falloc.h>	/* after linux/types.h, which it needs */

#include "internal.h"

static u32 aifs_open_flags(const struct file *file)
{
	switch (file->f_flags & O_ACCMODE) {
	case O_WRONLY:
		return AIFS_OPEN_WRONLY;
	case O_RDWR:
		return AIFS_OPEN_RDWR;
	}
	return AIFS_OPEN_RDONLY;
}

/* Take the layout and attributes of an OPEN reply. */
static int aifs_file_opened(struct inode *inode, const struct aifs_open_rep *rep)
{
	struct aifs_inode_info *ai = AIFS_I(inode);
	u64 change = le64_to_cpu(rep->attr.change);
	bool changed;
	int err;

	if (rep->layout.type == AIFS_LAYOUT_INLINE &&
	    le64_to_cpu(rep->attr.size))
		return -EOPNOTSUPP;	/* inline data: not yet */
	err = aifs_inode_update(inode, &rep->attr);
	if (err)
		return err;
	spin_lock(&inode->i_lock);
	ai->layout = rep->layout;
	ai->has_layout = true;
	changed = ai->cache_change != change;
	ai->cache_change = change;
	spin_unlock(&inode->i_lock);
	if (changed)
		invalidate_inode_pages2(inode->i_mapping);
	return 0;
}

/* The size and mtime of the writes wait for aifs_write_inode(). */
static void aifs_file_commit_later(struct inode *inode)
{
	set_bit(AIFS_I_UNCLOSED, &AIFS_I(inode)->flags);
	mark_inode_dirty_sync(inode);
}

/*
 * The MDS keeps a client's opens across its reconnections (for
 * open_grace_ms after its last session ended), so a CLOSE goes on any
 * connection of the session; but only once, on the connection there is:
 * close(2) never waits for a dead cluster. A CLOSE lost so leaves the
 * open on the MDS until this client's sessions end. With @commit, it
 * carries the size and mtime of the writes (AIFS_CLOSE_SIZE); when it
 * fails they stay uncommitted and the inode dirty, for aifs_write_inode()
 * (aifs_file_commit_later()).
 */
static int aifs_file_close_call(struct inode *inode,
				const struct aifs_file *af, bool commit)
{
	struct aifs_close_req req = {
		.ino = cpu_to_le64(inode->i_ino),
		.handle = cpu_to_le64(af->handle),
	};
	struct aifs_attr_rep rep;
	struct aifs_mds_msg m = {
		.op = AIFS_OP_CLOSE,
		.req = &req, .req_size = sizeof(req),
		.rep = &rep, .rep_size = sizeof(rep),
		.once = true,
	};
	struct timespec64 mtime;
	int err;

	commit = commit &&
		 test_and_clear_bit(AIFS_I_WRITTEN, &AIFS_I(inode)->flags);
	if (commit) {
		req.flags = cpu_to_le32(AIFS_CLOSE_SIZE);
		spin_lock(&inode->i_lock);
		req.size = cpu_to_le64(i_size_read(inode));
		mtime = aifs_inode_mtime(inode);
		aifs_ts_to_wire(&req.mtime, &mtime);
		spin_unlock(&inode->i_lock);
	}
	err = aifs_mds_call(inode->i_sb, &m);
	if (err && commit) {
		set_bit(AIFS_I_WRITTEN, &AIFS_I(inode)->flags);
		aifs_file_commit_later(inode);
	}
	if (!err && commit)
		err = aifs_inode_update_own(inode, &rep.attr);
	return err;
}

static int aifs_file_open(struct inode *inode, struct file *file)
{
	struct aifs_open_req req = {
		.ino = cpu_to_le64(inode->i_ino),
		.flags = cpu_to_le32(aifs_open_flags(file)),
	};
	struct aifs_open_rep rep;
	struct aifs_mds_msg m = {
		.op = AIFS_OP_OPEN,
		.req = &req, .req_size = sizeof(req),
		.rep = &rep, .rep_size = sizeof(rep),
	};
	struct aifs_file *af;
	int err;

	af = kzalloc(sizeof(*af), GFP_KERNEL);
	if (!af)
		return -ENOMEM;
	err = aifs_mds_call(inode->i_sb, &m);
	if (err)
		goto out_free;
	af->handle = le64_to_cpu(rep.handle);
	err = aifs_file_opened(inode, &rep);
	if (err) {
		aifs_file_close_call(inode, af, false);
		goto out_free;
	}
	file->private_data = af;
	/* no ->direct_IO: read_iter and write_iter do O_DIRECT themselves */
	file->f_mode |= FMODE_CAN_ODIRECT;
	return 0;
out_free:
	kfree(af);
	return err;
}

/*
 * Every close(2): the dirty data goes to the data servers, and an error of
 * its writeback that this file has not reported yet is reported now.
 */
static int aifs_file_flush(struct file *file, fl_owner_t id)
{
	int err;

	if (!(file->f_mode & FMODE_WRITE))
		return 0;
	err = aifs_write_and_wait(file, 0, LLONG_MAX);
	return err == -ERESTARTSYS ? -EINTR : err;
}

/*
 * The last close: what was written through another descriptor of the file
 * since the last flush goes too, then CLOSE, with the size of the writes
 * for a file open for writing. Errors have nobody to go to here: a failed
 * CLOSE ends with the session, an unwritten size waits for the next.
 * A writer killed while its data waits on the data servers (this is its
 * exit's close) does not wait: the data goes on without it, and the size
 * waits for aifs_write_inode(), which commits it once the data is there.
 */
static int aifs_file_release(struct inode *inode, struct file *file)
{
	struct aifs_file *af = file->private_data;
	bool commit = file->f_mode & FMODE_WRITE;

	if (commit && aifs_write_and_wait(file, 0, LLONG_MAX) == -ERESTARTSYS) {
		commit = false;
		if (test_bit(AIFS_I_WRITTEN, &AIFS_I(inode)->flags))
			aifs_file_commit_later(inode);
	}
	aifs_file_close_call(inode, af, commit);
	kfree(af);
	return 0;
}

/* Attributes older than attr_timeout are fetched again: the size moves. */
static ssize_t aifs_file_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	bool direct = iocb->ki_flags & IOCB_DIRECT;
	ssize_t ret;

	ret = aifs_revalidate(inode, false);
	if (ret)
		return ret;
	ret = direct ? aifs_direct_read(iocb, to) :
		       generic_file_read_iter(iocb, to);
	aifs_stats_io(AIFS_SB(inode->i_sb), false, direct, ret);
	return ret;
}

/*
 * As reads, the attributes are fetched again after attr_timeout (O_APPEND
 * writes at the size); a file whose layout has no data server to write to
 * is ENOSPC before anything is cached. Then, as generic_file_write_iter()
 * but for the wait under i_rwsem for a punch left behind by a killed
 * fallocate (its zeros must not overtake this data): limits, privileges,
 * mtime, the page cache (or, for O_DIRECT, the caller's pages: direct.c),
 * balanced dirtying through the mount's bdi, and O_SYNC/O_DSYNC through
 * fsync.
 */
static ssize_t aifs_file_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	struct aifs_layout layout;
	ssize_t ret;

	ret = aifs_revalidate(inode, false) ?: aifs_layout_get(inode, &layout);
	if (ret)
		return ret;
	/* before file_update_time(): a reply must not undo the new mtime */
	aifs_inode_written(inode, 0);
	inode_lock(inode);
	ret = aifs_punch_wait(inode);
	if (!ret)
		ret = generic_write_checks(iocb, from);
	if (ret > 0 && (iocb->ki_flags & IOCB_DIRECT))
		ret = aifs_direct_write(iocb, from, ret);
	else if (ret > 0)
		ret = __generic_file_write_iter(iocb, from);
	inode_unlock(inode);
	aifs_stats_io(AIFS_SB(inode->i_sb), true, iocb->ki_flags & IOCB_DIRECT,
		      ret);
	return ret > 0 ? generic_write_sync(iocb, ret) : ret;
}

/*
 * Zero [@offset, @offset + @len) and keep the size. The dirty data of the
 * range goes first, so that none lands after the zeros; the cached pages
 * of the range are dropped (the edges zeroed) before the zeros go, and
 * again after, for what readers cached meanwhile. Past i_size the chunks
 * hold nothing: nothing is sent for it.
 */
static int aifs_file_punch(struct file *file, const struct aifs_layout *layout,
			   loff_t offset, loff_t len)
{
	struct inode *inode = file_inode(file);
	loff_t end = min(offset + len, i_size_read(inode));
	int err;

	if (offset >= end)
		return 0;
	err = filemap_write_and_wait_range(inode->i_mapping, offset, end - 1);
	if (err)
		return err;
	truncate_pagecache_range(inode, offset, end - 1);
	aifs_inode_written(inode, 0);
	err = file_modified(file) ?:
	      aifs_punch_range(inode, layout, offset, end - offset);
	truncate_pagecache_range(inode, offset, end - 1);
	return err;
}

/*
 * The default mode: a range ending past EOF grows the size, as a write
 * there would, and is committed like one (fsync, close). The data
 * servers reserve nothing: chunks are written when data comes.
 */
static int aifs_file_extend(struct file *file, loff_t end)
{
	struct inode *inode = file_inode(file);
	int err;

	if (end <= i_size_read(inode))
		return 0;
	err = inode_newsize_ok(inode, end);
	if (err)
		return err;
	aifs_inode_written(inode, end);
	return file_modified(file);
}

/*
 * fallocate(2): FALLOC_FL_PUNCH_HOLE (with FALLOC_FL_KEEP_SIZE, which the
 * VFS insists on), the default mode, and FALLOC_FL_KEEP_SIZE alone, which
 * has nothing to do as no space is reserved. Under i_rwsem, as truncate.
 */
static long aifs_file_fallocate(struct file *file, int mode, loff_t offset,
				loff_t len)
{
	struct inode *inode = file_inode(file);
	struct aifs_layout layout;
	int err;

	if (mode & ~(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE))
		return -EOPNOTSUPP;
	inode_lock(inode);
	err = aifs_punch_wait(inode) ?: aifs_revalidate(inode, false);
	if (err)
		goto out;
	if (mode & FALLOC_FL_PUNCH_HOLE)
		err = aifs_layout_get(inode, &layout) ?:
		      aifs_file_punch(file, &layout, offset, len);
	else if (!(mode & FALLOC_FL_KEEP_SIZE))
		err = aifs_file_extend(file, offset + len);
out:
	inode_unlock(inode);
	return err;
}

/*
 * The size another client may have moved is fetched after attr_timeout
 * for whatever is measured from the end. SEEK_DATA and SEEK_HOLE take
 * the whole file as data and its end as the only hole, as
 * generic_file_llseek() does: telling the chunks never written apart
 * would cost a request per chunk.
 */
static loff_t aifs_file_llseek(struct file *file, loff_t offset, int whence)
{
	int err;

	switch (whence) {
	case SEEK_END:
	case SEEK_DATA:
	case SEEK_HOLE:
		err = aifs_revalidate(file_inode(file), false);
		if (err)
			return err;
	}
	return generic_file_llseek(file, offset, whence);
}

/*
 * Every CHUNK_WRITE is durable when answered (AIFS_IO_SYNC), so fsync is
 * writeback and its wait, then the size and mtime to the MDS; the error
 * is the writeback's first one this file has not reported yet.
 */
static int aifs_file_fsync(struct file *file, loff_t start, loff_t end,
			   int datasync)
{
	struct aifs_file *af = file->private_data;
	int err;

	err = aifs_write_and_wait(file, start, end);
	if (err || !(file->f_mode & FMODE_WRITE))
		return err;
	return aifs_inode_commit(file_inode(file), af->handle);
}

const struct file_operations aifs_file_fops = {
	.open		= aifs_file_open,
	.flush		= aifs_file_flush,
	.release	= aifs_file_release,
	.fsync		= aifs_file_fsync,
	.llseek		= aifs_file_llseek,
	.read_iter	= aifs_file_read_iter,
	.write_iter	= aifs_file_write_iter,
	.splice_read	= aifs_splice_read,
	.splice_write	= iter_file_splice_write,
	.mmap		= aifs_file_mmap,
	.fallocate	= aifs_file_fallocate,
};
