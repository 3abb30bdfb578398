// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * fsck's repairs of the tables (check.c finds what is wrong).  Each runs
 * on the writer, after the read transaction that found it, with the
 * namespace live meanwhile: a repair is made only if what it was found in
 * is still so (the inode record byte for byte, the entry naming the same
 * inode), else -ESTALE and the next pass looks again.
 */
#include <endian.h>
#include <stdio.h>
#include <string.h>

#include "mds.h"

#define LOST_FOUND	"lost+found"

static int fix_snap_get(struct mds_txn *t, const struct mds_fix *fix,
			struct mds_inode *inode)
{
	int err = mds_inode_get(t, fix->ino, inode);

	if (err)
		return err;	/* -ESTALE: gone */
	return memcmp(inode, &fix->snap, sizeof(*inode)) ? -ESTALE : 0;
}

/* The entry @fix names, by name: -ESTALE unless it names @fix->child. */
static int fix_dentry_get(struct mds_txn *t, const struct mds_fix *fix,
			  struct mds_dentry *d)
{
	struct aifs_span name = { (const u8 *)fix->name, fix->name_len };
	int err = mds_dentry_get(t, fix->ino, &name, d);

	if (!err && (d->ino != fix->child || d->seq != fix->seq))
		err = -ESTALE;
	return err == -ENOENT ? -ESTALE : err;
}

static int fix_dentry_del(struct mds_txn *t, const struct mds_fix *fix)
{
	struct mds_inode dir, gone;
	struct mds_dentry d;
	struct mds_key key;
	int err;

	err = fix_dentry_get(t, fix, &d);
	if (!err)
		err = mds_inode_get_dir(t, fix->ino, &dir);
	if (err)
		return err;
	err = mds_inode_get(t, d.ino, &gone);
	if (err != -ESTALE)
		return err ? err : -ESTALE;	/* it is there now */
	mds_key_name(&key, fix->ino, fix->name, fix->name_len);
	err = mds_db_del(t, MDS_DB_DENTRIES, key.bytes, key.len);
	if (err)
		return err;
	mds_key_pair(&key, fix->ino, d.seq);
	err = mds_db_del(t, MDS_DB_DIRSEQ, key.bytes, key.len);
	if (err && err != -ENOENT)
		return err;
	if (dir.entries)
		dir.entries--;
	if (S_ISDIR(d.mode) && dir.nlink > 2)
		dir.nlink--;
	mds_inode_touch(t, &dir, MDS_MTIME | MDS_CTIME);
	return mds_inode_put(t, &dir);
}

static int fix_dirseq_del(struct mds_txn *t, const struct mds_fix *fix)
{
	struct mds_dentry d;
	struct aifs_span name;
	struct mds_key key;
	MDB_val v;
	int err;

	mds_key_pair(&key, fix->ino, fix->seq);
	err = mds_db_get(t, MDS_DB_DIRSEQ, key.bytes, key.len, &v);
	if (err)
		return err == -ENOENT ? -ESTALE : err;
	name = (struct aifs_span){ v.mv_data, v.mv_size };
	err = mds_dentry_get(t, fix->ino, &name, &d);
	if (!err && d.seq == fix->seq)
		return -ESTALE;
	if (err && err != -ENOENT)
		return err;
	return mds_db_del(t, MDS_DB_DIRSEQ, key.bytes, key.len);
}

static int fix_dirseq_add(struct mds_txn *t, const struct mds_fix *fix)
{
	struct mds_dentry d;
	struct mds_key key;
	int err;

	err = fix_dentry_get(t, fix, &d);
	if (err)
		return err;
	mds_key_pair(&key, fix->ino, fix->seq);
	err = mds_db_put(t, MDS_DB_DIRSEQ, key.bytes, key.len, fix->name,
			 fix->name_len, MDB_NOOVERWRITE);
	return err == -EEXIST ? -ESTALE : err;
}

/* The entries of directory @dir, and how many are directories. */
static int dir_count(struct mds_txn *t, u64 dir, u64 *entries, u64 *subdirs)
{
	u64 prefix = htobe64(dir);
	MDB_val k = { sizeof(prefix), &prefix }, v;
	struct mds_dentry d;
	MDB_cursor *cur;
	int rc, err;

	*entries = *subdirs = 0;
	err = mds_db_cursor(t, MDS_DB_DENTRIES, &cur);
	if (err)
		return err;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
	     !rc && k.mv_size > 8 && mds_key_id(&k) == dir;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if (v.mv_size != sizeof(d))
			continue;	/* reported, not repaired */
		memcpy(&d, v.mv_data, sizeof(d));
		++*entries;
		*subdirs += S_ISDIR(d.mode);
	}
	mdb_cursor_close(cur);
	return rc && rc != MDB_NOTFOUND ? mds_db_errno(rc) : 0;
}

