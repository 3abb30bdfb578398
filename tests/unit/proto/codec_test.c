// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The message codec: round trips of every message, and every way a
 * payload can be rejected.
 */
#include <stdlib.h>
#include "samples.h"
#include "test.h"

#define NR_KNOWN_OPS	51

static u8 *buf, *buf2;
static union {
	u8 bytes[1024];
	u64 align;
} fixed_mem;
static struct aifs_span parts[AIFS_MSG_MAX_PARTS];

static const char *dir_name(bool reply)
{
	return reply ? "rep" : "req";
}

/* Messages whose last part is file data. */
static bool has_data(u16 op, bool reply)
{
	return reply ? op == AIFS_OP_CHUNK_READ :
		op == AIFS_OP_CHUNK_WRITE || op == AIFS_OP_CHUNK_FORWARD;
}

static int decode(u16 op, bool reply, const void *p, u32 len)
{
	return aifs_msg_decode(op, reply, p, len, &fixed_mem,
			       aifs_msg_fixed_size(op, reply), parts);
}

static int encode(u16 op, bool reply, void *out, u32 size)
{
	return aifs_msg_encode(op, reply, out, size, &fixed_mem,
			       aifs_msg_fixed_size(op, reply), parts);
}

static void test_opcodes(void)
{
	u32 op, known = 0;

	for (op = 0; op <= 0xffff; op++) {
		TEST_CTX("opcode %u", op);
		if (aifs_msg_fixed_size(op, false) >= 0) {
			known++;
			CHECK(aifs_msg_fixed_size(op, true) >= 0);
			CHECK(strcmp(aifs_opcode_name(op), "UNKNOWN"));
			continue;
		}
		CHECK_EQ(aifs_msg_fixed_size(op, true), -EOPNOTSUPP);
		CHECK(!strcmp(aifs_opcode_name(op), "UNKNOWN"));
		CHECK_EQ(aifs_msg_decode(op, false, buf, 0, NULL, 0, NULL),
			 -EOPNOTSUPP);
		CHECK_EQ(aifs_msg_decode(op, true, buf, 8, &fixed_mem, 8, parts),
			 -EOPNOTSUPP);
		CHECK_EQ(aifs_msg_encode(op, true, buf, 64, &fixed_mem, 0, NULL),
			 -EOPNOTSUPP);
	}
	TEST_CTX("opcodes");
	CHECK_EQ(known, NR_KNOWN_OPS);
	CHECK(!strcmp(aifs_opcode_name(AIFS_OP_LOOKUP), "LOOKUP"));
	CHECK(!strcmp(aifs_opcode_name(AIFS_OP_CHUNK_FORWARD), "CHUNK_FORWARD"));
}

/* Overwrite 2 or 4 bytes of the fixed part and decode: never a crash, and
 * what decodes re-encodes to the same bytes.
 */
static void mutate_fixed(u16 op, bool reply, u32 len)
{
	static const u32 values[] = {
		0, 1, 255, 256, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff,
	};
	u32 fsize = aifs_msg_fixed_size(op, reply), off, v, w;
	u8 saved[4];

	for (off = 0; off + 2 <= fsize; off += 2) {
		for (w = 2; w <= 4 && off + w <= fsize; w += 2) {
			memcpy(saved, buf + off, w);
			/* Each value, then len and len + 1. */
			for (v = 0; v < ARRAY_SIZE(values) + 2; v++) {
				u32 x = v < ARRAY_SIZE(values) ? values[v] :
					len + v - ARRAY_SIZE(values);
				__le32 le = cpu_to_le32(x);

				memcpy(buf + off, &le, w);
				if (decode(op, reply, buf, len))
					continue;
				CHECK_EQ(encode(op, reply, buf2, len), len);
				CHECK(!memcmp(buf, buf2, len));
			}
			memcpy(buf + off, saved, w);
		}
	}
}

static void round_trip(u16 op, bool reply, int variant)
{
	int fsize = aifs_msg_fixed_size(op, reply);
	int len = aifs_sample(op, reply, variant, buf);
	u32 l, step;

	TEST_CTX("%s %s variant %d", aifs_opcode_name(op), dir_name(reply),
		 variant);
	CHECK(len >= fsize);
	if (len < fsize)
		return;
	CHECK_EQ(decode(op, reply, buf, len), 0);
	CHECK_EQ(encode(op, reply, buf2, len), len);
	CHECK(!memcmp(buf, buf2, len));

	/* Too little room, a trailing byte, and every truncation. */
	if (len)
		CHECK_EQ(encode(op, reply, buf2, len - 1), -ENOSPC);
	buf[len] = 0;
	CHECK_EQ(decode(op, reply, buf, len + 1), -EBADMSG);
	step = len > (1 << 20) ? 61 : 1;
	for (l = 0; l < (u32)len; l += step)
		CHECK_EQ(decode(op, reply, buf, l), -EBADMSG);

	/* The head alone, when the data part is still to be received. */
	if (has_data(op, reply)) {
		CHECK_EQ(aifs_msg_decode_head(op, reply, buf, fsize, len,
					      &fixed_mem, fsize, parts), 0);
		CHECK(!parts[0].data);
		CHECK_EQ(parts[0].len, len - fsize);
		CHECK_EQ(aifs_msg_decode_head(op, reply, buf, fsize + 1, len,
					      &fixed_mem, fsize, parts),
			 -EBADMSG);
		memset(buf2, 0, fsize);
		parts[0].data = NULL;
		CHECK_EQ(encode(op, reply, buf2, fsize), len);
		CHECK(!memcmp(buf, buf2, fsize));
	} else if (len) {
		CHECK_EQ(aifs_msg_decode_head(op, reply, buf, len - 1, len,
					      &fixed_mem, fsize, parts),
			 -EBADMSG);
	}
	if (len)
		CHECK_EQ(aifs_msg_decode_head(op, reply, buf, len, len - 1,
					      &fixed_mem, fsize, parts),
			 -EINVAL);
	if (variant == AIFS_SAMPLE_SMALL)
		mutate_fixed(op, reply, len);
}

static void test_round_trips(void)
{
	u32 op;
	int v;

	for (op = 0; op <= 0xffff; op++) {
		if (aifs_msg_fixed_size(op, false) < 0)
			continue;
		for (v = AIFS_SAMPLE_SMALL; v <= AIFS_SAMPLE_MAX; v++) {
			round_trip(op, false, v);
			round_trip(op, true, v);
		}
	}
}

/* Decode a sample into fixed_mem/parts, to be broken by the caller. */
static int sample_decoded(u16 op, bool reply)
{
	int len = aifs_sample(op, reply, AIFS_SAMPLE_SMALL, buf);

	TEST_CTX("%s %s", aifs_opcode_name(op), dir_name(reply));
	CHECK_EQ(decode(op, reply, buf, len), 0);
	return len;
}

/* The broken message is refused by the encoder, and by the decoder. */
static void expect_both(u16 op, bool reply, int len, int err, int line)
{
	int fsize = aifs_msg_fixed_size(op, reply);

	TEST_CTX("%s %s, line %d", aifs_opcode_name(op), dir_name(reply),
		 line);
	CHECK_EQ(encode(op, reply, buf2, AIFS_SAMPLE_BUF_SIZE), err);
	memcpy(buf, &fixed_mem, fsize);
	CHECK_EQ(decode(op, reply, buf, len), err);
}

