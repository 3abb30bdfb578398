// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Directory entries.  Each entry is kept twice: by name, (parent, name)
 * -> {ino, seq, type}, for lookups; and by sequence number, (parent, seq)
 * -> name, for READDIR.  seq comes from a counter in the directory's
 * inode and is never reused in that directory, so it serves as the
 * READDIR cookie: a listing resumes after the cookie's position even when
 * entries were added or removed meanwhile (a renamed entry gets a new
 * seq, like a new one), and every entry present for the whole listing is
 * returned exactly once.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "mds.h"

int mds_dentry_get(struct mds_txn *t, u64 dir, const struct aifs_span *name,
		   struct mds_dentry *d)
{
	struct mds_key key;
	MDB_val v;
	int err;

	mds_key_name(&key, dir, name->data, name->len);
	err = mds_db_get(t, MDS_DB_DENTRIES, key.bytes, key.len, &v);
	if (err)
		return err;
	if (v.mv_size != sizeof(*d))
		return -EIO;
	memcpy(d, v.mv_data, sizeof(*d));
	return 0;
}

/* Add @name -> @inode to @dir (whose record the caller writes). */
int mds_dentry_add(struct mds_txn *t, struct mds_inode *dir,
		   const struct aifs_span *name, const struct mds_inode *inode)
{
	struct mds_dentry d = {
		.ino = inode->ino,
		.seq = dir->next_seq++,
		.mode = inode->mode & S_IFMT,
	};
	struct mds_key key;
	int err;

	mds_key_name(&key, dir->ino, name->data, name->len);
	err = mds_db_put(t, MDS_DB_DENTRIES, key.bytes, key.len, &d, sizeof(d),
			 MDB_NOOVERWRITE);
	if (err)
		return err;
	mds_key_pair(&key, dir->ino, d.seq);
	err = mds_db_put(t, MDS_DB_DIRSEQ, key.bytes, key.len, name->data,
			 name->len, MDB_NOOVERWRITE);
	if (err)
		return err;
	dir->entries++;
	mds_inode_touch(t, dir, MDS_MTIME | MDS_CTIME);
	return 0;
}

int mds_dentry_del(struct mds_txn *t, struct mds_inode *dir,
		   const struct aifs_span *name, const struct mds_dentry *d)
{
	struct mds_key key;
	int err;

	mds_key_name(&key, dir->ino, name->data, name->len);
	err = mds_db_del(t, MDS_DB_DENTRIES, key.bytes, key.len);
	if (err)
		return err;
	mds_key_pair(&key, dir->ino, d->seq);
	err = mds_db_del(t, MDS_DB_DIRSEQ, key.bytes, key.len);
	if (err)
		return err;
	dir->entries--;
	mds_inode_touch(t, dir, MDS_MTIME | MDS_CTIME);
	return 0;
}

static int lookup(struct mds_txn *t, const struct aifs_name_req *in,
		  const struct aifs_span *name, struct aifs_entry_rep *rep)
{
	struct mds_inode dir, inode;
	struct mds_dentry d;
	struct mds_cred cred;
	int err;

	mds_cred_from_wire(&cred, &in->cred);
	err = mds_inode_get(t, le64_to_cpu(in->ino), &dir);
	if (!err)
		err = mds_may_lookup(t, &cred, &dir);
	if (!err)
		err = mds_dentry_get(t, dir.ino, name, &d);
	if (err)
		return err;
	err = mds_inode_get(t, d.ino, &inode);
	if (err)
		return err == -ESTALE ? -EIO : err;	/* a dangling entry */
	mds_inode_to_attr(&dir, &rep->dir);
	mds_inode_to_attr(&inode, &rep->attr);
	return 0;
}

static int lookup_reply(struct mds_txn *t, struct aifs_request *req,
			const void *in, const struct aifs_span *name)
{
	struct aifs_entry_rep rep;
	int err;

	err = lookup(t, in, name, &rep);
	return err ? err : mds_reply(req, &rep, sizeof(rep), NULL);
}

