// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Every message of the protocol through libaifs, against aifs-proto-peer
 * on loopback: the peer derives each reply from the request
 * (proto_peer.h), and this test derives the same from its own arguments,
 * so a field that a codec direction or libaifs loses or misplaces fails
 * here.  Also: READDIR paging to EOF, a 4 MiB chunk round trip, CRCs
 * against aifs_crc32c(), error statuses as -errno, replies that do not
 * decode, requests the encoder refuses, and four threads on one
 * connection.
 */
#include <stdlib.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "proto_peer.h"
#include "testutil.h"

#define THREADS		4
#define CALLS		50
#define MIB		(1U << 20)

static struct aifs_cred cred;

/* @got must be @want, byte for byte. */
#define CHECK_SAME(got, want, what)					\
	CHECK(!memcmp(&(got), &(want), sizeof(want)), "%s differs", what)

static void check_attr(const struct aifs_attr *got, u64 ino, u32 mode,
		       const char *what)
{
	struct aifs_attr want;

	peer_attr(&want, ino, mode, &cred);
	CHECK_SAME(*got, want, what);
}

static void check_entry(const struct aifs_entry_rep *e, u64 dir,
			const char *name, u32 mode, const char *what)
{
	check_attr(&e->dir, dir, PEER_DIR_MODE, what);
	check_attr(&e->attr, peer_ino(dir, name, strlen(name)), mode, what);
}

static struct aifs_timespec wire_time(s64 sec, u32 nsec)
{
	return (struct aifs_timespec){ .sec = cpu_to_le64(sec),
				       .nsec = cpu_to_le32(nsec) };
}

static u64 ino_of(u64 dir, const char *name)
{
	return peer_ino(dir, name, strlen(name));
}

static void test_lookup_getattr(struct aifs_conn *c)
{
	struct aifs_entry_rep e;
	struct aifs_attr a;
	char longname[AIFS_NAME_MAX + 2];
	int err;

	err = aifs_lookup(c, &cred, 42, "model.bin", &e);
	CHECK(!err, "lookup: %d", err);
	check_entry(&e, 42, "model.bin", PEER_FILE_MODE, "lookup");
	err = aifs_lookup(c, &cred, 42, PEER_ENOENT, &e);
	CHECK(err == -ENOENT, "lookup of a missing name: %d", err);
	err = aifs_lookup(c, &cred, 42, PEER_BADREPLY, &e);
	CHECK(err == -EBADMSG, "truncated reply: %d", err);
	err = aifs_getattr(c, &cred, PEER_INO_BAD, &a);
	CHECK(err == -EBADMSG, "reply with inode 0: %d", err);
	err = aifs_getattr(c, &cred, PEER_INO_STALE, &a);
	CHECK(err == -ESTALE, "stale inode: %d", err);
	err = aifs_getattr(c, &cred, 77, &a);
	CHECK(!err, "getattr after bad replies: %d", err);
	check_attr(&a, 77, PEER_FILE_MODE, "getattr");

	/* Refused by the encoder: nothing is sent. */
	err = aifs_lookup(c, &cred, 42, "a/b", &e);
	CHECK(err == -EINVAL, "name with a slash: %d", err);
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	err = aifs_lookup(c, &cred, 42, longname, &e);
	CHECK(err == -ENAMETOOLONG, "256-byte name: %d", err);
}

/* The peer decodes every request: a malformed one gets EBADMSG. */
static void test_malformed_request(struct aifs_conn *c)
{
	u8 junk[AIFS_NAME_REQ_SIZE + 4] = { 0 };
	struct iovec iov = { junk, sizeof(junk) };
	struct aifs_reply reply;
	int err;

	err = aifs_call(c, AIFS_OP_LOOKUP, &iov, 1, &reply, 5000);
	CHECK(!err && reply.status == EBADMSG && !reply.len,
	      "LOOKUP with a name length of 0 and 4 bytes after: %d %u", err,
	      err ? 0 : reply.status);
	if (!err)
		aifs_reply_free(&reply);
}

