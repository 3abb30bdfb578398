// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * POSIX ACLs in aifs-mds through libaifs: values checked as the kernel
 * checks them, permission checks by the access ACL (named users and
 * groups granting and denying, the mask), the mode following a new ACL
 * and the ACL following a chmod, ACLs that say no more than the mode not
 * kept, default ACLs inherited by new files and directories in place of
 * the umask, and a database that --check finds consistent; an ACL stored
 * unchecked (written into LMDB by the test) is reported by --check and
 * makes the permission checks that need it EIO.
 */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <linux/posix_acl.h>
#include <linux/posix_acl_xattr.h>

#include "mds_harness.h"

#define ROOT		AIFS_ROOT_INO
#define ACCESS		"system.posix_acl_access"
#define DEFAULT		"system.posix_acl_default"
#define NO_ID		((u32)ACL_UNDEFINED_ID)

struct ent {
	u16 tag;
	u16 perm;
	u32 id;
};

struct acl {
	struct posix_acl_xattr_header h;
	struct posix_acl_xattr_entry e[16];
};

static struct aifs_conn *conn;
static struct aifs_cred root, owner, named, stranger, grouped;

static void make_cred(struct aifs_cred *c, u32 uid, u32 group)
{
	memset(c, 0, sizeof(*c));
	c->uid = cpu_to_le32(uid);
	c->gid = cpu_to_le32(uid);
	if (group) {
		c->ngroups = cpu_to_le32(1);
		c->groups[0] = cpu_to_le32(group);
	}
}

/* The xattr value of the @n entries @e; returns its size. */
static size_t acl_value(struct acl *a, const struct ent *e, size_t n)
{
	size_t i;

	a->h.a_version = cpu_to_le32(POSIX_ACL_XATTR_VERSION);
	for (i = 0; i < n; i++) {
		a->e[i].e_tag = cpu_to_le16(e[i].tag);
		a->e[i].e_perm = cpu_to_le16(e[i].perm);
		a->e[i].e_id = cpu_to_le32(e[i].id);
	}
	return sizeof(a->h) + n * sizeof(a->e[0]);
}

static int set_acl(u64 ino, const char *name, const struct ent *e, size_t n,
		   struct aifs_attr *attr)
{
	struct acl a;

	return aifs_setxattr(conn, &owner, ino, name, &a, acl_value(&a, e, n),
			     0, attr);
}

/* The permissions of the entry tagged @tag of @ino's ACL @name, or -1. */
static int acl_perm(u64 ino, const char *name, u16 tag)
{
	struct acl a;
	int len, i;

	len = aifs_getxattr(conn, &root, ino, name, &a, sizeof(a));
	for (i = 0; len > 0 && i < (len - 4) / 8; i++)
		if (le16_to_cpu(a.e[i].e_tag) == tag)
			return le16_to_cpu(a.e[i].e_perm);
	return -1;
}

static u32 mode_of(u64 ino)
{
	struct aifs_attr a;

	EXPECT(aifs_getattr(conn, &root, ino, &a), 0);
	return le32_to_cpu(a.mode) & 07777;
}

static u64 mkdir_as(const struct aifs_cred *c, u64 dir, const char *name,
		    u32 mode, u32 umask)
{
	struct aifs_entry_rep e;

	EXPECT(aifs_mkdir(conn, c, dir, name, mode, umask, &e), 0);
	return le64_to_cpu(e.attr.ino);
}

/* CREATE as @c: 0 or -errno; the file's number in @ino. */
static int create_as(const struct aifs_cred *c, u64 dir, const char *name,
		     u32 mode, u32 umask, u64 *ino)
{
	struct aifs_create_rep rep;
	struct aifs_attr attr;
	int err;

	err = aifs_create(conn, c, dir, name, mode, umask, AIFS_OPEN_EXCL |
			  AIFS_OPEN_RDONLY, &rep);
	if (err)
		return err;
	*ino = le64_to_cpu(rep.open.attr.ino);
	return aifs_release(conn, c, *ino, le64_to_cpu(rep.open.handle), 0,
			    NULL, &attr);
}

/* OPEN for reading as @c: 0 or -errno. */
static int read_as(const struct aifs_cred *c, u64 ino)
{
	struct aifs_open_rep rep;
	struct aifs_attr attr;
	int err;

	err = aifs_open(conn, c, ino, AIFS_OPEN_RDONLY, &rep);
	return err ? err : aifs_release(conn, c, ino, le64_to_cpu(rep.handle),
					0, NULL, &attr);
}