/* Break a sample (@stmt may change fixed_mem and the bytes in buf). */
#define EXPECT_BYTES(op, reply, stmt, err)				\
do {									\
	int _len = sample_decoded(op, reply);				\
									\
	stmt;								\
	expect_both(op, reply, _len, err, __LINE__);			\
} while (0)

/* Break the fixed part of a sample, seen as @type *m. */
#define EXPECT_FIXED(op, reply, type, stmt, err)			\
	EXPECT_BYTES(op, reply, { type *m = (type *)&fixed_mem; stmt; }, err)

/* EC_WRITE and EC_READ: the stripe's group and what falls in it. */
static void test_ec_checks(void)
{
	EXPECT_FIXED(AIFS_OP_EC_READ, false, struct aifs_ec_read_req,
		     m->group.k = 0, -EINVAL);
	EXPECT_FIXED(AIFS_OP_EC_READ, false, struct aifs_ec_read_req,
		     m->group.m = AIFS_EC_MAX_M + 1, -EINVAL);
	EXPECT_FIXED(AIFS_OP_EC_READ, false, struct aifs_ec_read_req,
		     m->group.members[5] = 0, -EINVAL);
	EXPECT_FIXED(AIFS_OP_EC_READ, false, struct aifs_ec_read_req,
		     m->group.members[6] = cpu_to_le32(30), -EINVAL);
	EXPECT_FIXED(AIFS_OP_EC_READ, false, struct aifs_ec_read_req,
		     m->group.members[4] = m->group.members[1], -EINVAL);
	EXPECT_FIXED(AIFS_OP_EC_READ, false, struct aifs_ec_read_req,
		     m->group.chunk_size = cpu_to_le32(3 << 20), -EINVAL);
	/* a stripe of 32 fragments of 64 MiB is past AIFS_EC_STRIPE_MAX */
	EXPECT_FIXED(AIFS_OP_EC_READ, false, struct aifs_ec_read_req,
		     (m->group.k = 32, m->group.m = 1,
		      m->group.chunk_size = cpu_to_le32(64 << 20)), -EINVAL);
	EXPECT_FIXED(AIFS_OP_EC_READ, false, struct aifs_ec_read_req,
		     m->id.fragment = cpu_to_le16(AIFS_EC_FRAGMENT(6)), -EINVAL);
	EXPECT_FIXED(AIFS_OP_EC_READ, false, struct aifs_ec_read_req,
		     m->id.fragment = 0, -EINVAL);
	EXPECT_FIXED(AIFS_OP_EC_ARCHIVE, false, struct aifs_ec_archive_req,
		     m->source.type = AIFS_LAYOUT_EC, -EINVAL);
	EXPECT_FIXED(AIFS_OP_EC_ARCHIVE, false, struct aifs_ec_archive_req,
		     m->source.chunk_size = cpu_to_le32(1 << 20), -EINVAL);
	EXPECT_FIXED(AIFS_OP_EC_ARCHIVE, false, struct aifs_ec_archive_req,
		     m->source.target_count = 0, -EINVAL);
	EXPECT_FIXED(AIFS_OP_EC_ARCHIVE, false, struct aifs_ec_archive_req,
		     m->id.fragment = cpu_to_le16(1), -EINVAL);
	EXPECT_FIXED(AIFS_OP_FRAG_BEHIND, false, struct aifs_frag_behind_req,
		     m->id.fragment = 0, -EINVAL);
	EXPECT_FIXED(AIFS_OP_FRAG_BEHIND, false, struct aifs_frag_behind_req,
		     m->chunk_size = cpu_to_le32(3), -EINVAL);
	EXPECT_FIXED(AIFS_OP_EC_VERIFY, false, struct aifs_ec_verify_req,
		     m->flags = cpu_to_le32(2), -EINVAL);
	EXPECT_FIXED(AIFS_OP_EC_VERIFY, false, struct aifs_ec_verify_req,
		     m->group.ahead = cpu_to_le16(1), -EINVAL);
	EXPECT_FIXED(AIFS_OP_EC_READ, false, struct aifs_ec_read_req,
		     m->group.ahead = cpu_to_le16(1), -EINVAL);
	EXPECT_FIXED(AIFS_OP_EC_READ, false, struct aifs_ec_read_req,
		     m->offset = cpu_to_le32(AIFS_CHUNK_SIZE_DEFAULT), -EINVAL);
	EXPECT_FIXED(AIFS_OP_EC_READ, false, struct aifs_ec_read_req,
		     m->flags = cpu_to_le32(AIFS_IO_SYNC), -EINVAL);
	EXPECT_FIXED(AIFS_OP_EC_WRITE, false, struct aifs_ec_write_req,
		     m->group.ahead = cpu_to_le16(6), -EINVAL);
	EXPECT_FIXED(AIFS_OP_EC_WRITE, false, struct aifs_ec_write_req,
		     m->id.fragment = cpu_to_le16(1), -EINVAL);
	/* past the 4 fragments' data of the stripe */
	EXPECT_FIXED(AIFS_OP_EC_WRITE, false, struct aifs_ec_write_req,
		     m->offset = cpu_to_le32(4 * AIFS_CHUNK_SIZE_DEFAULT - 1),
		     -EINVAL);
	/* zeros are data to the leader: no more than a write's */
	EXPECT_FIXED(AIFS_OP_EC_WRITE, false, struct aifs_ec_write_req,
		     (m->flags = cpu_to_le32(AIFS_IO_ZERO), m->offset = 0,
		      m->rdma.len = cpu_to_le32(AIFS_MAX_IO + 1)), -EINVAL);
}