static void test_setattr(struct aifs_conn *c)
{
	struct aifs_setattr sa = {
		.ino = 99, .handle = 5,
		.valid = AIFS_SETATTR_MODE | AIFS_SETATTR_UID |
			 AIFS_SETATTR_SIZE | AIFS_SETATTR_MTIME |
			 AIFS_SETATTR_ATIME_NOW,
		.mode = 0600, .uid = 4321, .gid = 1, .size = 123456789,
		.mtime = { 1600000000, 123456789 },
	};
	struct aifs_attr a, want;
	int err;

	err = aifs_setattr(c, &cred, &sa, &a);
	CHECK(!err, "setattr: %d", err);
	peer_attr(&want, 99, S_IFREG | 0600, &cred);
	want.uid = cpu_to_le32(4321);
	want.size = cpu_to_le64(123456789);
	want.mtime = wire_time(1600000000, 123456789);
	want.atime = wire_time(PEER_NOW, 0);
	want.ctime = want.atime;
	CHECK_SAME(a, want, "setattr attributes");

	sa.valid = AIFS_SETATTR_ATIME | AIFS_SETATTR_ATIME_NOW;
	err = aifs_setattr(c, &cred, &sa, &a);
	CHECK(err == -EINVAL, "ATIME with ATIME_NOW: %d", err);
}

static void test_create(struct aifs_conn *c)
{
	struct aifs_create_rep rep;
	struct aifs_entry_rep e;
	struct aifs_layout want;
	u64 ino = ino_of(7, "ckpt-0001");
	int err;

	err = aifs_create(c, &cred, 7, "ckpt-0001", 0666, 022,
			  AIFS_OPEN_RDWR | AIFS_OPEN_EXCL, &rep);
	CHECK(!err, "create: %d", err);
	check_attr(&rep.dir, 7, PEER_DIR_MODE, "create: directory");
	check_attr(&rep.open.attr, ino, S_IFREG | 0644, "create: file");
	peer_layout(&want, ino);
	CHECK_SAME(rep.open.layout, want, "create: layout");
	CHECK(le64_to_cpu(rep.open.handle) == peer_handle(ino), "handle");
	err = aifs_create(c, &cred, 7, PEER_EXISTS, 0644, 0,
			  AIFS_OPEN_WRONLY | AIFS_OPEN_EXCL, &rep);
	CHECK(err == -EEXIST, "exclusive create of an existing name: %d", err);

	err = aifs_mkdir(c, &cred, 7, "epoch-3", 0777, 027, &e);
	CHECK(!err, "mkdir: %d", err);
	check_entry(&e, 7, "epoch-3", S_IFDIR | 0750, "mkdir");
	err = aifs_mkdir(c, &cred, 7, PEER_EXISTS, 0777, 0, &e);
	CHECK(err == -EEXIST, "mkdir of an existing name: %d", err);

	err = aifs_mknod(c, &cred, 7, "tty9", S_IFCHR | 0620, 022,
			 makedev(4, 9), &e);
	CHECK(!err, "mknod: %d", err);
	CHECK(le32_to_cpu(e.attr.rdev_major) == 4 &&
	      le32_to_cpu(e.attr.rdev_minor) == 9, "mknod: rdev");
	e.attr.rdev_major = 0;
	e.attr.rdev_minor = 0;
	check_entry(&e, 7, "tty9", S_IFCHR | 0600, "mknod");
	err = aifs_mknod(c, &cred, 7, "d", S_IFDIR | 0755, 0, 0, &e);
	CHECK(err == -EINVAL, "mknod of a directory: %d", err);
}

