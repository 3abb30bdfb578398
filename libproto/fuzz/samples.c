// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A valid payload of every message (see samples.h).
 */
#include "samples.h"

/* Every fixed struct, so that one zeroed object can become any of them. */
union aifs_sample_fixed {
	struct aifs_hello_req hello_req;
	struct aifs_hello_rep hello_rep;
	struct aifs_auth_req auth_req;
	struct aifs_auth_rep auth_rep;
	struct aifs_cred cred;		/* the start of every namespace request */
	struct aifs_ino_req ino_req;
	struct aifs_name_req name_req;
	struct aifs_setattr_req setattr_req;
	struct aifs_create_req create_req;
	struct aifs_rename_req rename_req;
	struct aifs_link_req link_req;
	struct aifs_symlink_req symlink_req;
	struct aifs_readdir_req readdir_req;
	struct aifs_getxattr_req getxattr_req;
	struct aifs_setxattr_req setxattr_req;
	struct aifs_listxattr_req listxattr_req;
	struct aifs_open_req open_req;
	struct aifs_close_req close_req;
	struct aifs_layout_set_req layout_set_req;
	struct aifs_attr_rep attr_rep;
	struct aifs_entry_rep entry_rep;
	struct aifs_open_rep open_rep;
	struct aifs_create_rep create_rep;
	struct aifs_rename_rep rename_rep;
	struct aifs_readlink_rep readlink_rep;
	struct aifs_statfs_rep statfs_rep;
	struct aifs_xattr_rep xattr_rep;
	struct aifs_layout_rep layout_rep;
	struct aifs_map_get_req map_get_req;
	struct aifs_map_rep map_rep;
	struct aifs_ds_register_req ds_register_req;
	struct aifs_ds_register_rep ds_register_rep;
	struct aifs_ds_heartbeat_req ds_heartbeat_req;
	struct aifs_ds_heartbeat_rep ds_heartbeat_rep;
	struct aifs_chunk_read_req chunk_read_req;
	struct aifs_chunk_read_rep chunk_read_rep;
	struct aifs_chunk_write_req chunk_write_req;
	struct aifs_chunk_rep chunk_rep;
	struct aifs_chunk_truncate_req chunk_truncate_req;
	struct aifs_chunk_delete_req chunk_delete_req;
	struct aifs_chunk_checksum_req chunk_checksum_req;
	struct aifs_chunk_checksum_rep chunk_checksum_rep;
	struct aifs_ds_scrub_req ds_scrub_req;
	struct aifs_ds_scrub_rep ds_scrub_rep;
	struct aifs_chunk_list_req chunk_list_req;
	struct aifs_chunk_list_rep chunk_list_rep;
	struct aifs_chunk_sync_req chunk_sync_req;
	struct aifs_chunk_sync_rep chunk_sync_rep;
	struct aifs_ds_inodes_req ds_inodes_req;
	struct aifs_ds_inodes_rep ds_inodes_rep;
	struct aifs_mds_fsck_req mds_fsck_req;
	struct aifs_mds_fsck_rep mds_fsck_rep;
	struct aifs_recovery_rep recovery_rep;
	struct aifs_ds_repairs_req ds_repairs_req;
	struct aifs_repairs_rep repairs_rep;
	struct aifs_ec_write_req ec_write_req;
	struct aifs_ec_read_req ec_read_req;
	struct aifs_ec_archive_req ec_archive_req;
	struct aifs_ec_verify_req ec_verify_req;
	struct aifs_frag_behind_req frag_behind_req;
	struct aifs_frag_write_req frag_write_req;
	struct aifs_frag_rollback_req frag_rollback_req;
	struct aifs_ec_verify_rep ec_verify_rep;
};

/* Long enough for the largest part of any message. */
static u8 aifs_sample_bytes[AIFS_MAX_IO];

static const u8 aifs_sample_uuid[16] = {
	0xa1, 0xf5, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05,
	0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d,
};

/* @n repair entries of server @id at @at. */
static struct aifs_span aifs_sample_repairs(u8 *at, u32 id, u32 n)
{
	struct aifs_repair_entry e = { .server = cpu_to_le32(id) };
	u32 i;

