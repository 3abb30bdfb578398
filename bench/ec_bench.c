// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Encode and decode speed of aifs's erasure code (Jerasure + gf-complete,
 * servers/common/ec.c) next to Intel ISA-L on the same buffers, on one
 * core: bench/ec-bench runs it.  GB/s counts the data of a stripe (K
 * fragments) per second; decode loses M data fragments (the most work)
 * and rebuilds them.  ISA-L is given the very code aifs uses (Jerasure's
 * Vandermonde-derived matrix; both work in GF(2^8) modulo 0x11d), and
 * must produce the same parity bytes; both decoders are checked against
 * the original data before they are timed.
 *
 *	aifs-ec-bench K M FRAGMENT_BYTES SECONDS
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <isa-l/erasure_code.h>
#include <reed_sol.h>

#include "aifs/aifs_proto.h"
#include "aifs/ec.h"

#define MAX_FRAGS	(AIFS_EC_MAX_K + AIFS_EC_MAX_M)

struct bench {
	unsigned int k, m;
	size_t len;
	char *frags[MAX_FRAGS];		/* the stripe, encoded */
	char *work[MAX_FRAGS];		/* the stripe with M data lost */
	bool lost[MAX_FRAGS];
	const struct aifs_ec *ec;
	unsigned char isal_matrix[MAX_FRAGS * AIFS_EC_MAX_K];
	unsigned char isal_tables[32 * AIFS_EC_MAX_K * AIFS_EC_MAX_M];
	double seconds;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void jerasure_encode(struct bench *b)
{
	aifs_ec_encode(b->ec, b->frags, b->len);
}

static void isal_encode(struct bench *b)
{
	ec_encode_data(b->len, b->k, b->m, b->isal_tables,
		       (unsigned char **)b->frags,
		       (unsigned char **)b->frags + b->k);
}

static void lose(struct bench *b)
{
	unsigned int i;

	for (i = 0; i < b->k + b->m; i++) {
		if (b->lost[i])
			memset(b->work[i], 0, b->len);
		else
			memcpy(b->work[i], b->frags[i], b->len);
	}
}

static void jerasure_decode(struct bench *b)
{
	if (aifs_ec_decode(b->ec, b->work, b->lost, b->len))
		abort();
}

/*
 * ISA-L's decode: invert the encode matrix's rows of K survivors, then
 * the lost data fragments are those rows' products with the survivors.
 */
static void isal_decode(struct bench *b)
{
	unsigned char sub[AIFS_EC_MAX_K * AIFS_EC_MAX_K];
	unsigned char inv[AIFS_EC_MAX_K * AIFS_EC_MAX_K];
	unsigned char rows[AIFS_EC_MAX_M * AIFS_EC_MAX_K];
	unsigned char tables[32 * AIFS_EC_MAX_K * AIFS_EC_MAX_M];
	unsigned char *src[AIFS_EC_MAX_K], *dst[AIFS_EC_MAX_M];
	unsigned int i, n = 0, nlost = 0;

	for (i = 0; i < b->k + b->m && n < b->k; i++) {
		if (b->lost[i])
			continue;
		memcpy(&sub[n * b->k], &b->isal_matrix[i * b->k], b->k);
		src[n++] = (unsigned char *)b->work[i];
	}
	if (gf_invert_matrix(sub, inv, b->k))
		abort();
	for (i = 0; i < b->k; i++) {
		if (!b->lost[i])
			continue;
		memcpy(&rows[nlost * b->k], &inv[i * b->k], b->k);
		dst[nlost++] = (unsigned char *)b->work[i];
	}
	ec_init_tables(b->k, nlost, rows, tables);
	ec_encode_data(b->len, b->k, nlost, tables, src, dst);
}

/* ISA-L's encode matrix: identity, then Jerasure's coding rows. */
static int isal_code(struct bench *b)
{
	int *coding = reed_sol_vandermonde_coding_matrix(b->k, b->m, 8);
	unsigned int i;

	if (!coding)
		return -1;
	memset(b->isal_matrix, 0, sizeof(b->isal_matrix));
	for (i = 0; i < b->k; i++)
		b->isal_matrix[i * b->k + i] = 1;
	for (i = 0; i < b->k * b->m; i++)
		b->isal_matrix[b->k * b->k + i] = coding[i];
	free(coding);
	ec_init_tables(b->k, b->m, &b->isal_matrix[b->k * b->k],
		       b->isal_tables);
	return 0;
}

static int check_decode(struct bench *b, void (*decode)(struct bench *),
			const char *name)
{
	unsigned int i;

	lose(b);
	decode(b);
	for (i = 0; i < b->k; i++) {
		if (memcmp(b->work[i], b->frags[i], b->len)) {
			fprintf(stderr, "%s decoded fragment %u wrong\n", name,
				i);
			return -1;
		}
	}
	return 0;
}

/* GB/s of stripe data through @fn, for at least b->seconds. */
static double measure(struct bench *b, void (*fn)(struct bench *))
{
	double start = now(), elapsed;
	unsigned long rounds = 0;

	do {
		fn(b);
		rounds++;
		elapsed = now() - start;
	} while (elapsed < b->seconds);
	return rounds * (double)b->len * b->k / elapsed / 1e9;
}

int main(int argc, char **argv)
{
	struct bench b = { 0 };
	unsigned int i;

	if (argc != 5) {
		fprintf(stderr, "usage: %s K M FRAGMENT_BYTES SECONDS\n",
			argv[0]);
		return 2;
	}
	b.k = atoi(argv[1]);
	b.m = atoi(argv[2]);
	b.len = strtoul(argv[3], NULL, 0);
	b.seconds = atof(argv[4]);
	b.ec = aifs_ec_get(b.k, b.m);
	if (!b.ec || b.len % AIFS_EC_ALIGN || b.m > b.k) {
		fprintf(stderr, "bad code %u+%u or length %zu\n", b.k, b.m,
			b.len);
		return 2;
	}
	srand(1);
	for (i = 0; i < b.k + b.m; i++) {
		if (posix_memalign((void **)&b.frags[i], 64, b.len) ||
		    posix_memalign((void **)&b.work[i], 64, b.len))
			return 1;
		for (size_t j = 0; i < b.k && j < b.len; j++)
			b.frags[i][j] = (char)rand();
		b.lost[i] = i < b.m;	/* M data fragments */
	}
	if (isal_code(&b))
		return 1;
	jerasure_encode(&b);
	if (check_decode(&b, jerasure_decode, "Jerasure"))
		return 1;
	for (i = b.k; i < b.k + b.m; i++)
		memcpy(b.work[i], b.frags[i], b.len);
	isal_encode(&b);
	for (i = b.k; i < b.k + b.m; i++) {
		if (memcmp(b.work[i], b.frags[i], b.len)) {
			fprintf(stderr, "ISA-L parity %u differs\n", i);
			return 1;
		}
	}
	if (check_decode(&b, isal_decode, "ISA-L"))
		return 1;
	lose(&b);
	printf("%u+%u %.2f %.2f %.2f %.2f\n", b.k, b.m,
	       measure(&b, jerasure_encode), measure(&b, jerasure_decode),
	       measure(&b, isal_encode), measure(&b, isal_decode));
	return 0;
}
