// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * aifs-mds through libaifs: every namespace operation and its errors,
 * permissions (mode bits, sticky, setgid), readdir cookies while the
 * directory changes, xattrs, open/unlink/close orphans, layouts, the
 * cluster map with heartbeats and their grace, the map epoch in reply
 * headers, and a consistent database after SIGTERM (--check).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <time.h>

#include "mds_harness.h"



#define ROOT	AIFS_ROOT_INO

static struct aifs_conn *conn;
static struct aifs_cred root_cred, user_cred, other_cred;

static void make_cred(struct aifs_cred *c, u32 uid, u32 gid, u32 group)
{
	memset(c, 0, sizeof(*c));
	c->uid = cpu_to_le32(uid);
	c->gid = cpu_to_le32(gid);
	if (group) {
		c->ngroups = cpu_to_le32(1);
		c->groups[0] = cpu_to_le32(group);
	}
}

static u64 mkdir_ino(const struct aifs_cred *c, u64 dir, const char *name,
		     u32 mode)
{
	struct aifs_entry_rep e;

	EXPECT(aifs_mkdir(conn, c, dir, name, mode, 0, &e), 0);
	return le64_to_cpu(e.attr.ino);
}

static u64 create_ino(const struct aifs_cred *c, u64 dir, const char *name)
{
	struct aifs_create_rep rep;
	struct aifs_attr attr;

	EXPECT(aifs_create(conn, c, dir, name, 0644, 0, AIFS_OPEN_EXCL |
			   AIFS_OPEN_RDWR, &rep), 0);
	EXPECT(aifs_release(conn, c, le64_to_cpu(rep.open.attr.ino),
			    le64_to_cpu(rep.open.handle), 0, NULL, &attr), 0);
	return le64_to_cpu(rep.open.attr.ino);
}

static u32 nlink_of(u64 ino)
{
	struct aifs_attr a;

	EXPECT(aifs_getattr(conn, &root_cred, ino, &a), 0);
	return le32_to_cpu(a.nlink);
}

static void test_names(void)
{
	struct aifs_entry_rep e;
	struct aifs_create_rep c;
	u64 d, f;

	d = mkdir_ino(&root_cred, ROOT, "names", 0755);
	EXPECT(aifs_mkdir(conn, &root_cred, ROOT, "names", 0755, 0, &e), -EEXIST);
	CHECK(nlink_of(ROOT) == 3, "root nlink %u", nlink_of(ROOT));
	EXPECT(aifs_lookup(conn, &root_cred, ROOT, "names", &e), 0);
	CHECK(le64_to_cpu(e.attr.ino) == d, "lookup ino");
	EXPECT(aifs_lookup(conn, &root_cred, ROOT, "nope", &e), -ENOENT);
	f = create_ino(&root_cred, d, "f");
	EXPECT(aifs_lookup(conn, &root_cred, f, "x", &e), -ENOTDIR);
	EXPECT(aifs_create(conn, &root_cred, d, "f", 0644, 0,
			   AIFS_OPEN_EXCL, &c), -EEXIST);
	EXPECT(aifs_create(conn, &root_cred, d, "f", 0644, 0, 0, &c), 0);
	CHECK(le64_to_cpu(c.open.attr.ino) == f, "create opens the existing");
	EXPECT(aifs_mkdir(conn, &root_cred, f, "x", 0755, 0, &e), -ENOTDIR);
	EXPECT(aifs_unlink(conn, &root_cred, ROOT, "names", &e), -EISDIR);
	EXPECT(aifs_rmdir(conn, &root_cred, d, "f", &e), -ENOTDIR);
	EXPECT(aifs_rmdir(conn, &root_cred, ROOT, "names", &e), -ENOTEMPTY);
	EXPECT(aifs_link(conn, &root_cred, d, ROOT, "dirlink", &e), -EPERM);
	EXPECT(aifs_link(conn, &root_cred, f, ROOT, "flink", &e), 0);
	CHECK(le32_to_cpu(e.attr.nlink) == 2, "link nlink");
	EXPECT(aifs_link(conn, &root_cred, f, ROOT, "flink", &e), -EEXIST);
	EXPECT(aifs_unlink(conn, &root_cred, ROOT, "flink", &e), 0);
	CHECK(le32_to_cpu(e.attr.nlink) == 1, "unlink nlink");
	EXPECT(aifs_mknod(conn, &root_cred, d, "fifo", S_IFIFO | 0600, 0, 0, &e), 0);
	CHECK(S_ISFIFO(le32_to_cpu(e.attr.mode)), "fifo mode");
	EXPECT(aifs_mknod(conn, &root_cred, d, "chr", S_IFCHR | 0600, 0,
			  makedev(1, 3), &e), 0);
	CHECK(le32_to_cpu(e.attr.rdev_major) == 1 &&
	      le32_to_cpu(e.attr.rdev_minor) == 3, "rdev");
	EXPECT(aifs_mknod(conn, &user_cred, ROOT, "chr", S_IFCHR | 0600, 0,
			  makedev(1, 3), &e), -EPERM);
	EXPECT(aifs_mknod(conn, &root_cred, d, "dir", S_IFDIR | 0600, 0, 0, &e),
	       -EINVAL);
}