static void test_remove_rename_link(struct aifs_conn *c)
{
	struct aifs_rename_rep rep;
	struct aifs_entry_rep e;
	struct aifs_attr zero = { 0 };
	int err;

	err = aifs_unlink(c, &cred, 8, "old.log", &e);
	CHECK(!err, "unlink: %d", err);
	CHECK(e.attr.nlink == 0, "unlink: nlink");
	e.attr.nlink = cpu_to_le32(1);
	check_entry(&e, 8, "old.log", PEER_FILE_MODE, "unlink");
	err = aifs_unlink(c, &cred, 8, PEER_ENOENT, &e);
	CHECK(err == -ENOENT, "unlink of a missing name: %d", err);

	err = aifs_rmdir(c, &cred, 8, "tmp", &e);
	CHECK(!err, "rmdir: %d", err);
	e.attr.nlink = cpu_to_le32(2);
	check_entry(&e, 8, "tmp", PEER_DIR_MODE, "rmdir");
	err = aifs_rmdir(c, &cred, 8, PEER_NOTEMPTY, &e);
	CHECK(err == -ENOTEMPTY, "rmdir of a full directory: %d", err);

	err = aifs_rename(c, &cred, 8, "a", 9, "b", 0, &rep);
	CHECK(!err, "rename: %d", err);
	check_attr(&rep.old_dir, 8, PEER_DIR_MODE, "rename: old dir");
	check_attr(&rep.new_dir, 9, PEER_DIR_MODE, "rename: new dir");
	check_attr(&rep.attr, ino_of(8, "a"), PEER_FILE_MODE, "rename: inode");
	CHECK_SAME(rep.target, zero, "rename: no target");
	err = aifs_rename(c, &cred, 8, "a", 9, "b", AIFS_RENAME_EXCHANGE, &rep);
	CHECK(!err, "rename exchange: %d", err);
	check_attr(&rep.target, ino_of(9, "b"), PEER_FILE_MODE,
		   "rename: exchanged");
	err = aifs_rename(c, &cred, 8, "a", 9, PEER_EXISTS,
			  AIFS_RENAME_NOREPLACE, &rep);
	CHECK(err == -EEXIST, "rename without replacing: %d", err);
	err = aifs_rename(c, &cred, 8, "a", 9, "b", AIFS_RENAME_NOREPLACE |
			  AIFS_RENAME_EXCHANGE, &rep);
	CHECK(err == -EINVAL, "NOREPLACE with EXCHANGE: %d", err);

	err = aifs_link(c, &cred, 1234, 9, "hard", &e);
	CHECK(!err, "link: %d", err);
	check_attr(&e.dir, 9, PEER_DIR_MODE, "link: directory");
	CHECK(le32_to_cpu(e.attr.nlink) == 2, "link: nlink");
	e.attr.nlink = cpu_to_le32(1);
	check_attr(&e.attr, 1234, PEER_FILE_MODE, "link: inode");
}

static void test_symlink(struct aifs_conn *c)
{
	static const char target[] = "../datasets/imagenet/train";
	struct aifs_entry_rep e;
	char buf[AIFS_SYMLINK_MAX + 1];
	u64 ino = ino_of(10, "train");
	int n;

	n = aifs_symlink(c, &cred, 10, "train", target, &e);
	CHECK(!n, "symlink: %d", n);
	CHECK(le64_to_cpu(e.attr.size) == strlen(target), "symlink: size");
	e.attr.size = cpu_to_le64(ino % 100000);
	check_entry(&e, 10, "train", S_IFLNK | 0777, "symlink");
	n = aifs_readlink(c, &cred, ino, buf, sizeof(buf));
	CHECK(n == (int)strlen(target) && !strcmp(buf, target),
	      "readlink: %d %s", n, buf);
	n = aifs_readlink(c, &cred, ino, buf, strlen(target));
	CHECK(n == -ERANGE, "readlink into a short buffer: %d", n);
	n = aifs_readlink(c, &cred, ino + 1, buf, sizeof(buf));
	CHECK(n == -EINVAL, "readlink of a non-symlink: %d", n);
}

/* Page through a directory with @size-byte buffers; returns the pages. */
static int readdir_all(struct aifs_conn *c, u64 dir, u32 size)
{
	struct aifs_readdir_page page = { 0 };
	struct aifs_dirent ent;
	char name[AIFS_NAME_MAX + 1], want[16];
	void *buf = malloc(size);
	u32 seen = 0, pages = 0, n;
	int err;

	do {
		err = aifs_readdir(c, &cred, dir, page.cookie, buf, size,
				   &page);
		if (err)
			break;
		pages++;
		for (n = 0; aifs_readdir_next(&page, &ent, name) > 0; n++) {
			snprintf(want, sizeof(want), "f%05u", seen);
			seen++;
			CHECK(!strcmp(name, want), "%s for %s", name, want);
			CHECK(le64_to_cpu(ent.cookie) == seen, "cookie");
			check_attr(&ent.attr, ino_of(dir, want), PEER_FILE_MODE,
				   "readdir entry");
		}
		CHECK(n == page.count, "page of %u entries says %u", n,
		      page.count);
	} while (!page.eof && n);
	CHECK(!err, "readdir: %d", err);
	CHECK(page.eof && seen == PEER_DIR_ENTRIES, "listed %u entries", seen);
	free(buf);
	return pages;
}

