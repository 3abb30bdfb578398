// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * POSIX ACLs: the xattrs system.posix_acl_access and
 * system.posix_acl_default in the kernel's little-endian
 * posix_acl_xattr format (version 2, ids as the client sends them in its
 * struct aifs_cred).  The MDS is the authority on them, so that every
 * client, the kernel's and libaifs's alike, gets the same answers:
 *
 * - a value is checked as the kernel's posix_acl_valid() does before it
 *   is stored, so a stored ACL can be evaluated without doubt;
 * - permission checks of others than the owner evaluate the access ACL
 *   (posix_acl_permission());
 * - setting the access ACL sets the mode's permission bits from it, and
 *   one that says no more than the mode is not kept
 *   (posix_acl_update_mode()); chmod rewrites the ACL's owner, mask (or
 *   group) and other entries (posix_acl_chmod());
 * - a new inode inherits its directory's default ACL (posix_acl_create()),
 *   in the transaction that makes it.
 */
#include <stdlib.h>
#include <string.h>
#include <linux/posix_acl.h>
#include <linux/posix_acl_xattr.h>

#include "mds.h"

#define ACL_PERMS	(ACL_READ | ACL_WRITE | ACL_EXECUTE)
#define S_IRWXUGO	(S_IRWXU | S_IRWXG | S_IRWXO)

/* An ACL in its wire format, copied out of LMDB (aligned, changeable). */
struct mds_acl {
	struct posix_acl_xattr_header *hdr;
	struct posix_acl_xattr_entry *e;
	size_t n;
	size_t size;
};

static const char *const acl_names[] = {
	"system.posix_acl_access",
	"system.posix_acl_default",
};

/* MDS_ACL_ACCESS or MDS_ACL_DEFAULT for an ACL's xattr name, else -1. */
int mds_acl_type(const struct aifs_span *name)
{
	int i;

	for (i = 0; i < (int)ARRAY_SIZE(acl_names); i++)
		if (name->len == strlen(acl_names[i]) &&
		    !memcmp(name->data, acl_names[i], name->len))
			return i;
	return -1;
}

static u16 tag_of(const struct posix_acl_xattr_entry *e)
{
	return le16_to_cpu(e->e_tag);
}

static u16 perm_of(const struct posix_acl_xattr_entry *e)
{
	return le16_to_cpu(e->e_perm);
}

static void set_perm(struct posix_acl_xattr_entry *e, u32 perm)
{
	e->e_perm = cpu_to_le16(perm & ACL_PERMS);
}

/* The order and the entries posix_acl_valid() accepts. */
static int acl_valid(const struct mds_acl *acl)
{
	int state = ACL_USER_OBJ;
	bool needs_mask = false;
	size_t i;

	for (i = 0; i < acl->n; i++) {
		const struct posix_acl_xattr_entry *e = &acl->e[i];
		u16 tag = tag_of(e);

		if (perm_of(e) & ~ACL_PERMS)
			return -EINVAL;
		if ((tag == ACL_USER || tag == ACL_GROUP) &&
		    le32_to_cpu(e->e_id) == (u32)ACL_UNDEFINED_ID)
			return -EINVAL;
		if (tag == ACL_USER_OBJ && state == ACL_USER_OBJ)
			state = ACL_USER;
		else if (tag == ACL_GROUP_OBJ && state == ACL_USER)
			state = ACL_GROUP;
		else if (tag == ACL_MASK && state == ACL_GROUP)
			state = ACL_OTHER;
		else if (tag == ACL_OTHER && (state == ACL_OTHER ||
					      (state == ACL_GROUP && !needs_mask)))
			state = 0;
		else if ((tag == ACL_USER || tag == ACL_GROUP) && tag == state)
			needs_mask = true;
		else
			return -EINVAL;
	}
	return state ? -EINVAL : 0;
}

static void acl_free(struct mds_acl *acl)
{
	free(acl->hdr);
	acl->hdr = NULL;
}