static void test_fixed_checks(void)
{
	struct aifs_attr bad;

	aifs_sample_attr(&bad, 5, 0);

	EXPECT_FIXED(AIFS_OP_HELLO, false, struct aifs_hello_req,
		     m->role = cpu_to_le16(5), -EINVAL);
	EXPECT_FIXED(AIFS_OP_HELLO, false, struct aifs_hello_req,
		     m->min_version = cpu_to_le16(2), -EINVAL);
	EXPECT_FIXED(AIFS_OP_HELLO, true, struct aifs_hello_rep,
		     m->version = cpu_to_le16(AIFS_PROTO_VERSION + 1),
		     -EPROTONOSUPPORT);
	EXPECT_FIXED(AIFS_OP_GETATTR, false, struct aifs_ino_req,
		     m->cred.ngroups = cpu_to_le32(AIFS_CRED_MAX_GROUPS + 1),
		     -EBADMSG);
	EXPECT_FIXED(AIFS_OP_LOOKUP, false, struct aifs_name_req,
		     m->cred.ngroups = cpu_to_le32(0xffffffff), -EBADMSG);
	EXPECT_FIXED(AIFS_OP_SETATTR, false, struct aifs_setattr_req,
		     m->valid = cpu_to_le32(1U << 8), -EINVAL);
	EXPECT_FIXED(AIFS_OP_SETATTR, false, struct aifs_setattr_req,
		     m->valid = cpu_to_le32(AIFS_SETATTR_ATIME |
					    AIFS_SETATTR_ATIME_NOW), -EINVAL);
	EXPECT_FIXED(AIFS_OP_SETATTR, false, struct aifs_setattr_req,
		     m->valid = cpu_to_le32(AIFS_SETATTR_MTIME |
					    AIFS_SETATTR_MTIME_NOW), -EINVAL);
	EXPECT_FIXED(AIFS_OP_SETATTR, false, struct aifs_setattr_req,
		     m->mtime.nsec = cpu_to_le32(1000000000), -EINVAL);
	EXPECT_FIXED(AIFS_OP_SETATTR, false, struct aifs_setattr_req,
		     (m->atime.nsec = cpu_to_le32(1000000000),
		      m->valid = cpu_to_le32(AIFS_SETATTR_ATIME)), -EINVAL);
	EXPECT_FIXED(AIFS_OP_CREATE, false, struct aifs_create_req,
		     m->open_flags = cpu_to_le32(AIFS_OPEN_ACCMODE), -EINVAL);
	EXPECT_FIXED(AIFS_OP_MKDIR, false, struct aifs_create_req,
		     m->open_flags = cpu_to_le32(1U << 9), -EINVAL);
	EXPECT_FIXED(AIFS_OP_RENAME, false, struct aifs_rename_req,
		     m->flags = cpu_to_le32(AIFS_RENAME_EXCHANGE |
					    AIFS_RENAME_NOREPLACE), -EINVAL);
	EXPECT_FIXED(AIFS_OP_RENAME, false, struct aifs_rename_req,
		     m->flags = cpu_to_le32(AIFS_RENAME_EXCHANGE |
					    AIFS_RENAME_WHITEOUT), -EINVAL);
	EXPECT_FIXED(AIFS_OP_RENAME, false, struct aifs_rename_req,
		     m->flags = cpu_to_le32(8), -EINVAL);
	EXPECT_FIXED(AIFS_OP_READDIR, false, struct aifs_readdir_req,
		     m->max_entries = 0, -EINVAL);
	EXPECT_FIXED(AIFS_OP_READDIR, false, struct aifs_readdir_req,
		     m->max_entries = cpu_to_le32(AIFS_READDIR_MAX_ENTRIES + 1),
		     -EINVAL);
	EXPECT_FIXED(AIFS_OP_READDIR, false, struct aifs_readdir_req,
		     m->max_bytes = cpu_to_le32(AIFS_READDIR_REP_SIZE +
				AIFS_DIRENT_SIZE + AIFS_NAME_MAX - 1), -EINVAL);
	EXPECT_FIXED(AIFS_OP_SETXATTR, false, struct aifs_setxattr_req,
		     m->flags = cpu_to_le32(4), -EINVAL);
	EXPECT_FIXED(AIFS_OP_OPEN, false, struct aifs_open_req,
		     m->flags = cpu_to_le32(AIFS_OPEN_EXCL), -EINVAL);
	EXPECT_FIXED(AIFS_OP_OPEN, false, struct aifs_open_req,
		     m->flags = cpu_to_le32(AIFS_OPEN_ACCMODE), -EINVAL);
	EXPECT_FIXED(AIFS_OP_CLOSE, false, struct aifs_close_req,
		     m->flags = cpu_to_le32(2), -EINVAL);
	EXPECT_FIXED(AIFS_OP_CLOSE, false, struct aifs_close_req,
		     m->mtime.nsec = cpu_to_le32(0xffffffff), -EINVAL);
	EXPECT_FIXED(AIFS_OP_LAYOUT_SET, false, struct aifs_layout_set_req,
		     m->layout.replicas = 0, -EINVAL);

	/* Attributes and layouts in replies. */
	EXPECT_FIXED(AIFS_OP_GETATTR, true, struct aifs_attr_rep,
		     m->attr = bad, -EBADMSG);
	EXPECT_FIXED(AIFS_OP_GETATTR, true, struct aifs_attr_rep,
		     m->attr.ino = 0, -EBADMSG);
	EXPECT_FIXED(AIFS_OP_GETATTR, true, struct aifs_attr_rep,
		     m->attr.btime.nsec = cpu_to_le32(1000000000), -EBADMSG);
	EXPECT_FIXED(AIFS_OP_LOOKUP, true, struct aifs_entry_rep,
		     m->dir = bad, -EBADMSG);
	EXPECT_FIXED(AIFS_OP_MKNOD, true, struct aifs_entry_rep,
		     m->attr.mode = cpu_to_le32(0170000), -EBADMSG);
	EXPECT_FIXED(AIFS_OP_OPEN, true, struct aifs_open_rep,
		     m->handle = 0, -EBADMSG);
	EXPECT_FIXED(AIFS_OP_OPEN, true, struct aifs_open_rep,
		     m->layout.type = 9, -EBADMSG);
	EXPECT_FIXED(AIFS_OP_CREATE, true, struct aifs_create_rep,
		     m->dir = bad, -EBADMSG);
	EXPECT_FIXED(AIFS_OP_CREATE, true, struct aifs_create_rep,
		     m->open.attr = bad, -EBADMSG);
	EXPECT_FIXED(AIFS_OP_RENAME, true, struct aifs_rename_rep,
		     m->new_dir = bad, -EBADMSG);
	EXPECT_FIXED(AIFS_OP_RENAME, true, struct aifs_rename_rep,
		     m->target = bad, -EBADMSG);
	EXPECT_FIXED(AIFS_OP_LAYOUT_GET, true, struct aifs_layout_rep,
		     m->layout.chunk_size = cpu_to_le32(12345), -EBADMSG);
	EXPECT_FIXED(AIFS_OP_GETXATTR, true, struct aifs_xattr_rep,
		     m->size = cpu_to_le32(2), -EBADMSG);
	EXPECT_FIXED(AIFS_OP_LISTXATTR, true, struct aifs_xattr_rep,
		     m->size = cpu_to_le32(AIFS_XATTR_SIZE_MAX + 1), -EBADMSG);
	EXPECT_FIXED(AIFS_OP_MAP_GET, true, struct aifs_map_rep,
		     m->flags = cpu_to_le32(AIFS_MAP_UNCHANGED), -EBADMSG);
	EXPECT_FIXED(AIFS_OP_MAP_GET, true, struct aifs_map_rep,
		     m->flags = cpu_to_le32(2), -EBADMSG);
	EXPECT_FIXED(AIFS_OP_DS_REGISTER, false, struct aifs_ds_register_req,
		     m->addr.family = cpu_to_le16(5), -EINVAL);
	EXPECT_FIXED(AIFS_OP_DS_REGISTER, false, struct aifs_ds_register_req,
		     m->addr.addr[15] = 1, -EINVAL);
	EXPECT_FIXED(AIFS_OP_DS_REGISTER, false, struct aifs_ds_register_req,
		     m->flags = cpu_to_le32(4), -EINVAL);
	EXPECT_FIXED(AIFS_OP_DS_REGISTER, true, struct aifs_ds_register_rep,
		     m->id = 0, -EBADMSG);
	EXPECT_FIXED(AIFS_OP_DS_HEARTBEAT, false, struct aifs_ds_heartbeat_req,
		     m->flags = cpu_to_le32(4), -EINVAL);
	EXPECT_FIXED(AIFS_OP_DS_HEARTBEAT, true, struct aifs_ds_heartbeat_rep,
		     m->state = cpu_to_le32(AIFS_DS_LAST + 1), -EBADMSG);

	/* Chunk requests: ranges computed without u32 wrap. */
	EXPECT_FIXED(AIFS_OP_CHUNK_READ, false, struct aifs_chunk_read_req,
		     m->length = 0, -EINVAL);
	EXPECT_FIXED(AIFS_OP_CHUNK_READ, false, struct aifs_chunk_read_req,
		     m->length = cpu_to_le32(AIFS_MAX_IO + 1), -EINVAL);
	EXPECT_FIXED(AIFS_OP_CHUNK_READ, false, struct aifs_chunk_read_req,
		     m->offset = cpu_to_le32(0xffffff00), -EINVAL);
	EXPECT_FIXED(AIFS_OP_CHUNK_READ, false, struct aifs_chunk_read_req,
		     m->flags = cpu_to_le32(AIFS_IO_SYNC), -EINVAL);
	EXPECT_FIXED(AIFS_OP_CHUNK_READ, false, struct aifs_chunk_read_req,
		     m->flags = cpu_to_le32(AIFS_IO_RDMA), -EINVAL);
	EXPECT_FIXED(AIFS_OP_CHUNK_READ, false, struct aifs_chunk_read_req,
		     m->id.fragment = cpu_to_le16(AIFS_LAYOUT_MAX_TARGETS),
		     -EINVAL);
	EXPECT_FIXED(AIFS_OP_CHUNK_READ, true, struct aifs_chunk_read_rep,
		     m->chunk_len = cpu_to_le32(AIFS_CHUNK_SIZE_MAX + 1),
		     -EBADMSG);
	EXPECT_FIXED(AIFS_OP_CHUNK_WRITE, false, struct aifs_chunk_write_req,
		     m->offset = cpu_to_le32(0xfffffff0), -EINVAL);
	EXPECT_FIXED(AIFS_OP_CHUNK_WRITE, false, struct aifs_chunk_write_req,
		     m->offset = cpu_to_le32(AIFS_CHUNK_SIZE_DEFAULT - 99),
		     -EINVAL);
	EXPECT_FIXED(AIFS_OP_CHUNK_WRITE, false, struct aifs_chunk_write_req,
		     m->chunk_size = cpu_to_le32(3 << 20), -EINVAL);
	EXPECT_FIXED(AIFS_OP_CHUNK_WRITE, false, struct aifs_chunk_write_req,
		     m->chunk_size = cpu_to_le32(AIFS_CHUNK_SIZE_MAX << 1),
		     -EINVAL);
	EXPECT_FIXED(AIFS_OP_CHUNK_WRITE, false, struct aifs_chunk_write_req,
		     m->flags = cpu_to_le32(AIFS_IO_RDMA), -EINVAL);
	EXPECT_FIXED(AIFS_OP_CHUNK_WRITE, false, struct aifs_chunk_write_req,
		     m->flags = cpu_to_le32(8), -EINVAL);
	EXPECT_FIXED(AIFS_OP_CHUNK_WRITE, false, struct aifs_chunk_write_req,
		     m->flags = cpu_to_le32(AIFS_IO_ZERO), -EINVAL);
	EXPECT_FIXED(AIFS_OP_CHUNK_WRITE, false, struct aifs_chunk_write_req,
		     m->nr_replicas = cpu_to_le16(AIFS_MAX_REPLICAS), -EINVAL);
	EXPECT_FIXED(AIFS_OP_CHUNK_WRITE, false, struct aifs_chunk_write_req,
		     m->nr_replicas = cpu_to_le16(3), -EINVAL);
	EXPECT_FIXED(AIFS_OP_CHUNK_FORWARD, false, struct aifs_chunk_write_req,
		     m->id.fragment = cpu_to_le16(0xffff), -EINVAL);
	EXPECT_FIXED(AIFS_OP_CHUNK_TRUNCATE, false,
		     struct aifs_chunk_truncate_req,
		     m->length = cpu_to_le32(AIFS_CHUNK_SIZE_MAX + 1), -EINVAL);
	EXPECT_FIXED(AIFS_OP_CHUNK_DELETE, false, struct aifs_chunk_delete_req,
		     m->flags = cpu_to_le32(AIFS_DELETE_KNOWN), -EINVAL);
	EXPECT_FIXED(AIFS_OP_CHUNK_DELETE, false, struct aifs_chunk_delete_req,
		     m->flags = cpu_to_le32(AIFS_DELETE_UNCODED), -EINVAL);
	EXPECT_FIXED(AIFS_OP_CHUNK_DELETE, false, struct aifs_chunk_delete_req,
		     m->flags = cpu_to_le32(8), -EINVAL);
	EXPECT_FIXED(AIFS_OP_LAYOUT_SET, false, struct aifs_layout_set_req,
		     m->flags = cpu_to_le32(2), -EINVAL);
	EXPECT_FIXED(AIFS_OP_CHUNK_CHECKSUM, false,
		     struct aifs_chunk_checksum_req,
		     m->nr_blocks = 0, -EINVAL);
	EXPECT_FIXED(AIFS_OP_CHUNK_CHECKSUM, false,
		     struct aifs_chunk_checksum_req,
		     m->nr_blocks = cpu_to_le32(AIFS_MAX_BLOCKS + 1), -EINVAL);
	EXPECT_FIXED(AIFS_OP_CHUNK_CHECKSUM, true,
		     struct aifs_chunk_checksum_rep,
		     m->block_size = cpu_to_le32(3000), -EBADMSG);
}

