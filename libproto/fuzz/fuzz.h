/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What the libFuzzer targets of libproto/fuzz share.
 */
#ifndef AIFS_FUZZ_H
#define AIFS_FUZZ_H

#include "aifs/aifs_codec.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

/* Room for the fixed part of any message, aligned for its struct. */
union fuzz_fixed {
	u8 bytes[1024];
	u64 align;
};

#endif /* AIFS_FUZZ_H */