static void test_symlink(void)
{
	struct aifs_entry_rep e;
	char buf[64];

	EXPECT(aifs_symlink(conn, &root_cred, ROOT, "sl", "a/b/c", &e), 0);
	CHECK(S_ISLNK(le32_to_cpu(e.attr.mode)) && le64_to_cpu(e.attr.size) == 5,
	      "symlink attr");
	EXPECT(aifs_readlink(conn, &root_cred, le64_to_cpu(e.attr.ino), buf,
			     sizeof(buf)), 5);
	CHECK(!strcmp(buf, "a/b/c"), "target %s", buf);
	EXPECT(aifs_readlink(conn, &root_cred, ROOT, buf, sizeof(buf)), -EINVAL);
}

static void test_rename(void)
{
	struct aifs_rename_rep r;
	struct aifs_entry_rep e;
	u64 a, b, sub, f, g;

	a = mkdir_ino(&root_cred, ROOT, "ra", 0755);
	b = mkdir_ino(&root_cred, ROOT, "rb", 0755);
	sub = mkdir_ino(&root_cred, a, "sub", 0755);
	f = create_ino(&root_cred, a, "f");
	g = create_ino(&root_cred, b, "g");
	EXPECT(aifs_rename(conn, &root_cred, a, "f", b, "g",
			   AIFS_RENAME_NOREPLACE, &r), -EEXIST);
	EXPECT(aifs_rename(conn, &root_cred, a, "f", b, "g",
			   AIFS_RENAME_EXCHANGE, &r), 0);
	EXPECT(aifs_lookup(conn, &root_cred, a, "f", &e), 0);
	CHECK(le64_to_cpu(e.attr.ino) == g, "exchanged");
	EXPECT(aifs_rename(conn, &root_cred, a, "f", b, "g", 0, &r), 0);
	CHECK(le64_to_cpu(r.target.ino) == f && !le32_to_cpu(r.target.nlink),
	      "replaced target");
	EXPECT(aifs_getattr(conn, &root_cred, f, &e.attr), -ESTALE);
	EXPECT(aifs_rename(conn, &root_cred, a, "sub", a, "sub/x", 0, &r),
	       -EINVAL);
	EXPECT(aifs_rename(conn, &root_cred, ROOT, "ra", sub, "x", 0, &r),
	       -EINVAL);
	EXPECT(aifs_rename(conn, &root_cred, a, "sub", b, "g", 0, &r), -ENOTDIR);
	EXPECT(aifs_rename(conn, &root_cred, b, "g", a, "sub", 0, &r), -EISDIR);
	mkdir_ino(&root_cred, sub, "full", 0755);
	mkdir_ino(&root_cred, b, "empty", 0755);
	EXPECT(aifs_rename(conn, &root_cred, b, "empty", a, "sub", 0, &r),
	       -ENOTEMPTY);
	CHECK(nlink_of(a) == 3 && nlink_of(b) == 3, "nlinks before");
	EXPECT(aifs_rename(conn, &root_cred, a, "sub", b, "empty", 0, &r), 0);
	CHECK(nlink_of(a) == 2 && nlink_of(b) == 3, "nlinks after %u %u",
	      nlink_of(a), nlink_of(b));
	EXPECT(aifs_rename(conn, &root_cred, a, "nope", b, "x", 0, &r), -ENOENT);
	EXPECT(aifs_rename(conn, &root_cred, b, "g", b, "missing",
			   AIFS_RENAME_EXCHANGE, &r), -ENOENT);
}