/* RDMA moves the data: allowed with an empty data part only. */
static void test_rdma(void)
{
	struct aifs_chunk_write_req *w = (void *)&fixed_mem;
	struct aifs_chunk_read_req *r = (void *)&fixed_mem;
	int len;

	len = sample_decoded(AIFS_OP_CHUNK_WRITE, false);
	w->flags = cpu_to_le32(AIFS_IO_RDMA);
	w->rdma.len = cpu_to_le32(AIFS_MAX_IO);
	parts[0].len = 0;
	len = encode(AIFS_OP_CHUNK_WRITE, false, buf, AIFS_SAMPLE_BUF_SIZE);
	CHECK_EQ(len, AIFS_CHUNK_WRITE_REQ_SIZE);
	CHECK_EQ(decode(AIFS_OP_CHUNK_WRITE, false, buf, len), 0);
	w->rdma.len = cpu_to_le32(AIFS_MAX_IO + 1);
	CHECK_EQ(encode(AIFS_OP_CHUNK_WRITE, false, buf, len), -EINVAL);

	len = sample_decoded(AIFS_OP_CHUNK_READ, false);
	r->flags = cpu_to_le32(AIFS_IO_RDMA);
	r->rdma.len = r->length;
	CHECK_EQ(encode(AIFS_OP_CHUNK_READ, false, buf, len), len);
}

/*
 * Zeros: no data part, the length in rdma.len, up to the whole chunk (not
 * AIFS_MAX_IO), never empty, never past the chunk, never with RDMA.
 */