	for (i = 0; i < n; i++) {
		e.ino = cpu_to_le64(4096 + i);
		e.index = cpu_to_le32(i);
		e.flags = cpu_to_le16(i & 1 ? AIFS_REPAIR_NO_SOURCE : 0);
		memcpy(at + i * sizeof(e), &e, sizeof(e));
	}
	return (struct aifs_span){ at, n * sizeof(e) };
}

/* @len bytes of @c. */
static struct aifs_span aifs_sample_fill(u8 *at, int c, u32 len)
{
	memset(at, c, len);
	return (struct aifs_span){ at, len };
}

void aifs_sample_attr(struct aifs_attr *a, u64 ino, u32 mode)
{
	memset(a, 0, sizeof(*a));
	a->ino = cpu_to_le64(ino);
	a->generation = cpu_to_le64(1);
	a->size = cpu_to_le64(12345);
	a->blocks = cpu_to_le64(32);
	a->change = cpu_to_le64(7);
	a->mtime.sec = cpu_to_le64(1700000000);
	a->mtime.nsec = cpu_to_le32(999999999);
	a->ctime = a->mtime;
	a->atime = a->mtime;
	a->btime = a->mtime;
	a->mode = cpu_to_le32(mode);
	a->nlink = cpu_to_le32(1);
	a->uid = cpu_to_le32(1000);
	a->gid = cpu_to_le32(1000);
	a->blksize = cpu_to_le32(AIFS_CHUNK_SIZE_DEFAULT);
}

void aifs_sample_layout(struct aifs_layout *l)
{
	int i;

	memset(l, 0, sizeof(*l));
	l->chunk_size = cpu_to_le32(AIFS_CHUNK_SIZE_DEFAULT);
	l->generation = cpu_to_le32(1);
	l->type = AIFS_LAYOUT_REPLICA;
	l->replicas = 3;
	l->stripe_count = cpu_to_le16(2);
	l->target_count = cpu_to_le16(6);
	for (i = 0; i < 6; i++)
		l->targets[i] = cpu_to_le32(10 + i);
}

/* A 4+2 stripe of 4 MiB fragments on servers 20..25. */
static void aifs_sample_ec_group(struct aifs_ec_group *g)
{
	int i;

	g->chunk_size = cpu_to_le32(AIFS_CHUNK_SIZE_DEFAULT);
	g->k = 4;
	g->m = 2;
	for (i = 0; i < 6; i++)
		g->members[i] = cpu_to_le32(20 + i);
}

static void aifs_sample_cred(struct aifs_cred *c)
{
	c->uid = cpu_to_le32(1000);
	c->gid = cpu_to_le32(1000);
	c->ngroups = cpu_to_le32(2);
	c->groups[0] = cpu_to_le32(27);
	c->groups[1] = cpu_to_le32(100);
}

static void aifs_sample_chunk_id(struct aifs_chunk_id *id)
{
	memcpy(id->fs_uuid, aifs_sample_uuid, sizeof(id->fs_uuid));
	id->ino = cpu_to_le64(42);
	id->index = cpu_to_le32(3);
}

static void aifs_sample_addr(struct aifs_addr *a)
{
	static const u8 v4[4] = { 192, 168, 0, 7 };

	a->family = cpu_to_le16(AIFS_AF_INET);
	a->port = cpu_to_le16(AIFS_DS_PORT);
	memcpy(a->addr, v4, sizeof(v4));
}

/* A sequence of NUL-terminated xattr names filling @len bytes. */
static struct aifs_span aifs_sample_xlist(u8 *at, u32 len)
{
	u32 off = 0, n;

	while (off < len) {
		n = len - off - 1 > AIFS_XATTR_NAME_MAX ?
			AIFS_XATTR_NAME_MAX : len - off - 1;
		if (len - off - 1 - n == 1)
			n--;	/* leave no 1-byte tail: names are not empty */
		memset(at + off, 'x', n);
		at[off + n] = '\0';
		off += n + 1;
	}
	return (struct aifs_span){ at, len };
}