/*
 * A directory's counts are counted again here (its entries are one range
 * of the table): other repairs may have changed them since.  A file's
 * names are not (no index by inode): it must be as it was found.
 */
static int fix_counts(struct mds_txn *t, const struct mds_fix *fix)
{
	struct mds_inode inode;
	u64 entries, subdirs;
	int err;

	if (S_ISDIR(fix->snap.mode)) {
		err = mds_inode_get_dir(t, fix->ino, &inode);
		if (!err)
			err = dir_count(t, fix->ino, &entries, &subdirs);
		if (err)
			return err;
		if (inode.entries == entries && inode.nlink == 2 + subdirs)
			return -ESTALE;
		inode.entries = entries;
		inode.nlink = 2 + subdirs;
	} else {
		err = fix_snap_get(t, fix, &inode);
		if (err)
			return err;
		inode.nlink = fix->nlink;
	}
	mds_inode_touch(t, &inode, MDS_CTIME);
	return mds_inode_put(t, &inode);
}

/* /lost+found, made (root's, mode 0700) if it is not there. */
static int lost_found_get(struct mds_txn *t, struct mds_inode *lf)
{
	struct aifs_span name = { (const u8 *)LOST_FOUND,
				  sizeof(LOST_FOUND) - 1 };
	struct mds_inode root;
	struct mds_dentry d;
	int err;

	err = mds_dentry_get(t, AIFS_ROOT_INO, &name, &d);
	if (!err)
		return mds_inode_get_dir(t, d.ino, lf);
	if (err != -ENOENT)
		return err;
	err = mds_inode_get_dir(t, AIFS_ROOT_INO, &root);
	if (err)
		return err;
	mds_inode_init(t, lf, mds_inode_alloc_ino(t), S_IFDIR | 0700, 0, 0);
	lf->nlink = 2;
	lf->parent = AIFS_ROOT_INO;
	lf->layout = root.layout;
	err = mds_dentry_add(t, &root, &name, lf);
	if (err)
		return err;
	root.nlink++;
	err = mds_inode_put(t, &root);
	return err ? err : mds_inode_put(t, lf);
}

/* A nameless inode gets the name "#<ino>" in /lost+found. */
static int fix_lost(struct mds_txn *t, const struct mds_fix *fix)
{
	struct mds_inode inode, lf;
	struct aifs_span name;
	char buf[32];
	int err;

	err = fix_snap_get(t, fix, &inode);
	if (!err)
		err = lost_found_get(t, &lf);
	if (err)
		return err;
	name.data = (const u8 *)buf;
	name.len = snprintf(buf, sizeof(buf), "#%llu",
			    (unsigned long long)inode.ino);
	err = mds_dentry_add(t, &lf, &name, &inode);
	if (err)
		return err == -EEXIST ? -ESTALE : err;
	if (S_ISDIR(inode.mode)) {
		inode.parent = lf.ino;
		lf.nlink++;
	} else {
		inode.nlink = 1;
	}
	mds_inode_touch(t, &inode, MDS_CTIME);
	err = mds_inode_put(t, &lf);
	return err ? err : mds_inode_put(t, &inode);
}

static int fix_orphan_del(struct mds_txn *t, const struct mds_fix *fix)
{
	struct mds_inode inode;
	int err;

	err = mds_inode_get(t, fix->ino, &inode);
	if (!err && (!fix->snap.ino ||
		     memcmp(&inode, &fix->snap, sizeof(inode))))
		return -ESTALE;		/* changed meanwhile */
	if (err && err != -ESTALE)
		return err;	/* -ESTALE: gone, an orphan record too many */
	err = mds_db_del(t, MDS_DB_ORPHANS, &fix->ino, sizeof(fix->ino));
	return err == -ENOENT ? -ESTALE : err;
}

static int apply_fix(struct mds_txn *t, struct mds_op *op)
{
	const struct mds_fix *fix = op->arg;

	switch (fix->type) {
	case MDS_FIX_DENTRY_DEL:
		return fix_dentry_del(t, fix);
	case MDS_FIX_DIRSEQ_DEL:
		return fix_dirseq_del(t, fix);
	case MDS_FIX_DIRSEQ_ADD:
		return fix_dirseq_add(t, fix);
	case MDS_FIX_COUNTS:
		return fix_counts(t, fix);
	case MDS_FIX_LOST:
		return fix_lost(t, fix);
	case MDS_FIX_ORPHAN_DEL:
		return fix_orphan_del(t, fix);
	default:
		return -EOPNOTSUPP;
	}
}

int mds_fix_apply(struct mds *mds, const struct mds_fix *fix)
{
	return mds_write_own(mds, apply_fix, (void *)fix);
}