static void test_zero(void)
{
	struct aifs_chunk_write_req *w = (void *)&fixed_mem;
	u32 chunk = AIFS_CHUNK_SIZE_MAX;
	int len;

	sample_decoded(AIFS_OP_CHUNK_WRITE, false);
	w->flags = cpu_to_le32(AIFS_IO_ZERO | AIFS_IO_SYNC);
	w->chunk_size = cpu_to_le32(chunk);
	w->offset = 0;
	w->rdma.len = cpu_to_le32(chunk);
	parts[0].len = 0;
	len = encode(AIFS_OP_CHUNK_WRITE, false, buf, AIFS_SAMPLE_BUF_SIZE);
	CHECK_EQ(len, AIFS_CHUNK_WRITE_REQ_SIZE);
	CHECK_EQ(decode(AIFS_OP_CHUNK_WRITE, false, buf, len), 0);
	CHECK_EQ(decode(AIFS_OP_CHUNK_FORWARD, false, buf, len), 0);
	w->offset = cpu_to_le32(1);
	CHECK_EQ(encode(AIFS_OP_CHUNK_WRITE, false, buf, len), -EINVAL);
	w->offset = cpu_to_le32(0xffffffff);
	w->rdma.len = cpu_to_le32(2);
	CHECK_EQ(encode(AIFS_OP_CHUNK_WRITE, false, buf, len), -EINVAL);
	w->offset = 0;
	w->rdma.len = 0;
	CHECK_EQ(encode(AIFS_OP_CHUNK_WRITE, false, buf, len), -EINVAL);
	w->rdma.len = cpu_to_le32(1);
	w->rdma.rkey = cpu_to_le32(1);
	CHECK_EQ(encode(AIFS_OP_CHUNK_WRITE, false, buf, len), -EINVAL);
	w->rdma.rkey = 0;
	w->flags = cpu_to_le32(AIFS_IO_ZERO | AIFS_IO_RDMA);
	CHECK_EQ(encode(AIFS_OP_CHUNK_WRITE, false, buf, len), -EINVAL);
}

/* Build a payload by hand: @fsize bytes of fixed_mem, then @n bytes. */
static u32 raw(u32 fsize, const void *bytes, u32 n)
{
	memcpy(buf, &fixed_mem, fsize);
	memmove(buf + fsize, bytes, n);	/* may already be there */
	return fsize + n;
}

static void name_case(u16 op, const char *name, u32 len, int err, int line)
{
	struct aifs_name_req *m = (void *)&fixed_mem;
	u32 n;
	int ret;

	sample_decoded(op, false);
	TEST_CTX("%s name of %u bytes, line %d", aifs_opcode_name(op), len,
		 line);
	parts[0] = (struct aifs_span){ name, len };
	ret = encode(op, false, buf2, AIFS_SAMPLE_BUF_SIZE);
	CHECK_EQ(ret < 0 ? ret : 0, err);
	m->name_len = cpu_to_le16(len);
	n = raw(sizeof(*m), name, len);
	CHECK_EQ(decode(op, false, buf, n), err);
}

static void test_names(void)
{
	char name[AIFS_SYMLINK_MAX + 2];

	memset(name, 'a', sizeof(name));
	TEST_CTX("aifs_name_valid");
	CHECK_EQ(aifs_name_valid(name, 1), 0);
	CHECK_EQ(aifs_name_valid(name, AIFS_NAME_MAX), 0);
	CHECK_EQ(aifs_name_valid(name, AIFS_NAME_MAX + 1), -ENAMETOOLONG);
	CHECK_EQ(aifs_name_valid(name, 0), -EINVAL);
	CHECK_EQ(aifs_name_valid("a/b", 3), -EINVAL);
	CHECK_EQ(aifs_name_valid("a\0b", 3), -EINVAL);
	CHECK_EQ(aifs_name_valid(".", 1), -EINVAL);
	CHECK_EQ(aifs_name_valid("..", 2), -EINVAL);
	CHECK_EQ(aifs_name_valid("...", 3), 0);
	CHECK_EQ(aifs_name_valid(".a", 2), 0);

	/* File names. */
	name_case(AIFS_OP_LOOKUP, name, AIFS_NAME_MAX, 0, __LINE__);
	name_case(AIFS_OP_LOOKUP, name, AIFS_NAME_MAX + 1, -ENAMETOOLONG,
		  __LINE__);
	name_case(AIFS_OP_UNLINK, name, 0, -EINVAL, __LINE__);
	name_case(AIFS_OP_RMDIR, "x/y", 3, -EINVAL, __LINE__);
	name_case(AIFS_OP_LOOKUP, "x\0y", 3, -EINVAL, __LINE__);
	name_case(AIFS_OP_LOOKUP, "..", 2, -EINVAL, __LINE__);
	/* Xattr names: '/' is fine, length errors are ERANGE. */
	name_case(AIFS_OP_REMOVEXATTR, "user.a/b", 8, 0, __LINE__);
	name_case(AIFS_OP_REMOVEXATTR, name, 0, -ERANGE, __LINE__);
	name_case(AIFS_OP_REMOVEXATTR, name, AIFS_XATTR_NAME_MAX + 1, -ERANGE,
		  __LINE__);
	name_case(AIFS_OP_REMOVEXATTR, "user.\0", 6, -EINVAL, __LINE__);

	/* A length field past the buffer, or over the limit. */
	sample_decoded(AIFS_OP_LOOKUP, false);
	((struct aifs_name_req *)&fixed_mem)->name_len = cpu_to_le16(10);
	CHECK_EQ(decode(AIFS_OP_LOOKUP, false, buf,
			raw(AIFS_NAME_REQ_SIZE, name, 9)), -EBADMSG);
	((struct aifs_name_req *)&fixed_mem)->name_len = cpu_to_le16(0xffff);
	CHECK_EQ(decode(AIFS_OP_LOOKUP, false, buf,
			raw(AIFS_NAME_REQ_SIZE, name, 9)), -ENAMETOOLONG);

	/* Symlink targets. */
	sample_decoded(AIFS_OP_SYMLINK, false);
	TEST_CTX("symlink target");
	parts[1] = (struct aifs_span){ name, AIFS_SYMLINK_MAX };
	CHECK(encode(AIFS_OP_SYMLINK, false, buf2, AIFS_SAMPLE_BUF_SIZE) > 0);
	parts[1].len = AIFS_SYMLINK_MAX + 1;
	CHECK_EQ(encode(AIFS_OP_SYMLINK, false, buf2, AIFS_SAMPLE_BUF_SIZE),
		 -ENAMETOOLONG);
	parts[1].len = 0;
	CHECK_EQ(encode(AIFS_OP_SYMLINK, false, buf2, AIFS_SAMPLE_BUF_SIZE),
		 -EINVAL);
	parts[1] = (struct aifs_span){ "a\0", 2 };
	CHECK_EQ(encode(AIFS_OP_SYMLINK, false, buf2, AIFS_SAMPLE_BUF_SIZE),
		 -EINVAL);
	/* Both names of a rename are checked. */
	sample_decoded(AIFS_OP_RENAME, false);
	parts[1] = (struct aifs_span){ "/", 1 };
	CHECK_EQ(encode(AIFS_OP_RENAME, false, buf2, AIFS_SAMPLE_BUF_SIZE),
		 -EINVAL);
}

