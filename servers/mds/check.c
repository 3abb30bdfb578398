// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The tables agree with each other, checked in one read transaction (safe
 * next to a running server): for aifs-mds --check, which prints what it
 * finds, and for fsck (fsck.c), which may repair it.  Every entry by name has
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

static int u64_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

int mds_u64s_add(struct mds_u64s *l, u64 v)
{
	u64 *grown;

	if (l->nr == l->room) {
		l->room = l->room ? 2 * l->room : 1024;
		grown = realloc(l->v, l->room * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		l->v = grown;
	}
	l->v[l->nr++] = v;
	return 0;
}

void mds_u64s_sort(struct mds_u64s *l)
{
	qsort(l->v, l->nr, sizeof(*l->v), u64_cmp);
}

bool mds_u64s_has(const struct mds_u64s *l, u64 v)
{
	return l->nr && bsearch(&v, l->v, l->nr, sizeof(*l->v), u64_cmp);
}

/* How many times @ino is in sorted @l; called with ascending @ino. */
static u64 list_count(struct mds_u64s *l, u64 ino)
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
	struct mds_txn *t;
	struct mds_u64s names;		/* child of every entry */
	struct mds_u64s children;	/* parent of every entry */
	struct mds_u64s subdirs;	/* parent of every directory entry */
	struct mds_check_tally *tally;
	mds_problem_fn *found;
	void *arg;
};