/*
 * A write's KILL_SUID by a writer who is not the owner: allowed with
 * write access, as MODE is not; setgid goes only when group-executable.
 */
static void test_kill_suid(u64 f)
{
	struct aifs_setattr sa = { .ino = f, .valid = AIFS_SETATTR_MODE,
				   .mode = 06764 };
	struct aifs_attr a;

	EXPECT(aifs_setattr(conn, &user_cred, &sa, &a), 0);
	sa.valid = AIFS_SETATTR_KILL_SUID;
	EXPECT(aifs_setattr(conn, &other_cred, &sa, &a), -EACCES);
	sa.mode = 06777;
	sa.valid = AIFS_SETATTR_MODE;
	EXPECT(aifs_setattr(conn, &other_cred, &sa, &a), -EPERM);
	EXPECT(aifs_setattr(conn, &user_cred, &sa, &a), 0);
	sa.valid = AIFS_SETATTR_KILL_SUID;
	EXPECT(aifs_setattr(conn, &other_cred, &sa, &a), 0);
	CHECK((le32_to_cpu(a.mode) & 07777) == 0777, "setuid and setgid killed");
	sa.valid = AIFS_SETATTR_MODE;
	sa.mode = 06764;
	EXPECT(aifs_setattr(conn, &user_cred, &sa, &a), 0);
	sa.valid = AIFS_SETATTR_KILL_SUID;
	EXPECT(aifs_setattr(conn, &user_cred, &sa, &a), 0);
	CHECK((le32_to_cpu(a.mode) & 07777) == 02764,
	      "setgid of a file not group-executable kept");
	sa.valid = AIFS_SETATTR_MODE | AIFS_SETATTR_KILL_SUID;
	EXPECT(aifs_setattr(conn, &user_cred, &sa, &a), -EINVAL);
	sa.valid = AIFS_SETATTR_MODE;
	sa.mode = 0644;
	EXPECT(aifs_setattr(conn, &user_cred, &sa, &a), 0);
}

