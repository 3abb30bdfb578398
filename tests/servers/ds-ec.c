// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Six aifs-ds holding one 4+2 stripe of 1 MiB fragments (fragment f on
 * ds f + 1), led by ds 1: a full-stripe EC_WRITE stores the data
 * fragments as written and the parity the code gives (computed here with
 * the codec itself); partial writes (one fragment's middle, and across two
 * fragments) keep every fragment and the parity in step with a model of
 * the stripe; each data fragment reads back straight from its server;
 * EC_READ decodes a fragment whose server is dead, with one and with two
 * (M) servers dead, and answers EIO with three; a write while a data
 * server is dead decodes what it needs and is read back decoded; a stripe
 * never written is a hole (ENOENT); a parity fragment decodes too (a
 * member rebuilding its own asks so); requests that make no sense are
 * refused (EINVAL), a CHUNK_WRITE of a fragment straight to its server
 * too (only the leader writes fragments: a client could tear a stripe).
 */
#include <signal.h>
#include <stdlib.h>

#include "aifs/ec.h"
#include "ds-harness.h"

#define INO		0x5ec
#define K		4
#define M		2
#define WIDTH		(K + M)
#define CHUNK		DS_TEST_CHUNK
#define STRIPE		(K * CHUNK)

static u8 model[WIDTH][CHUNK];	/* what every fragment should hold */
static u8 buf[CHUNK];

static void group(struct aifs_ec_group *g)
{
	int f;

	memset(g, 0, sizeof(*g));
	g->chunk_size = cpu_to_le32(CHUNK);
	g->k = K;
	g->m = M;
	for (f = 0; f < WIDTH; f++)
		g->members[f] = cpu_to_le32(ds_procs[f].id);
}

static int ec_write(struct ds_proc *leader, u32 stripe, u32 off,
		    const void *data, u32 len)
{
	struct aifs_ec_group g;

	group(&g);
	return ds_ec_write(leader, INO, stripe, &g, off, data, len);
}

/* Fragment @frag's @len bytes at @off into buf, by @op; -errno. */
static int frag_read(struct ds_proc *p, u16 op, u32 stripe, u32 frag,
		     u32 off, u32 len)
{
	struct aifs_ec_group g;

	group(&g);
	return ds_frag_read(p, op, INO, stripe, frag, &g, off, len, buf);
}

/* The model's parity, from its data, by the codec. */
static void model_encode(void)
{
	char *frags[WIDTH];
	int f;

	for (f = 0; f < WIDTH; f++)
		frags[f] = (char *)model[f];
	aifs_ec_encode(aifs_ec_get(K, M), frags, CHUNK);
}

/* Lay @len bytes of @data at @off of the stripe's data into the model. */
static void model_write(u32 off, const u8 *data, u32 len)
{
	u32 n;

	for (; len; off += n, data += n, len -= n) {
		n = CHUNK - off % CHUNK < len ? CHUNK - off % CHUNK : len;
		memcpy(&model[off / CHUNK][off % CHUNK], data, n);
	}
	model_encode();
}

/* Every fragment, from its own server, against the model. */
static void check_fragments(const char *what)
{
	int f, err;

	for (f = 0; f < WIDTH; f++) {
		err = frag_read(&ds_procs[f], AIFS_OP_CHUNK_READ, 0, f, 0,
				CHUNK);
		CHECK(!err && !memcmp(buf, model[f], CHUNK),
		      "%s: fragment %d: err %d, %s", what, f, err,
		      memcmp(buf, model[f], CHUNK) ? "differs" : "same");
	}
}

static void test_writes(void)
{
	static u8 data[STRIPE];
	int err;

	ds_fill(data, STRIPE, 7);
	err = ec_write(&ds_procs[0], 0, 0, data, STRIPE);
	model_write(0, data, STRIPE);
	CHECK(!err, "full-stripe write: %d", err);
	check_fragments("full stripe");

	ds_fill(data, 100 << 10, 8);
	err = ec_write(&ds_procs[0], 0, CHUNK + (CHUNK >> 1), data, 100 << 10);
	model_write(CHUNK + (CHUNK >> 1), data, 100 << 10);
	CHECK(!err, "write in fragment 1: %d", err);
	check_fragments("one fragment's middle");

	/* the end of fragment 2 and the start of 3: two runs of columns */
	ds_fill(data, 20 << 10, 9);
	err = ec_write(&ds_procs[0], 0, 3 * CHUNK - (10 << 10), data,
		       20 << 10);
	model_write(3 * CHUNK - (10 << 10), data, 20 << 10);
	CHECK(!err, "write across fragments 2 and 3: %d", err);
	check_fragments("across two fragments");

	/* an odd length at an odd place */
	ds_fill(data, 12345, 10);
	err = ec_write(&ds_procs[0], 0, 777, data, 12345);
	model_write(777, data, 12345);
	CHECK(!err, "odd write: %d", err);
	check_fragments("odd write");
}