static void test_readdir(struct aifs_conn *c)
{
	struct aifs_readdir_page page;
	char buf[AIFS_READDIR_BUF_MIN];
	int pages, err;

	pages = readdir_all(c, 11, 4096);
	CHECK(pages > 10, "4 KiB pages: only %d", pages);
	/* Room for one entry of the longest name: two of these. */
	pages = readdir_all(c, 11, AIFS_READDIR_BUF_MIN);
	CHECK(pages == PEER_DIR_ENTRIES / 2, "smallest pages: %d", pages);
	pages = readdir_all(c, 11, MIB);
	CHECK(pages == 1, "all in one page: %d pages", pages);

	err = aifs_readdir(c, &cred, 11, PEER_DIR_ENTRIES + 1, buf,
			   sizeof(buf), &page);
	CHECK(err == -EINVAL, "unknown cookie: %d", err);
	err = aifs_readdir(c, &cred, 11, 0, buf, sizeof(buf) - 1, &page);
	CHECK(err == -EINVAL, "buffer too small for a name: %d", err);
}

static void test_statfs(struct aifs_conn *c)
{
	struct aifs_statfs_rep st, want;
	int err;

	err = aifs_statfs(c, &cred, AIFS_ROOT_INO, &st);
	CHECK(!err, "statfs: %d", err);
	peer_statfs(&want, AIFS_ROOT_INO, &cred);
	CHECK_SAME(st, want, "statfs");
}

static void test_xattrs(struct aifs_conn *c, u64 ino)
{
	static const char list[] = "user.a\0trusted.big";
	char big[3000], got[4096];
	struct aifs_attr a;
	int n, i;

	for (i = 0; i < (int)sizeof(big); i++)
		big[i] = i * 7;
	n = aifs_setxattr(c, &cred, ino, "user.a", "alpha", 5,
			  AIFS_XATTR_CREATE, &a);
	CHECK(!n, "setxattr: %d", n);
	check_attr(&a, ino, PEER_FILE_MODE, "setxattr");
	n = aifs_setxattr(c, &cred, ino, "trusted.big", big, sizeof(big), 0,
			  &a);
	CHECK(!n, "setxattr of 3000 bytes: %d", n);
	n = aifs_setxattr(c, &cred, ino, "user.a", "x", 1, AIFS_XATTR_CREATE,
			  &a);
	CHECK(n == -EEXIST, "create an existing xattr: %d", n);
	n = aifs_setxattr(c, &cred, ino, "user.none", "x", 1,
			  AIFS_XATTR_REPLACE, &a);
	CHECK(n == -ENODATA, "replace a missing xattr: %d", n);

	n = aifs_getxattr(c, &cred, ino, "user.a", NULL, 0);
	CHECK(n == 5, "size of user.a: %d", n);
	n = aifs_getxattr(c, &cred, ino, "trusted.big", got, sizeof(got));
	CHECK(n == sizeof(big) && !memcmp(got, big, sizeof(big)),
	      "trusted.big: %d", n);
	n = aifs_getxattr(c, &cred, ino, "trusted.big", got, 100);
	CHECK(n == -ERANGE, "value larger than the buffer: %d", n);
	n = aifs_listxattr(c, &cred, ino, NULL, 0);
	CHECK(n == sizeof(list), "size of the list: %d", n);
	n = aifs_listxattr(c, &cred, ino, got, sizeof(got));
	CHECK(n == sizeof(list) && !memcmp(got, list, sizeof(list)),
	      "list: %d", n);

	n = aifs_removexattr(c, &cred, ino, "user.a", &a);
	CHECK(!n, "removexattr: %d", n);
	check_attr(&a, ino, PEER_FILE_MODE, "removexattr");
	n = aifs_getxattr(c, &cred, ino, "user.a", got, sizeof(got));
	CHECK(n == -ENODATA, "removed xattr: %d", n);
	n = aifs_removexattr(c, &cred, ino, "trusted.big", &a);
	CHECK(!n, "removexattr: %d", n);
	n = aifs_setxattr(c, &cred, ino, "", "x", 1, 0, &a);
	CHECK(n == -ERANGE, "empty xattr name: %d", n);
}