static void test_permissions(void)
{
	struct aifs_entry_rep e;
	struct aifs_setattr sa = { .valid = AIFS_SETATTR_MODE, .mode = 0777 };
	struct aifs_attr a;
	u64 tmp, sg, f;

	EXPECT(aifs_mkdir(conn, &user_cred, ROOT, "u", 0755, 0, &e), -EACCES);
	tmp = mkdir_ino(&root_cred, ROOT, "tmp", 01777);
	sa.ino = tmp;
	EXPECT(aifs_setattr(conn, &user_cred, &sa, &a), -EPERM);
	sa.mode = 01777;
	EXPECT(aifs_setattr(conn, &root_cred, &sa, &a), 0);
	f = create_ino(&user_cred, tmp, "mine");
	EXPECT(aifs_unlink(conn, &other_cred, tmp, "mine", &e), -EPERM);
	EXPECT(aifs_getattr(conn, &root_cred, f, &a), 0);
	CHECK(le32_to_cpu(a.uid) == 1000, "owner");
	sa = (struct aifs_setattr){ .ino = f, .valid = AIFS_SETATTR_UID, .uid = 1 };
	EXPECT(aifs_setattr(conn, &user_cred, &sa, &a), -EPERM);
	sa = (struct aifs_setattr){ .ino = f, .valid = AIFS_SETATTR_GID, .gid = 50 };
	EXPECT(aifs_setattr(conn, &user_cred, &sa, &a), 0);
	sa.gid = 51;
	EXPECT(aifs_setattr(conn, &user_cred, &sa, &a), -EPERM);
	sa = (struct aifs_setattr){ .ino = f, .valid = AIFS_SETATTR_SIZE,
				    .size = 100 };
	EXPECT(aifs_setattr(conn, &other_cred, &sa, &a), -EACCES);
	EXPECT(aifs_setattr(conn, &user_cred, &sa, &a), 0);
	CHECK(le64_to_cpu(a.size) == 100, "size");
	test_kill_suid(f);
	sa.ino = tmp;
	EXPECT(aifs_setattr(conn, &root_cred, &sa, &a), -EISDIR);
	EXPECT(aifs_unlink(conn, &user_cred, tmp, "mine", &e), 0);

	sg = mkdir_ino(&root_cred, ROOT, "sgid", 02777);
	sa = (struct aifs_setattr){ .ino = sg, .valid = AIFS_SETATTR_GID |
				    AIFS_SETATTR_MODE, .gid = 77, .mode = 02777 };
	EXPECT(aifs_setattr(conn, &root_cred, &sa, &a), 0);
	EXPECT(aifs_mkdir(conn, &user_cred, sg, "d", 0755, 0, &e), 0);
	CHECK(le32_to_cpu(e.attr.gid) == 77 &&
	      (le32_to_cpu(e.attr.mode) & S_ISGID), "setgid inherited");
}

static void test_readdir(void)
{
	static char buf[8192];
	struct aifs_readdir_page page;
	struct aifs_entry_rep e;
	struct aifs_dirent ent;
	char name[AIFS_NAME_MAX + 1];
	int seen[300] = { 0 }, i, n = 0, rounds = 0, err;
	u64 d, cookie = 0;

	d = mkdir_ino(&root_cred, ROOT, "list", 0755);
	for (i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "e%03d", i);
		EXPECT(aifs_mknod(conn, &root_cred, d, name, S_IFREG | 0644, 0, 0,
				  &e), 0);
	}
	do {
		err = aifs_readdir(conn, &root_cred, d, cookie, buf,
				   sizeof(buf), &page);
		EXPECT(err, 0);
		if (err)
			break;
		while (aifs_readdir_next(&page, &ent, name) == 1) {
			i = atoi(name + 1);
			seen[i]++;
			n++;
		}
		cookie = page.cookie;
		/* Meanwhile: entries behind and ahead go, new ones come. */
		if (rounds++ == 1) {
			EXPECT(aifs_unlink(conn, &root_cred, d, "e000", &e), 0);
			EXPECT(aifs_unlink(conn, &root_cred, d, "e299", &e), 0);
			EXPECT(aifs_mknod(conn, &root_cred, d, "new", S_IFREG, 0,
					  0, &e), 0);
		}
	} while (!page.eof && rounds < 100);
	for (i = 1; i < 299; i++)
		CHECK(seen[i] == 1, "entry %d seen %d times", i, seen[i]);
	CHECK(!seen[299] && rounds > 2, "removed entry listed, %d rounds",
	      rounds);
	EXPECT(aifs_readdir(conn, &root_cred, d, 1000000, buf, sizeof(buf),
			    &page), -EINVAL);
	EXPECT(aifs_readdir(conn, &other_cred, mkdir_ino(&root_cred, ROOT,
							 "closed", 0700),
			    0, buf, sizeof(buf), &page), -EACCES);
}

