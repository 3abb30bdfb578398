// SPDX-License-Identifier: GPL-2.0
/*
 * aifs - extended attributes, kept by the MDS: the user., trusted. and
 * security. namespaces, and the system.posix_acl_* ones through the
 * kernel's handlers and acl.c. One more is no stored attribute: aifs.layout
 * is the file's or directory's layout (LAYOUT_GET and LAYOUT_SET), a
 * struct aifs_layout as the wire has it, which `aifs getlayout` and
 * `aifs setlayout` read and write (Documentation/erasure-coding.md).
 *
 * Values and lists come back in the reply, checked by the codec (size and
 * length agree, at most AIFS_XATTR_SIZE_MAX); a list is also checked to be
 * NUL-terminated names before it is handed on.
 */
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/posix_acl_xattr.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/xattr.h>

#include "internal.h"

/*
 * GETXATTR and LISTXATTR: the value or list into @out (room @size; 0 asks
 * for the size only). Return: its size, or a negative errno.
 */
static ssize_t aifs_xattr_fetch(struct inode *inode, struct aifs_mds_msg *m,
				void *out, size_t size)
{
	struct aifs_xattr_rep rep;
	ssize_t ret;
	u32 len;

	m->rep = &rep;
	m->rep_size = sizeof(rep);
	m->rep_max = AIFS_XATTR_REP_SIZE + size;
	m->rep_buf = kvmalloc(m->rep_max, GFP_KERNEL);
	if (!m->rep_buf)
		return -ENOMEM;
	ret = aifs_mds_call(inode->i_sb, m);
	if (!ret) {
		ret = le32_to_cpu(rep.size);
		len = m->rep_parts[0].len;
		if (size && (len != ret || len > size))
			ret = -EIO;
		else if (size)
			memcpy(out, m->rep_parts[0].data, len);
	}
	kvfree(m->rep_buf);
	return ret;
}

/**
 * aifs_getxattr_call - GETXATTR
 * @inode: the inode
 * @name: the full name of the xattr
 * @value: room for the value
 * @size: bytes at @value; 0 asks for the size only
 *
 * Return: the size of the value, or a negative errno (-ENODATA: none).
 */
ssize_t aifs_getxattr_call(struct inode *inode, const char *name, void *value,
			   size_t size)
{
	struct aifs_getxattr_req req = { .ino = cpu_to_le64(inode->i_ino) };
	size_t len = strlen(name);
	struct aifs_mds_msg m = {
		.op = AIFS_OP_GETXATTR,
		.req = &req, .req_size = sizeof(req),
		.req_parts = { { name, len } },
	};

	if (len > AIFS_XATTR_NAME_MAX)
		return -ERANGE;
	size = min_t(size_t, size, AIFS_XATTR_SIZE_MAX);
	req.size = cpu_to_le32(size);
	return aifs_xattr_fetch(inode, &m, value, size);
}

static int aifs_xattr_get(const struct xattr_handler *handler,
			  struct dentry *unused, struct inode *inode,
			  const char *suffix, void *value, size_t size)
{
	return aifs_getxattr_call(inode, xattr_full_name(handler, suffix),
				  value, size);
}

/**
 * aifs_setxattr_call - SETXATTR, or REMOVEXATTR when @value is NULL
 * @inode: the inode, its attributes updated from the reply
 * @name: the full name of the xattr
 * @value: the value
 * @size: its length
 * @flags: XATTR_CREATE, XATTR_REPLACE
 *
 * Return: 0 or a negative errno.
 */
int aifs_setxattr_call(struct inode *inode, const char *name,
		       const void *value, size_t size, int flags)
{
	size_t len = strlen(name);
	struct aifs_setxattr_req set = {
		.ino = cpu_to_le64(inode->i_ino),
		.flags = cpu_to_le32(flags),
	};
	struct aifs_name_req remove = { .ino = cpu_to_le64(inode->i_ino) };
	struct aifs_attr_rep rep;
	struct aifs_mds_msg m = {
		.op = AIFS_OP_SETXATTR,
		.req = &set, .req_size = sizeof(set),
		.req_parts = { { name, len }, { value, size } },
		.rep = &rep, .rep_size = sizeof(rep),
	};
	int err;

	if (len > AIFS_XATTR_NAME_MAX)
		return -ERANGE;
	if (size > AIFS_XATTR_SIZE_MAX)
		return -E2BIG;
	if (flags & ~(XATTR_CREATE | XATTR_REPLACE))
		return -EINVAL;
	if (!value) {
		/* removexattr(2) */
		m.op = AIFS_OP_REMOVEXATTR;
		m.req = &remove;
		m.req_size = sizeof(remove);
		m.req_parts[1] = (struct aifs_span){ NULL, 0 };
	}
	err = aifs_mds_call(inode->i_sb, &m);
	return err ?: aifs_inode_update(inode, &rep.attr);
}

static int aifs_xattr_set(const struct xattr_handler *handler,
			  struct aifs_idmap *idmap,
			  struct dentry *unused, struct inode *inode,
			  const char *suffix, const void *value, size_t size,
			  int flags)
{
	return aifs_setxattr_call(inode, xattr_full_name(handler, suffix),
				  value, size, flags);
}

/*
 * The names the caller may see: trusted.* only with CAP_SYS_ADMIN, as the
 * kernel's own file systems do. @list holds @len bytes of names.
 */
