// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Three aifs-ds, replicas=3 with ds 1 the primary: every write lands on
 * all three with one version; kill -9 of a replica in the middle of a
 * stream of writes (some before it, a chunk's worth after) leaves every
 * write acknowledged and the survivors identical; the returning replica
 * answers ESTALE to a read that wants the newest version, then resyncs
 * from the primary (on that read and on the next forward) and serves the
 * same bytes.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

#include "ds-harness.h"

#define INO		0x77
#define PIECE		(64U << 10)
#define PIECES		(DS_TEST_CHUNK / PIECE)
#define WAIT_MS		30000
/* the primary leaves a dead replica alone this long (ds-harness.c) */
#define PEER_RETRY_MS	200

static const u32 replicas[] = { 2, 3 };
static u8 image[DS_TEST_CHUNK], buf[DS_TEST_CHUNK];
static u64 last_version;

static void check_copy(struct ds_proc *p, u64 min_version, const char *what)
{
	u64 version = 0;
	u32 got = 0;
	int err;

	err = ds_read(p, INO, 0, 0, DS_TEST_CHUNK, min_version, buf, &got,
		      &version);
	CHECK(!err && got == DS_TEST_CHUNK && !memcmp(buf, image, got) &&
	      version == last_version,
	      "%s: ds %d: err %d, %u bytes, version %llu of %llu, %s", what,
	      p->id, err, got, (unsigned long long)version,
	      (unsigned long long)last_version,
	      memcmp(buf, image, got) ? "differs" : "same");
}

static void test_replicated_write(void)
{
	int i, err;

	ds_fill(image, DS_TEST_CHUNK, 1);
	err = ds_write(&ds_procs[0], INO, 0, 0, image, DS_TEST_CHUNK,
		       replicas, 2, &last_version);
	CHECK(!err && last_version == 1, "write: %d", err);
	for (i = 0; i < 3; i++)
		check_copy(&ds_procs[i], last_version, "replicated");
}

static volatile int written, killed_at = -1;

/*
 * Overwrite the chunk piece by piece, each acknowledged by all live
 * copies, until a chunk's worth of pieces went after the kill.
 */
static void *writer(void *arg)
{
	u64 version;
	int err;

	(void)arg;
	for (written = 0; killed_at < 0 || written < killed_at + (int)PIECES;
	     written++) {
		u32 off = written % PIECES * PIECE;

		ds_fill(image + off, PIECE, 100 + written);
		err = ds_write(&ds_procs[0], INO, 0, off, image + off, PIECE,
			       replicas, 2, &version);
		CHECK(!err, "write %d during the kill: %d", written, err);
		if (!err)
			last_version = version;
		test_sleep_ms(5);
	}
	return NULL;
}

static void test_kill_replica(void)
{
	u64 until = aifs_now_ms() + WAIT_MS;
	pthread_t t;

	pthread_create(&t, NULL, writer, NULL);
	while (written < (int)PIECES / 2 && aifs_now_ms() < until)
		test_sleep_ms(25);
	CHECK(written >= (int)PIECES / 2, "only %d writes before the kill",
	      written);
	ds_stop(&ds_procs[2], SIGKILL);
	killed_at = written;
	pthread_join(t, NULL);
	check_copy(&ds_procs[0], last_version, "primary after the kill");
	check_copy(&ds_procs[1], last_version, "survivor after the kill");
}

/*
 * Poll until @p serves the newest version again (bounded).  A read that
 * asks for that version (@ask) resyncs a copy found behind by itself; one
 * that does not (@ask false) leaves the resync to what else found it.
 */
static void wait_resynced(struct ds_proc *p, bool ask, const char *what)
{
	u64 until = aifs_now_ms() + WAIT_MS, version = 0;
	u32 got;
	int err;

	while (((err = ds_read(p, INO, 0, 0, 1, ask ? last_version : 0, buf,
			       &got, &version)) || version != last_version) &&
	       aifs_now_ms() < until)
		test_sleep_ms(25);
	CHECK(!err && version == last_version,
	      "%s: ds %d not resynced: %d, version %llu of %llu", what, p->id,
	      err, (unsigned long long)version,
	      (unsigned long long)last_version);
	check_copy(p, last_version, what);
}

static void test_return_and_resync(void)
{
	u64 skipped;
	u32 got;
	int err;

	ds_start(&ds_procs[2]);
	err = ds_read(&ds_procs[2], INO, 0, 0, 10, last_version, buf, &got,
		      NULL);
	CHECK(err == -ESTALE, "stale replica serves: %d", err);
	wait_resynced(&ds_procs[2], true, "resynced on a read");

	/* Missed writes found by the next forward. */
	ds_stop(&ds_procs[2], SIGKILL);
	ds_fill(image, PIECE, 7);
	err = ds_write(&ds_procs[0], INO, 0, 0, image, PIECE, replicas, 2,
		       &last_version);
	CHECK(!err, "write with a replica down: %d", err);
	/* that write counted it dead for PEER_RETRY_MS: past it, it is tried */
	skipped = aifs_now_ms();
	ds_start(&ds_procs[2]);
	while (aifs_now_ms() < skipped + 2 * PEER_RETRY_MS)
		test_sleep_ms(25);
	ds_fill(image + PIECE, PIECE, 8);
	err = ds_write(&ds_procs[0], INO, 0, PIECE, image + PIECE, PIECE,
		       replicas, 2, &last_version);
	CHECK(!err, "write to a stale replica: %d", err);
	wait_resynced(&ds_procs[2], false, "resynced on a forward");
	check_copy(&ds_procs[1], last_version, "survivor at the end");
}

int main(void)
{
	ds_setup(3, NULL);
	test_replicated_write();
	test_kill_replica();
	test_return_and_resync();
	return test_result();
}
