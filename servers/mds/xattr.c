// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Extended attributes, kept as (ino, name) -> value.  The namespaces and
 * who may use them, as in Linux: user. (regular files and directories;
 * read and write access), trusted. (root only, hidden from others'
 * lists), security. and system.posix_acl_access/default (anyone reads,
 * the owner or root writes).  ACLs are checked and interpreted here
 * (acl.c): setting one may change the mode, and is not bound by the
 * XATTR_CREATE/XATTR_REPLACE flags, as in the kernel.
 */
#include <stdlib.h>
#include <string.h>

#include "mds.h"

enum xattr_ns {
	XATTR_USER,
	XATTR_TRUSTED,
	XATTR_SECURITY,
	XATTR_ACL,
};

static const struct {
	const char *prefix;
	enum xattr_ns ns;
	bool whole;		/* the name is the prefix itself */
} xattr_names[] = {
	{ "user.", XATTR_USER, false },
	{ "trusted.", XATTR_TRUSTED, false },
	{ "security.", XATTR_SECURITY, false },
	{ "system.posix_acl_access", XATTR_ACL, true },
	{ "system.posix_acl_default", XATTR_ACL, true },
};

static int xattr_namespace(const struct aifs_span *name, enum xattr_ns *ns)
{
	size_t i, len;

	for (i = 0; i < ARRAY_SIZE(xattr_names); i++) {
		len = strlen(xattr_names[i].prefix);
		if (name->len < len + !xattr_names[i].whole ||
		    (xattr_names[i].whole && name->len != len) ||
		    memcmp(name->data, xattr_names[i].prefix, len))
			continue;
		*ns = xattr_names[i].ns;
		return 0;
	}
	return -EOPNOTSUPP;
}

/* May @cred read (@write false) or change the xattr @name of @inode? */
static int xattr_permission(struct mds_txn *t, const struct mds_cred *cred,
			    const struct mds_inode *inode,
			    const struct aifs_span *name, bool write)
{
	enum xattr_ns ns;
	int err;

	err = xattr_namespace(name, &ns);
	if (err)
		return err;
	switch (ns) {
	case XATTR_USER:
		if (!S_ISREG(inode->mode) && !S_ISDIR(inode->mode))
			return write ? -EPERM : -ENODATA;
		return mds_permission(t, cred, inode,
				      write ? MDS_MAY_WRITE : MDS_MAY_READ);
	case XATTR_TRUSTED:
		return cred->uid ? -EPERM : 0;
	default:
		return !write || mds_is_owner(cred, inode) ? 0 : -EPERM;
	}
}

/* Load the inode of @in_ino and check access to @name. */
static int xattr_inode(struct mds_txn *t, const struct aifs_cred *wcred,
		       __le64 ino, const struct aifs_span *name, bool write,
		       struct mds_inode *inode)
{
	struct mds_cred cred;
	int err;

	mds_cred_from_wire(&cred, wcred);
	err = mds_inode_get(t, le64_to_cpu(ino), inode);
	return err ? err : xattr_permission(t, &cred, inode, name, write);
}

static int getxattr(struct mds_txn *t, struct aifs_request *req,
		    const void *arg, const struct aifs_span *name)
{
	const struct aifs_getxattr_req *in = arg;
	struct aifs_xattr_rep rep = { 0 };
	u32 room = le32_to_cpu(in->size);
	struct mds_inode inode;
	struct mds_key key;
	MDB_val v;
	int err;

	err = xattr_inode(t, &in->cred, in->ino, name, false, &inode);
	if (err)
		return err;
	mds_key_name(&key, inode.ino, name->data, name->len);
	err = mds_db_get(t, MDS_DB_XATTRS, key.bytes, key.len, &v);
	if (err)
		return err == -ENOENT ? -ENODATA : err;
	rep.size = cpu_to_le32(v.mv_size);
	if (room && room < v.mv_size)
		return -ERANGE;
	/* a caller asking with size 0 wants the size alone */
	return mds_reply_data(req, &rep, sizeof(rep), v.mv_data,
			      room ? v.mv_size : 0);
}

int mds_handle_getxattr(struct aifs_request *req)
{
	struct aifs_getxattr_req in;

	return mds_read(req, &in, sizeof(in), getxattr);
}

/* The names of @ino that @cred may see, NUL-terminated, into @list. */
static int listxattr_fill(struct mds_txn *t, const struct mds_cred *cred,
			  u64 ino, char *list, u32 *len)
{
	struct mds_key prefix;
	MDB_cursor *cur;
	MDB_val k, v;
	int rc, err;

	err = mds_db_cursor(t, MDS_DB_XATTRS, &cur);
	if (err)
		return err;
	mds_key_name(&prefix, ino, NULL, 0);
	k = (MDB_val){ .mv_size = prefix.len, .mv_data = prefix.bytes };
	*len = 0;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
	     !rc && mds_key_id(&k) == ino;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		size_t n = k.mv_size - 8;

		if (cred->uid && n >= 8 && !memcmp((u8 *)k.mv_data + 8,
						   "trusted.", 8))
			continue;
		if (*len + n + 1 > AIFS_XATTR_SIZE_MAX) {
			rc = MDB_BAD_VALSIZE;
			break;
		}
		memcpy(list + *len, (u8 *)k.mv_data + 8, n);
		list[*len + n] = '\0';
		*len += n + 1;
	}
	mdb_cursor_close(cur);
	if (rc == MDB_BAD_VALSIZE)
		return -E2BIG;
	return rc && rc != MDB_NOTFOUND ? mds_db_errno(rc) : 0;
}