/*
 * A copy of the xattr @value in @acl, checked: -EINVAL for a value that is
 * no valid ACL.  A header without entries is an ACL of no entries (n 0),
 * which setting takes for removal, as the kernel's posix_acl_from_xattr().
 */
static int acl_from_value(const void *value, size_t size, struct mds_acl *acl)
{
	size_t hlen = sizeof(*acl->hdr), elen = sizeof(*acl->e);
	int err;

	if (size < hlen || (size - hlen) % elen)
		return -EINVAL;
	acl->hdr = malloc(size);
	if (!acl->hdr)
		return -ENOMEM;
	memcpy(acl->hdr, value, size);
	acl->e = (struct posix_acl_xattr_entry *)(acl->hdr + 1);
	acl->n = (size - hlen) / elen;
	acl->size = size;
	err = -EINVAL;
	if (le32_to_cpu(acl->hdr->a_version) == POSIX_ACL_XATTR_VERSION)
		err = acl->n ? acl_valid(acl) : 0;
	if (err)
		acl_free(acl);
	return err;
}

/* --check: 0 when the stored @value is one SETXATTR accepts. */
int mds_acl_check(const void *value, size_t size)
{
	struct mds_acl acl;
	int err;

	err = acl_from_value(value, size, &acl);
	if (!err)
		acl_free(&acl);
	return err;
}

static void acl_key(struct mds_key *key, u64 ino, int type)
{
	mds_key_name(key, ino, acl_names[type], strlen(acl_names[type]));
}

/*
 * The ACL of @type of @ino: -ENOENT when it has none, -EIO when the stored
 * value is no valid ACL (stored before the MDS checked them).
 */
static int acl_get(struct mds_txn *t, u64 ino, int type, struct mds_acl *acl)
{
	struct mds_key key;
	MDB_val v;
	int err;

	acl_key(&key, ino, type);
	err = mds_db_get(t, MDS_DB_XATTRS, key.bytes, key.len, &v);
	if (!err)
		err = acl_from_value(v.mv_data, v.mv_size, acl);
	if (!err && !acl->n) {
		acl_free(acl);
		err = -ENOENT;
	}
	return err == -EINVAL ? -EIO : err;
}

static int acl_put(struct mds_txn *t, u64 ino, int type,
		   const struct mds_acl *acl)
{
	struct mds_key key;

	acl_key(&key, ino, type);
	return mds_db_put(t, MDS_DB_XATTRS, key.bytes, key.len, acl->hdr,
			  acl->size, 0);
}

static int acl_del(struct mds_txn *t, u64 ino, int type)
{
	struct mds_key key;
	int err;

	acl_key(&key, ino, type);
	err = mds_db_del(t, MDS_DB_XATTRS, key.bytes, key.len);
	return err == -ENOENT ? 0 : err;
}

/* The first entry after @i tagged ACL_MASK, or NULL. */
static const struct posix_acl_xattr_entry *acl_mask(const struct mds_acl *acl,
						     size_t i)
{
	for (i++; i < acl->n; i++)
		if (tag_of(&acl->e[i]) == ACL_MASK)
			return &acl->e[i];
	return NULL;
}

/* Does entry @i of @acl grant @want (limited by the mask when @masked)? */
static int acl_grants(const struct mds_acl *acl, size_t i, u32 want,
		      bool masked)
{
	const struct posix_acl_xattr_entry *mask = acl_mask(acl, i);
	u32 perm = perm_of(&acl->e[i]);

	if (masked && mask)
		perm &= perm_of(mask);
	return (perm & want) == want ? 0 : -EACCES;
}

/* posix_acl_permission() for a caller who is neither root nor the owner. */
static int acl_permission(const struct mds_acl *acl,
			  const struct mds_cred *cred,
			  const struct mds_inode *inode, u32 want)
{
	bool found = false;
	size_t i;

	for (i = 0; i < acl->n; i++) {
		u16 tag = tag_of(&acl->e[i]);
		u32 id = tag == ACL_GROUP_OBJ ? inode->gid :
			 le32_to_cpu(acl->e[i].e_id);

		switch (tag) {
		case ACL_USER:
			if (id == cred->uid)
				return acl_grants(acl, i, want, true);
			break;
		case ACL_GROUP_OBJ:
		case ACL_GROUP:
			if (!mds_in_group(cred, id))
				break;
			found = true;
			if (!acl_grants(acl, i, want, false))
				return acl_grants(acl, i, want, true);
			break;
		case ACL_OTHER:
			return found ? -EACCES : acl_grants(acl, i, want, false);
		}
	}
	return -EIO;	/* a valid ACL ends with ACL_OTHER */
}