/* @fix (NULL: none) of a problem of @kind, described by @fmt. */
static void problem(struct check *c, enum aifs_fsck_kind kind,
		    const struct mds_fix *fix, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void problem(struct check *c, enum aifs_fsck_kind kind,
		    const struct mds_fix *fix, const char *fmt, ...)
{
	struct mds_fix none = { .type = MDS_FIX_NONE };
	char text[MDS_FIX_TEXT];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	c->tally->problems++;
	c->found(c->arg, kind, fix ? fix : &none, text);
}

static void fix_name(struct mds_fix *fix, const char *name, int len)
{
	fix->name_len = len;
	memcpy(fix->name, name, len);
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

	struct mds_fix fix = { .ino = parent };

	c->tally->dentries++;
	if (v->mv_size != sizeof(d) || name_len > AIFS_NAME_MAX) {
		problem(c, AIFS_FSCK_OTHER, NULL, "entry %llu/%.*s: bad record",
			(unsigned long long)parent, name_len, name);
		return;
	}
	memcpy(&d, v->mv_data, sizeof(d));
	fix_name(&fix, name, name_len);
	fix.seq = d.seq;
	fix.child = d.ino;
	if (mds_inode_get(c->t, parent, &dir) || !S_ISDIR(dir.mode))
		problem(c, AIFS_FSCK_OTHER, NULL,
			"entry %llu/%.*s: parent is no directory",
			(unsigned long long)parent, name_len, name);
	else if (d.seq >= dir.next_seq)
		problem(c, AIFS_FSCK_OTHER, NULL,
			"entry %llu/%.*s: seq %llu beyond the directory's",
			(unsigned long long)parent, name_len, name,
			(unsigned long long)d.seq);
	fix.type = MDS_FIX_DENTRY_DEL;
	if (mds_inode_get(c->t, d.ino, &inode))
		problem(c, AIFS_FSCK_DANGLING, &fix,
			"entry %llu/%.*s: no inode %llu",
			(unsigned long long)parent, name_len, name,
			(unsigned long long)d.ino);
	else if ((inode.mode & S_IFMT) != d.mode)
		problem(c, AIFS_FSCK_OTHER, NULL,
			"entry %llu/%.*s: type differs from the inode's",
			(unsigned long long)parent, name_len, name);
	else if (S_ISDIR(inode.mode) && inode.parent != parent)
		problem(c, AIFS_FSCK_OTHER, NULL,
			"directory %llu: \"..\" is %llu, entry in %llu",
			(unsigned long long)d.ino,
			(unsigned long long)inode.parent,
			(unsigned long long)parent);
	mds_key_pair(&key, parent, d.seq);
	fix.type = MDS_FIX_DIRSEQ_ADD;
	if (mds_db_get(c->t, MDS_DB_DIRSEQ, key.bytes, key.len, &seqname) ||
	    seqname.mv_size != (size_t)name_len ||
	    memcmp(seqname.mv_data, name, name_len))
		problem(c, AIFS_FSCK_DIRSEQ, &fix,
			"entry %llu/%.*s: no sequence entry %llu",
			(unsigned long long)parent, name_len, name,
			(unsigned long long)d.seq);
	if (mds_u64s_add(&c->names, d.ino) ||
	    mds_u64s_add(&c->children, parent) ||
	    (S_ISDIR(d.mode) && mds_u64s_add(&c->subdirs, parent)))
		problem(c, AIFS_FSCK_OTHER, NULL, "out of memory");
}

static void check_dirseq(struct check *c, const MDB_val *k, const MDB_val *v)
{
	struct aifs_span name = { v->mv_data, v->mv_size };
	struct mds_fix fix = { .type = MDS_FIX_DIRSEQ_DEL,
			       .ino = mds_key_id(k) };
	struct mds_dentry d;
	u64 seq;

	memcpy(&seq, (u8 *)k->mv_data + 8, sizeof(seq));
	seq = be64toh(seq);
	fix.seq = seq;
	if (mds_dentry_get(c->t, mds_key_id(k), &name, &d) || d.seq != seq)
		problem(c, AIFS_FSCK_DIRSEQ, &fix,
			"sequence entry %llu/%llu: no matching entry",
			(unsigned long long)mds_key_id(k),
			(unsigned long long)seq);
}

/* Directory @inode's counts against its entries and names. */
static void check_dir(struct check *c, const struct mds_inode *inode,
		      u64 names, u64 children, u64 subdirs)
{
	struct mds_fix fix = { .type = MDS_FIX_COUNTS, .ino = inode->ino,
			       .snap = *inode };
	unsigned long long ino = inode->ino;

	if (inode->entries != children || inode->nlink != 2 + subdirs)
		problem(c, AIFS_FSCK_LINKS, &fix,
			"directory %llu: %llu entries and nlink %u, counted %llu and %llu",
			ino, (unsigned long long)inode->entries, inode->nlink,
			(unsigned long long)children,
			(unsigned long long)(2 + subdirs));
	fix.type = MDS_FIX_LOST;
	if (!names && ino != AIFS_ROOT_INO)
		problem(c, AIFS_FSCK_NAMELESS, &fix, "directory %llu: no name",
			ino);
	else if (names != (ino != AIFS_ROOT_INO))
		problem(c, AIFS_FSCK_OTHER, NULL, "directory %llu: %llu names",
			ino, (unsigned long long)names);
}

static void check_inode(struct check *c, const struct mds_inode *inode)
{
	u64 names = list_count(&c->names, inode->ino);
	u64 children = list_count(&c->children, inode->ino);
	u64 subdirs = list_count(&c->subdirs, inode->ino);
	struct mds_fix fix = { .ino = inode->ino, .snap = *inode };
	unsigned long long ino = inode->ino;
	MDB_val v;
	bool orphan = !mds_db_get(c->t, MDS_DB_ORPHANS, &inode->ino,
				  sizeof(inode->ino), &v);

	c->tally->inodes++;
	if (inode->ino >= c->t->mds->super.next_ino)
		problem(c, AIFS_FSCK_OTHER, NULL,
			"inode %llu: beyond the next inode number", ino);
	if (S_ISDIR(inode->mode)) {
		check_dir(c, inode, names, children, subdirs);
		return;
	}
	if (names && orphan) {
		fix.type = MDS_FIX_ORPHAN_DEL;
		problem(c, AIFS_FSCK_LINKS, &fix,
			"inode %llu: an orphan with names", ino);
	}
	fix.type = MDS_FIX_COUNTS;
	fix.nlink = names;
	if (names ? inode->nlink != names : orphan && inode->nlink)
		problem(c, AIFS_FSCK_LINKS, &fix, "inode %llu: nlink %u, %llu names",
			ino, inode->nlink, (unsigned long long)names);
	fix.type = MDS_FIX_LOST;
	if (!names && !orphan)
		problem(c, AIFS_FSCK_NAMELESS, &fix,
			"inode %llu: no name and not an orphan", ino);
}

typedef void check_fn(struct check *c, const MDB_val *k, const MDB_val *v);

static int check_table(struct check *c, enum mds_dbi db, check_fn *fn)
{
	MDB_cursor *cur;
	MDB_val k, v;
	int rc, err;

	err = mds_db_cursor(c->t, db, &cur);
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
		problem(c, AIFS_FSCK_OTHER, NULL, "inode %llu: bad record",
			(unsigned long long)*(u64 *)k->mv_data);
		return;
	}
	memcpy(&inode, v->mv_data, sizeof(inode));
	check_inode(c, &inode);
}

