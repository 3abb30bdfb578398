// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * RENAME, with renameat2()'s NOREPLACE and EXCHANGE: within a directory
 * or across two, over an existing target (a file over a file, an empty
 * directory over a directory), never a directory into its own subtree.
 * The parents' link counts follow the directories that move (each child
 * directory's ".." is a link of its parent).
 */
#include <string.h>

#include "mds.h"

/* Both sides of a rename, as loaded and changed in memory. */
struct rename_ctx {
	struct mds_cred cred;
	struct aifs_span old_name, new_name;
	struct mds_inode old_dir, new_dir_mem, *new_dir;
	struct mds_inode src, dst;
	struct mds_dentry src_d, dst_d;
	bool have_dst;
	u32 flags;
};

/*
 * Whether moving directory @ino under @dir would put it inside itself:
 * walk up from @dir to the root through the parent links.
 */
static int in_own_subtree(struct mds_txn *t, u64 ino, u64 dir)
{
	struct mds_inode cur;
	int depth, err;

	for (depth = 0; depth < 4096; depth++) {
		if (dir == ino)
			return -EINVAL;
		if (dir == AIFS_ROOT_INO)
			return 0;
		err = mds_inode_get(t, dir, &cur);
		if (err)
			return err == -ESTALE ? -EIO : err;
		dir = cur.parent;
	}
	return -ELOOP;
}

/* Moving directory @inode from @from to @to: its ".." and both nlinks. */
static int move_dir_checks(struct mds_txn *t, const struct rename_ctx *c,
			   const struct mds_inode *inode,
			   const struct mds_inode *to)
{
	int err;

	if (!S_ISDIR(inode->mode) || c->old_dir.ino == c->new_dir->ino)
		return 0;
	/* Its ".." changes: the kernel asks for write access to it. */
	err = mds_permission(t, &c->cred, inode, MDS_MAY_WRITE);
	if (!err)
		err = in_own_subtree(t, inode->ino, to->ino);
	if (!err && to->nlink >= MDS_LINK_MAX)
		err = -EMLINK;
	return err;
}

static int rename_load(struct mds_txn *t, struct rename_ctx *c,
		       const struct aifs_rename_req *in)
{
	u64 new_parent = le64_to_cpu(in->new_parent);
	int err;

	err = mds_inode_get(t, le64_to_cpu(in->old_parent), &c->old_dir);
	if (err)
		return err;
	c->new_dir = &c->old_dir;
	if (new_parent != c->old_dir.ino) {
		c->new_dir = &c->new_dir_mem;
		err = mds_inode_get(t, new_parent, c->new_dir);
		if (err)
			return err;
	}
	err = mds_may_change_dir(t, &c->cred, &c->old_dir);
	if (!err)
		err = mds_may_change_dir(t, &c->cred, c->new_dir);
	if (!err)
		err = mds_dentry_get(t, c->old_dir.ino, &c->old_name, &c->src_d);
	if (!err)
		err = mds_inode_get(t, c->src_d.ino, &c->src);
	if (!err)
		err = mds_may_delete(t, &c->cred, &c->old_dir, &c->src);
	if (err)
		return err == -ESTALE ? -EIO : err;
	err = mds_dentry_get(t, c->new_dir->ino, &c->new_name, &c->dst_d);
	if (err == -ENOENT)
		return 0;
	if (!err)
		err = mds_inode_get(t, c->dst_d.ino, &c->dst);
	if (!err)
		err = mds_may_delete(t, &c->cred, c->new_dir, &c->dst);
	c->have_dst = !err;
	return err;
}

/* What replacing (not exchanging) an existing target requires. */
static int replace_checks(const struct rename_ctx *c)
{
	if (c->flags & AIFS_RENAME_NOREPLACE)
		return -EEXIST;
	if (S_ISDIR(c->src.mode) && !S_ISDIR(c->dst.mode))
		return -ENOTDIR;
	if (!S_ISDIR(c->src.mode) && S_ISDIR(c->dst.mode))
		return -EISDIR;
	if (S_ISDIR(c->dst.mode) && c->dst.entries)
		return -ENOTEMPTY;
	return 0;
}