static void test_values(u64 dir)
{
	static const struct ent base[] = {
		{ ACL_USER_OBJ, 7, NO_ID }, { ACL_GROUP_OBJ, 5, NO_ID },
		{ ACL_OTHER, 0, NO_ID },
	};
	static const struct ent no_mask[] = {
		{ ACL_USER_OBJ, 7, NO_ID }, { ACL_USER, 7, 1001 },
		{ ACL_GROUP_OBJ, 5, NO_ID }, { ACL_OTHER, 0, NO_ID },
	};
	static const struct ent order[] = {
		{ ACL_GROUP_OBJ, 5, NO_ID }, { ACL_USER_OBJ, 7, NO_ID },
		{ ACL_OTHER, 0, NO_ID },
	};
	static const struct ent perm[] = {
		{ ACL_USER_OBJ, 8, NO_ID }, { ACL_GROUP_OBJ, 5, NO_ID },
		{ ACL_OTHER, 0, NO_ID },
	};
	static const struct ent no_id[] = {
		{ ACL_USER_OBJ, 7, NO_ID }, { ACL_USER, 7, NO_ID },
		{ ACL_GROUP_OBJ, 5, NO_ID }, { ACL_MASK, 7, NO_ID },
		{ ACL_OTHER, 0, NO_ID },
	};
	struct aifs_entry_rep e;
	struct aifs_attr a;
	struct acl v;
	u64 f;

	EXPECT(create_as(&owner, dir, "values", 0640, 0, &f), 0);
	EXPECT(set_acl(f, ACCESS, no_mask, 4, &a), -EINVAL);
	EXPECT(set_acl(f, ACCESS, order, 3, &a), -EINVAL);
	EXPECT(set_acl(f, ACCESS, perm, 3, &a), -EINVAL);
	EXPECT(set_acl(f, ACCESS, no_id, 5, &a), -EINVAL);
	EXPECT(set_acl(f, ACCESS, base, 2, &a), -EINVAL);
	acl_value(&v, base, 3);
	EXPECT(aifs_setxattr(conn, &owner, f, ACCESS, &v, 27, 0, &a), -EINVAL);
	v.h.a_version = cpu_to_le32(1);
	EXPECT(aifs_setxattr(conn, &owner, f, ACCESS, &v, 28, 0, &a), -EINVAL);
	EXPECT(aifs_setxattr(conn, &stranger, f, ACCESS, &v, 28, 0, &a), -EPERM);
	EXPECT(set_acl(f, DEFAULT, base, 3, &a), -EACCES);
	EXPECT(aifs_symlink(conn, &owner, dir, "link", "values", &e), 0);
	EXPECT(set_acl(le64_to_cpu(e.attr.ino), ACCESS, base, 3, &a),
	       -EOPNOTSUPP);

	/* No more than the mode: the mode changes, nothing is kept. */
	EXPECT(set_acl(f, ACCESS, base, 3, &a), 0);
	CHECK((le32_to_cpu(a.mode) & 0777) == 0750, "mode %o",
	      le32_to_cpu(a.mode));
	EXPECT(aifs_getxattr(conn, &root, f, ACCESS, NULL, 0), -ENODATA);
}

/*
 * A directory of mode 0700 owned by someone else opens to a named user
 * and a named group of its ACL, within the mask; chmod moves the mask.
 */
