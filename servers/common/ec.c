// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Reed-Solomon through Jerasure.  A code (its coding matrix) is made once
 * per K+M and kept for the life of the process: data servers encode and
 * decode for every EC stripe they lead, from many worker threads.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include <jerasure.h>
#include <galois.h>
#include <reed_sol.h>

#include "aifs/aifs_proto.h"
#include "aifs/ec.h"

#define EC_W	8	/* GF(2^8): K + M up to 256, byte-wise arithmetic */
#define EC_SLICE	(16 * 1024)

struct aifs_ec {
	unsigned int k;
	unsigned int m;
	int *matrix;	/* m rows of k coefficients; row 0 all ones */
};

static struct aifs_ec *ec_codes[AIFS_EC_MAX_K + 1][AIFS_EC_MAX_M + 1];
static pthread_mutex_t ec_codes_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t ec_field_once = PTHREAD_ONCE_INIT;

/*
 * Jerasure sets up its fields on first use without a lock, and a thread
 * can find one allocated but not yet set up by another (a crash seen in a
 * data server encoding several stripes at once): set them up once, before
 * any two threads can race to them. Its region XOR (a coefficient of 1)
 * works in GF(2^32).
 */
static void ec_field_init(void)
{
	galois_init_default_field(EC_W);
	galois_init_default_field(32);
}

/**
 * aifs_ec_get - the code of K data and M parity fragments
 * @k: data fragments, 1..AIFS_EC_MAX_K
 * @m: parity fragments, 1..AIFS_EC_MAX_M
 *
 * Return: the code, shared and never freed, or NULL with errno EINVAL
 * (K or M out of range) or ENOMEM.
 */
const struct aifs_ec *aifs_ec_get(unsigned int k, unsigned int m)
{
	struct aifs_ec *ec;

	if (!k || k > AIFS_EC_MAX_K || !m || m > AIFS_EC_MAX_M) {
		errno = EINVAL;
		return NULL;
	}
	pthread_once(&ec_field_once, ec_field_init);
	pthread_mutex_lock(&ec_codes_lock);
	ec = ec_codes[k][m];
	if (!ec) {
		ec = calloc(1, sizeof(*ec));
		if (ec)
			ec->matrix = reed_sol_vandermonde_coding_matrix(k, m,
									EC_W);
		if (ec && ec->matrix) {
			ec->k = k;
			ec->m = m;
			ec_codes[k][m] = ec;
		} else {
			free(ec);
			ec = NULL;
			errno = ENOMEM;
		}
	}
	pthread_mutex_unlock(&ec_codes_lock);
	return ec;
}

unsigned int aifs_ec_k(const struct aifs_ec *ec)
{
	return ec->k;
}

unsigned int aifs_ec_m(const struct aifs_ec *ec)
{
	return ec->m;
}

/**
 * aifs_ec_encode - compute the parity of one stripe
 * @ec: the code
 * @frags: K + M buffers of @len bytes: the data fragments, then the parity
 *         fragments, which are written
 * @len: bytes per fragment, a multiple of AIFS_EC_ALIGN
 */
void aifs_ec_encode(const struct aifs_ec *ec, char **frags, size_t len)
{
	char *slice[AIFS_EC_MAX_K + AIFS_EC_MAX_M];
	size_t off, n;
	unsigned int i;

	for (off = 0; off < len; off += n) {
		n = len - off < EC_SLICE ? len - off : EC_SLICE;
		for (i = 0; i < ec->k + ec->m; i++)
			slice[i] = frags[i] + off;
		jerasure_matrix_encode(ec->k, ec->m, EC_W, ec->matrix, slice,
				       slice + ec->k, n);
	}
}

/**
 * aifs_ec_decode - rebuild the lost fragments of one stripe
 * @ec: the code
 * @frags: K + M buffers of @len bytes, as for aifs_ec_encode(): those not
 *         lost hold their fragment, the lost ones are written
 * @lost: K + M flags: which fragments to rebuild
 * @len: bytes per fragment, a multiple of AIFS_EC_ALIGN
 *
 * Return: 0, -EIO with more than M lost (nothing is written), -ENOMEM.
 */
int aifs_ec_decode(const struct aifs_ec *ec, char **frags, const bool *lost,
		   size_t len)
{
	int erasures[AIFS_EC_MAX_K + AIFS_EC_MAX_M + 1];
	unsigned int i, n = 0;

	for (i = 0; i < ec->k + ec->m; i++)
		if (lost[i])
			erasures[n++] = i;
	if (n > ec->m)
		return -EIO;
	if (!n)
		return 0;
	erasures[n] = -1;
	/* -1 only when it cannot invert (never, with <= M lost) or allocate */
	if (jerasure_matrix_decode(ec->k, ec->m, EC_W, ec->matrix, 1, erasures,
				   frags, frags + ec->k, len))
		return -ENOMEM;
	return 0;
}