static int aifs_sample_readdir(void *buf, bool max)
{
	struct aifs_dirent_buf b;
	struct aifs_attr attr;
	char name[AIFS_NAME_MAX];
	u32 i, n = max ? 64 : 3;
	u32 len = max ? AIFS_NAME_MAX : 5;
	int err;

	aifs_dirents_init(&b, buf, AIFS_SAMPLE_BUF_SIZE);
	memset(name, 'd', sizeof(name));
	for (i = 0; i < n; i++) {
		aifs_sample_attr(&attr, 100 + i, i % 2 ? 0100644 : 040755);
		name[0] = 'a' + i % 26;
		err = aifs_dirents_add(&b, i + 1, &attr, name, len);
		if (err)
			return err;
	}
	return aifs_dirents_finish(&b, AIFS_READDIR_EOF);
}

static struct aifs_span aifs_sample_ds_list(bool max)
{
	static struct aifs_ds_info ds[AIFS_MAP_MAX_DS];
	u32 i, n = max ? AIFS_MAP_MAX_DS : 2;

	memset(ds, 0, sizeof(ds));
	for (i = 0; i < n; i++) {
		ds[i].id = cpu_to_le32(i + 1);
		ds[i].state = cpu_to_le32(AIFS_DS_UP + i % 4);
		ds[i].capacity = cpu_to_le64(1ULL << 40);
		ds[i].free = cpu_to_le64(1ULL << 39);
		ds[i].epoch = cpu_to_le64(5);
		aifs_sample_addr(&ds[i].addr);
		ds[i].flags = cpu_to_le32(AIFS_DS_RDMA);
		memcpy(ds[i].uuid, aifs_sample_uuid, sizeof(ds[i].uuid));
	}
	return (struct aifs_span){ ds, n * sizeof(ds[0]) };
}

/* The fixed part and parts of a namespace request. */
static void aifs_sample_ns_req(u16 op, bool max, union aifs_sample_fixed *f,
			       struct aifs_span *p)
{
	u32 name_len = max ? AIFS_NAME_MAX : 4;
	u8 *bytes = aifs_sample_bytes;

	aifs_sample_cred(&f->cred);
	f->ino_req.ino = cpu_to_le64(2);
	p[0] = aifs_sample_fill(bytes, 'n', name_len);
	switch (op) {
	case AIFS_OP_SETATTR:
		f->setattr_req.valid = cpu_to_le32(AIFS_SETATTR_SIZE |
			AIFS_SETATTR_MTIME | AIFS_SETATTR_ATIME_NOW);
		f->setattr_req.size = cpu_to_le64(4096);
		f->setattr_req.mtime.nsec = cpu_to_le32(5);
		break;
	case AIFS_OP_CREATE:
	case AIFS_OP_MKDIR:
	case AIFS_OP_MKNOD:
		f->create_req.mode = cpu_to_le32(op == AIFS_OP_MKDIR ? 040755 :
			op == AIFS_OP_MKNOD ? 020644 : 0100644);
		f->create_req.umask = cpu_to_le32(022);
		f->create_req.rdev_major = cpu_to_le32(op == AIFS_OP_MKNOD);
		f->create_req.rdev_minor = cpu_to_le32(op == AIFS_OP_MKNOD);
		if (op == AIFS_OP_CREATE)
			f->create_req.open_flags = cpu_to_le32(AIFS_OPEN_RDWR |
							       AIFS_OPEN_EXCL);
		break;
	case AIFS_OP_RENAME:
		f->rename_req.new_parent = cpu_to_le64(3);
		f->rename_req.flags = cpu_to_le32(AIFS_RENAME_NOREPLACE);
		p[1] = aifs_sample_fill(bytes + name_len, 'm', name_len);
		break;
	case AIFS_OP_LINK:
		f->link_req.new_parent = cpu_to_le64(3);
		break;
	case AIFS_OP_SYMLINK:
		p[1] = aifs_sample_fill(bytes + name_len, 't',
					max ? AIFS_SYMLINK_MAX : 9);
		break;
	case AIFS_OP_READDIR:
		f->readdir_req.cookie = cpu_to_le64(77);
		f->readdir_req.max_entries = cpu_to_le32(128);
		f->readdir_req.max_bytes = cpu_to_le32(65536);
		break;
	case AIFS_OP_GETXATTR:
		f->getxattr_req.size = cpu_to_le32(AIFS_XATTR_SIZE_MAX);
		break;
	case AIFS_OP_SETXATTR:
		f->setxattr_req.flags = cpu_to_le32(AIFS_XATTR_CREATE);
		p[1] = aifs_sample_fill(bytes + name_len, 'v',
					max ? AIFS_XATTR_SIZE_MAX : 3);
		break;
	case AIFS_OP_LISTXATTR:
		f->listxattr_req.size = cpu_to_le32(4096);
		break;
	case AIFS_OP_OPEN:
		f->open_req.flags = cpu_to_le32(AIFS_OPEN_WRONLY |
						AIFS_OPEN_TRUNC);
		break;
	case AIFS_OP_CLOSE:
		f->close_req.handle = cpu_to_le64(9);
		f->close_req.flags = cpu_to_le32(AIFS_CLOSE_SIZE);
		f->close_req.size = cpu_to_le64(1 << 20);
		f->close_req.mtime.sec = cpu_to_le64(1700000000);
		break;
	case AIFS_OP_LAYOUT_SET:
		aifs_sample_layout(&f->layout_set_req.layout);
		break;
	}
}

