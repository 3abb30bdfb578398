// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * aifs-mds --check: the tables agree with each other, in one read
 * transaction (safe next to a running server).  Every entry by name has
 * its entry by sequence and the other way round, names point at inodes of
 * their type, a directory's entry count, link count and ".." match its
 * entries, a file's link count matches its names (or it is an orphan),
 * no inode is without a name, no number is beyond the next to be given,
 * every stored POSIX ACL is one SETXATTR would accept.
 */
#include <endian.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mds.h"

/* A growing array of u64, sorted once full, then counted by value. */
struct ino_list {
	u64 *v;
	size_t nr, room, pos;
};

static int list_add(struct ino_list *l, u64 ino)
{
	u64 *grown;

	if (l->nr == l->room) {
		l->room = l->room ? 2 * l->room : 1024;
		grown = realloc(l->v, l->room * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		l->v = grown;
	}
	l->v[l->nr++] = ino;
	return 0;
}

static int u64_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* How many times @ino is listed; called with ascending @ino. */
static u64 list_count(struct ino_list *l, u64 ino)
{
	u64 n = 0;

	while (l->pos < l->nr && l->v[l->pos] < ino)
		l->pos++;
	while (l->pos < l->nr && l->v[l->pos] == ino) {
		l->pos++;
		n++;
	}
	return n;
}

struct check {
	struct mds_txn t;
	struct ino_list names;		/* child of every entry */
	struct ino_list children;	/* parent of every entry */
	struct ino_list subdirs;	/* parent of every directory entry */
	unsigned long problems, dentries, inodes, orphans;
};

static void problem(struct check *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void problem(struct check *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("problem: ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	c->problems++;
}

static void check_dentry(struct check *c, const MDB_val *k, const MDB_val *v)
{
	u64 parent = mds_key_id(k);
	struct mds_inode dir, inode;
	struct mds_dentry d;
	struct mds_key key;
	int name_len = k->mv_size - 8;
	const char *name = (const char *)k->mv_data + 8;
	MDB_val seqname;

	c->dentries++;
	if (v->mv_size != sizeof(d)) {
		problem(c, "entry %llu/%.*s: bad record", (unsigned long long)parent,
			name_len, name);
		return;
	}
	memcpy(&d, v->mv_data, sizeof(d));
	if (mds_inode_get(&c->t, parent, &dir) || !S_ISDIR(dir.mode))
		problem(c, "entry %llu/%.*s: parent is no directory",
			(unsigned long long)parent, name_len, name);
	else if (d.seq >= dir.next_seq)
		problem(c, "entry %llu/%.*s: seq %llu beyond the directory's",
			(unsigned long long)parent, name_len, name,
			(unsigned long long)d.seq);
	if (mds_inode_get(&c->t, d.ino, &inode))
		problem(c, "entry %llu/%.*s: no inode %llu",
			(unsigned long long)parent, name_len, name,
			(unsigned long long)d.ino);
	else if ((inode.mode & S_IFMT) != d.mode)
		problem(c, "entry %llu/%.*s: type differs from the inode's",
			(unsigned long long)parent, name_len, name);
	else if (S_ISDIR(inode.mode) && inode.parent != parent)
		problem(c, "directory %llu: \"..\" is %llu, entry in %llu",
			(unsigned long long)d.ino,
			(unsigned long long)inode.parent,
			(unsigned long long)parent);
	mds_key_pair(&key, parent, d.seq);
	if (mds_db_get(&c->t, MDS_DB_DIRSEQ, key.bytes, key.len, &seqname) ||
	    seqname.mv_size != (size_t)name_len ||
	    memcmp(seqname.mv_data, name, name_len))
		problem(c, "entry %llu/%.*s: no sequence entry %llu",
			(unsigned long long)parent, name_len, name,
			(unsigned long long)d.seq);
	if (list_add(&c->names, d.ino) || list_add(&c->children, parent) ||
	    (S_ISDIR(d.mode) && list_add(&c->subdirs, parent)))
		problem(c, "out of memory");
}

static void check_dirseq(struct check *c, const MDB_val *k, const MDB_val *v)
{
	struct aifs_span name = { v->mv_data, v->mv_size };
	struct mds_dentry d;
	u64 seq;

	memcpy(&seq, (u8 *)k->mv_data + 8, sizeof(seq));
	seq = be64toh(seq);
	if (mds_dentry_get(&c->t, mds_key_id(k), &name, &d) || d.seq != seq)
		problem(c, "sequence entry %llu/%llu: no matching entry",
			(unsigned long long)mds_key_id(k),
			(unsigned long long)seq);
}

static void check_inode(struct check *c, const struct mds_inode *inode)
{
	u64 names = list_count(&c->names, inode->ino);
	u64 children = list_count(&c->children, inode->ino);
	u64 subdirs = list_count(&c->subdirs, inode->ino);
	unsigned long long ino = inode->ino;
	MDB_val v;
	bool orphan = !mds_db_get(&c->t, MDS_DB_ORPHANS, &inode->ino,
				  sizeof(inode->ino), &v);

	c->inodes++;
	if (inode->ino >= c->t.mds->super.next_ino)
		problem(c, "inode %llu: beyond the next inode number", ino);
	if (S_ISDIR(inode->mode)) {
		if (inode->entries != children)
			problem(c, "directory %llu: %llu entries, counted %llu",
				ino, (unsigned long long)inode->entries,
				(unsigned long long)children);
		if (inode->nlink != 2 + subdirs)
			problem(c, "directory %llu: nlink %u, expected %llu",
				ino, inode->nlink,
				(unsigned long long)(2 + subdirs));
		if (names != (ino != AIFS_ROOT_INO))
			problem(c, "directory %llu: %llu names", ino,
				(unsigned long long)names);
		return;
	}
	if (inode->nlink != names)
		problem(c, "inode %llu: nlink %u, %llu names", ino, inode->nlink,
			(unsigned long long)names);
	if (!names && !orphan)
		problem(c, "inode %llu: no name and not an orphan", ino);
	if (names && orphan)
		problem(c, "inode %llu: an orphan with names", ino);
}

typedef void check_fn(struct check *c, const MDB_val *k, const MDB_val *v);

static int check_table(struct check *c, enum mds_dbi db, check_fn *fn)
{
	MDB_cursor *cur;
	MDB_val k, v;
	int rc, err;

	err = mds_db_cursor(&c->t, db, &cur);
	if (err)
		return err;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); !rc;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT))
		fn(c, &k, &v);
	mdb_cursor_close(cur);
	return rc == MDB_NOTFOUND ? 0 : mds_db_errno(rc);
}

