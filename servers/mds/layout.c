// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Layouts: the default of a new file system, inheritance (a directory's
 * layout is the default of what is created in it; a new file gets its
 * targets at creation) and LAYOUT_GET/SET.
 */
#include <string.h>

#include "mds.h"

void mds_layout_default(const struct mds_config *cfg,
			struct aifs_layout *layout)
{
	memset(layout, 0, sizeof(*layout));
	layout->chunk_size = cpu_to_le32((u32)cfg->default_chunk_kib << 10);
	layout->generation = cpu_to_le32(1);
	layout->stripe_count = cpu_to_le16(cfg->default_stripe_count);
	layout->type = AIFS_LAYOUT_REPLICA;
	layout->replicas = cfg->default_replicas;
}

/* The servers of one group of @layout: copies, or K + M fragments. */
unsigned int mds_layout_width(const struct aifs_layout *layout)
{
	if (layout->type == AIFS_LAYOUT_EC)
		return layout->ec_k + layout->ec_m;
	return layout->replicas;
}

/* Choose the targets of @layout among the up data servers: ENOSPC. */
static int layout_pick(struct mds_txn *t, struct aifs_layout *layout)
{
	unsigned int i, n = le16_to_cpu(layout->stripe_count) *
			    mds_layout_width(layout);
	u32 ids[AIFS_LAYOUT_MAX_TARGETS];
	int err;

	if (n > AIFS_LAYOUT_MAX_TARGETS)
		return -EINVAL;
	err = mds_map_pick(t->mds, ids, n, NULL, 0);
	if (err)
		return err;
	for (i = 0; i < n; i++)
		layout->targets[i] = cpu_to_le32(ids[i]);
	layout->target_count = cpu_to_le16(n);
	return 0;
}

/*
 * Give a new file's layout its targets.  Without enough data servers up
 * the file is made all the same, its targets left to its first OPEN for
 * writing: a namespace does not stop working for want of data servers.
 */
int mds_layout_assign(struct mds_txn *t, struct aifs_layout *layout)
{
	int err;

	if (layout->target_count || layout->type == AIFS_LAYOUT_INLINE)
		return 0;
	err = layout_pick(t, layout);
	return err == -ENOSPC ? 0 : err;
}

static int layout_get(struct mds_txn *t, struct aifs_request *req,
		      const void *arg, const struct aifs_span *parts)
{
	const struct aifs_ino_req *in = arg;
	struct aifs_layout_rep rep;
	struct mds_inode inode;
	int err;

	(void)parts;
	err = mds_inode_get(t, le64_to_cpu(in->ino), &inode);
	if (err)
		return err;
	rep.layout = inode.layout;
	return mds_reply(req, &rep, sizeof(rep), NULL);
}

bool mds_ids_have(const u32 *ids, unsigned int n, u32 id)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

bool mds_layout_names(const struct aifs_layout *l, u32 id)
{
	unsigned int i, n = le16_to_cpu(l->target_count);

	for (i = 0; i < n && i < AIFS_LAYOUT_MAX_TARGETS; i++)
		if (le32_to_cpu(l->targets[i]) == id)
			return true;
	return false;
}

int mds_handle_layout_get(struct aifs_request *req)
{
	struct aifs_ino_req in;

	return mds_read(req, &in, sizeof(in), layout_get);
}

/* Explicit targets must be known data servers, each once per group. */
static int layout_targets_known(struct mds *mds,
				const struct aifs_layout *layout)
{
	unsigned int i, n = le16_to_cpu(layout->target_count);

	for (i = 0; i < n; i++)
		if (!mds_map_known(mds, le32_to_cpu(layout->targets[i])))
			return -EINVAL;
	return 0;
}

static int layout_set(struct mds_txn *t, const struct aifs_layout_set_req *in,
		      struct mds_inode *inode)
{
	struct aifs_layout layout = in->layout;
	struct mds_cred cred;
	int err;

	mds_cred_from_wire(&cred, &in->cred);
	if (!mds_is_owner(&cred, inode))
		return -EPERM;
	if ((le32_to_cpu(in->flags) & AIFS_LAYOUT_SET_ARCHIVE) &&
	    S_ISREG(inode->mode) && inode->size)
		return mds_archive_begin(t, inode, &layout);
	if (S_ISREG(inode->mode) && inode->size)
		return -ENOTEMPTY;
	if (!S_ISREG(inode->mode) && !S_ISDIR(inode->mode))
		return -EINVAL;
	err = aifs_layout_check(&layout);
	if (!err && layout.target_count)
		err = layout_targets_known(t->mds, &layout);
	else if (!err && S_ISREG(inode->mode))
		err = layout_pick(t, &layout);
	if (err)
		return err;
	layout.generation = cpu_to_le32(le32_to_cpu(inode->layout.generation) + 1);
	inode->layout = layout;
	mds_inode_touch(t, inode, MDS_CTIME);
	return mds_inode_put(t, inode);
}

static int apply_layout_set(struct mds_txn *t, struct mds_op *op)
{
	struct aifs_layout_set_req in;
	struct aifs_layout_rep rep;
	struct mds_inode inode;
	int err;

	err = mds_decode(op->req, &in, sizeof(in), NULL);
	if (!err)
		err = mds_inode_get(t, le64_to_cpu(in.ino), &inode);
	if (!err)
		err = layout_set(t, &in, &inode);
	if (err)
		return err;
	rep.layout = inode.layout;
	return mds_reply(op->req, &rep, sizeof(rep), NULL);
}

int mds_handle_layout_set(struct aifs_request *req)
{
	return mds_write(req, apply_layout_set);
}
