// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * One aifs-ds: read-after-write across checksum blocks and chunk
 * boundaries, sparse regions, truncate, delete, CHUNK_CHECKSUM, DS_STATFS,
 * versions, bad requests (past the chunk size, another file system), and
 * the data surviving a restart.
 */
#include <signal.h>
#include <stdlib.h>

#include "ds-harness.h"

#define INO		0x1234
#define FILE_SIZE	(DS_TEST_CHUNK * 5 / 2)

static u8 file[FILE_SIZE], buf[4 << 20];

/* Write [@off, +@len) of the file image through its chunks. */
static void file_write(u32 off, u32 len)
{
	u32 n;
	int err;

	while (len) {
		n = DS_TEST_CHUNK - off % DS_TEST_CHUNK;
		n = n < len ? n : len;
		err = ds_write(&ds_procs[0], INO, off / DS_TEST_CHUNK,
			       off % DS_TEST_CHUNK, file + off, n, NULL, 0,
			       NULL);
		CHECK(!err, "write %u+%u: %d", off, n, err);
		off += n;
		len -= n;
	}
}

/* Read [@off, +@len) back through its chunks, zero-filling holes. */
static void file_check(u32 off, u32 len)
{
	u32 n, got;
	int err;

	while (len) {
		n = DS_TEST_CHUNK - off % DS_TEST_CHUNK;
		n = n < len ? n : len;
		memset(buf, 0, n);
		err = ds_read(&ds_procs[0], INO, off / DS_TEST_CHUNK,
			      off % DS_TEST_CHUNK, n, 0, buf, &got, NULL);
		if (err == -ENOENT) {
			err = 0;
			got = 0;
		}
		CHECK(!err && got <= n && !memcmp(buf, file + off, n),
		      "read %u+%u: err %d, got %u, differs", off, n, err, got);
		off += n;
		len -= n;
	}
}

static void test_read_after_write(void)
{
	static const u32 pieces[][2] = {
		{ 0, 100 },			/* inside the first block */
		{ 65536 - 10, 20 },		/* across a block boundary */
		{ 3 * 65536, 65536 },		/* exactly a block */
		{ DS_TEST_CHUNK - 1000, 5000 },	/* across a chunk boundary */
		{ 1700000, 800000 },		/* long, across a chunk */
		{ 2 * DS_TEST_CHUNK + 7, 1 },	/* one byte, third chunk */
	};
	size_t i;

	memset(file, 0, sizeof(file));
	for (i = 0; i < ARRAY_SIZE(pieces); i++) {
		ds_fill(file + pieces[i][0], pieces[i][1], i + 1);
		file_write(pieces[i][0], pieces[i][1]);
	}
	/* Unwritten ranges between the pieces are sparse: zeros. */
	file_check(0, FILE_SIZE);
	file_check(65536 - 20, 100);
	file_check(DS_TEST_CHUNK - 3, 7);
	/* Overwrite the middle of written data; neighbours stay. */
	ds_fill(file + 1800000, 3000, 99);
	file_write(1800000, 3000);
	file_check(1700000, 800000);
}

static void test_sparse_and_length(void)
{
	u32 got;
	u64 v;
	int err;

	ds_fill(buf, 4, 7);
	err = ds_write(&ds_procs[0], INO + 1, 0, 512 << 10, buf, 4, NULL, 0, &v);
	CHECK(!err && v == 1, "sparse write: %d, version %llu", err,
	      (unsigned long long)v);
	err = ds_read(&ds_procs[0], INO + 1, 0, 0, DS_TEST_CHUNK, 0, buf, &got,
		      NULL);
	CHECK(!err && got == (512 << 10) + 4, "read whole chunk: %d, %u", err,
	      got);
	for (u32 i = 0; !err && i < (512 << 10); i++)
		if (buf[i]) {
			CHECK(0, "byte %u of a hole is %u", i, buf[i]);
			break;
		}
	err = ds_read(&ds_procs[0], INO + 1, 0, 600 << 10, 100, 0, buf, &got,
		      NULL);
	CHECK(!err && got == 0, "read past the end: %d, %u", err, got);
	err = ds_read(&ds_procs[0], INO + 2, 0, 0, 100, 0, buf, &got, NULL);
	CHECK(err == -ENOENT, "absent chunk: %d", err);
}