static void test_named(u64 dir)
{
	static const struct ent acl[] = {
		{ ACL_USER_OBJ, 7, NO_ID }, { ACL_USER, 7, 1001 },
		{ ACL_USER, 0, 1004 }, { ACL_GROUP_OBJ, 0, NO_ID },
		{ ACL_GROUP, 5, 60 }, { ACL_MASK, 7, NO_ID },
		{ ACL_OTHER, 5, NO_ID },
	};
	struct aifs_setattr sa = { .valid = AIFS_SETATTR_MODE };
	struct aifs_cred denied;
	struct aifs_entry_rep e;
	struct aifs_attr a;
	u64 d, f;

	make_cred(&denied, 1004, 0);
	d = mkdir_as(&owner, dir, "private", 0700, 0);
	EXPECT(create_as(&named, d, "n0", 0644, 0, &f), -EACCES);
	EXPECT(aifs_lookup(conn, &grouped, d, "x", &e), -EACCES);

	EXPECT(set_acl(d, ACCESS, acl, 7, &a), 0);
	CHECK((le32_to_cpu(a.mode) & 0777) == 0775, "mode %o from the ACL",
	      le32_to_cpu(a.mode));
	EXPECT(create_as(&named, d, "n1", 0644, 0, &f), 0);
	EXPECT(aifs_lookup(conn, &grouped, d, "n1", &e), 0);
	EXPECT(create_as(&grouped, d, "g1", 0644, 0, &f), -EACCES);
	/* others may look, a named user with nothing may not */
	EXPECT(aifs_lookup(conn, &stranger, d, "n1", &e), 0);
	EXPECT(aifs_lookup(conn, &denied, d, "n1", &e), -EACCES);

	/* chmod 0750: the mask becomes r-x, the named user loses w */
	sa.ino = d;
	sa.mode = 0750;
	EXPECT(aifs_setattr(conn, &owner, &sa, &a), 0);
	CHECK(acl_perm(d, ACCESS, ACL_MASK) == 5 &&
	      acl_perm(d, ACCESS, ACL_OTHER) == 0 &&
	      acl_perm(d, ACCESS, ACL_USER_OBJ) == 7, "ACL after chmod 0750");
	EXPECT(create_as(&named, d, "n2", 0644, 0, &f), -EACCES);
	EXPECT(aifs_lookup(conn, &named, d, "n1", &e), 0);
	EXPECT(aifs_lookup(conn, &stranger, d, "n1", &e), -EACCES);
	sa.mode = 0770;
	EXPECT(aifs_setattr(conn, &owner, &sa, &a), 0);
	EXPECT(create_as(&named, d, "n2", 0644, 0, &f), 0);

	/* without the ACL the mode bits decide again */
	EXPECT(aifs_removexattr(conn, &owner, d, ACCESS, &a), 0);
	EXPECT(create_as(&named, d, "n3", 0644, 0, &f), -EACCES);
}

/* A named user denied what others are granted. */
static void test_deny(u64 dir)
{
	static const struct ent acl[] = {
		{ ACL_USER_OBJ, 6, NO_ID }, { ACL_USER, 0, 1001 },
		{ ACL_GROUP_OBJ, 4, NO_ID }, { ACL_MASK, 4, NO_ID },
		{ ACL_OTHER, 4, NO_ID },
	};
	struct aifs_attr a;
	u64 f;

	EXPECT(create_as(&owner, dir, "shared", 0644, 0, &f), 0);
	EXPECT(read_as(&named, f), 0);
	EXPECT(set_acl(f, ACCESS, acl, 5, &a), 0);
	EXPECT(read_as(&named, f), -EACCES);
	EXPECT(read_as(&stranger, f), 0);
}

/* Default ACLs: inherited by new inodes, the umask then ignored. */
static void test_default(u64 dir)
{
	static const struct ent def[] = {
		{ ACL_USER_OBJ, 7, NO_ID }, { ACL_USER, 7, 1001 },
		{ ACL_GROUP_OBJ, 5, NO_ID }, { ACL_MASK, 7, NO_ID },
		{ ACL_OTHER, 0, NO_ID },
	};
	struct aifs_attr a;
	u64 d, f, sub;

	d = mkdir_as(&owner, dir, "inherit", 0755, 0);
	EXPECT(create_as(&owner, d, "plain", 0666, 022, &f), 0);
	CHECK(mode_of(f) == 0644, "umask without default ACL: %o", mode_of(f));
	EXPECT(set_acl(d, DEFAULT, def, 5, &a), 0);
	CHECK((le32_to_cpu(a.mode) & 0777) == 0755, "a default ACL keeps the mode");

	EXPECT(create_as(&owner, d, "file", 0666, 022, &f), 0);
	CHECK(mode_of(f) == 0660, "file mode %o", mode_of(f));
	CHECK(acl_perm(f, ACCESS, ACL_USER) == 7 &&
	      acl_perm(f, ACCESS, ACL_MASK) == 6 &&
	      acl_perm(f, ACCESS, ACL_USER_OBJ) == 6, "file's access ACL");
	EXPECT(aifs_getxattr(conn, &root, f, DEFAULT, NULL, 0), -ENODATA);
	EXPECT(read_as(&named, f), 0);

	sub = mkdir_as(&owner, d, "sub", 0777, 077);
	CHECK(mode_of(sub) == 0770, "dir mode %o", mode_of(sub));
	CHECK(acl_perm(sub, DEFAULT, ACL_USER) == 7 &&
	      acl_perm(sub, ACCESS, ACL_MASK) == 7, "dir's ACLs");
	EXPECT(create_as(&named, sub, "deeper", 0600, 0, &f), 0);
	CHECK(acl_perm(f, ACCESS, ACL_MASK) == 0 && mode_of(f) == 0600,
	      "masked by the mode asked for");

	/* an empty value removes the default ACL */
	EXPECT(set_acl(d, DEFAULT, def, 0, &a), 0);
	EXPECT(aifs_getxattr(conn, &root, d, DEFAULT, NULL, 0), -ENODATA);
	EXPECT(create_as(&owner, d, "plain2", 0666, 022, &f), 0);
	CHECK(mode_of(f) == 0644, "umask again: %o", mode_of(f));
}