static int rename_checks(struct mds_txn *t, const struct rename_ctx *c)
{
	int err;

	if (c->flags & AIFS_RENAME_EXCHANGE) {
		if (!c->have_dst)
			return -ENOENT;
		err = move_dir_checks(t, c, &c->dst, &c->old_dir);
	} else {
		err = c->have_dst ? replace_checks(c) : 0;
	}
	return err ? err : move_dir_checks(t, c, &c->src, c->new_dir);
}

/* A directory moved from @from to @to: "..", and the parents' nlinks. */
static void reparent(struct mds_inode *inode, struct mds_inode *from,
		     struct mds_inode *to)
{
	if (!S_ISDIR(inode->mode) || from == to)
		return;
	inode->parent = to->ino;
	from->nlink--;
	to->nlink++;
}

static int rename_exchange(struct mds_txn *t, struct rename_ctx *c)
{
	int err;

	err = mds_dentry_del(t, &c->old_dir, &c->old_name, &c->src_d);
	if (!err)
		err = mds_dentry_del(t, c->new_dir, &c->new_name, &c->dst_d);
	if (!err)
		err = mds_dentry_add(t, &c->old_dir, &c->old_name, &c->dst);
	if (!err)
		err = mds_dentry_add(t, c->new_dir, &c->new_name, &c->src);
	if (err)
		return err;
	reparent(&c->src, &c->old_dir, c->new_dir);
	reparent(&c->dst, c->new_dir, &c->old_dir);
	mds_inode_touch(t, &c->dst, MDS_CTIME);
	return mds_inode_put(t, &c->dst);
}

static int rename_move(struct mds_txn *t, struct rename_ctx *c)
{
	int err;

	err = mds_dentry_del(t, &c->old_dir, &c->old_name, &c->src_d);
	if (!err && c->have_dst) {
		err = mds_dentry_del(t, c->new_dir, &c->new_name, &c->dst_d);
		if (S_ISDIR(c->dst.mode))
			c->new_dir->nlink--;
		if (!err)
			err = mds_inode_drop_link(t, &c->dst);
	}
	if (!err)
		err = mds_dentry_add(t, c->new_dir, &c->new_name, &c->src);
	if (!err)
		reparent(&c->src, &c->old_dir, c->new_dir);
	return err;
}

static int rename_apply(struct mds_txn *t, struct rename_ctx *c)
{
	int err;

	err = rename_checks(t, c);
	if (err)
		return err;
	/* Two names of one inode: nothing to do, as rename(2) says. */
	if (c->have_dst && c->src.ino == c->dst.ino)
		return 0;
	err = c->flags & AIFS_RENAME_EXCHANGE ? rename_exchange(t, c) :
						rename_move(t, c);
	if (err)
		return err;
	mds_inode_touch(t, &c->src, MDS_CTIME);
	err = mds_inode_put(t, &c->src);
	if (!err)
		err = mds_inode_put(t, &c->old_dir);
	if (!err && c->new_dir != &c->old_dir)
		err = mds_inode_put(t, c->new_dir);
	return err;
}

static int apply_rename(struct mds_txn *t, struct mds_op *op)
{
	struct aifs_span names[AIFS_MSG_MAX_PARTS];
	struct aifs_rename_req in;
	struct aifs_rename_rep rep;
	struct rename_ctx c;
	int err;

	err = mds_decode(op->req, &in, sizeof(in), names);
	if (err)
		return err;
	memset(&c, 0, sizeof(c));
	mds_cred_from_wire(&c.cred, &in.cred);
	c.old_name = names[0];
	c.new_name = names[1];
	c.flags = le32_to_cpu(in.flags);
	if (c.flags & AIFS_RENAME_WHITEOUT)
		return -EINVAL;		/* no whiteouts: no overlayfs upper */
	err = rename_load(t, &c, &in);
	if (!err)
		err = rename_apply(t, &c);
	if (err)
		return err;
	memset(&rep, 0, sizeof(rep));
	mds_inode_to_attr(&c.old_dir, &rep.old_dir);
	mds_inode_to_attr(c.new_dir, &rep.new_dir);
	mds_inode_to_attr(&c.src, &rep.attr);
	if (c.have_dst)
		mds_inode_to_attr(&c.dst, &rep.target);
	return mds_reply(op->req, &rep, sizeof(rep), NULL);
}

int mds_handle_rename(struct aifs_request *req)
{
	return mds_write(req, apply_rename);
}
