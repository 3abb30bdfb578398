// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Three aifs-ds, replicas=3 with ds 1 the primary: CHUNK_WRITE with
 * AIFS_IO_ZERO (a punched hole) inside a block, across a block boundary,
 * over whole blocks with partial edges, over aligned blocks and past the
 * chunk's stored length zeroes the range on every copy with one version,
 * keeps the chunk's length, leaves holes in the data files and CRCs that
 * reads verify; zeros of an absent chunk create nothing; a replica that
 * missed a punch resyncs to it; malformed zero requests are EINVAL.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ds-harness.h"

#define INO		0x99
#define BLK		(64U << 10)
#define TAIL_LEN	300000U		/* stored length of chunk 1 */
#define WAIT_STEPS	400		/* of 25 ms: 10 s */

static const u32 replicas[] = { 2, 3 };
static u8 image[2][DS_TEST_CHUNK], buf[DS_TEST_CHUNK];
static const u32 stored[2] = { DS_TEST_CHUNK, TAIL_LEN };
static u64 version[2];

/* Every copy holds image[@index], at version[@index], with its length. */
static void check_copies(u32 index, const char *what)
{
	u64 v = 0;
	u32 got = 0;
	int i, err;

	for (i = 0; i < 3; i++) {
		err = ds_read(&ds_procs[i], INO, index, 0, DS_TEST_CHUNK,
			      version[index], buf, &got, &v);
		CHECK(!err && got == stored[index] &&
		      !memcmp(buf, image[index], got) && v == version[index],
		      "%s: ds %d chunk %u: err %d, %u bytes of %u, version %llu of %llu, %s",
		      what, ds_procs[i].id, index, err, got, stored[index],
		      (unsigned long long)v,
		      (unsigned long long)version[index],
		      memcmp(buf, image[index], got) ? "differs" : "same");
	}
}

/* Punch through the primary; the image follows. */
static void punch_only(u32 index, u32 off, u32 len, const char *what)
{
	u64 v = 0;
	u32 end = off + len < stored[index] ? off + len : stored[index];
	int err;

	err = ds_zero(&ds_procs[0], INO, index, off, len, replicas, 2, &v);
	CHECK(!err && v == version[index] + 1, "%s: %d, version %llu after %llu",
	      what, err, (unsigned long long)v,
	      (unsigned long long)version[index]);
	version[index] = v;
	if (off < end)
		memset(image[index] + off, 0, end - off);
}

static void punch(u32 index, u32 off, u32 len, const char *what)
{
	punch_only(index, off, len, what);
	check_copies(index, what);
}

/* Whole blocks punched are holes in the data file of every copy. */
static void check_hole(u32 index, u32 off)
{
	char path[4096];
	off_t hole;
	int i, fd;

	for (i = 0; i < 3; i++) {
		CHECK(!ds_chunk_file(&ds_procs[i], INO, index, path,
				     sizeof(path)), "ds %d: no chunk file",
		      ds_procs[i].id);
		fd = open(path, O_RDONLY);
		hole = fd < 0 ? -1 : lseek(fd, off, SEEK_HOLE);
		CHECK(hole == off, "ds %d: hole at %u: %lld", ds_procs[i].id,
		      off, (long long)hole);
		if (fd >= 0)
			close(fd);
	}
}

static void test_punch(void)
{
	u32 i;
	int err;

	for (i = 0; i < 2; i++) {
		ds_fill(image[i], stored[i], i + 1);
		err = ds_write(&ds_procs[0], INO, i, 0, image[i], stored[i],
			       replicas, 2, &version[i]);
		CHECK(!err, "write chunk %u: %d", i, err);
	}
	check_copies(0, "written");
	punch(0, 100, 100, "inside a block");
	punch(0, BLK - 10, 30, "across a block boundary");
	punch(0, 3 * BLK - 5000, 4 * BLK + 5123, "whole blocks, partial edges");
	punch(0, 8 * BLK, 2 * BLK, "aligned blocks");
	check_hole(0, 8 * BLK);
	check_hole(0, 4 * BLK);
	punch(0, DS_TEST_CHUNK - BLK - 1, BLK + 1, "to the chunk's end");
	punch(1, 250000, DS_TEST_CHUNK - 250000, "past the stored length");
	punch(1, TAIL_LEN + 10, 100, "wholly past the stored length");
	punch(1, 4 * BLK, TAIL_LEN - 4 * BLK, "up to the stored length");
	check_hole(1, 4 * BLK);
}

/*
 * A 4 KiB write into a hole allocates its page, not its 64 KiB block:
 * the rest of the block stays a hole (a sparse file on a data server
 * takes what a local file system's would). Before 2026-12-04 the block
 * was written whole, zeros and all.
 */
static void check_sparse(u32 index, u32 off, u32 pages, const char *what)
{
	char path[4096];
	struct stat st;
	int i;

	for (i = 0; i < 3; i++) {
		CHECK(!ds_chunk_file(&ds_procs[i], INO, index, path,
				     sizeof(path)) && !stat(path, &st),
		      "ds %d: no chunk file", ds_procs[i].id);
		CHECK((u64)st.st_blocks * 512 <= (u64)pages * 4096 + 4096,
		      "%s: ds %d: %llu bytes allocated for %u pages written",
		      what, ds_procs[i].id,
		      (unsigned long long)st.st_blocks * 512, pages);
	}
	check_hole(index, off);
}

