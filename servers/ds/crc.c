// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Block checksums: one CRC32C (ISA-L, through libproto's aifs_crc32c) per
 * DS_BLOCK_SIZE bytes of a chunk, always over the whole block with the
 * bytes past the chunk's end as zeros.  Every read checks them, so a
 * flipped bit on the disk is an EIO for this copy and a repair from a
 * peer, never wrong data handed to a client.
 */
#include <stdlib.h>

#include "ds.h"

void ds_crc_blocks(const void *buf, u32 nr_blocks, u32 *crcs)
{
	const u8 *p = buf;
	u32 i;

	for (i = 0; i < nr_blocks; i++)
		crcs[i] = aifs_crc32c(p + (size_t)i * DS_BLOCK_SIZE,
				      DS_BLOCK_SIZE);
}

/* Check blocks [@first, @first + @nr_blocks) in @buf against the sidecar. */
int ds_crc_verify(struct ds_chunk *c, u32 first, u32 nr_blocks,
		  const void *buf)
{
	u32 *stored, *actual, i;
	int err;

	stored = malloc((size_t)nr_blocks * 8);
	if (!stored)
		return -ENOMEM;
	actual = stored + nr_blocks;
	err = ds_crcs_load(c, first, nr_blocks, stored);
	if (err)
		goto out;
	ds_crc_blocks(buf, nr_blocks, actual);
	for (i = 0; i < nr_blocks; i++) {
		if (stored[i] == actual[i])
			continue;
		aifs_err("%s: block %u: checksum mismatch (stored %08x, data %08x)",
			 c->path, first + i, stored[i], actual[i]);
		err = -EIO;
		break;
	}
out:
	free(stored);
	return err;
}
