// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Scrub: a byte flipped in a chunk nobody reads is found by a pass that
 * DS_SCRUB starts, the chunk is repaired from its peer (same bytes, same
 * CRCs), and the tally says so; a second pass finds nothing. FAIL_SET is
 * refused by a server without fault_injection.
 */
#include <stdlib.h>

#include "ds-harness.h"

#define INO		0x5c
#define NR_CHUNKS	3
#define LEN		(300U << 10)
#define WAIT_STEPS	400	/* of 25 ms: 10 s */

static u8 image[NR_CHUNKS][LEN], buf[LEN];

#define FIELD(rep, f)	((unsigned long long)le64_to_cpu((rep).f))

/* Start a pass on @p and wait for it to end: its reply then. */
static void scrub_pass(struct ds_proc *p, u64 pass,
		       struct aifs_ds_scrub_rep *rep)
{
	int i, err;

	err = ds_scrub(p, AIFS_SCRUB_START, rep);
	CHECK(!err && le32_to_cpu(rep->running), "start: %d, running %u", err,
	      le32_to_cpu(rep->running));
	for (i = 0; i < WAIT_STEPS; i++) {
		err = ds_scrub(p, 0, rep);
		if (err || FIELD(*rep, passes) >= pass)
			break;
		test_sleep_ms(25);
	}
	CHECK(!err && FIELD(*rep, passes) == pass && !le32_to_cpu(rep->running),
	      "pass %llu did not end: %d, passes %llu", (unsigned long long)pass,
	      err, FIELD(*rep, passes));
	CHECK(FIELD(*rep, pass_chunks) == NR_CHUNKS &&
	      FIELD(*rep, pass_total) == NR_CHUNKS,
	      "pass %llu verified %llu of %llu chunks", (unsigned long long)pass,
	      FIELD(*rep, pass_chunks), FIELD(*rep, pass_total));
}

static int read_chunk(struct ds_proc *p, u32 index)
{
	u32 got = 0;
	int err;

	err = ds_read(p, INO, index, 0, LEN, 0, buf, &got, NULL);
	return err ? err : got == LEN && !memcmp(buf, image[index], LEN) ?
			    0 : -EILSEQ;
}

int main(void)
{
	static const u32 replica = 2;
	struct aifs_ds_scrub_rep rep;
	struct aifs_reply reply;
	u32 i;
	int err;

	ds_setup(2, "scrub_rate_mib = 64\nscrub_interval_s = 100000\n");
	for (i = 0; i < NR_CHUNKS; i++) {
		ds_fill(image[i], LEN, 11 + i);
		err = ds_write(&ds_procs[0], INO, i, 0, image[i], LEN,
			       &replica, 1, NULL);
		CHECK(!err, "write of chunk %u: %d", i, err);
	}
	err = ds_scrub(&ds_procs[1], 0, &rep);
	CHECK(!err && !le32_to_cpu(rep.running) && !FIELD(rep, passes) &&
	      le32_to_cpu(rep.rate_mib) == 64,
	      "before any pass: %d, running %u, passes %llu", err,
	      le32_to_cpu(rep.running), FIELD(rep, passes));

	/* chunk 1's second block, on the replica, which nobody reads */
	ds_flip_byte(&ds_procs[1], INO, 1, AIFS_BLOCK_SIZE + 1234);
	scrub_pass(&ds_procs[1], 1, &rep);
	CHECK(FIELD(rep, bad) == 1, "first pass found %llu damaged chunks",
	      FIELD(rep, bad));
	/* the damaged chunk is not counted as verified */
	CHECK(FIELD(rep, bytes) == (NR_CHUNKS - 1) * (u64)LEN,
	      "verified %llu bytes", FIELD(rep, bytes));
	for (i = 0; i < WAIT_STEPS; i++) {
		err = ds_scrub(&ds_procs[1], 0, &rep);
		if (err || FIELD(rep, resynced) >= 1)
			break;
		test_sleep_ms(25);
	}
	CHECK(!err && FIELD(rep, resynced) == 1 && !FIELD(rep, resync_failed),
	      "repair: %d, resynced %llu, failed %llu", err,
	      FIELD(rep, resynced), FIELD(rep, resync_failed));
	for (i = 0; i < NR_CHUNKS; i++)
		CHECK(!read_chunk(&ds_procs[1], i), "chunk %u after repair", i);

	scrub_pass(&ds_procs[1], 2, &rep);
	CHECK(FIELD(rep, bad) == 1 && FIELD(rep, chunks) == 2 * NR_CHUNKS,
	      "second pass: bad %llu, chunks %llu", FIELD(rep, bad),
	      FIELD(rep, chunks));

	err = ds_request(&ds_procs[0], AIFS_OP_FAIL_SET, "reply.drop", 10,
			 &reply);
	CHECK(!err && reply.status == EOPNOTSUPP,
	      "FAIL_SET without fault_injection: %d, status %u", err,
	      reply.status);
	aifs_reply_free(&reply);
	return test_result();
}