/* The names into @list, then the reply. */
static int listxattr_reply(struct mds_txn *t, struct aifs_request *req,
			   const struct aifs_listxattr_req *in, char *list)
{
	struct aifs_xattr_rep rep = { 0 };
	u32 room = le32_to_cpu(in->size), len;
	struct mds_inode inode;
	struct mds_cred cred;
	int err;

	mds_cred_from_wire(&cred, &in->cred);
	err = mds_inode_get(t, le64_to_cpu(in->ino), &inode);
	if (!err)
		err = listxattr_fill(t, &cred, inode.ino, list, &len);
	if (err)
		return err;
	if (room && room < len)
		return -ERANGE;
	rep.size = cpu_to_le32(len);
	return mds_reply_data(req, &rep, sizeof(rep), list, room ? len : 0);
}

static int listxattr(struct mds_txn *t, struct aifs_request *req,
		     const void *in, const struct aifs_span *parts)
{
	char *list = malloc(AIFS_XATTR_SIZE_MAX);
	int err;

	(void)parts;
	if (!list)
		return -ENOMEM;
	err = listxattr_reply(t, req, in, list);
	free(list);
	return err;
}

int mds_handle_listxattr(struct aifs_request *req)
{
	struct aifs_listxattr_req in;

	return mds_read(req, &in, sizeof(in), listxattr);
}

/* The value of an xattr that is no ACL, with XATTR_CREATE/XATTR_REPLACE. */
static int setxattr_value(struct mds_txn *t, u32 flags,
			  const struct aifs_span *parts,
			  const struct mds_inode *inode)
{
	struct mds_key key;
	MDB_val v;
	int err;

	mds_key_name(&key, inode->ino, parts[0].data, parts[0].len);
	err = mds_db_get(t, MDS_DB_XATTRS, key.bytes, key.len, &v);
	if (err && err != -ENOENT)
		return err;
	if (!err && (flags & AIFS_XATTR_CREATE))
		return -EEXIST;
	if (err && (flags & AIFS_XATTR_REPLACE))
		return -ENODATA;
	return mds_db_put(t, MDS_DB_XATTRS, key.bytes, key.len, parts[1].data,
			  parts[1].len, 0);
}

static int setxattr(struct mds_txn *t, const struct aifs_setxattr_req *in,
		    const struct aifs_span *parts, struct mds_inode *inode)
{
	int type = mds_acl_type(&parts[0]);
	struct mds_cred cred;
	int err;

	err = xattr_inode(t, &in->cred, in->ino, &parts[0], true, inode);
	if (err)
		return err;
	mds_cred_from_wire(&cred, &in->cred);
	if (type < 0)
		err = setxattr_value(t, le32_to_cpu(in->flags), parts, inode);
	else
		err = mds_acl_set(t, &cred, inode, type, &parts[1]);
	if (err)
		return err;
	mds_inode_touch(t, inode, MDS_CTIME);
	return mds_inode_put(t, inode);
}

static int apply_setxattr(struct mds_txn *t, struct mds_op *op)
{
	struct aifs_span parts[AIFS_MSG_MAX_PARTS];
	struct aifs_setxattr_req in;
	struct mds_inode inode;
	int err;

	err = mds_decode(op->req, &in, sizeof(in), parts);
	if (!err)
		err = setxattr(t, &in, parts, &inode);
	return err ? err : mds_reply_attr(op->req, &inode);
}

int mds_handle_setxattr(struct aifs_request *req)
{
	return mds_write(req, apply_setxattr);
}

static int apply_removexattr(struct mds_txn *t, struct mds_op *op)
{
	struct aifs_span name[AIFS_MSG_MAX_PARTS];
	struct aifs_name_req in;
	struct mds_inode inode;
	struct mds_key key;
	int err;

	err = mds_decode(op->req, &in, sizeof(in), name);
	if (!err)
		err = xattr_inode(t, &in.cred, in.ino, name, true, &inode);
	if (err)
		return err;
	mds_key_name(&key, inode.ino, name->data, name->len);
	err = mds_db_del(t, MDS_DB_XATTRS, key.bytes, key.len);
	if (err)
		return err == -ENOENT ? -ENODATA : err;
	mds_inode_touch(t, &inode, MDS_CTIME);
	err = mds_inode_put(t, &inode);
	return err ? err : mds_reply_attr(op->req, &inode);
}

int mds_handle_removexattr(struct aifs_request *req)
{
	return mds_write(req, apply_removexattr);
}
