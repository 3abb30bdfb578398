// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * End-to-end integrity: a byte flipped on the disk of a replica, then of
 * the primary, is an EIO for that copy on the next read, and the copy is
 * repaired from its peer (the same bytes and CRCs as the good copy).
 */
#include <stdlib.h>

#include "ds-harness.h"

#define INO		0x99
#define LEN		(300U << 10)
#define WAIT_STEPS	400	/* of 25 ms: 10 s */

static u8 image[LEN], buf[LEN];

static int read_all(struct ds_proc *p)
{
	u32 got = 0;
	int err;

	err = ds_read(p, INO, 0, 0, LEN, 0, buf, &got, NULL);
	return err ? err : got == LEN && !memcmp(buf, image, LEN) ? 0 : -EILSEQ;
}

static void checksums(struct ds_proc *p, u32 *crcs)
{
	struct aifs_chunk_checksum_req req = { .nr_blocks = cpu_to_le32(16) };
	struct aifs_span parts[AIFS_MSG_MAX_PARTS];
	struct aifs_chunk_checksum_rep rep;
	struct aifs_reply reply;
	u32 i;

	ds_chunk_id(&req.id, INO, 0);
	memset(crcs, 0, 16 * 4);
	if (ds_request(p, AIFS_OP_CHUNK_CHECKSUM, &req, sizeof(req), &reply) ||
	    reply.status ||
	    aifs_decode_chunk_checksum_rep(reply.payload, reply.len, &rep,
					   parts)) {
		CHECK(0, "checksums of ds %d", p->id);
		return;
	}
	for (i = 0; i < le32_to_cpu(rep.count) && i < 16; i++)
		crcs[i] = aifs_span_le32(&parts[0], i);
	aifs_reply_free(&reply);
}

static void flip_and_repair(struct ds_proc *bad, struct ds_proc *good,
			    off_t off)
{
	u32 crcs_bad[16], crcs_good[16];
	int i, err;

	ds_flip_byte(bad, INO, 0, off);
	err = read_all(bad);
	CHECK(err == -EIO || err == -ESTALE, "flipped byte at %lld on ds %d: %d",
	      (long long)off, bad->id, err);
	CHECK(!read_all(good), "good copy on ds %d", good->id);
	for (i = 0; i < WAIT_STEPS && (err = read_all(bad)); i++)
		test_sleep_ms(25);
	CHECK(!err, "ds %d not repaired: %d", bad->id, err);
	checksums(bad, crcs_bad);
	checksums(good, crcs_good);
	CHECK(!memcmp(crcs_bad, crcs_good, sizeof(crcs_bad)),
	      "CRCs differ after the repair");
}

int main(void)
{
	static const u32 replica = 2;
	int err;

	ds_setup(2, NULL);
	ds_fill(image, LEN, 5);
	err = ds_write(&ds_procs[0], INO, 0, 0, image, LEN, &replica, 1, NULL);
	CHECK(!err, "write: %d", err);
	flip_and_repair(&ds_procs[1], &ds_procs[0], 70000);
	flip_and_repair(&ds_procs[0], &ds_procs[1], LEN - 1);
	return test_result();
}
