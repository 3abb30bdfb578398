// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The erasure code (servers/common/ec.c): for several K+M, every pattern
 * of up to M lost fragments is rebuilt byte for byte, data and parity;
 * M + 1 lost is refused and writes nothing; the data fragments are stored
 * as they are (systematic) and the first parity is their XOR.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "aifs/aifs_proto.h"
#include "aifs/ec.h"
#include "test.h"

#define MAX_FRAGS	(AIFS_EC_MAX_K + AIFS_EC_MAX_M)

struct stripe {
	unsigned int k, m;
	size_t len;
	char *orig[MAX_FRAGS];	/* the encoded stripe, as it should be */
	char *work[MAX_FRAGS];	/* lost fragments are garbled, then rebuilt */
};

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void fill_random(char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (char)rng();
}

static const struct aifs_ec *stripe_make(struct stripe *s, unsigned int k,
					 unsigned int m, size_t len)
{
	const struct aifs_ec *ec = aifs_ec_get(k, m);
	unsigned int i;

	s->k = k;
	s->m = m;
	s->len = len;
	for (i = 0; i < k + m; i++) {
		s->orig[i] = malloc(len);
		s->work[i] = malloc(len);
		if (!s->orig[i] || !s->work[i])
			abort();
		if (i < k)
			fill_random(s->orig[i], len);
	}
	aifs_ec_encode(ec, s->orig, len);
	return ec;
}

static void stripe_free(struct stripe *s)
{
	unsigned int i;

	for (i = 0; i < s->k + s->m; i++) {
		free(s->orig[i]);
		free(s->work[i]);
	}
}

/* Lose the fragments of @lost, rebuild them, compare every fragment. */
static void check_pattern(const struct aifs_ec *ec, struct stripe *s,
			  const bool *lost)
{
	unsigned int i, wrong = 0;

	for (i = 0; i < s->k + s->m; i++) {
		if (lost[i])
			memset(s->work[i], 0xa5, s->len);
		else
			memcpy(s->work[i], s->orig[i], s->len);
	}
	CHECK_EQ(aifs_ec_decode(ec, s->work, lost, s->len), 0);
	for (i = 0; i < s->k + s->m; i++)
		wrong += memcmp(s->work[i], s->orig[i], s->len) != 0;
	CHECK_EQ(wrong, 0);
}

/* Every set of up to M of the K + M fragments, by a bit mask. */
static unsigned int check_every_pattern(unsigned int k, unsigned int m,
					size_t len)
{
	const struct aifs_ec *ec;
	struct stripe s;
	bool lost[MAX_FRAGS];
	unsigned int i, patterns = 0;
	uint64_t mask;

	ec = stripe_make(&s, k, m, len);
	for (mask = 0; mask < 1ULL << (k + m); mask++) {
		if ((unsigned int)__builtin_popcountll(mask) > m)
			continue;
		for (i = 0; i < k + m; i++)
			lost[i] = mask >> i & 1;
		TEST_CTX("%u+%u, %zu bytes, lost mask %#llx", k, m, len,
			 (unsigned long long)mask);
		check_pattern(ec, &s, lost);
		patterns++;
	}
	stripe_free(&s);
	return patterns;
}

/* Random patterns of exactly @n lost, for codes too wide to enumerate. */
static void check_random_patterns(unsigned int k, unsigned int m,
				  unsigned int n, unsigned int rounds)
{
	const struct aifs_ec *ec;
	struct stripe s;
	bool lost[MAX_FRAGS];
	unsigned int r, i, picked;

	ec = stripe_make(&s, k, m, 4096);
	for (r = 0; r < rounds; r++) {
		memset(lost, 0, sizeof(lost));
		for (picked = 0; picked < n;) {
			i = rng() % (k + m);
			if (!lost[i]) {
				lost[i] = true;
				picked++;
			}
		}
		TEST_CTX("%u+%u, %u random lost, round %u", k, m, n, r);
		check_pattern(ec, &s, lost);
	}
	stripe_free(&s);
}

static void check_systematic(void)
{
	const struct aifs_ec *ec = aifs_ec_get(6, 3);
	char *frags[9], copy[6][512], x[512];
	unsigned int i, j;

	TEST_CTX("systematic, parity 0 is XOR");
	for (i = 0; i < 9; i++) {
		frags[i] = malloc(512);
		if (i < 6) {
			fill_random(frags[i], 512);
			memcpy(copy[i], frags[i], 512);
		}
	}
	aifs_ec_encode(ec, frags, 512);
	memset(x, 0, sizeof(x));
	for (i = 0; i < 6; i++) {
		CHECK_EQ(memcmp(frags[i], copy[i], 512), 0);
		for (j = 0; j < 512; j++)
			x[j] ^= copy[i][j];
	}
	CHECK_EQ(memcmp(frags[6], x, 512), 0);
	/* the other parities are no copy of the first */
	CHECK(memcmp(frags[7], x, 512) != 0);
	CHECK(memcmp(frags[8], frags[7], 512) != 0);
	for (i = 0; i < 9; i++)
		free(frags[i]);
}