/*
 * Permission of @cred (neither root nor the owner) to @mask on @inode by
 * its access ACL: 0, -EACCES, -EIO for a broken ACL, -EAGAIN when there
 * is none (the mode bits decide).
 */
int mds_acl_permission(struct mds_txn *t, const struct mds_cred *cred,
		       const struct mds_inode *inode, int mask)
{
	struct mds_acl acl;
	int err;

	err = acl_get(t, inode->ino, MDS_ACL_ACCESS, &acl);
	if (err)
		return err == -ENOENT ? -EAGAIN : err;
	err = acl_permission(&acl, cred, inode, mask & 7);
	acl_free(&acl);
	return err;
}

/*
 * posix_acl_equiv_mode(): the permission bits @acl gives (the mask, when
 * there is one, as the group's); true when the ACL says more than them.
 */
static bool acl_equiv_mode(const struct mds_acl *acl, u32 *mode)
{
	bool not_equiv = false;
	u32 bits = 0;
	size_t i;

	for (i = 0; i < acl->n; i++) {
		u32 perm = perm_of(&acl->e[i]);

		switch (tag_of(&acl->e[i])) {
		case ACL_USER_OBJ:
			bits |= perm << 6;
			break;
		case ACL_GROUP_OBJ:
			bits |= perm << 3;
			break;
		case ACL_OTHER:
			bits |= perm;
			break;
		case ACL_MASK:
			bits = (bits & ~S_IRWXG) | perm << 3;
			not_equiv = true;
			break;
		default:
			not_equiv = true;
		}
	}
	*mode = (*mode & ~S_IRWXUGO) | bits;
	return not_equiv;
}

/*
 * posix_acl_chmod(): the owner, other and mask (without a mask: owning
 * group) entries take the permission bits of @mode.
 */
static void acl_chmod_entries(struct mds_acl *acl, u32 mode)
{
	struct posix_acl_xattr_entry *group = NULL;
	size_t i;

	for (i = 0; i < acl->n; i++) {
		switch (tag_of(&acl->e[i])) {
		case ACL_USER_OBJ:
			set_perm(&acl->e[i], mode >> 6);
			break;
		case ACL_GROUP_OBJ:
			if (!group)
				group = &acl->e[i];
			break;
		case ACL_MASK:
			group = &acl->e[i];
			break;
		case ACL_OTHER:
			set_perm(&acl->e[i], mode);
			break;
		}
	}
	set_perm(group, mode >> 3);	/* a valid ACL has a group entry */
}

/* After a chmod of @inode: its access ACL follows the new mode. */
int mds_acl_chmod(struct mds_txn *t, const struct mds_inode *inode)
{
	struct mds_acl acl;
	int err;

	err = acl_get(t, inode->ino, MDS_ACL_ACCESS, &acl);
	if (err)
		return err == -ENOENT ? 0 : err;
	acl_chmod_entries(&acl, inode->mode);
	err = acl_put(t, inode->ino, MDS_ACL_ACCESS, &acl);
	acl_free(&acl);
	return err;
}

/* The access ACL @acl set on @inode: the mode follows it. */
static int acl_set_access(struct mds_txn *t, const struct mds_cred *cred,
			  struct mds_inode *inode, const struct mds_acl *acl)
{
	u32 mode = inode->mode;
	bool not_equiv;

	if (!acl->n)
		return acl_del(t, inode->ino, MDS_ACL_ACCESS);
	not_equiv = acl_equiv_mode(acl, &mode);
	inode->mode = mds_strip_sgid(cred, inode, mode);
	return not_equiv ? acl_put(t, inode->ino, MDS_ACL_ACCESS, acl) :
			   acl_del(t, inode->ino, MDS_ACL_ACCESS);
}