/* The fixed part and parts of a namespace reply. */
static void aifs_sample_ns_rep(u16 op, bool max, union aifs_sample_fixed *f,
			       struct aifs_span *p)
{
	u8 *bytes = aifs_sample_bytes;

	switch (op) {
	case AIFS_OP_GETATTR:
	case AIFS_OP_SETATTR:
	case AIFS_OP_SETXATTR:
	case AIFS_OP_REMOVEXATTR:
	case AIFS_OP_CLOSE:
		aifs_sample_attr(&f->attr_rep.attr, 5, 0100600);
		break;
	case AIFS_OP_CREATE:
		aifs_sample_attr(&f->create_rep.dir, 2, 040755);
		aifs_sample_attr(&f->create_rep.open.attr, 5, 0100644);
		aifs_sample_layout(&f->create_rep.open.layout);
		f->create_rep.open.handle = cpu_to_le64(9);
		break;
	case AIFS_OP_OPEN:
		aifs_sample_attr(&f->open_rep.attr, 5, 0100644);
		aifs_sample_layout(&f->open_rep.layout);
		f->open_rep.handle = cpu_to_le64(9);
		break;
	case AIFS_OP_RENAME:
		aifs_sample_attr(&f->rename_rep.old_dir, 2, 040755);
		aifs_sample_attr(&f->rename_rep.new_dir, 3, 040755);
		aifs_sample_attr(&f->rename_rep.attr, 5, 0100644);
		if (max)
			aifs_sample_attr(&f->rename_rep.target, 6, 0100644);
		break;
	case AIFS_OP_READLINK:
		p[0] = aifs_sample_fill(bytes, 'l', max ? AIFS_SYMLINK_MAX : 6);
		break;
	case AIFS_OP_STATFS:
		f->statfs_rep.total_bytes = cpu_to_le64(1ULL << 44);
		f->statfs_rep.bsize = cpu_to_le32(4096);
		f->statfs_rep.namelen = cpu_to_le32(AIFS_NAME_MAX);
		break;
	case AIFS_OP_GETXATTR:
		p[0] = aifs_sample_fill(bytes, 'v', max ? AIFS_XATTR_SIZE_MAX : 3);
		f->xattr_rep.size = cpu_to_le32(p[0].len);
		break;
	case AIFS_OP_LISTXATTR:
		p[0] = aifs_sample_xlist(bytes, max ? AIFS_XATTR_SIZE_MAX : 20);
		f->xattr_rep.size = cpu_to_le32(p[0].len);
		break;
	case AIFS_OP_LAYOUT_GET:
	case AIFS_OP_LAYOUT_SET:
		aifs_sample_layout(&f->layout_rep.layout);
		break;
	default:		/* LOOKUP, MKDIR, MKNOD, UNLINK, RMDIR, ... */
		aifs_sample_attr(&f->entry_rep.dir, 2, 040755);
		aifs_sample_attr(&f->entry_rep.attr, 5, 0120777);
		break;
	}
}