static void test_sparse_write(void)
{
	static u8 page[2][4096];
	u8 want[DS_TEST_CHUNK] = { 0 };
	u32 got, off = 5 * BLK;
	u64 v = 0;
	int i, err;

	ds_fill(page[0], sizeof(page[0]), 5);
	ds_fill(page[1], sizeof(page[1]), 6);
	err = ds_write(&ds_procs[0], INO, 2, off + 8192, page[0], 4096,
		       replicas, 2, &v);
	CHECK(!err, "a page into a hole: %d", err);
	check_sparse(2, off, 1, "a page into a hole");
	err = ds_write(&ds_procs[0], INO, 2, off + BLK - 4096, page[1], 4096,
		       replicas, 2, &v);
	CHECK(!err, "another page of the block: %d", err);
	check_sparse(2, off, 2, "another page of the block");
	memcpy(want + off + 8192, page[0], 4096);
	memcpy(want + off + BLK - 4096, page[1], 4096);
	for (i = 0; i < 3; i++) {
		err = ds_read(&ds_procs[i], INO, 2, 0, off + BLK, v, buf, &got,
			      NULL);
		CHECK(!err && got == off + BLK && !memcmp(buf, want, got),
		      "ds %d: the sparse chunk reads %d, %u bytes, %s",
		      ds_procs[i].id, err, got,
		      memcmp(buf, want, got) ? "differs" : "same");
	}
}

static void test_absent(void)
{
	u64 v = 1;
	u32 got;
	int i, err;

	err = ds_zero(&ds_procs[0], INO, 7, 0, DS_TEST_CHUNK, replicas, 2, &v);
	CHECK(!err && v == 0, "zeros of an absent chunk: %d, version %llu",
	      err, (unsigned long long)v);
	for (i = 0; i < 3; i++) {
		err = ds_read(&ds_procs[i], INO, 7, 0, 10, 0, buf, &got, NULL);
		CHECK(err == -ENOENT, "ds %d: chunk created: %d",
		      ds_procs[i].id, err);
	}
}

/* Poll until @p serves the chunk's newest version again (bounded). */
static void wait_resynced(struct ds_proc *p, u32 index)
{
	u32 got;
	int i, err = -1;

	for (i = 0; i < WAIT_STEPS && err; i++) {
		err = ds_read(p, INO, index, 0, 1, version[index], buf, &got,
			      NULL);
		if (err)
			test_sleep_ms(25);
	}
	CHECK(!err, "ds %d not resynced: %d", p->id, err);
}

static void test_missed_punch(void)
{
	ds_stop(&ds_procs[2], SIGKILL);
	punch_only(1, 0, BLK + 7, "with a replica dead");
	ds_start(&ds_procs[2]);
	/* the next punch finds the gap: ESTALE, then a resync */
	punch_only(1, 2 * BLK, 10, "after the replica's return");
	wait_resynced(&ds_procs[2], 1);
	check_copies(1, "resynced");
}

/* A zero request built by hand, past the encoder's checks. */
static void bad_zero(u32 flags, u32 offset, u32 len, u32 rkey, u32 data_len,
		     const char *what)
{
	struct {
		struct aifs_chunk_write_req req;
		u8 data[16];
	} m = {
		.req = {
			.offset = cpu_to_le32(offset),
			.data_len = cpu_to_le32(data_len),
			.flags = cpu_to_le32(flags),
			.chunk_size = cpu_to_le32(DS_TEST_CHUNK),
			.rdma.len = cpu_to_le32(len),
			.rdma.rkey = cpu_to_le32(rkey),
		},
	};
	struct aifs_reply reply;
	int err;

	ds_chunk_id(&m.req.id, INO, 0);
	err = ds_request(&ds_procs[0], AIFS_OP_CHUNK_WRITE, &m,
			 sizeof(m.req) + data_len, &reply);
	CHECK(!err && reply.status == EINVAL, "%s: %d, status %u", what, err,
	      reply.status);
	aifs_reply_free(&reply);
}

static void test_bad_requests(void)
{
	bad_zero(AIFS_IO_ZERO, DS_TEST_CHUNK - 10, 11, 0, 0, "past the chunk");
	bad_zero(AIFS_IO_ZERO, 0xffffffff, 2, 0, 0, "offset + length wraps");
	bad_zero(AIFS_IO_ZERO, 0, 0, 0, 0, "no length");
	bad_zero(AIFS_IO_ZERO, 0, 10, 0, 16, "with data");
	bad_zero(AIFS_IO_ZERO, 0, 10, 5, 0, "with an rkey");
	bad_zero(AIFS_IO_ZERO | AIFS_IO_RDMA, 0, 10, 0, 0, "with RDMA");
	/* nothing of it happened */
	check_copies(0, "after the bad requests");
}

int main(void)
{
	ds_setup(3, NULL);
	test_punch();
	test_sparse_write();
	test_absent();
	test_missed_punch();
	test_bad_requests();
	return test_result();
}