static int ds_truncate(u64 ino, u32 index, u32 length, u64 *version)
{
	struct aifs_chunk_truncate_req req = { .length = cpu_to_le32(length) };
	struct aifs_reply reply;
	struct aifs_chunk_rep rep;
	int err;

	ds_chunk_id(&req.id, ino, index);
	err = ds_request(&ds_procs[0], AIFS_OP_CHUNK_TRUNCATE, &req,
			 sizeof(req), &reply);
	if (!err && reply.status)
		err = -(int)reply.status;
	if (!err)
		err = aifs_decode_chunk_truncate_rep(reply.payload, reply.len,
						     &rep, NULL);
	if (!err)
		*version = le64_to_cpu(rep.version);
	aifs_reply_free(&reply);
	return err;
}

static void test_truncate(void)
{
	static u8 data[200000], zeros[200000];
	u64 v0, v1;
	u32 got;
	int err;

	ds_fill(data, sizeof(data), 3);
	err = ds_write(&ds_procs[0], INO + 3, 0, 0, data, sizeof(data), NULL,
		       0, &v0);
	CHECK(!err, "write: %d", err);
	err = ds_truncate(INO + 3, 0, 70000, &v1);
	CHECK(!err && v1 == v0 + 1, "shrink: %d, version %llu after %llu", err,
	      (unsigned long long)v1, (unsigned long long)v0);
	err = ds_truncate(INO + 3, 0, 150000, &v1);
	CHECK(!err, "grow: %d", err);
	err = ds_read(&ds_procs[0], INO + 3, 0, 0, sizeof(data), 0, buf, &got,
		      NULL);
	CHECK(!err && got == 150000 && !memcmp(buf, data, 70000) &&
	      !memcmp(buf + 70000, zeros, 80000),
	      "after shrink and grow: %d, %u bytes", err, got);
	err = ds_truncate(INO + 3, 0, DS_TEST_CHUNK + 1, &v1);
	CHECK(err == -EINVAL, "past the chunk size: %d", err);
	err = ds_truncate(INO + 4, 0, 1000, &v1);
	CHECK(!err && v1 == 0, "absent chunk: %d", err);
}

static void test_checksum(void)
{
	struct aifs_chunk_checksum_req req = { .nr_blocks = cpu_to_le32(100) };
	struct aifs_span parts[AIFS_MSG_MAX_PARTS];
	struct aifs_chunk_checksum_rep rep;
	struct aifs_reply reply;
	u32 got;
	int err;

	ds_chunk_id(&req.id, INO, 0);
	err = ds_request(&ds_procs[0], AIFS_OP_CHUNK_CHECKSUM, &req,
			 sizeof(req), &reply);
	CHECK(!err && !reply.status, "checksum: %d %u", err, reply.status);
	err = aifs_decode_chunk_checksum_rep(reply.payload, reply.len, &rep,
					     parts);
	CHECK(!err && le32_to_cpu(rep.count) == 16 &&
	      le32_to_cpu(rep.block_size) == 65536,
	      "checksum reply: %d, %u CRCs", err, le32_to_cpu(rep.count));
	memset(buf, 0, 65536);
	err = ds_read(&ds_procs[0], INO, 0, 0, 65536, 0, buf, &got, NULL);
	CHECK(!err && aifs_span_le32(&parts[0], 0) == aifs_crc32c(buf, 65536),
	      "CRC of block 0");
	aifs_reply_free(&reply);
}

