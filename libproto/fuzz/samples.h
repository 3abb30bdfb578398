/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A valid payload of every message, for the unit tests and as the seed
 * corpus of the fuzz targets.
 */
#ifndef AIFS_SAMPLES_H
#define AIFS_SAMPLES_H

#include "aifs/aifs_codec.h"

/* Sample sizes: small, or every length at its limit. */
enum aifs_sample_variant {
	AIFS_SAMPLE_SMALL,
	AIFS_SAMPLE_MAX,
};

/* Room a payload of aifs_sample() may need. */
#define AIFS_SAMPLE_BUF_SIZE	AIFS_MAX_PAYLOAD

/**
 * aifs_sample() - encode a valid payload of a message
 * @op:      opcode
 * @reply:   the reply (true) or the request (false)
 * @variant: enum aifs_sample_variant
 * @buf:     output, AIFS_SAMPLE_BUF_SIZE bytes
 *
 * Return: the payload length, or the encoder's negative errno
 * (-EOPNOTSUPP for an opcode without messages).
 */
int aifs_sample(u16 op, bool reply, int variant, void *buf);

/* Fill in valid building blocks (for tests that break one field). */
void aifs_sample_attr(struct aifs_attr *a, u64 ino, u32 mode);
void aifs_sample_layout(struct aifs_layout *l);

#endif /* AIFS_SAMPLES_H */