int mds_handle_lookup(struct aifs_request *req)
{
	struct aifs_name_req in;

	return mds_read(req, &in, sizeof(in), lookup_reply);
}

/* Append the entry at the cursor; -ENOSPC when the reply is full. */
static int readdir_add(struct mds_txn *t, struct aifs_dirent_buf *b,
		       u64 dir, const MDB_val *k, const MDB_val *v)
{
	struct aifs_span name = { v->mv_data, v->mv_size };
	struct mds_inode inode;
	struct aifs_attr attr;
	struct mds_dentry d;
	u64 seq;
	int err;

	memcpy(&seq, (u8 *)k->mv_data + 8, sizeof(seq));
	err = mds_dentry_get(t, dir, &name, &d);
	if (!err)
		err = mds_inode_get(t, d.ino, &inode);
	if (err)
		return err == -ENOSPC ? -EIO : err;
	mds_inode_to_attr(&inode, &attr);
	return aifs_dirents_add(b, be64toh(seq), &attr, name.data, name.len);
}

/* Entries after @cookie, up to @max; EOF when the directory ends. */
static int readdir_fill(struct mds_txn *t, u64 dir, u64 cookie, u32 max,
			struct aifs_dirent_buf *b)
{
	struct mds_key key;
	MDB_cursor *cur;
	MDB_val k, v;
	int rc, err;

	err = mds_db_cursor(t, MDS_DB_DIRSEQ, &cur);
	if (err)
		return err;
	mds_key_pair(&key, dir, cookie + 1);
	k = (MDB_val){ .mv_size = key.len, .mv_data = key.bytes };
	rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
	while (!rc && mds_key_id(&k) == dir && b->count < max) {
		err = readdir_add(t, b, dir, &k, &v);
		if (err)
			break;
		rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
	}
	mdb_cursor_close(cur);
	if (err == -ENOSPC || (!err && !rc && mds_key_id(&k) == dir))
		return 0;		/* more to come */
	if (err)
		return err;
	if (rc && rc != MDB_NOTFOUND)
		return mds_db_errno(rc);
	return AIFS_READDIR_EOF;
}

static int readdir(struct mds_txn *t, const struct aifs_readdir_req *in,
		   struct aifs_dirent_buf *b)
{
	u64 cookie = le64_to_cpu(in->cookie);
	struct mds_inode dir;
	struct mds_cred cred;
	int err;

	mds_cred_from_wire(&cred, &in->cred);
	err = mds_inode_get_dir(t, le64_to_cpu(in->ino), &dir);
	if (!err)
		err = mds_permission(t, &cred, &dir, MDS_MAY_READ);
	if (err)
		return err;
	if (cookie >= dir.next_seq)
		return -EINVAL;
	return readdir_fill(t, dir.ino, cookie, le32_to_cpu(in->max_entries), b);
}

/* One page of entries, encoded straight into the reply buffer. */
static int readdir_reply(struct mds_txn *t, struct aifs_request *req,
			 const void *arg, const struct aifs_span *parts)
{
	const struct aifs_readdir_req *in = arg;
	u32 size = le32_to_cpu(in->max_bytes);
	struct aifs_dirent_buf b;
	int ret;

	(void)parts;
	if (size > AIFS_MAX_PAYLOAD)
		size = AIFS_MAX_PAYLOAD;
	if (size < AIFS_READDIR_REP_SIZE + AIFS_DIRENT_SIZE + AIFS_NAME_MAX)
		return -EINVAL;
	req->reply = malloc(size);
	if (!req->reply)
		return -ENOMEM;
	aifs_dirents_init(&b, req->reply, size);
	ret = readdir(t, in, &b);
	if (ret >= 0)
		ret = aifs_dirents_finish(&b, ret);
	if (ret < 0) {
		free(req->reply);
		req->reply = NULL;
		return ret;
	}
	req->reply_len = ret;
	return 0;
}

int mds_handle_readdir(struct aifs_request *req)
{
	struct aifs_readdir_req in;

	return mds_read(req, &in, sizeof(in), readdir_reply);
}