/* Connection, cluster and data messages. */
static void aifs_sample_other(u16 op, bool reply, bool max,
			      union aifs_sample_fixed *f, struct aifs_span *p)
{
	u8 *bytes = aifs_sample_bytes;
	u32 data_len = max ? AIFS_MAX_IO : 100;

	switch (op * 2 + reply) {
	case AIFS_OP_HELLO * 2:
		f->hello_req.min_version = cpu_to_le16(AIFS_PROTO_MIN_VERSION);
		f->hello_req.max_version = cpu_to_le16(AIFS_PROTO_VERSION);
		f->hello_req.role = cpu_to_le16(AIFS_ROLE_CLIENT);
		memset(f->hello_req.nonce, 0x5a, AIFS_NONCE_SIZE);
		break;
	case AIFS_OP_HELLO * 2 + 1:
		f->hello_rep.version = cpu_to_le16(AIFS_PROTO_VERSION);
		memcpy(f->hello_rep.fs_uuid, aifs_sample_uuid, 16);
		break;
	case AIFS_OP_AUTH * 2 + 1:
		f->auth_rep.session_id = cpu_to_le64(3);
		break;
	case AIFS_OP_MAP_GET * 2:
		f->map_get_req.epoch = cpu_to_le64(4);
		break;
	case AIFS_OP_MAP_GET * 2 + 1:
		f->map_rep.epoch = cpu_to_le64(5);
		p[0] = aifs_sample_ds_list(max);
		f->map_rep.count = cpu_to_le32(p[0].len / AIFS_DS_INFO_SIZE);
		break;
	case AIFS_OP_DS_REGISTER * 2:
		memcpy(f->ds_register_req.uuid, aifs_sample_uuid, 16);
		f->ds_register_req.flags = cpu_to_le32(AIFS_DS_RDMA);
		f->ds_register_req.capacity = cpu_to_le64(1ULL << 40);
		aifs_sample_addr(&f->ds_register_req.addr);
		break;
	case AIFS_OP_DS_REGISTER * 2 + 1:
		f->ds_register_rep.id = cpu_to_le32(12);
		f->ds_register_rep.heartbeat_ms = cpu_to_le32(1000);
		f->ds_register_rep.grace_ms = cpu_to_le32(10000);
		break;
	case AIFS_OP_DS_HEARTBEAT * 2:
		f->ds_heartbeat_req.id = cpu_to_le32(12);
		f->ds_heartbeat_req.flags = cpu_to_le32(AIFS_DS_DRAIN);
		f->ds_heartbeat_req.chunks = cpu_to_le64(1000);
		break;
	case AIFS_OP_DS_HEARTBEAT * 2 + 1:
		f->ds_heartbeat_rep.state = cpu_to_le32(AIFS_DS_DRAINING);
		break;
	case AIFS_OP_CHUNK_READ * 2:
	case AIFS_OP_FRAG_READ * 2:
		aifs_sample_chunk_id(&f->chunk_read_req.id);
		if (op == AIFS_OP_FRAG_READ)
			f->chunk_read_req.id.fragment =
				cpu_to_le16(AIFS_EC_FRAGMENT(1));
		f->chunk_read_req.offset = cpu_to_le32(4096);
		f->chunk_read_req.length = cpu_to_le32(data_len);
		break;
	case AIFS_OP_CHUNK_READ * 2 + 1:
	case AIFS_OP_FRAG_READ * 2 + 1:
	case AIFS_OP_EC_READ * 2 + 1:
		f->chunk_read_rep.version = cpu_to_le64(8);
		f->chunk_read_rep.chunk_len = cpu_to_le32(AIFS_CHUNK_SIZE_DEFAULT);
		p[0] = aifs_sample_fill(bytes, 'D', data_len);
		break;
	case AIFS_OP_CHUNK_WRITE * 2:
	case AIFS_OP_CHUNK_FORWARD * 2:
		aifs_sample_chunk_id(&f->chunk_write_req.id);
		f->chunk_write_req.version = cpu_to_le64(op ==
						AIFS_OP_CHUNK_FORWARD ? 9 : 0);
		f->chunk_write_req.flags = cpu_to_le32(AIFS_IO_SYNC);
		f->chunk_write_req.chunk_size =
			cpu_to_le32(AIFS_CHUNK_SIZE_DEFAULT);
		if (op == AIFS_OP_CHUNK_WRITE) {
			f->chunk_write_req.nr_replicas = cpu_to_le16(2);
			f->chunk_write_req.replicas[0] = cpu_to_le32(11);
			f->chunk_write_req.replicas[1] = cpu_to_le32(12);
		}
		p[0] = aifs_sample_fill(bytes, 'W', data_len);
		break;
	case AIFS_OP_CHUNK_WRITE * 2 + 1:
	case AIFS_OP_CHUNK_FORWARD * 2 + 1:
	case AIFS_OP_FRAG_WRITE * 2 + 1:
	case AIFS_OP_FRAG_ROLLBACK * 2 + 1:
	case AIFS_OP_EC_WRITE * 2 + 1:
	case AIFS_OP_CHUNK_TRUNCATE * 2 + 1:
		f->chunk_rep.version = cpu_to_le64(9);
		f->chunk_rep.length = cpu_to_le32(data_len);
		break;
	case AIFS_OP_CHUNK_TRUNCATE * 2:
		aifs_sample_chunk_id(&f->chunk_truncate_req.id);
		f->chunk_truncate_req.length = cpu_to_le32(1000);
		f->chunk_truncate_req.fence = cpu_to_le32(7);
		break;
	case AIFS_OP_CHUNK_DELETE * 2:
		aifs_sample_chunk_id(&f->chunk_delete_req.id);
		f->chunk_delete_req.flags = cpu_to_le32(AIFS_DELETE_FROM);
		f->chunk_delete_req.fence = cpu_to_le32(7);
		break;
	case AIFS_OP_FRAG_WRITE * 2:
		aifs_sample_chunk_id(&f->frag_write_req.id);
		f->frag_write_req.id.fragment = cpu_to_le16(AIFS_EC_FRAGMENT(4));
		f->frag_write_req.stamp = cpu_to_le64(0x300abcdeULL);
		f->frag_write_req.prev = cpu_to_le64(0x200fedcbULL);
		f->frag_write_req.flags = cpu_to_le32(AIFS_IO_SYNC);
		f->frag_write_req.chunk_size =
			cpu_to_le32(AIFS_CHUNK_SIZE_DEFAULT);
		p[0] = aifs_sample_fill(bytes, 'F', data_len);
		break;
	case AIFS_OP_FRAG_ROLLBACK * 2:
		aifs_sample_chunk_id(&f->frag_rollback_req.id);
		f->frag_rollback_req.id.fragment =
			cpu_to_le16(AIFS_EC_FRAGMENT(5));
		f->frag_rollback_req.stamp = cpu_to_le64(0x300abcdeULL);
		f->frag_rollback_req.chunk_size =
			cpu_to_le32(AIFS_CHUNK_SIZE_DEFAULT);
		break;
	case AIFS_OP_FRAG_BEHIND * 2:
		aifs_sample_chunk_id(&f->frag_behind_req.id);
		f->frag_behind_req.id.fragment = cpu_to_le16(AIFS_EC_FRAGMENT(2));
		f->frag_behind_req.chunk_size =
			cpu_to_le32(AIFS_CHUNK_SIZE_DEFAULT);
		break;
	case AIFS_OP_CHUNK_CHECKSUM * 2:
		aifs_sample_chunk_id(&f->chunk_checksum_req.id);
		f->chunk_checksum_req.nr_blocks = cpu_to_le32(64);
		break;
	case AIFS_OP_CHUNK_CHECKSUM * 2 + 1:
		f->chunk_checksum_rep.version = cpu_to_le64(9);
		f->chunk_checksum_rep.block_size = cpu_to_le32(AIFS_BLOCK_SIZE);
		f->chunk_checksum_rep.chunk_len =
			cpu_to_le32(AIFS_CHUNK_SIZE_DEFAULT);
		p[0] = aifs_sample_fill(bytes, 0xc5, (max ? AIFS_MAX_BLOCKS :
						      4) * sizeof(__le32));
		break;
	case AIFS_OP_DS_STATFS * 2 + 1:
		f->statfs_rep.total_bytes = cpu_to_le64(1ULL << 40);
		f->statfs_rep.bsize = cpu_to_le32(AIFS_BLOCK_SIZE);
		break;
	case AIFS_OP_CHUNK_LIST * 2:
		aifs_sample_chunk_id(&f->chunk_list_req.id);
		f->chunk_list_req.max = cpu_to_le32(AIFS_CHUNK_LIST_MAX);
		break;
	case AIFS_OP_CHUNK_LIST * 2 + 1:
		f->chunk_list_rep.fence = cpu_to_le32(3);
		f->chunk_list_rep.flags = cpu_to_le32(AIFS_CHUNK_LIST_MORE);
		p[0] = aifs_sample_fill(bytes, 0x5a, (max ? AIFS_CHUNK_LIST_MAX :
						      2) * AIFS_CHUNK_ENTRY_SIZE);
		break;
	case AIFS_OP_CHUNK_SYNC * 2:
		aifs_sample_chunk_id(&f->chunk_sync_req.id);
		f->chunk_sync_req.max = cpu_to_le32(16);
		aifs_sample_layout(&f->chunk_sync_req.layout);
		break;
	case AIFS_OP_CHUNK_SYNC * 2 + 1:
		f->chunk_sync_rep.next = cpu_to_le32(AIFS_CHUNK_SYNC_DONE);
		f->chunk_sync_rep.copied = cpu_to_le32(2);
		break;
	case AIFS_OP_DS_SCRUB * 2:
		f->ds_scrub_req.flags = cpu_to_le32(AIFS_SCRUB_START);
		break;
	case AIFS_OP_DS_SCRUB * 2 + 1:
		f->ds_scrub_rep.running = cpu_to_le32(1);
		f->ds_scrub_rep.rate_mib = cpu_to_le32(32);
		f->ds_scrub_rep.pass_total = cpu_to_le64(1000);
		f->ds_scrub_rep.bytes = cpu_to_le64(1ULL << 30);
		break;
	case AIFS_OP_EC_WRITE * 2:
		aifs_sample_chunk_id(&f->ec_write_req.id);
		f->ec_write_req.id.fragment = 0;
		f->ec_write_req.offset = cpu_to_le32(AIFS_CHUNK_SIZE_DEFAULT);
		f->ec_write_req.flags = cpu_to_le32(AIFS_IO_SYNC);
		f->ec_write_req.layout_gen = cpu_to_le32(2);
		aifs_sample_ec_group(&f->ec_write_req.group);
		f->ec_write_req.group.ahead = cpu_to_le16(1);
		p[0] = aifs_sample_fill(bytes, 'E', data_len);
		break;
	case AIFS_OP_EC_ARCHIVE * 2:
		aifs_sample_chunk_id(&f->ec_archive_req.id);
		f->ec_archive_req.id.fragment = 0;
		f->ec_archive_req.size = cpu_to_le64(5ULL << 20);
		f->ec_archive_req.layout_gen = cpu_to_le32(2);
		aifs_sample_ec_group(&f->ec_archive_req.group);
		aifs_sample_layout(&f->ec_archive_req.source);
		break;
	case AIFS_OP_EC_ARCHIVE * 2 + 1:
		f->chunk_rep.version = cpu_to_le64(3);
		f->chunk_rep.length = cpu_to_le32(16U << 20);
		break;
	case AIFS_OP_EC_VERIFY * 2:
		aifs_sample_chunk_id(&f->ec_verify_req.id);
		f->ec_verify_req.id.fragment = 0;
		f->ec_verify_req.flags = cpu_to_le32(AIFS_EC_VERIFY_REPAIR);
		aifs_sample_ec_group(&f->ec_verify_req.group);
		break;
	case AIFS_OP_EC_VERIFY * 2 + 1:
		f->ec_verify_rep.checked = cpu_to_le64(4 << 20);
		f->ec_verify_rep.mismatched = cpu_to_le64(4096);
		f->ec_verify_rep.repaired = cpu_to_le64(4096);
		break;
	case AIFS_OP_EC_READ * 2:
		aifs_sample_chunk_id(&f->ec_read_req.id);
		f->ec_read_req.id.fragment = cpu_to_le16(3);
		f->ec_read_req.offset = cpu_to_le32(max ? 0 : 4096);
		f->ec_read_req.length = cpu_to_le32(data_len);
		aifs_sample_ec_group(&f->ec_read_req.group);
		break;
	case AIFS_OP_DS_INODES * 2:
		memcpy(f->ds_inodes_req.fs_uuid, aifs_sample_uuid, 16);
		f->ds_inodes_req.after = cpu_to_le64(77);
		f->ds_inodes_req.dir = cpu_to_le32(300);
		f->ds_inodes_req.max = cpu_to_le32(AIFS_DS_INODES_MAX);
		break;
	case AIFS_OP_DS_INODES * 2 + 1:
		f->ds_inodes_rep.after = cpu_to_le64(99);
		f->ds_inodes_rep.dir = cpu_to_le32(301);
		p[0] = aifs_sample_fill(bytes, 0x3c, (max ? AIFS_DS_INODES_MAX :
						      3) * sizeof(__le64));
		break;
	case AIFS_OP_MDS_FSCK * 2:
		f->mds_fsck_req.flags = cpu_to_le32(AIFS_FSCK_START |
						    AIFS_FSCK_REPAIR);
		break;
	case AIFS_OP_MDS_FSCK * 2 + 1:
		f->mds_fsck_rep.running = cpu_to_le32(1);
		f->mds_fsck_rep.inodes = cpu_to_le64(1000);
		f->mds_fsck_rep.found[AIFS_FSCK_LINKS] = cpu_to_le64(2);
		p[0] = aifs_sample_fill(bytes, 'x', max ? AIFS_FSCK_TEXT_MAX :
					40);
		break;
	case AIFS_OP_RECOVERY_GET * 2 + 1:
		f->recovery_rep.next_ino = cpu_to_le64(5000);
		p[0] = aifs_sample_fill(bytes, 0x21, (max ? AIFS_MAP_MAX_DS : 2) *
					AIFS_RECOVERY_ENTRY_SIZE);
		break;
	case AIFS_OP_DS_REPAIRS * 2:
		f->ds_repairs_req.id = cpu_to_le32(7);
		f->ds_repairs_req.marked = cpu_to_le64(40);
		f->ds_repairs_req.no_source = cpu_to_le64(3);
		p[0] = aifs_sample_repairs(bytes, 7, max ?
					   AIFS_REPAIR_LIST_MAX : 3);
		break;
	case AIFS_OP_REPAIRS_GET * 2 + 1:
		p[0] = aifs_sample_fill(bytes, 0x2c, (max ? AIFS_MAP_MAX_DS : 1) *
					AIFS_REPAIR_SERVER_SIZE);
		p[1] = aifs_sample_repairs(bytes + p[0].len, 9, max ?
					   AIFS_MAP_MAX_DS *
					   AIFS_REPAIR_LIST_MAX : 2);
		break;
	}
}

int aifs_sample(u16 op, bool reply, int variant, void *buf)
{
	static union aifs_sample_fixed f;
	struct aifs_span parts[AIFS_MSG_MAX_PARTS] = { { NULL, 0 } };
	bool max = variant == AIFS_SAMPLE_MAX;
	int size = aifs_msg_fixed_size(op, reply);

	if (size < 0)
		return size;
	if (op == AIFS_OP_READDIR && reply)
		return aifs_sample_readdir(buf, max);
	memset(&f, 0, sizeof(f));
	if (op >= AIFS_OP_LOOKUP && op < AIFS_OP_MAP_GET && !reply)
		aifs_sample_ns_req(op, max, &f, parts);
	else if (op >= AIFS_OP_LOOKUP && op < AIFS_OP_MAP_GET)
		aifs_sample_ns_rep(op, max, &f, parts);
	else
		aifs_sample_other(op, reply, max, &f, parts);
	return aifs_msg_encode(op, reply, buf, AIFS_SAMPLE_BUF_SIZE, &f, size,
			       parts);
}