/* Write @value as @ino's access ACL into the stopped server's database. */
static void store_raw_acl(struct mds_harness *h, u64 ino, const char *value)
{
	char cmd[PATH_MAX + 64];
	FILE *load;
	int i;

	snprintf(cmd, sizeof(cmd), "mdb_load -T -s xattrs %s/db", h->srv.dir);
	load = popen(cmd, "w");
	CHECK(load, "%s", cmd);
	if (!load)
		return;
	/* mdb_load -T: lines of key and value, \xx for a byte */
	for (i = 56; i >= 0; i -= 8)
		fprintf(load, "\\%02x", (unsigned int)(ino >> i) & 0xff);
	fprintf(load, "%s\n%s\n", ACCESS, value);
	CHECK(pclose(load) == 0, "%s", cmd);
}

static bool exit_status(int status, int want)
{
	return WIFEXITED(status) && WEXITSTATUS(status) == want;
}

/*
 * An ACL stored before the MDS checked them: --check finds it, others
 * than the owner get EIO where it counts, the owner can remove it.
 */
static void test_broken(struct mds_harness *h, u64 f)
{
	struct aifs_attr a;

	/* u::rw-, g::r--, o::r-- with the group first */
	store_raw_acl(h, f, "\\02\\00\\00\\00"
		      "\\04\\00\\04\\00\\ff\\ff\\ff\\ff"
		      "\\01\\00\\06\\00\\ff\\ff\\ff\\ff"
		      "\\20\\00\\04\\00\\ff\\ff\\ff\\ff");
	CHECK(exit_status(mds_harness_run(h, "--check"), 1),
	      "--check passes a broken ACL");
	if (mds_harness_start(h) || mds_harness_connect(h, &conn)) {
		CHECK(0, "restart");
		return;
	}
	EXPECT(read_as(&stranger, f), -EIO);
	EXPECT(read_as(&owner, f), 0);
	EXPECT(aifs_removexattr(conn, &owner, f, ACCESS, &a), 0);
	EXPECT(read_as(&stranger, f), 0);
	aifs_close(conn);
	CHECK(mds_harness_stop(h, SIGTERM) == 0, "clean stop");
	CHECK(exit_status(mds_harness_run(h, "--check"), 0), "--check");
}

int main(void)
{
	struct mds_harness h;
	u64 top, broken;

	make_cred(&root, 0, 0);
	make_cred(&owner, 1000, 0);
	make_cred(&named, 1001, 0);
	make_cred(&stranger, 1002, 0);
	make_cred(&grouped, 1003, 60);
	if (mds_harness_init(&h, "") || mds_harness_start(&h) ||
	    mds_harness_connect(&h, &conn)) {
		printf("FAIL: cannot start aifs-mds (log in %s)\n", h.srv.dir);
		return 1;
	}
	top = mkdir_as(&root, ROOT, "acl", 0777, 0);
	test_values(top);
	test_named(top);
	test_deny(top);
	test_default(top);
	EXPECT(create_as(&owner, top, "broken", 0644, 0, &broken), 0);
	aifs_close(conn);
	CHECK(mds_harness_stop(&h, SIGTERM) == 0, "clean stop");
	CHECK(mds_harness_run(&h, "--check") == 0, "--check");
	test_broken(&h, broken);
	return test_result();
}