static void test_xattrs(void)
{
	struct aifs_setxattr_req *s = (void *)&fixed_mem;
	static const struct {
		const char *list;
		u32 len;
		int err;
	} lists[] = {
		{ "", 0, 0 },
		{ "user.a\0trusted.b\0", 17, 0 },
		{ "user.a", 6, -EBADMSG },	/* not terminated */
		{ "\0", 1, -EBADMSG },		/* empty name */
		{ "user.a\0\0", 8, -EBADMSG },
	};
	u32 i, n;
	int len;

	len = sample_decoded(AIFS_OP_SETXATTR, false);
	TEST_CTX("setxattr value");
	parts[1] = (struct aifs_span){ buf2 + 4096, AIFS_XATTR_SIZE_MAX + 1 };
	CHECK_EQ(encode(AIFS_OP_SETXATTR, false, buf2, AIFS_SAMPLE_BUF_SIZE),
		 -E2BIG);
	s->value_len = cpu_to_le32(0xffffffff);
	CHECK_EQ(decode(AIFS_OP_SETXATTR, false, buf,
			raw(sizeof(*s), parts[0].data, parts[0].len)), -E2BIG);
	s->value_len = cpu_to_le32(4);		/* 3 bytes there */
	CHECK_EQ(decode(AIFS_OP_SETXATTR, false, buf,
			raw(sizeof(*s), parts[0].data, len - sizeof(*s))),
		 -EBADMSG);

	for (i = 0; i < ARRAY_SIZE(lists); i++) {
		struct aifs_xattr_rep *x = (void *)&fixed_mem;

		sample_decoded(AIFS_OP_LISTXATTR, true);
		TEST_CTX("xattr list %u", i);
		x->size = cpu_to_le32(lists[i].len);
		parts[0] = (struct aifs_span){ lists[i].list, lists[i].len };
		CHECK_EQ(encode(AIFS_OP_LISTXATTR, true, buf2,
				AIFS_SAMPLE_BUF_SIZE),
			 lists[i].err ?: (int)(sizeof(*x) + lists[i].len));
		x->len = x->size;
		n = raw(sizeof(*x), lists[i].list, lists[i].len);
		CHECK_EQ(decode(AIFS_OP_LISTXATTR, true, buf, n), lists[i].err);
	}
}

/* Counts whose byte length would wrap a u32 if multiplied unchecked. */
static void test_counts(void)
{
	struct aifs_chunk_checksum_rep *c = (void *)&fixed_mem;
	struct aifs_map_rep *m = (void *)&fixed_mem;
	struct aifs_readdir_rep *r = (void *)&fixed_mem;
	struct aifs_chunk_write_req *w = (void *)&fixed_mem;
	struct aifs_ds_info ds;
	u8 four[AIFS_DS_INFO_SIZE] = { 0 };
	int len;

	sample_decoded(AIFS_OP_CHUNK_CHECKSUM, true);
	TEST_CTX("crc count");
	CHECK_EQ(aifs_span_le32(&parts[0], 3), 0xc5c5c5c5);
	c->count = cpu_to_le32(0x40000001);	/* * 4 == 4 in a u32 */
	CHECK_EQ(decode(AIFS_OP_CHUNK_CHECKSUM, true, buf,
			raw(sizeof(*c), four, 4)), -EBADMSG);
	c->count = cpu_to_le32(AIFS_MAX_BLOCKS + 1);
	CHECK_EQ(decode(AIFS_OP_CHUNK_CHECKSUM, true, buf,
			raw(sizeof(*c), four, 4)), -EBADMSG);
	parts[0].len = 6;
	CHECK_EQ(encode(AIFS_OP_CHUNK_CHECKSUM, true, buf2, 4096), -EINVAL);

	sample_decoded(AIFS_OP_MAP_GET, true);
	TEST_CTX("ds count");
	aifs_ds_info_get(&parts[0], 1, &ds);
	CHECK_EQ(le32_to_cpu(ds.id), 2);
	m->count = cpu_to_le32(0x10000001);	/* * 80 == 80 in a u32 */
	CHECK_EQ(decode(AIFS_OP_MAP_GET, true, buf,
			raw(sizeof(*m), parts[0].data, AIFS_DS_INFO_SIZE)),
		 -EBADMSG);
	m->count = cpu_to_le32(1);
	CHECK_EQ(decode(AIFS_OP_MAP_GET, true, buf,
			raw(sizeof(*m), four, AIFS_DS_INFO_SIZE)), -EBADMSG);

	sample_decoded(AIFS_OP_READDIR, true);
	TEST_CTX("readdir bytes");
	r->bytes = cpu_to_le32(0xffffffff);
	CHECK_EQ(decode(AIFS_OP_READDIR, true, buf,
			raw(sizeof(*r), four, 4)), -EBADMSG);

	len = sample_decoded(AIFS_OP_CHUNK_WRITE, false);
	TEST_CTX("write data_len");
	w->data_len = cpu_to_le32(0xffffffff);
	CHECK_EQ(decode(AIFS_OP_CHUNK_WRITE, false, buf,
			raw(sizeof(*w), four, 4)), -EINVAL);
	w->data_len = cpu_to_le32(AIFS_MAX_IO);
	CHECK_EQ(decode(AIFS_OP_CHUNK_WRITE, false, buf,
			raw(sizeof(*w), parts[0].data, len - sizeof(*w))),
		 -EBADMSG);
	parts[0] = (struct aifs_span){ buf2 + 4096, AIFS_MAX_IO + 1 };
	CHECK_EQ(encode(AIFS_OP_CHUNK_WRITE, false, buf2, 4096), -EINVAL);
}