static void test_bad_requests(void)
{
	struct aifs_chunk_read_req req = { .length = cpu_to_le32(10) };
	struct aifs_reply reply;
	int err;

	err = ds_write(&ds_procs[0], INO, 0, DS_TEST_CHUNK - 10, buf, 20, NULL,
		       0, NULL);
	CHECK(err == -EINVAL, "write past the chunk size: %d", err);
	ds_chunk_id(&req.id, INO, 0);
	req.id.fs_uuid[0] ^= 1;
	err = ds_request(&ds_procs[0], AIFS_OP_CHUNK_READ, &req, sizeof(req),
			 &reply);
	CHECK(!err && reply.status == EXDEV, "another fs: %d %u", err,
	      reply.status);
	err = ds_request(&ds_procs[0], AIFS_OP_CHUNK_READ, &req, 10, &reply);
	CHECK(!err && reply.status == EBADMSG, "short request: %d %u", err,
	      reply.status);
}

static u64 ds_chunks(void)
{
	struct aifs_statfs_rep rep;
	struct aifs_reply reply;
	int err;

	err = ds_request(&ds_procs[0], AIFS_OP_DS_STATFS, NULL, 0, &reply);
	CHECK(!err && !reply.status, "statfs: %d %u", err, reply.status);
	err = aifs_decode_ds_statfs_rep(reply.payload, reply.len, &rep, NULL);
	CHECK(!err && le64_to_cpu(rep.total_bytes) &&
	      le32_to_cpu(rep.bsize) == 65536, "statfs reply: %d", err);
	aifs_reply_free(&reply);
	return le64_to_cpu(rep.files);
}

static int ds_delete(u64 ino, u32 index, u32 flags)
{
	struct aifs_chunk_delete_req req = { .flags = cpu_to_le32(flags) };
	struct aifs_reply reply;
	int err;

	ds_chunk_id(&req.id, ino, index);
	err = ds_request(&ds_procs[0], AIFS_OP_CHUNK_DELETE, &req, sizeof(req),
			 &reply);
	err = err ? err : -(int)reply.status;
	aifs_reply_free(&reply);
	return err;
}

static void test_delete_and_statfs(void)
{
	u64 before = ds_chunks();
	u32 got;
	int err;

	CHECK(before == 5, "%llu chunks, want 5", (unsigned long long)before);
	err = ds_delete(INO + 3, 0, 0);
	CHECK(!err && ds_chunks() == before - 1, "delete one: %d", err);
	err = ds_delete(INO + 3, 0, 0);
	CHECK(!err, "delete again: %d", err);
	err = ds_delete(INO, 1, AIFS_DELETE_FROM);
	CHECK(!err && ds_chunks() == before - 3, "delete from 1: %d", err);
	err = ds_read(&ds_procs[0], INO, 0, 0, 10, 0, buf, &got, NULL);
	CHECK(!err, "chunk 0 stays: %d", err);
	err = ds_delete(INO, 0, AIFS_DELETE_INODE);
	CHECK(!err && ds_chunks() == before - 4, "delete inode: %d", err);
	err = ds_read(&ds_procs[0], INO, 0, 0, 10, 0, buf, &got, NULL);
	CHECK(err == -ENOENT, "deleted chunk: %d", err);
}

static void test_restart(void)
{
	u32 got;
	int err;

	ds_stop(&ds_procs[0], SIGTERM);
	ds_start(&ds_procs[0]);
	err = ds_read(&ds_procs[0], INO + 1, 0, 512 << 10, 4, 0, buf, &got,
		      NULL);
	ds_fill(buf + 100, 4, 7);
	CHECK(!err && got == 4 && !memcmp(buf, buf + 100, 4),
	      "after restart: %d", err);
	CHECK(ds_chunks() == 1, "chunks counted at start");
}

int main(void)
{
	ds_setup(1, NULL);
	test_read_after_write();
	test_sparse_and_length();
	test_truncate();
	test_checksum();
	test_bad_requests();
	test_delete_and_statfs();
	test_restart();
	return test_result();
}