static void test_open_close_layout(struct aifs_conn *c)
{
	struct aifs_layout want, got, ask = {
		.chunk_size = cpu_to_le32(1 << 20),
		.stripe_count = cpu_to_le16(3),
		.type = AIFS_LAYOUT_EC,
		.ec_k = 4,
		.ec_m = 2,
	};
	struct timespec mtime = { 1650000000, 5 };
	struct aifs_open_rep rep;
	struct aifs_attr a, wa;
	int err, i;

	err = aifs_open(c, &cred, 500, AIFS_OPEN_RDONLY, &rep);
	CHECK(!err, "open: %d", err);
	check_attr(&rep.attr, 500, PEER_FILE_MODE, "open");
	peer_layout(&want, 500);
	CHECK_SAME(rep.layout, want, "open: layout");
	CHECK(le64_to_cpu(rep.handle) == peer_handle(500), "open: handle");

	err = aifs_release(c, &cred, 500, peer_handle(500), 1 << 30, &mtime,
			   &a);
	CHECK(!err, "close: %d", err);
	peer_attr(&wa, 500, PEER_FILE_MODE, &cred);
	wa.size = cpu_to_le64(1 << 30);
	wa.mtime = wire_time(1650000000, 5);
	CHECK_SAME(a, wa, "close: attributes");
	err = aifs_release(c, &cred, 500, 3, 0, NULL, &a);
	CHECK(err == -EBADF, "close of an unknown handle: %d", err);

	err = aifs_layout_get(c, &cred, 501, &got);
	CHECK(!err, "layout get: %d", err);
	peer_layout(&want, 501);
	CHECK_SAME(got, want, "layout get");
	err = aifs_layout_set(c, &cred, 502, &ask, &got);
	CHECK(!err, "layout set: %d", err);
	want = ask;
	want.generation = cpu_to_le32(1);
	want.target_count = cpu_to_le16(18);
	for (i = 0; i < 18; i++)
		want.targets[i] = cpu_to_le32(i + 1);
	CHECK_SAME(got, want, "layout set");
	ask.ec_m = 0;
	err = aifs_layout_set(c, &cred, 502, &ask, &got);
	CHECK(err == -EINVAL, "EC layout without parity: %d", err);
}

static void ds_addr(struct aifs_addr *addr, u32 i)
{
	memset(addr, 0, sizeof(*addr));
	addr->family = cpu_to_le16(AIFS_AF_INET);
	addr->port = cpu_to_le16(AIFS_DS_PORT + i);
	addr->addr[0] = 10;
	addr->addr[3] = i;
}