/**
 * mds_acl_set - SETXATTR of an ACL
 * @t: the writer's transaction
 * @cred: the caller, the owner or root (checked)
 * @inode: the inode, its mode changed (not written) for an access ACL
 * @type: MDS_ACL_ACCESS or MDS_ACL_DEFAULT
 * @value: the new value; a header without entries removes the ACL
 *
 * Return: 0, -EINVAL for a value that is no valid ACL, -EACCES for a
 * default ACL on anything but a directory (as set_posix_acl()),
 * -EOPNOTSUPP on a symlink.
 */
int mds_acl_set(struct mds_txn *t, const struct mds_cred *cred,
		struct mds_inode *inode, int type, const struct aifs_span *value)
{
	struct mds_acl acl;
	int err;

	if (S_ISLNK(inode->mode))
		return -EOPNOTSUPP;
	err = acl_from_value(value->data, value->len, &acl);
	if (err)
		return err;
	if (type == MDS_ACL_ACCESS)
		err = acl_set_access(t, cred, inode, &acl);
	else if (!S_ISDIR(inode->mode))
		err = acl.n ? -EACCES : 0;
	else if (!acl.n)
		err = acl_del(t, inode->ino, MDS_ACL_DEFAULT);
	else
		err = acl_put(t, inode->ino, MDS_ACL_DEFAULT, &acl);
	acl_free(&acl);
	return err;
}

/*
 * posix_acl_create_masq(): @acl (a copy of the directory's default) and
 * @mode limit each other; true when the ACL says more than the mode.
 */
static bool acl_create_masq(struct mds_acl *acl, u32 *mode)
{
	struct posix_acl_xattr_entry *group = NULL;
	bool not_equiv = false;
	u32 m = *mode;
	size_t i;

	for (i = 0; i < acl->n; i++) {
		struct posix_acl_xattr_entry *e = &acl->e[i];

		switch (tag_of(e)) {
		case ACL_USER_OBJ:
			set_perm(e, perm_of(e) & (m >> 6));
			m &= (perm_of(e) << 6) | ~S_IRWXU;
			break;
		case ACL_GROUP_OBJ:
			if (!group)
				group = e;
			break;
		case ACL_MASK:
			group = e;
			not_equiv = true;
			break;
		case ACL_OTHER:
			set_perm(e, perm_of(e) & m);
			m &= perm_of(e) | ~S_IRWXO;
			break;
		default:
			not_equiv = true;
		}
	}
	set_perm(group, perm_of(group) & (m >> 3));
	m &= (perm_of(group) << 3) | ~S_IRWXG;
	*mode = (*mode & ~S_IRWXUGO) | (m & S_IRWXUGO);
	return not_equiv;
}

/**
 * mds_acl_inherit - a new inode's ACLs from its directory's default ACL
 * @t: the writer's transaction
 * @dir: the directory
 * @inode: the new inode (not a symlink), its mode as asked for
 * @umask: the creator's umask, applied only when @dir has no default ACL
 *
 * As posix_acl_create(): the access ACL is the default limited by the
 * mode (kept only when it says more than the mode), and a directory also
 * inherits the default ACL itself.
 */
int mds_acl_inherit(struct mds_txn *t, const struct mds_inode *dir,
		    struct mds_inode *inode, u32 umask)
{
	struct mds_acl acl;
	int err;

	err = acl_get(t, dir->ino, MDS_ACL_DEFAULT, &acl);
	if (err == -ENOENT)
		inode->mode &= ~(umask & S_IRWXUGO);
	if (err)
		return err == -ENOENT ? 0 : err;
	if (S_ISDIR(inode->mode))
		err = acl_put(t, inode->ino, MDS_ACL_DEFAULT, &acl);
	if (!err && acl_create_masq(&acl, &inode->mode))
		err = acl_put(t, inode->ino, MDS_ACL_ACCESS, &acl);
	acl_free(&acl);
	return err;
}
