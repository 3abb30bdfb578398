/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The erasure code of EC layouts: systematic Reed-Solomon over GF(2^8)
 * with a Vandermonde-derived coding matrix (Jerasure's
 * reed_sol_vandermonde_coding_matrix, arithmetic by gf-complete).  K data
 * fragments are stored as they are; M parity fragments let any K of the
 * K + M rebuild the rest (Documentation/erasure-coding.md).
 *
 *	const struct aifs_ec *ec = aifs_ec_get(10, 4);
 *	aifs_ec_encode(ec, frags, len);		frags[10..13] := parity
 *	lost[3] = lost[11] = true;
 *	aifs_ec_decode(ec, frags, lost, len);	frags[3], frags[11] rebuilt
 */
#ifndef AIFS_EC_H
#define AIFS_EC_H

#include <stdbool.h>
#include <stddef.h>

/* Fragment lengths are multiples of this (Jerasure works in words). */
#define AIFS_EC_ALIGN	8

struct aifs_ec;

const struct aifs_ec *aifs_ec_get(unsigned int k, unsigned int m);
unsigned int aifs_ec_k(const struct aifs_ec *ec);
unsigned int aifs_ec_m(const struct aifs_ec *ec);
void aifs_ec_encode(const struct aifs_ec *ec, char **frags, size_t len);
int aifs_ec_decode(const struct aifs_ec *ec, char **frags, const bool *lost,
		   size_t len);

#endif /* AIFS_EC_H */
