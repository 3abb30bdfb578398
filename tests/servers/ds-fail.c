// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Fault injection points of the servers (aifs/fail.h), armed by FAIL_SET
 * and by AIFS_FAIL: a write failing with the errno asked for, a read
 * failing after one that passes, a reply dropped, a bad spec refused
 * whole, and a crash between a write's commit and its acknowledgement,
 * after which the restarted server (and its replica) hold the write.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "ds-harness.h"

#define INO	0xfa
#define LEN	(100U << 10)

static u8 image[LEN], buf[LEN];
static const u32 replica = 2;

static int fail_set(struct ds_proc *p, const char *spec)
{
	struct aifs_reply reply;
	int err;

	err = ds_request(p, AIFS_OP_FAIL_SET, spec, strlen(spec), &reply);
	if (!err)
		err = -(int)reply.status;
	aifs_reply_free(&reply);
	return err;
}

static int write_chunk(u32 index, u64 *version)
{
	return ds_write(&ds_procs[0], INO, index, 0, image, LEN, &replica, 1,
			version);
}

static int read_chunk(struct ds_proc *p, u32 index)
{
	u32 got = 0;
	int err;

	err = ds_read(p, INO, index, 0, LEN, 0, buf, &got, NULL);
	return err ? err : got == LEN && !memcmp(buf, image, LEN) ? 0 : -EILSEQ;
}

static void errors(void)
{
	EXPECT(fail_set(&ds_procs[0], "ds.write.error:value=28"), 0);
	EXPECT(write_chunk(0, NULL), -ENOSPC);
	EXPECT(write_chunk(0, NULL), 0);	/* times=1: disarmed */

	EXPECT(fail_set(&ds_procs[0], "ds.read.error:after=1:times=2"), 0);
	EXPECT(read_chunk(&ds_procs[0], 0), 0);
	EXPECT(read_chunk(&ds_procs[0], 0), -EIO);
	EXPECT(read_chunk(&ds_procs[0], 0), -EIO);
	EXPECT(read_chunk(&ds_procs[0], 0), 0);

	/* refused whole: the good first item is not armed either */
	EXPECT(fail_set(&ds_procs[0], "ds.write.error,no.such.point"), -EINVAL);
	EXPECT(fail_set(&ds_procs[0], "ds.write.error:times=x"), -EINVAL);
	EXPECT(fail_set(&ds_procs[0], "ds.write.error:color=1"), -EINVAL);
	EXPECT(write_chunk(0, NULL), 0);

	EXPECT(fail_set(&ds_procs[0], "ds.read.error:times=0"), 0);
	EXPECT(read_chunk(&ds_procs[0], 0), -EIO);
	EXPECT(read_chunk(&ds_procs[0], 0), -EIO);
	EXPECT(fail_set(&ds_procs[0], "ds.read.error:off"), 0);
	EXPECT(read_chunk(&ds_procs[0], 0), 0);
}

/* The reply to a CHUNK_READ is dropped; the connection goes on. */
static void dropped_reply(void)
{
	struct aifs_chunk_read_req req = { .length = cpu_to_le32(LEN) };
	struct iovec iov = { &req, sizeof(req) };
	struct aifs_reply reply = { 0 };
	int err;

	EXPECT(fail_set(&ds_procs[0], "reply.drop:opcode=64"), 0);
	ds_chunk_id(&req.id, INO, 0);
	err = aifs_call(ds_procs[0].conn, AIFS_OP_CHUNK_READ, &iov, 1, &reply,
			1000);
	CHECK(err == -ETIMEDOUT, "read with its reply dropped: %d", err);
	aifs_reply_free(&reply);
	aifs_close(ds_procs[0].conn);
	ds_procs[0].conn = NULL;
	EXPECT(read_chunk(&ds_procs[0], 0), 0);
}

/*
 * Dies once the write is durable here and on the replica, before it is
 * acknowledged: the client sees the connection go, the data is there.
 */
static void crash_before_ack(void)
{
	u64 version = 0;
	u32 got = 0;
	int status;

	ds_fill(image, LEN, 77);
	EXPECT(fail_set(&ds_procs[0], "ds.write.crash"), 0);
	CHECK(write_chunk(1, NULL) < 0, "the crashed write was acknowledged");
	status = test_server_signal(&ds_procs[0].srv, 0, 10000);
	CHECK(status == 128 + SIGKILL,
	      "ds 1 ended with status %#x, not by SIGKILL", status);
	aifs_close(ds_procs[0].conn);
	ds_procs[0].conn = NULL;
	ds_start(&ds_procs[0]);
	EXPECT(read_chunk(&ds_procs[0], 1), 0);
	EXPECT(read_chunk(&ds_procs[1], 1), 0);
	EXPECT(ds_read(&ds_procs[0], INO, 1, 0, 1, 0, buf, &got, &version), 0);
	CHECK(version == 1, "version %llu after the crash",
	      (unsigned long long)version);
}

/* AIFS_FAIL arms points from the start. */
static void from_env(void)
{
	ds_stop(&ds_procs[1], SIGTERM);
	setenv("AIFS_FAIL", "ds.read.error:value=5", 1);
	ds_start(&ds_procs[1]);
	unsetenv("AIFS_FAIL");
	EXPECT(read_chunk(&ds_procs[1], 1), -EIO);
	EXPECT(read_chunk(&ds_procs[1], 1), 0);
}

int main(void)
{
	ds_setup(2, "fault_injection = yes\n");
	ds_fill(image, LEN, 3);
	EXPECT(write_chunk(0, NULL), 0);
	errors();
	dropped_reply();
	crash_before_ack();
	from_env();
	return test_result();
}
