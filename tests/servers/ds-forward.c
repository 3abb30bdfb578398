// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Forwarding under load: three aifs-ds, each the primary of a third of the
 * chunks with the other two as its replicas, and many more concurrent
 * writers than worker threads, so that every worker of every server waits
 * on forwards to the others.  Forwards must still be served at once (they
 * do not queue behind those workers): every write succeeds, every copy of
 * every chunk is the same, no replica is ever counted as dead.
 */
#include <stdlib.h>

#include "ds-harness.h"

#define NR_DS		3
#define WRITERS		24	/* 8 per primary; the harness runs 4 workers */
#define WRITES		6	/* per writer */
#define PIECE		(128U << 10)
#define INO		0xf0
#define BLOCKS		(DS_TEST_CHUNK / AIFS_BLOCK_SIZE)

/* Writer @index writes chunk @index, whose primary is ds @index % NR_DS. */
static int writer(struct aifs_conn *conn, int index)
{
	struct ds_proc *primary = &ds_procs[index % NR_DS];
	u32 replicas[NR_DS - 1], off;
	u8 *data = malloc(PIECE);
	int i, n = 0, bad = 0, err;
	u64 version;

	(void)conn;
	if (!data)
		return 1;
	for (i = 0; i < NR_DS; i++)
		if (&ds_procs[i] != primary)
			replicas[n++] = ds_procs[i].id;
	for (i = 0; i < WRITES; i++) {
		off = i * PIECE % DS_TEST_CHUNK;
		ds_fill(data, PIECE, index * WRITES + i);
		err = ds_write(primary, INO, index, off, data, PIECE, replicas,
			       n, &version);
		CHECK(!err && version == (u64)i + 1,
		      "chunk %d write %d: %d, version %llu", index, i, err,
		      (unsigned long long)version);
		bad += !!err;
	}
	free(data);
	return bad;
}

/* Every copy of chunk @index: the same version, length and CRCs. */
static void check_copies(int index)
{
	static u32 crcs[NR_DS][BLOCKS];
	struct aifs_chunk_checksum_rep rep[NR_DS] = { { 0 } };
	struct aifs_chunk_id id;
	int i, err;

	ds_chunk_id(&id, INO, index);
	for (i = 0; i < NR_DS; i++) {
		err = aifs_chunk_checksum(ds_procs[i].conn, &id, 0, BLOCKS,
					  crcs[i], &rep[i]);
		CHECK(!err && le64_to_cpu(rep[i].version) == WRITES,
		      "chunk %d on ds %d: %d, version %llu", index,
		      ds_procs[i].id, err,
		      (unsigned long long)le64_to_cpu(rep[i].version));
		if (err)
			return;
	}
	for (i = 1; i < NR_DS; i++)
		CHECK(rep[i].chunk_len == rep[0].chunk_len &&
		      rep[i].count == rep[0].count &&
		      !memcmp(crcs[i], crcs[0],
			      le32_to_cpu(rep[0].count) * sizeof(u32)),
		      "chunk %d: ds %d differs from ds %d", index,
		      ds_procs[i].id, ds_procs[0].id);
}

/* No server logged a replica as skipped (dead, silent, behind). */
static void check_logs(void)
{
	char cmd[256];
	int i;

	for (i = 0; i < NR_DS; i++) {
		snprintf(cmd, sizeof(cmd),
			 "grep -q 'replica .*skipped' %s/server.log",
			 ds_procs[i].srv.dir);
		CHECK(system(cmd) != 0, "ds %d skipped a replica; see %s",
		      ds_procs[i].id, ds_procs[i].srv.dir);
	}
}

int main(void)
{
	int i;

	ds_setup(NR_DS, NULL);
	for (i = 0; i < NR_DS; i++)
		ds_connect(&ds_procs[i]);
	test_threads(NULL, WRITERS, writer);
	for (i = 0; i < WRITERS; i++)
		check_copies(i);
	check_logs();
	return test_result();
}