static void check_too_many_lost(void)
{
	const struct aifs_ec *ec;
	struct stripe s;
	bool lost[MAX_FRAGS] = { false };
	unsigned int i, changed = 0;

	TEST_CTX("4+2 with 3 lost");
	ec = stripe_make(&s, 4, 2, 256);
	for (i = 0; i < 6; i++)
		memcpy(s.work[i], s.orig[i], 256);
	lost[0] = lost[2] = lost[5] = true;
	CHECK_EQ(aifs_ec_decode(ec, s.work, lost, 256), -EIO);
	for (i = 0; i < 6; i++)
		changed += memcmp(s.work[i], s.orig[i], 256) != 0;
	CHECK_EQ(changed, 0);
	stripe_free(&s);
}

static void check_bad_codes(void)
{
	TEST_CTX("codes out of range");
	errno = 0;
	CHECK(!aifs_ec_get(0, 2));
	CHECK_EQ(errno, EINVAL);
	CHECK(!aifs_ec_get(4, 0));
	CHECK(!aifs_ec_get(AIFS_EC_MAX_K + 1, 2));
	CHECK(!aifs_ec_get(4, AIFS_EC_MAX_M + 1));
	CHECK(aifs_ec_get(AIFS_EC_MAX_K, AIFS_EC_MAX_M) != NULL);
	CHECK_EQ(aifs_ec_k(aifs_ec_get(10, 4)), 10);
	CHECK_EQ(aifs_ec_m(aifs_ec_get(10, 4)), 4);
}

/* A thread's stripe: encoded and decoded at once with the others. */
struct coder {
	pthread_t thread;
	struct stripe s;
	const struct aifs_ec *ec;
	int err;
};

static void *code_stripes(void *arg)
{
	struct coder *c = arg;
	bool lost[MAX_FRAGS] = { false };
	unsigned int round, i;

	c->ec = aifs_ec_get(c->s.k, c->s.m);
	for (round = 0; round < 50 && !c->err; round++) {
		aifs_ec_encode(c->ec, c->s.orig, c->s.len);
		for (i = 0; i < c->s.k + c->s.m; i++)
			memcpy(c->s.work[i], c->s.orig[i], c->s.len);
		lost[round % c->s.k] = true;
		memset(c->s.work[round % c->s.k], 0, c->s.len);
		c->err = aifs_ec_decode(c->ec, c->s.work, lost, c->s.len) ||
			 memcmp(c->s.work[round % c->s.k],
				c->s.orig[round % c->s.k], c->s.len);
		lost[round % c->s.k] = false;
	}
	return NULL;
}

/*
 * Threads that use the code for the first time all at once (this runs
 * before anything else has): each gets the one code of its K+M, and their
 * stripes come out right.
 */
static void check_threads(void)
{
	static struct coder c[8];
	unsigned int i, j;

	TEST_CTX("first use from eight threads at once");
	for (i = 0; i < 8; i++) {
		c[i].s.k = 4;
		c[i].s.m = 2;
		c[i].s.len = 64 << 10;
		for (j = 0; j < 6; j++) {
			c[i].s.orig[j] = malloc(c[i].s.len);
			c[i].s.work[j] = malloc(c[i].s.len);
			if (!c[i].s.orig[j] || !c[i].s.work[j])
				abort();
			fill_random(c[i].s.orig[j], c[i].s.len);
		}
	}
	for (i = 0; i < 8; i++)
		pthread_create(&c[i].thread, NULL, code_stripes, &c[i]);
	for (i = 0; i < 8; i++)
		pthread_join(c[i].thread, NULL);
	for (i = 0; i < 8; i++) {
		CHECK(c[i].ec && c[i].ec == c[0].ec);
		CHECK_EQ(c[i].err, 0);
		stripe_free(&c[i].s);
	}
}

int main(void)
{
	static const unsigned int codes[][2] = {
		{ 1, 1 }, { 2, 1 }, { 3, 2 }, { 4, 2 }, { 6, 3 }, { 8, 2 },
		{ 8, 3 }, { 10, 4 }, { 12, 4 },
	};
	unsigned int i, n;

	check_threads();
	check_bad_codes();
	check_systematic();
	check_too_many_lost();
	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		n = check_every_pattern(codes[i][0], codes[i][1], 1024);
		printf("%u+%u: %u erasure patterns rebuilt\n", codes[i][0],
		       codes[i][1], n);
	}
	/* fragment lengths: one word, odd words, a large fragment */
	check_every_pattern(4, 2, AIFS_EC_ALIGN);
	check_every_pattern(4, 2, 40 * AIFS_EC_ALIGN + AIFS_EC_ALIGN);
	check_every_pattern(4, 2, (1 << 20) + AIFS_EC_ALIGN);
	for (n = 1; n <= AIFS_EC_MAX_M; n++)
		check_random_patterns(AIFS_EC_MAX_K, AIFS_EC_MAX_M, n, 20);
	return test_result("ec");
}