static void test_xattrs(void)
{
	u64 f = create_ino(&root_cred, ROOT, "xf");
	char buf[256];
	struct aifs_attr a;

	EXPECT(aifs_setxattr(conn, &root_cred, f, "user.a", "12345", 5, 0, &a), 0);
	EXPECT(aifs_setxattr(conn, &root_cred, f, "user.a", "1", 1,
			     AIFS_XATTR_CREATE, &a), -EEXIST);
	EXPECT(aifs_setxattr(conn, &root_cred, f, "user.b", "1", 1,
			     AIFS_XATTR_REPLACE, &a), -ENODATA);
	EXPECT(aifs_setxattr(conn, &root_cred, f, "trusted.t", "x", 1, 0, &a), 0);
	EXPECT(aifs_setxattr(conn, &user_cred, f, "trusted.u", "x", 1, 0, &a),
	       -EPERM);
	/* u::rw-,u:1000:r--,g::r--,m::r--,o::r-- (tests/servers/mds_acl.c) */
	EXPECT(aifs_setxattr(conn, &root_cred, f, "system.posix_acl_access",
			     "\x02\0\0\0"
			     "\x01\0\x06\0\xff\xff\xff\xff"
			     "\x02\0\x04\0\xe8\x03\0\0"
			     "\x04\0\x04\0\xff\xff\xff\xff"
			     "\x10\0\x04\0\xff\xff\xff\xff"
			     "\x20\0\x04\0\xff\xff\xff\xff", 44, 0, &a), 0);
	EXPECT(aifs_setxattr(conn, &root_cred, f, "bogus.x", "x", 1, 0, &a),
	       -EOPNOTSUPP);
	EXPECT(aifs_getxattr(conn, &root_cred, f, "user.a", NULL, 0), 5);
	EXPECT(aifs_getxattr(conn, &root_cred, f, "user.a", buf, 2), -ERANGE);
	EXPECT(aifs_getxattr(conn, &root_cred, f, "user.a", buf, sizeof(buf)), 5);
	CHECK(!memcmp(buf, "12345", 5), "value");
	EXPECT(aifs_getxattr(conn, &root_cred, f, "user.none", buf, sizeof(buf)),
	       -ENODATA);
	EXPECT(aifs_listxattr(conn, &root_cred, f, buf, sizeof(buf)),
	       (int)(sizeof("system.posix_acl_access") + sizeof("trusted.t") +
		     sizeof("user.a")));
	EXPECT(aifs_listxattr(conn, &user_cred, f, buf, sizeof(buf)),
	       (int)(sizeof("system.posix_acl_access") + sizeof("user.a")));
	EXPECT(aifs_removexattr(conn, &root_cred, f, "user.a", &a), 0);
	EXPECT(aifs_removexattr(conn, &root_cred, f, "user.a", &a), -ENODATA);
	/* its xattrs are the only ones: freeing them empties the table */
	EXPECT(aifs_unlink(conn, &root_cred, ROOT, "xf",
			   &(struct aifs_entry_rep){ 0 }), 0);
}

static void test_orphan(void)
{
	struct aifs_create_rep c;
	struct aifs_entry_rep e;
	struct aifs_attr a;
	u64 ino, handle;

	EXPECT(aifs_create(conn, &root_cred, ROOT, "orphan", 0644, 0,
			   AIFS_OPEN_RDWR, &c), 0);
	ino = le64_to_cpu(c.open.attr.ino);
	handle = le64_to_cpu(c.open.handle);
	EXPECT(aifs_unlink(conn, &root_cred, ROOT, "orphan", &e), 0);
	EXPECT(aifs_getattr(conn, &root_cred, ino, &a), 0);
	CHECK(!le32_to_cpu(a.nlink), "orphan nlink");
	EXPECT(aifs_release(conn, &root_cred, ino, handle + 1000, 0, NULL, &a),
	       -EBADF);
	EXPECT(aifs_release(conn, &root_cred, ino, handle, 0, NULL, &a), 0);
	EXPECT(aifs_getattr(conn, &root_cred, ino, &a), -ESTALE);
}

