// SPDX-License-Identifier: GPL-2.0
/*
 * aifs - reading directories.
 *
 * The MDS lists a directory in order of its cookies: never 0, strictly
 * increasing along a listing, valid while the directory changes. The file
 * position is 0 for ".", 1 for "..", and cookie + 2 after the entry of
 * that cookie, so a listing resumes (and telldir/seekdir work) across
 * getdents calls with no state kept in the file.
 *
 * Replies are untrusted: the codec checks every entry's bounds, name and
 * attributes; here a cookie that does not increase, or a reply with
 * neither entries nor EOF, is -EIO, so that a broken server cannot make a
 * listing loop forever. A cookie the MDS no longer accepts (EINVAL: a
 * position from an lseek, or one of a directory that was recreated)
 * restarts the listing from its beginning, once per call.
 */
#include <linux/fs.h>
#include <linux/slab.h>

#include "internal.h"

/* One READDIR reply: 16 pages hold a hundred entries of long names. */
#define AIFS_READDIR_BUF	(16 * PAGE_SIZE)
#define AIFS_READDIR_ENTRIES	256
/* Largest cookie a position can hold; the position after the last entry. */
#define AIFS_COOKIE_MAX		((u64)LLONG_MAX - 3)
#define AIFS_DIR_EOF		LLONG_MAX

static int aifs_readdir_call(struct inode *dir, u64 cookie, void *buf,
			     struct aifs_readdir_rep *rep,
			     struct aifs_span *entries)
{
	struct aifs_readdir_req req = {
		.ino = cpu_to_le64(dir->i_ino),
		.cookie = cpu_to_le64(cookie),
		.max_entries = cpu_to_le32(AIFS_READDIR_ENTRIES),
		.max_bytes = cpu_to_le32(AIFS_READDIR_BUF),
	};
	struct aifs_mds_msg m = {
		.op = AIFS_OP_READDIR,
		.req = &req, .req_size = sizeof(req),
		.rep = rep, .rep_size = sizeof(*rep),
		.rep_buf = buf, .rep_max = AIFS_READDIR_BUF,
	};
	int err;

	err = aifs_mds_call(dir->i_sb, &m);
	if (!err)
		*entries = m.rep_parts[0];
	return err;
}

/*
 * Emit the entries of one reply after @*cookie. Return: 1 when the
 * caller's buffer is full, 0 to go on, -EIO for a broken reply.
 */
static int aifs_emit_entries(struct dir_context *ctx,
			     const struct aifs_span *entries, u64 *cookie)
{
	struct aifs_dirent_iter it;
	struct aifs_dirent ent;
	struct aifs_span name;
	u64 c;
	int ret;

	aifs_dirent_iter_init(&it, entries);
	while ((ret = aifs_dirent_next(&it, &ent, &name)) > 0) {
		c = le64_to_cpu(ent.cookie);
		if (c <= *cookie || c > AIFS_COOKIE_MAX ||
		    aifs_name_valid(name.data, name.len))
			return -EIO;
		if (!dir_emit(ctx, name.data, name.len,
			      le64_to_cpu(ent.attr.ino),
			      fs_umode_to_dtype(le32_to_cpu(ent.attr.mode))))
			return 1;
		*cookie = c;
		ctx->pos = c + 2;
	}
	return ret ? -EIO : 0;
}

static int aifs_readdir(struct file *file, struct dir_context *ctx)
{
	struct inode *dir = file_inode(file);
	struct aifs_readdir_rep rep;
	struct aifs_span entries;
	bool restarted = false;
	u64 cookie;
	void *buf;
	int err;

	if (!dir_emit_dots(file, ctx))
		return 0;
	if (ctx->pos - 2 > (loff_t)AIFS_COOKIE_MAX)
		return 0;	/* at EOF, or an lseek beyond any cookie */
	buf = kvmalloc(AIFS_READDIR_BUF, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	cookie = ctx->pos - 2;
	for (;;) {
		err = aifs_readdir_call(dir, cookie, buf, &rep, &entries);
		if (err == -EINVAL && cookie && !restarted) {
			restarted = true;
			cookie = 0;
			ctx->pos = 2;
			continue;
		}
		if (err)
			break;
		err = aifs_emit_entries(ctx, &entries, &cookie);
		if (err)
			break;
		if (le32_to_cpu(rep.flags) & AIFS_READDIR_EOF) {
			/* past every cookie: the next call ends at once */
			ctx->pos = AIFS_DIR_EOF;
			break;
		}
		if (!rep.count) {
			err = -EIO;
			break;
		}
	}
	kvfree(buf);
	return err < 0 ? err : 0;
}

const struct file_operations aifs_dir_fops = {
	.open		= aifs_open,
	.llseek		= generic_file_llseek,
	.read		= generic_read_dir,
	.iterate_shared	= aifs_readdir,
	.fsync		= noop_fsync,
};