static void check_orphan(struct check *c, const MDB_val *k, const MDB_val *v)
{
	struct mds_fix fix = { .type = MDS_FIX_ORPHAN_DEL };
	struct mds_inode inode;

	(void)v;
	c->tally->orphans++;
	memcpy(&fix.ino, k->mv_data, sizeof(fix.ino));
	/* one with links: check_inode() says so */
	if (mds_inode_get(c->t, fix.ino, &inode))
		problem(c, AIFS_FSCK_LINKS, &fix, "orphan %llu: no such inode",
			(unsigned long long)fix.ino);
}

static void check_xattr(struct check *c, const MDB_val *k, const MDB_val *v)
{
	struct aifs_span name = { (const u8 *)k->mv_data + 8,
				  (u32)k->mv_size - 8 };

	if (k->mv_size > 8 && mds_acl_type(&name) >= 0 &&
	    mds_acl_check(v->mv_data, v->mv_size))
		problem(c, AIFS_FSCK_OTHER, NULL,
			"inode %llu: %.*s is no valid ACL",
			(unsigned long long)mds_key_id(k), (int)name.len,
			(const char *)name.data);
}

static int check_all(struct check *c)
{
	struct mds_inode root;
	int err;

	if (mds_inode_get(c->t, AIFS_ROOT_INO, &root) || !S_ISDIR(root.mode))
		problem(c, AIFS_FSCK_OTHER, NULL, "no root directory");
	err = check_table(c, MDS_DB_DENTRIES, check_dentry);
	if (!err)
		err = check_table(c, MDS_DB_DIRSEQ, check_dirseq);
	if (err)
		return err;
	mds_u64s_sort(&c->names);
	mds_u64s_sort(&c->children);
	mds_u64s_sort(&c->subdirs);
	err = check_table(c, MDS_DB_INODES, check_inode_rec);
	if (!err)
		err = check_table(c, MDS_DB_ORPHANS, check_orphan);
	if (!err)
		err = check_table(c, MDS_DB_XATTRS, check_xattr);
	return err;
}

int mds_check_tables(struct mds_txn *t, struct mds_check_tally *tally,
		     mds_problem_fn *found, void *arg)
{
	struct check c = { .t = t, .tally = tally, .found = found,
			   .arg = arg };
	int err;

	err = check_all(&c);
	free(c.names.v);
	free(c.children.v);
	free(c.subdirs.v);
	return err;
}

static void print_problem(void *arg, enum aifs_fsck_kind kind,
			  const struct mds_fix *fix, const char *text)
{
	(void)arg;
	(void)kind;
	(void)fix;
	printf("problem: %s\n", text);
}

/* aifs-mds --check: 0 when consistent, 1 with problems, or -errno. */
int mds_check(struct mds *mds)
{
	struct mds_check_tally tally = { 0 };
	struct mds_txn t;
	int err;

	err = mds_read_begin(mds, &t);
	if (err)
		return err;
	err = mds_check_tables(&t, &tally, print_problem, NULL);
	mds_read_end(&t);
	if (err)
		return err;
	printf("%llu inodes, %llu entries, %llu orphans: %llu problems\n",
	       (unsigned long long)tally.inodes,
	       (unsigned long long)tally.dentries,
	       (unsigned long long)tally.orphans,
	       (unsigned long long)tally.problems);
	return tally.problems ? 1 : 0;
}