static void test_cluster(struct aifs_conn *c)
{
	struct aifs_ds_space space = { 1ULL << 42, 1ULL << 41, 0 };
	struct aifs_ds_info ds[4], want = { 0 };
	struct aifs_ds_register_rep reg;
	struct aifs_ds_heartbeat_rep hb;
	struct aifs_map_rep map;
	struct aifs_addr addr;
	u8 uuid[2][16];
	u32 i;
	int err;

	err = aifs_map_get(c, 0, &map, ds, 4);
	CHECK(!err && map.flags == cpu_to_le32(AIFS_MAP_UNCHANGED) &&
	      !map.count && !map.epoch, "empty map: %d", err);
	for (i = 0; i < 2; i++) {
		memset(uuid[i], 0xa0 + i, 16);
		ds_addr(&addr, i + 1);
		err = aifs_ds_register(c, uuid[i], 0, i ? AIFS_DS_RDMA : 0,
				       &space, &addr, &reg);
		CHECK(!err && le32_to_cpu(reg.id) == i + 1 &&
		      le32_to_cpu(reg.heartbeat_ms) ==
		      peer_heartbeat_ms(i + 1) && le64_to_cpu(reg.epoch) == i + 1,
		      "register %u: %d", i, err);
	}
	err = aifs_ds_register(c, uuid[0], 2, 0, &space, &addr, &reg);
	CHECK(err == -EEXIST, "register under another id: %d", err);

	err = aifs_map_get(c, 1, &map, ds, 4);
	CHECK(!err && le64_to_cpu(map.epoch) == 2 && !map.flags &&
	      le32_to_cpu(map.count) == 2, "map: %d", err);
	for (i = 0; i < 2 && !err; i++) {
		want.id = cpu_to_le32(i + 1);
		want.state = cpu_to_le32(AIFS_DS_UP);
		want.capacity = cpu_to_le64(space.capacity);
		want.free = cpu_to_le64(space.free);
		want.epoch = cpu_to_le64(i + 1);
		ds_addr(&want.addr, i + 1);
		want.flags = cpu_to_le32(i ? AIFS_DS_RDMA : 0);
		memcpy(want.uuid, uuid[i], 16);
		CHECK_SAME(ds[i], want, "map entry");
	}
	err = aifs_map_get(c, 0, &map, ds, 1);
	CHECK(err == -ERANGE && le32_to_cpu(map.count) == 2,
	      "map larger than the array: %d", err);
	err = aifs_map_get(c, 2, &map, ds, 4);
	CHECK(!err && map.flags == cpu_to_le32(AIFS_MAP_UNCHANGED) &&
	      !map.count, "current map: %d", err);

	err = aifs_ds_heartbeat(c, 1, 0, &space, 2, &hb);
	CHECK(!err && le32_to_cpu(hb.state) == AIFS_DS_UP &&
	      le64_to_cpu(hb.epoch) == 2, "heartbeat: %d", err);
	space.free = 0;
	err = aifs_ds_heartbeat(c, 2, 0, &space, 2, &hb);
	CHECK(!err && le32_to_cpu(hb.state) == AIFS_DS_DRAINING,
	      "heartbeat of a full server: %d", err);
	err = aifs_ds_heartbeat(c, 99, 0, &space, 2, &hb);
	CHECK(err == -ENOENT, "heartbeat of an unknown server: %d", err);
}

static struct aifs_chunk_id chunk_id(u64 ino, u32 index)
{
	struct aifs_chunk_id id = {
		.ino = cpu_to_le64(ino),
		.index = cpu_to_le32(index),
	};

	memset(id.fs_uuid, 0x5a, sizeof(id.fs_uuid));
	return id;
}

/* The CRCs of @n blocks of @len bytes at @data match @crcs. */
static void check_crcs(const u8 *data, u32 len, u32 first, u32 n,
		       const u32 *crcs)
{
	u32 i, off, bytes;

	for (i = 0; i < n; i++) {
		off = (first + i) * AIFS_BLOCK_SIZE;
		bytes = len - off;
		if (bytes > AIFS_BLOCK_SIZE)
			bytes = AIFS_BLOCK_SIZE;
		CHECK(crcs[i] == aifs_crc32c(data + off, bytes), "CRC %u",
		      first + i);
	}
}

static void test_chunk_data(struct aifs_conn *c, const u8 *data, u8 *buf)
{
	struct aifs_chunk_id id = chunk_id(3000, 0);
	struct aifs_chunk_write w = {
		.chunk_size = 4 * MIB, .flags = AIFS_IO_SYNC,
		.nr_replicas = 2, .replicas = { 5, 6 },
	};
	struct aifs_chunk_read_rep rr;
	struct aifs_chunk_rep cr;
	int n;

	n = aifs_chunk_write(c, &id, &w, data, 4 * MIB, &cr);
	CHECK(!n && le64_to_cpu(cr.version) == 1 &&
	      le32_to_cpu(cr.length) == 4 * MIB, "write 4 MiB: %d", n);
	n = aifs_chunk_read(c, &id, 1, 0, buf, 4 * MIB, &rr);
	CHECK(n == (int)(4 * MIB) && !memcmp(buf, data, 4 * MIB),
	      "read 4 MiB: %d", n);
	CHECK(le64_to_cpu(rr.version) == 1 &&
	      le32_to_cpu(rr.chunk_len) == 4 * MIB, "read: version, length");
	n = aifs_chunk_read(c, &id, 0, 4 * MIB - 100, buf, 1000, &rr);
	CHECK(n == 100 && !memcmp(buf, data + 4 * MIB - 100, 100),
	      "read past the end: %d", n);
	n = aifs_chunk_read(c, &id, 2, 0, buf, 10, &rr);
	CHECK(n == -ESTALE, "read of a newer version: %d", n);
	n = aifs_chunk_write(c, &id, &w, data, 4 * MIB + 1, &cr);
	CHECK(n == -EINVAL, "write over AIFS_MAX_IO: %d", n);
	w.offset = 1000;
	n = aifs_chunk_write(c, &id, &w, data, 4 * MIB - 999, &cr);
	CHECK(n == -EINVAL, "write past the chunk size: %d", n);
}