static void check_inode_rec(struct check *c, const MDB_val *k,
			    const MDB_val *v)
{
	struct mds_inode inode;

	if (v->mv_size != sizeof(inode)) {
		problem(c, "inode %llu: bad record",
			(unsigned long long)*(u64 *)k->mv_data);
		return;
	}
	memcpy(&inode, v->mv_data, sizeof(inode));
	check_inode(c, &inode);
}

static void check_orphan(struct check *c, const MDB_val *k, const MDB_val *v)
{
	struct mds_inode inode;

	(void)v;
	c->orphans++;
	if (mds_inode_get(&c->t, *(u64 *)k->mv_data, &inode) || inode.nlink)
		problem(c, "orphan %llu: no such inode without links",
			(unsigned long long)*(u64 *)k->mv_data);
}

static void check_xattr(struct check *c, const MDB_val *k, const MDB_val *v)
{
	struct aifs_span name = { (const u8 *)k->mv_data + 8,
				  (u32)k->mv_size - 8 };

	if (k->mv_size > 8 && mds_acl_type(&name) >= 0 &&
	    mds_acl_check(v->mv_data, v->mv_size))
		problem(c, "inode %llu: %.*s is no valid ACL",
			(unsigned long long)mds_key_id(k), (int)name.len,
			(const char *)name.data);
}

static int check_all(struct check *c)
{
	struct mds_inode root;
	int err;

	if (mds_inode_get(&c->t, AIFS_ROOT_INO, &root) || !S_ISDIR(root.mode))
		problem(c, "no root directory");
	err = check_table(c, MDS_DB_DENTRIES, check_dentry);
	if (!err)
		err = check_table(c, MDS_DB_DIRSEQ, check_dirseq);
	if (err)
		return err;
	qsort(c->names.v, c->names.nr, sizeof(u64), u64_cmp);
	qsort(c->children.v, c->children.nr, sizeof(u64), u64_cmp);
	qsort(c->subdirs.v, c->subdirs.nr, sizeof(u64), u64_cmp);
	err = check_table(c, MDS_DB_INODES, check_inode_rec);
	if (!err)
		err = check_table(c, MDS_DB_ORPHANS, check_orphan);
	if (!err)
		err = check_table(c, MDS_DB_XATTRS, check_xattr);
	return err;
}

/* Returns 0 when consistent, 1 with problems, or a negative errno. */
int mds_check(struct mds *mds)
{
	struct check c;
	int err;

	memset(&c, 0, sizeof(c));
	err = mds_read_begin(mds, &c.t);
	if (err)
		return err;
	err = check_all(&c);
	mds_read_end(&c.t);
	free(c.names.v);
	free(c.children.v);
	free(c.subdirs.v);
	if (err)
		return err;
	printf("%lu inodes, %lu entries, %lu orphans: %lu problems\n",
	       c.inodes, c.dentries, c.orphans, c.problems);
	return c.problems ? 1 : 0;
}