/* Fragment @frag decoded by @via, compared with the model at @off. */
static void check_decoded(struct ds_proc *via, u32 frag, u32 off, u32 len,
			  int want_err, const char *what)
{
	int err = frag_read(via, AIFS_OP_EC_READ, 0, frag, off, len);

	CHECK(err == want_err &&
	      (err || !memcmp(buf, &model[frag][off], len)),
	      "%s: fragment %u decoded by ds %d: err %d (want %d)%s", what,
	      frag, via->id, err, want_err,
	      !err && memcmp(buf, &model[frag][off], len) ? ", differs" : "");
}

static void test_degraded(void)
{
	static u8 data[64 << 10];
	int err;

	check_decoded(&ds_procs[0], 1, 0, CHUNK, 0, "all up");
	ds_stop(&ds_procs[1], SIGKILL);
	check_decoded(&ds_procs[0], 1, 0, CHUNK, 0, "fragment 1's server dead");
	check_decoded(&ds_procs[0], 1, 4097, 5000, 0, "a piece");
	check_decoded(&ds_procs[2], 1, CHUNK - 8192, 8192, 0, "decoded by ds 3");

	/* a write whose columns need the dead fragment: decoded, then encoded */
	ds_fill(data, sizeof(data), 11);
	err = ec_write(&ds_procs[0], 0, 2 * CHUNK + 4096, data, sizeof(data));
	CHECK(!err, "write with fragment 1 dead: %d", err);
	model_write(2 * CHUNK + 4096, data, sizeof(data));
	ds_fill(data, sizeof(data), 12);
	err = ec_write(&ds_procs[0], 0, CHUNK + 8192, data, sizeof(data));
	CHECK(!err, "write into the dead fragment: %d", err);
	model_write(CHUNK + 8192, data, sizeof(data));
	check_decoded(&ds_procs[0], 1, 0, CHUNK, 0, "after writes");
	check_decoded(&ds_procs[0], 2, 0, CHUNK, 0, "fragment 2 decoded");

	ds_stop(&ds_procs[4], SIGKILL);
	check_decoded(&ds_procs[0], 1, 0, CHUNK, 0, "two dead (M)");
	check_decoded(&ds_procs[3], 1, 100, 200, 0, "two dead, by ds 4");
	ds_stop(&ds_procs[2], SIGKILL);
	check_decoded(&ds_procs[0], 1, 0, CHUNK, -EIO, "three dead (M + 1)");
	err = frag_read(&ds_procs[0], AIFS_OP_CHUNK_READ, 0, 0, 0, CHUNK);
	CHECK(!err && !memcmp(buf, model[0], CHUNK),
	      "fragment 0 from its own server with three dead: %d", err);
}

static void test_refused(void)
{
	struct aifs_ec_read_req ec = { .length = cpu_to_le32(4096) };
	struct aifs_reply reply;
	int err;

	err = frag_read(&ds_procs[0], AIFS_OP_EC_READ, 9, 2, 0, 4096);
	CHECK(err == -ENOENT, "a stripe never written: %d", err);

	/* a leader that is no member of the group */
	ds_chunk_id(&ec.id, INO, 0);
	ec.id.fragment = cpu_to_le16(1);
	group(&ec.group);
	ec.group.members[0] = cpu_to_le32(99);
	err = ds_request(&ds_procs[0], AIFS_OP_EC_READ, &ec, sizeof(ec),
			 &reply);
	CHECK(!err && reply.status == EINVAL, "not a member: %d %u", err,
	      reply.status);
	aifs_reply_free(&reply);
	/* a parity fragment, as a member rebuilding its own asks */
	err = frag_read(&ds_procs[0], AIFS_OP_EC_READ, 0, K, 0, CHUNK);
	CHECK(!err && !memcmp(buf, model[K], CHUNK), "parity decoded: %d", err);
	group(&ec.group);
	/* a member listed twice */
	ec.id.fragment = cpu_to_le16(1);
	ec.group.members[3] = ec.group.members[2];
	err = ds_request(&ds_procs[0], AIFS_OP_EC_READ, &ec, sizeof(ec),
			 &reply);
	CHECK(!err && reply.status == EINVAL, "member twice: %d %u", err,
	      reply.status);
	aifs_reply_free(&reply);
	/* the stripe's fragments are the leader's to write (FRAG_WRITE) */
	memset(buf, 0x5a, CHUNK);
	err = ds_write_frag(&ds_procs[K], INO, 0, K, buf, 4096);
	CHECK(err == -EINVAL, "a CHUNK_WRITE of a parity fragment: %d", err);
	err = ds_write_frag(&ds_procs[1], INO, 0, 1, buf, 4096);
	CHECK(err == -EINVAL, "a CHUNK_WRITE of a data fragment: %d", err);
	check_fragments("after CHUNK_WRITEs of fragments");
}

int main(void)
{
	int i;

	ds_setup(WIDTH, NULL);
	for (i = 0; i < WIDTH; i++)
		ds_connect(&ds_procs[i]);
	test_writes();
	test_refused();
	test_degraded();
	return test_result();
}