static ssize_t aifs_xattr_filter(char *list, size_t len)
{
	bool trusted = capable(CAP_SYS_ADMIN);
	size_t in = 0, out = 0, n;

	while (in < len) {
		n = strnlen(list + in, len - in);
		if (!n || in + n == len)
			return -EIO;	/* empty or unterminated name */
		n++;
		if (trusted || strncmp(list + in, XATTR_TRUSTED_PREFIX,
				       XATTR_TRUSTED_PREFIX_LEN)) {
			memmove(list + out, list + in, n);
			out += n;
		}
		in += n;
	}
	return out;
}

ssize_t aifs_listxattr(struct dentry *dentry, char *list, size_t size)
{
	struct inode *inode = d_inode(dentry);
	struct aifs_listxattr_req req = {
		.ino = cpu_to_le64(inode->i_ino),
		.size = cpu_to_le32(AIFS_XATTR_SIZE_MAX),
	};
	struct aifs_mds_msg m = {
		.op = AIFS_OP_LISTXATTR,
		.req = &req, .req_size = sizeof(req),
	};
	ssize_t ret;
	char *all;

	/* the whole list, filtered, decides the size */
	all = kvmalloc(AIFS_XATTR_SIZE_MAX, GFP_KERNEL);
	if (!all)
		return -ENOMEM;
	ret = aifs_xattr_fetch(inode, &m, all, AIFS_XATTR_SIZE_MAX);
	if (ret >= 0)
		ret = aifs_xattr_filter(all, ret);
	if (ret > 0 && size) {
		if (ret > size)
			ret = -ERANGE;
		else
			memcpy(list, all, ret);
	}
	kvfree(all);
	return ret;
}

static int aifs_layout_xattr_get(const struct xattr_handler *handler,
				 struct dentry *unused, struct inode *inode,
				 const char *suffix, void *value, size_t size)
{
	struct aifs_layout layout;
	int err;

	if (!size)
		return sizeof(layout);
	if (size < sizeof(layout))
		return -ERANGE;
	err = aifs_layout_fetch(inode, &layout);
	if (err)
		return err;
	memcpy(value, &layout, sizeof(layout));
	return sizeof(layout);
}

/* LAYOUT_SET of @value, a struct aifs_layout, with AIFS_LAYOUT_SET_@flags. */
static int aifs_layout_send(struct inode *inode, const void *value,
			    size_t size, u32 flags)
{
	struct aifs_layout_set_req req = {
		.ino = cpu_to_le64(inode->i_ino),
		.flags = cpu_to_le32(flags),
	};
	struct aifs_layout_rep rep;
	struct aifs_mds_msg m = {
		.op = AIFS_OP_LAYOUT_SET,
		.req = &req, .req_size = sizeof(req),
		.rep = &rep, .rep_size = sizeof(rep),
	};
	int err;

	if (!value || size != sizeof(req.layout))
		return -EINVAL;
	memcpy(&req.layout, value, size);
	/* a caller's mistake, said before the encoder would log it */
	err = aifs_layout_check(&req.layout) ?: aifs_mds_call(inode->i_sb, &m);
	if (!err)
		aifs_layout_take(inode, &rep.layout);
	return err;
}

/*
 * A new layout of a directory (for what is created in it) or of an empty
 * file, checked by the MDS; the file's open layout follows it.
 */
static int aifs_layout_xattr_set(const struct xattr_handler *handler,
				 struct aifs_idmap *idmap,
				 struct dentry *unused, struct inode *inode,
				 const char *suffix, const void *value,
				 size_t size, int flags)
{
	return aifs_layout_send(inode, value, size, 0);
}

/*
 * An archive of a replicated file to an EC layout, done by the servers
 * (Documentation/erasure-coding.md); the file's readers are sent to its
 * new layout by its data servers once it is done (EREMCHG).
 */
static int aifs_archive_xattr_set(const struct xattr_handler *handler,
				  struct aifs_idmap *idmap,
				  struct dentry *unused, struct inode *inode,
				  const char *suffix, const void *value,
				  size_t size, int flags)
{
	if (!S_ISREG(inode->i_mode))
		return -EINVAL;
	return aifs_layout_send(inode, value, size, AIFS_LAYOUT_SET_ARCHIVE);
}

static const struct xattr_handler aifs_layout_xattr_handler = {
	.name	= AIFS_LAYOUT_XATTR,
	.get	= aifs_layout_xattr_get,
	.set	= aifs_layout_xattr_set,
};

static const struct xattr_handler aifs_archive_xattr_handler = {
	.name	= AIFS_ARCHIVE_XATTR,
	.set	= aifs_archive_xattr_set,
};

static const struct xattr_handler aifs_user_xattr_handler = {
	.prefix	= XATTR_USER_PREFIX,
	.get	= aifs_xattr_get,
	.set	= aifs_xattr_set,
};

static const struct xattr_handler aifs_trusted_xattr_handler = {
	.prefix	= XATTR_TRUSTED_PREFIX,
	.get	= aifs_xattr_get,
	.set	= aifs_xattr_set,
};

static const struct xattr_handler aifs_security_xattr_handler = {
	.prefix	= XATTR_SECURITY_PREFIX,
	.get	= aifs_xattr_get,
	.set	= aifs_xattr_set,
};

const struct xattr_handler *aifs_xattr_handlers[] = {
	AIFS_ACL_XATTR_HANDLERS
	&aifs_user_xattr_handler,
	&aifs_trusted_xattr_handler,
	&aifs_security_xattr_handler,
	&aifs_layout_xattr_handler,
	&aifs_archive_xattr_handler,
	NULL,
};