static void test_chunk_meta(struct aifs_conn *c, const u8 *data)
{
	struct aifs_chunk_id id = chunk_id(3000, 0), id2 = chunk_id(3000, 1);
	struct aifs_chunk_write fw = { .version = 7, .chunk_size = 4 * MIB };
	static u32 crcs[AIFS_MAX_BLOCKS];
	struct aifs_chunk_checksum_rep cs;
	struct aifs_statfs_rep st;
	struct aifs_chunk_read_rep rr;
	struct aifs_chunk_rep cr;
	u8 b;
	int n;

	n = aifs_chunk_checksum(c, &id, 0, AIFS_MAX_BLOCKS, crcs, &cs);
	CHECK(!n && le32_to_cpu(cs.count) == 64 &&
	      le32_to_cpu(cs.block_size) == AIFS_BLOCK_SIZE &&
	      le32_to_cpu(cs.chunk_len) == 4 * MIB && !cs.first_block &&
	      le64_to_cpu(cs.version) == 1, "checksum: %d", n);
	check_crcs(data, 4 * MIB, 0, 64, crcs);
	n = aifs_chunk_checksum(c, &id, 60, 10, crcs, &cs);
	CHECK(!n && le32_to_cpu(cs.count) == 4 &&
	      le32_to_cpu(cs.first_block) == 60, "checksum of the end: %d", n);
	check_crcs(data, 4 * MIB, 60, 4, crcs);

	n = aifs_chunk_truncate(c, &id, 100000, 0, &cr);
	CHECK(!n && le64_to_cpu(cr.version) == 2 &&
	      le32_to_cpu(cr.length) == 100000, "truncate: %d", n);
	n = aifs_chunk_checksum(c, &id, 0, 8, crcs, &cs);
	CHECK(!n && le32_to_cpu(cs.count) == 2, "checksum after truncate");
	check_crcs(data, 100000, 0, 2, crcs);

	n = aifs_chunk_forward(c, &id2, &fw, data, 512, &cr);
	CHECK(!n && le64_to_cpu(cr.version) == 7 &&
	      le32_to_cpu(cr.length) == 512, "forward: %d", n);
	n = aifs_ds_statfs(c, &st);
	CHECK(!n && le64_to_cpu(st.files) == 2 &&
	      le64_to_cpu(st.total_bytes) == PEER_DS_CAPACITY &&
	      le64_to_cpu(st.free_bytes) == PEER_DS_CAPACITY - 100512 &&
	      le32_to_cpu(st.bsize) == AIFS_BLOCK_SIZE, "ds statfs: %d", n);

	n = aifs_chunk_delete(c, &id, AIFS_DELETE_FROM, 0);
	CHECK(!n, "delete: %d", n);
	n = aifs_chunk_read(c, &id2, 0, 0, &b, 1, &rr);
	CHECK(n == -ENOENT, "read of a deleted chunk: %d", n);
	n = aifs_chunk_delete(c, &id, AIFS_DELETE_INODE | AIFS_DELETE_FROM, 0);
	CHECK(n == -EINVAL, "delete with both flags: %d", n);
	n = aifs_ds_statfs(c, &st);
	CHECK(!n && !st.files, "ds statfs after delete: %d", n);
}

static void test_chunks(struct aifs_conn *c)
{
	u8 *data = malloc(4 * MIB), *buf = malloc(4 * MIB);
	u32 i, x = 12345;

	for (i = 0; i < 4 * MIB; i++) {
		x = x * 1103515245 + 12345;
		data[i] = x >> 16;
	}
	test_chunk_data(c, data, buf);
	test_chunk_meta(c, data);
	free(data);
	free(buf);
}

