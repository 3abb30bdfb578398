// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A full disk: aifs-ds on an 8 MiB tmpfs takes chunks until ENOSPC; the
 * write that does not fit fails cleanly (ENOSPC, nothing of it kept: a new
 * chunk is absent, an existing one unchanged), everything acknowledged
 * before reads back intact, and deleting a chunk makes room again.
 * Needs root for the mount: skipped (77) without it, the last line
 * saying why.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <unistd.h>

#include "ds-harness.h"

#define INO		0x55
#define MAX_CHUNKS	16	/* 8 MiB of tmpfs holds fewer */

static u8 data[DS_TEST_CHUNK], buf[DS_TEST_CHUNK];
static char mnt[128];

static void unmount(void)
{
	if (mnt[0])
		umount2(mnt, MNT_DETACH);
}

static bool intact(u32 index)
{
	u32 got = 0;

	ds_fill(data, DS_TEST_CHUNK, index);
	return !ds_read(&ds_procs[0], INO, index, 0, DS_TEST_CHUNK, 0, buf,
			&got, NULL) && got == DS_TEST_CHUNK &&
	       !memcmp(buf, data, got);
}

static void delete_chunk(u32 index)
{
	struct aifs_chunk_delete_req req = { 0 };
	struct aifs_reply reply;
	int err;

	ds_chunk_id(&req.id, INO, index);
	err = ds_request(&ds_procs[0], AIFS_OP_CHUNK_DELETE, &req, sizeof(req),
			 &reply);
	CHECK(!err && !reply.status, "delete: %d %u", err, reply.status);
}

int main(void)
{
	u32 got, i, full = 0;
	int err = 0;

	if (geteuid()) {
		printf("skipped: mounting the 8 MiB tmpfs needs root (euid %u)\n",
		       geteuid());
		return 77;
	}
	ds_setup(1, NULL);
	ds_stop(&ds_procs[0], SIGTERM);
	snprintf(mnt, sizeof(mnt), "%s/data", ds_procs[0].srv.dir);
	if (mount("tmpfs", mnt, "tmpfs", 0, "size=8m")) {
		printf("skipped: cannot mount a tmpfs on %s: %s\n", mnt,
		       strerror(errno));
		return 77;
	}
	atexit(unmount);
	ds_start(&ds_procs[0]);	/* formats the empty tmpfs */

	for (i = 0; i < MAX_CHUNKS && !err; i++) {
		ds_fill(data, DS_TEST_CHUNK, i);
		err = ds_write(&ds_procs[0], INO, i, 0, data, DS_TEST_CHUNK,
			       NULL, 0, NULL);
		full = i;
	}
	CHECK(err == -ENOSPC, "writing %u chunks to 8 MiB: %d", i, err);
	err = ds_read(&ds_procs[0], INO, full, 0, 10, 0, buf, &got, NULL);
	CHECK(err == -ENOENT, "the chunk that did not fit exists: %d", err);
	for (i = 0; i < full; i++)
		CHECK(intact(i), "chunk %u after ENOSPC", i);

	/* Overwriting a block of a full chunk: done or refused, never torn. */
	ds_fill(data, DS_TEST_CHUNK, 1000);
	err = ds_write(&ds_procs[0], INO, 0, 0, data, 65536, NULL, 0, NULL);
	CHECK(!err || err == -ENOSPC, "overwrite when full: %d", err);
	if (err) {
		CHECK(intact(0), "chunk 0 after a refused overwrite");
	} else {
		got = 0;
		err = ds_read(&ds_procs[0], INO, 0, 0, DS_TEST_CHUNK, 0, buf,
			      &got, NULL);
		CHECK(!err && got == DS_TEST_CHUNK &&
		      !memcmp(buf, data, 65536),
		      "chunk 0 after an acknowledged overwrite: %d, %u bytes",
		      err, got);
		ds_fill(data, DS_TEST_CHUNK, 0);
		CHECK(!memcmp(buf + 65536, data + 65536,
			      DS_TEST_CHUNK - 65536),
		      "an overwrite of 64 KiB changed the rest of chunk 0");
	}

	err = ds_write(&ds_procs[0], INO, 1, 0, data, 1, NULL, 0, NULL);
	CHECK(!err || err == -ENOSPC, "small write when full: %d", err);
	delete_chunk(full - 1);
	ds_fill(data, DS_TEST_CHUNK, full);
	err = ds_write(&ds_procs[0], INO, full, 0, data, DS_TEST_CHUNK, NULL,
		       0, NULL);
	CHECK(!err, "write after delete made room: %d", err);
	ds_stop(&ds_procs[0], SIGTERM);
	return test_result();
}