static void test_readdir(void)
{
	struct aifs_readdir_rep *r = (void *)&fixed_mem;
	struct aifs_dirent_iter it;
	struct aifs_dirent ent;
	struct aifs_dirent_buf b;
	struct aifs_span name;
	struct aifs_attr attr;
	u32 count = 0, first_name = AIFS_READDIR_REP_SIZE + AIFS_DIRENT_SIZE;
	int len, ret;

	len = sample_decoded(AIFS_OP_READDIR, true);
	aifs_dirent_iter_init(&it, &parts[0]);
	while ((ret = aifs_dirent_next(&it, &ent, &name)) > 0) {
		count++;
		CHECK_EQ(le64_to_cpu(ent.cookie), count);
		CHECK_EQ(name.len, 5);
	}
	CHECK_EQ(ret, 0);
	CHECK_EQ(count, 3);
	parts[0].len--;
	aifs_dirent_iter_init(&it, &parts[0]);
	while ((ret = aifs_dirent_next(&it, &ent, &name)) > 0)
		;
	CHECK_EQ(ret, -EBADMSG);
	parts[0].len = 10;
	aifs_dirent_iter_init(&it, &parts[0]);
	CHECK_EQ(aifs_dirent_next(&it, &ent, &name), -EBADMSG);

	EXPECT_FIXED(AIFS_OP_READDIR, true, struct aifs_readdir_rep,
		     m->count = cpu_to_le32(2), -EBADMSG);
	EXPECT_FIXED(AIFS_OP_READDIR, true, struct aifs_readdir_rep,
		     m->flags = cpu_to_le32(2), -EBADMSG);
	/* The first entry: zero cookie, bad name, bad mode, long name. */
	EXPECT_BYTES(AIFS_OP_READDIR, true,
		     memset(buf + AIFS_READDIR_REP_SIZE, 0, 8), -EBADMSG);
	EXPECT_BYTES(AIFS_OP_READDIR, true, buf[first_name] = '/', -EINVAL);
	EXPECT_BYTES(AIFS_OP_READDIR, true,
		     memset(buf + AIFS_READDIR_REP_SIZE +
			    offsetof(struct aifs_dirent, attr.mode), 0, 4),
		     -EBADMSG);
	EXPECT_BYTES(AIFS_OP_READDIR, true,
		     memset(buf + first_name - 8, 0xff, 2), -EBADMSG);

	/* Empty: only with EOF. */
	aifs_dirents_init(&b, buf, 4096);
	CHECK_EQ(aifs_dirents_finish(&b, AIFS_READDIR_EOF),
		 AIFS_READDIR_REP_SIZE);
	CHECK_EQ(aifs_dirents_finish(&b, 0), -EBADMSG);
	r->count = 0;
	r->flags = 0;
	CHECK_EQ(decode(AIFS_OP_READDIR, true, buf,
			raw(sizeof(*r), "", 0)), -EBADMSG);

	/* The builder stops cleanly when full. */
	aifs_sample_attr(&attr, 9, 0100644);
	aifs_dirents_init(&b, buf, AIFS_READDIR_REP_SIZE + 2 *
			  AIFS_DIRENT_SIZE + 7);
	CHECK_EQ(aifs_dirents_add(&b, 1, &attr, "abc", 3), 0);
	CHECK_EQ(aifs_dirents_add(&b, 2, &attr, "abcd", 4), 0);
	CHECK_EQ(aifs_dirents_add(&b, 3, &attr, "a", 1), -ENOSPC);
	CHECK_EQ(aifs_dirents_add(&b, 3, &attr, "a/", 2), -EINVAL);
	CHECK_EQ(aifs_dirents_add(&b, 0, &attr, "a", 1), -EINVAL);
	len = aifs_dirents_finish(&b, 0);
	CHECK_EQ(len, b.size);
	CHECK_EQ(decode(AIFS_OP_READDIR, true, buf, len), 0);
	aifs_dirents_init(&b, buf, 8);
	CHECK_EQ(aifs_dirents_add(&b, 3, &attr, "a", 1), -ENOSPC);
	CHECK_EQ(aifs_dirents_finish(&b, AIFS_READDIR_EOF), -ENOSPC);

	aifs_dirents_init(&b, buf, AIFS_SAMPLE_BUF_SIZE);
	for (count = 0; count < AIFS_READDIR_MAX_ENTRIES; count++)
		CHECK_EQ(aifs_dirents_add(&b, count + 1, &attr, "f", 1), 0);
	CHECK_EQ(aifs_dirents_add(&b, count + 1, &attr, "f", 1), -ENOSPC);
	len = aifs_dirents_finish(&b, AIFS_READDIR_EOF);
	CHECK_EQ(decode(AIFS_OP_READDIR, true, buf, len), 0);
}

static void test_ds_list(void)
{
	struct aifs_ds_info *ds;

	sample_decoded(AIFS_OP_MAP_GET, true);
	ds = (struct aifs_ds_info *)(buf + AIFS_MAP_REP_SIZE);
	ds->state = 0;
	CHECK_EQ(decode(AIFS_OP_MAP_GET, true, buf, AIFS_MAP_REP_SIZE +
			2 * AIFS_DS_INFO_SIZE), -EBADMSG);
	sample_decoded(AIFS_OP_MAP_GET, true);
	ds->id = 0;
	CHECK_EQ(decode(AIFS_OP_MAP_GET, true, buf, AIFS_MAP_REP_SIZE +
			2 * AIFS_DS_INFO_SIZE), -EBADMSG);
	sample_decoded(AIFS_OP_MAP_GET, true);
	ds[1].addr.family = cpu_to_le16(AIFS_AF_INET6);
	memset(ds[1].addr.addr, 0xfe, 16);
	CHECK_EQ(decode(AIFS_OP_MAP_GET, true, buf, AIFS_MAP_REP_SIZE +
			2 * AIFS_DS_INFO_SIZE), 0);
	ds[1].addr.family = cpu_to_le16(AIFS_AF_INET);
	CHECK_EQ(decode(AIFS_OP_MAP_GET, true, buf, AIFS_MAP_REP_SIZE +
			2 * AIFS_DS_INFO_SIZE), -EBADMSG);
}

/* A report names its own server only, known flags only, a report's worth. */
static void test_repairs(void)
{
	const int len = AIFS_DS_REPAIRS_REQ_SIZE + 3 * AIFS_REPAIR_ENTRY_SIZE;
	struct aifs_repair_entry *e;

	e = (struct aifs_repair_entry *)(buf + AIFS_DS_REPAIRS_REQ_SIZE);
	sample_decoded(AIFS_OP_DS_REPAIRS, false);
	e[2].server = cpu_to_le32(8);
	CHECK_EQ(decode(AIFS_OP_DS_REPAIRS, false, buf, len), -EINVAL);
	sample_decoded(AIFS_OP_DS_REPAIRS, false);
	e[1].flags = cpu_to_le16(2);
	CHECK_EQ(decode(AIFS_OP_DS_REPAIRS, false, buf, len), -EBADMSG);
	sample_decoded(AIFS_OP_DS_REPAIRS, false);
	e[0].ino = 0;
	CHECK_EQ(decode(AIFS_OP_DS_REPAIRS, false, buf, len), -EBADMSG);
	memset(buf, 0, AIFS_SAMPLE_BUF_SIZE);
	((struct aifs_ds_repairs_req *)buf)->id = cpu_to_le32(7);
	((struct aifs_ds_repairs_req *)buf)->count =
		cpu_to_le32(AIFS_REPAIR_LIST_MAX + 1);
	e = (struct aifs_repair_entry *)(buf + AIFS_DS_REPAIRS_REQ_SIZE);
	for (int i = 0; i <= AIFS_REPAIR_LIST_MAX; i++) {
		e[i].server = cpu_to_le32(7);
		e[i].ino = cpu_to_le64(1);
	}
	CHECK_EQ(decode(AIFS_OP_DS_REPAIRS, false, buf,
			AIFS_DS_REPAIRS_REQ_SIZE + (AIFS_REPAIR_LIST_MAX + 1) *
			AIFS_REPAIR_ENTRY_SIZE), -EINVAL);
}

static void fill_targets(struct aifs_layout *l, u32 from, u32 to)
{
	for (; from < to; from++)
		l->targets[from] = cpu_to_le32(20 + from);
}

