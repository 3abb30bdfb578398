// SPDX-License-Identifier: GPL-2.0
/*
 * aifs - open regular files: OPEN and CLOSE with the MDS, reads through
 * the page cache (addr.c fills it).
 *
 * OPEN returns the file's attributes, its layout and a handle. The layout
 * is kept in the inode, where readahead (which may have no file) finds it;
 * the handle in the file, for CLOSE at release. Close-to-open: the
 * attributes of OPEN are taken, and when the server's change counter
 * moved since the last OPEN the cached pages are dropped.
 */
#define pr_fmt(fmt) "aifs: " fmt

#include <linux/pagemap.h>
#include <linux/slab.h>

#include "internal.h"
#include "compat.h"

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
	u64 old_change = ai->change;
	int err;

	if (rep->layout.type != AIFS_LAYOUT_REPLICA &&
	    le64_to_cpu(rep->attr.size))
		return -EOPNOTSUPP;	/* EC and inline data: not yet */
	err = aifs_inode_update(inode, &rep->attr);
	if (err)
		return err;
	spin_lock(&inode->i_lock);
	ai->layout = rep->layout;
	ai->has_layout = true;
	spin_unlock(&inode->i_lock);
	if (old_change != le64_to_cpu(rep->attr.change))
		invalidate_inode_pages2(inode->i_mapping);
	return 0;
}

/*
 * The MDS keeps a client's opens across its reconnections (for
 * open_grace_ms after its last session ended), so a CLOSE goes on any
 * connection of the session; but only once, on the connection there is:
 * close(2) never waits for a dead cluster. A CLOSE lost so leaves the
 * open on the MDS until this client's sessions end.
 */
static int aifs_file_close_call(struct inode *inode,
				const struct aifs_file *af)
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

	return aifs_mds_call(inode->i_sb, &m);
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
		aifs_file_close_call(inode, af);
		goto out_free;
	}
	file->private_data = af;
	return 0;
out_free:
	kfree(af);
	return err;
}

static int aifs_file_release(struct inode *inode, struct file *file)
{
	struct aifs_file *af = file->private_data;

	/* nothing to flush yet; a failed CLOSE ends with the session */
	aifs_file_close_call(inode, af);
	kfree(af);
	return 0;
}

/* Attributes older than attr_timeout are fetched again: the size moves. */
static ssize_t aifs_file_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	int err = aifs_revalidate(file_inode(iocb->ki_filp), false);

	if (err)
		return err;
	return generic_file_read_iter(iocb, to);
}

const struct file_operations aifs_file_fops = {
	.open		= aifs_file_open,
	.release	= aifs_file_release,
	.llseek		= generic_file_llseek,
	.read_iter	= aifs_file_read_iter,
	.splice_read	= aifs_splice_read,
	.mmap		= generic_file_readonly_mmap,
};