static void test_cluster(void)
{
	struct aifs_ds_space space = { 1000ULL << 30, 600ULL << 30, 0 };
	struct aifs_addr addr = { .family = cpu_to_le16(AIFS_AF_INET) };
	struct aifs_ds_register_rep reg[3];
	struct aifs_ds_heartbeat_rep hb;
	struct aifs_statfs_rep st;
	struct aifs_create_rep c;
	struct aifs_ds_info ds[8];
	struct aifs_map_rep map;
	struct timespec pause = { 1, 0 };
	u8 uuid[16] = { 1 };
	int i;

	EXPECT(aifs_statfs(conn, &root_cred, ROOT, &st), 0);
	CHECK(!st.total_bytes, "statfs without data servers");
	for (i = 0; i < 3; i++) {
		uuid[1] = i;
		EXPECT(aifs_ds_register(conn, uuid, 0, 0, &space, &addr, &reg[i]),
		       0);
	}
	EXPECT(aifs_ds_register(conn, uuid, 99, 0, &space, &addr, &reg[0]),
	       -EEXIST);
	EXPECT(aifs_statfs(conn, &root_cred, ROOT, &st), 0);
	CHECK(le64_to_cpu(st.total_bytes) == 3000ULL << 30, "statfs sum");
	EXPECT(aifs_create(conn, &root_cred, ROOT, "placed", 0644, 0,
			   AIFS_OPEN_RDWR, &c), 0);
	CHECK(le16_to_cpu(c.open.layout.target_count) == 2 &&
	      c.open.layout.targets[0] != c.open.layout.targets[1],
	      "two distinct targets");
	EXPECT(aifs_map_get(conn, 0, &map, ds, 8), 0);
	CHECK(le32_to_cpu(map.count) == 3, "map count");
	/*
	 * heartbeat_grace_ms is 300: all go OFFLINE; the one that beats
	 * again missed writes, and catches up before it serves (SYNCING:
	 * its address here is no server's, so it stays so).
	 */
	nanosleep(&pause, NULL);
	EXPECT(aifs_ds_heartbeat(conn, le32_to_cpu(reg[0].id), 0, &space, 0,
			       &hb), 0);
	EXPECT(aifs_map_get(conn, 0, &map, ds, 8), 0);
	for (i = 0; i < 3; i++)
		CHECK(le32_to_cpu(ds[i].state) ==
		      (i ? AIFS_DS_OFFLINE : AIFS_DS_SYNCING),
		      "ds %d state %u", i, le32_to_cpu(ds[i].state));
	EXPECT(aifs_map_get(conn, le64_to_cpu(map.epoch), &map, ds, 8), 0);
	CHECK(le32_to_cpu(map.flags) & AIFS_MAP_UNCHANGED, "unchanged map");
	EXPECT(aifs_ds_heartbeat(conn, 4242, 0, &space, 0, &hb), -ENOENT);
}

static void test_map_epoch_header(void)
{
	struct aifs_reply reply;

	EXPECT(aifs_call(conn, AIFS_OP_PING, NULL, 0, &reply, 5000), 0);
	CHECK(reply.map_epoch > 1, "map epoch %llu in the header",
	      (unsigned long long)reply.map_epoch);
	aifs_reply_free(&reply);
}

int main(void)
{
	struct mds_harness h;

	make_cred(&root_cred, 0, 0, 0);
	make_cred(&user_cred, 1000, 1000, 50);
	make_cred(&other_cred, 1001, 1001, 0);
	if (mds_harness_init(&h, "heartbeat_grace_ms = 300\n") ||
	    mds_harness_start(&h) || mds_harness_connect(&h, &conn)) {
		printf("FAIL: cannot start aifs-mds (log in %s)\n", h.srv.dir);
		return 1;
	}
	test_names();
	test_symlink();
	test_rename();
	test_permissions();
	test_readdir();
	test_xattrs();
	test_orphan();
	test_cluster();
	test_map_epoch_header();
	aifs_close(conn);
	CHECK(mds_harness_stop(&h, SIGTERM) == 0, "clean stop");
	CHECK(mds_harness_run(&h, "--check") == 0, "--check");
	return test_result();
}