static void test_layouts(void)
{
	struct aifs_layout l;

#define LAYOUT_CASE(stmt, err)						\
	do {								\
		aifs_sample_layout(&l);					\
		stmt;							\
		TEST_CTX("layout: %.200s", #stmt);				\
		CHECK_EQ(aifs_layout_check(&l), err);			\
	} while (0)

	LAYOUT_CASE((void)0, 0);
	LAYOUT_CASE(l.target_count = 0, -EINVAL);	/* targets left over */
	LAYOUT_CASE((l.target_count = 0, memset(l.targets, 0,
						sizeof(l.targets))), 0);
	LAYOUT_CASE(l.targets[2] = 0, -EINVAL);
	LAYOUT_CASE(l.targets[63] = cpu_to_le32(1), -EINVAL);
	LAYOUT_CASE(l.target_count = cpu_to_le16(5), -EINVAL);
	LAYOUT_CASE(l.target_count = cpu_to_le16(0xffff), -EINVAL);
	LAYOUT_CASE(l.type = 0, -EINVAL);
	LAYOUT_CASE(l.type = 4, -EINVAL);
	LAYOUT_CASE(l.replicas = 0, -EINVAL);
	LAYOUT_CASE(l.replicas = AIFS_MAX_REPLICAS + 1, -EINVAL);
	LAYOUT_CASE(l.ec_k = 1, -EINVAL);
	LAYOUT_CASE(l.stripe_count = 0, -EINVAL);
	LAYOUT_CASE(l.stripe_count = cpu_to_le16(0xffff), -EINVAL);
	LAYOUT_CASE(l.chunk_size = cpu_to_le32(AIFS_CHUNK_SIZE_MIN / 2),
		    -EINVAL);
	LAYOUT_CASE(l.chunk_size = cpu_to_le32(AIFS_CHUNK_SIZE_MAX * 2U),
		    -EINVAL);
	LAYOUT_CASE(l.chunk_size = cpu_to_le32(5 << 20), -EINVAL);
	LAYOUT_CASE(l.chunk_size = 0, -EINVAL);
	/* EC 10+4 over one group of 14, then over 5 groups (70 > 64). */
	LAYOUT_CASE((l.type = AIFS_LAYOUT_EC, l.replicas = 0, l.ec_k = 10,
		     l.ec_m = 4, l.stripe_count = cpu_to_le16(1),
		     l.target_count = cpu_to_le16(14),
		     fill_targets(&l, 6, 14)), 0);
	LAYOUT_CASE((l.type = AIFS_LAYOUT_EC, l.replicas = 0, l.ec_k = 10,
		     l.ec_m = 4, l.stripe_count = cpu_to_le16(5),
		     l.target_count = 0,
		     memset(l.targets, 0, sizeof(l.targets))), -EINVAL);
	LAYOUT_CASE((l.type = AIFS_LAYOUT_EC, l.replicas = 0, l.ec_k = 33,
		     l.ec_m = 1), -EINVAL);
	/* 16 fragments of 128 MiB: a stripe's data past AIFS_EC_STRIPE_MAX */
	LAYOUT_CASE((l.type = AIFS_LAYOUT_EC, l.replicas = 0, l.ec_k = 16,
		     l.ec_m = 4, l.stripe_count = cpu_to_le16(1),
		     l.chunk_size = cpu_to_le32(128 << 20),
		     l.target_count = cpu_to_le16(20),
		     fill_targets(&l, 6, 20)), -EINVAL);
	LAYOUT_CASE((l.type = AIFS_LAYOUT_EC, l.replicas = 0, l.ec_k = 4,
		     l.ec_m = 0), -EINVAL);
	LAYOUT_CASE((l.type = AIFS_LAYOUT_EC, l.replicas = 0, l.ec_k = 4,
		     l.ec_m = AIFS_EC_MAX_M + 1), -EINVAL);
	LAYOUT_CASE((l.type = AIFS_LAYOUT_INLINE, l.replicas = 0,
		     l.stripe_count = 0, l.target_count = 0,
		     memset(l.targets, 0, sizeof(l.targets))), 0);
	LAYOUT_CASE((l.type = AIFS_LAYOUT_INLINE, l.replicas = 0,
		     l.target_count = 0,
		     memset(l.targets, 0, sizeof(l.targets))), -EINVAL);
#undef LAYOUT_CASE
}

/* Mistakes of the caller, and encoder-only cases. */
static void test_encoder(void)
{
	struct aifs_chunk_read_rep rep = { 0 };
	struct aifs_span data = { buf + sizeof(rep), 100 };
	struct aifs_span none = { NULL, 5 };
	struct aifs_readdir_rep r = { 0 };
	struct aifs_span big = { buf2, AIFS_MAX_PAYLOAD };
	struct aifs_name_req n;

	TEST_CTX("encoder");
	CHECK_EQ(aifs_msg_encode(AIFS_OP_LOOKUP, false, buf, 4096, &n,
				 sizeof(n) - 1, parts), -EINVAL);
	CHECK_EQ(aifs_msg_encode(AIFS_OP_LOOKUP, false, buf, 4096, &n,
				 sizeof(n), NULL), -EINVAL);
	CHECK_EQ(aifs_msg_decode(AIFS_OP_LOOKUP, false, buf, 4096, &n,
				 sizeof(n), NULL), -EINVAL);
	CHECK_EQ(aifs_msg_encode(AIFS_OP_PING, false, buf, 0, NULL, 0, NULL),
		 0);
	CHECK_EQ(aifs_msg_decode(AIFS_OP_PING, true, buf, 0, NULL, 0, NULL),
		 0);
	CHECK_EQ(aifs_msg_decode(AIFS_OP_PING, true, buf, 1, NULL, 0, NULL),
		 -EBADMSG);

	/* Built in place: nothing moves. */
	memset(buf + sizeof(rep), 'Z', 100);
	rep.chunk_len = cpu_to_le32(100);
	CHECK_EQ(aifs_encode_chunk_read_rep(buf, 4096, &rep, &data), 116);
	CHECK_EQ(buf[sizeof(rep) + 99], 'Z');
	CHECK_EQ(aifs_decode_chunk_read_rep(buf, 116, &rep, parts), 0);
	CHECK_EQ(le32_to_cpu(rep.data_len), 100);

	/* Only a trailing data part may be left out. */
	memset(&n, 0, sizeof(n));
	CHECK_EQ(aifs_encode_lookup_req(buf, 4096, &n, &none), -EINVAL);

	/* Over the largest payload. */
	r.flags = cpu_to_le32(AIFS_READDIR_EOF);
	CHECK_EQ(aifs_encode_readdir_rep(buf, AIFS_SAMPLE_BUF_SIZE, &r, &big),
		 -EMSGSIZE);
}

int main(void)
{
	buf = calloc(1, AIFS_SAMPLE_BUF_SIZE + 16);
	buf2 = calloc(1, AIFS_SAMPLE_BUF_SIZE + 16);
	if (!buf || !buf2)
		return 1;
	test_opcodes();
	test_round_trips();
	test_fixed_checks();
	test_ec_checks();
	test_rdma();
	test_zero();
	test_names();
	test_xattrs();
	test_counts();
	test_readdir();
	test_ds_list();
	test_repairs();
	test_layouts();
	test_encoder();
	free(buf);
	free(buf2);
	return test_result("proto-codec");
}