static void test_cred_self(struct aifs_conn *c)
{
	struct aifs_cred self;
	struct aifs_attr a;
	int err;

	err = aifs_cred_self(&self);
	CHECK(!err && le32_to_cpu(self.uid) == geteuid() &&
	      le32_to_cpu(self.gid) == getegid() &&
	      le32_to_cpu(self.ngroups) <= AIFS_CRED_MAX_GROUPS,
	      "cred of this process: %d", err);
	err = aifs_getattr(c, &self, 5, &a);
	CHECK(!err && a.uid == self.uid && a.gid == self.gid,
	      "getattr as this process: %d", err);
}

/* One round of mixed calls; the number of wrong answers. */
static int mixed_calls(struct aifs_conn *c, u32 t, u32 i, u8 *buf)
{
	struct aifs_chunk_id id = chunk_id(4000 + t, i);
	struct aifs_chunk_write w = { .chunk_size = 4 * MIB };
	u32 len = 1000 + i * 997 + t, j, bad = 0, dir = 20 + t;
	struct aifs_readdir_page page;
	struct aifs_chunk_read_rep rr;
	struct aifs_entry_rep e;
	struct aifs_chunk_rep cr;
	char name[32], v[32];

	snprintf(name, sizeof(name), "t%u-%u", t, i);
	for (j = 0; j < len; j++)
		buf[j] = t * 31 + i + j;
	bad += aifs_lookup(c, &cred, dir, name, &e) ||
	       e.attr.ino != cpu_to_le64(ino_of(dir, name));
	bad += aifs_chunk_write(c, &id, &w, buf, len, &cr) ||
	       le32_to_cpu(cr.length) != len;
	bad += aifs_chunk_read(c, &id, 0, 0, buf + len, len, &rr) != (int)len ||
	       memcmp(buf, buf + len, len);
	bad += aifs_chunk_delete(c, &id, 0, 0) != 0;
	bad += aifs_setxattr(c, &cred, 9000 + t, "user.n", name, strlen(name),
			     0, &e.attr) != 0;
	bad += aifs_getxattr(c, &cred, 9000 + t, "user.n", v, sizeof(v)) !=
	       (int)strlen(name) || memcmp(v, name, strlen(name));
	bad += aifs_readdir(c, &cred, dir, i, buf, 4096, &page) ||
	       !page.count || page.cookie != i + page.count;
	bad += aifs_getattr(c, &cred, PEER_INO_STALE, &e.attr) != -ESTALE;
	return bad;
}

static int mixed_caller(struct aifs_conn *conn, int index)
{
	u8 *buf = malloc(2 * 64 * 1024);
	int i, errors = 0;

	for (i = 0; i < CALLS; i++)
		errors += mixed_calls(conn, index, i, buf);
	free(buf);
	return errors;
}

int main(void)
{
	struct aifs_secret secret;
	struct aifs_conn *conn;
	int err;

	test_init();
	test_load_secret(&secret, TEST_SECRET "\n");
	test_server_start("aifs-proto-peer", "worker_threads = 4\n");
	err = test_connect("127.0.0.1", test_port, &secret, 0, &conn);
	if (err) {
		printf("connect: %s\n", strerror(-err));
		return 1;
	}
	cred = (struct aifs_cred){
		.uid = cpu_to_le32(1001), .gid = cpu_to_le32(2002),
		.ngroups = cpu_to_le32(2),
		.groups = { cpu_to_le32(3003), cpu_to_le32(4004) },
	};

	test_lookup_getattr(conn);
	test_malformed_request(conn);
	test_setattr(conn);
	test_create(conn);
	test_remove_rename_link(conn);
	test_symlink(conn);
	test_readdir(conn);
	test_statfs(conn);
	test_xattrs(conn, 600);
	test_open_close_layout(conn);
	test_cluster(conn);
	test_chunks(conn);
	test_cred_self(conn);
	test_threads(conn, THREADS, mixed_caller);

	err = aifs_ping(conn, 5000);
	CHECK(!err, "ping at the end: %d", err);
	aifs_close(conn);
	test_server_stop();
	return test_result();
}
