// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * crc32c() for userspace, with the kernel's convention, from ISA-L (which
 * uses the CPU's CRC32 instruction where there is one).
 */
#include <isa-l/crc.h>
#include "aifs/aifs_user.h"

u32 crc32c(u32 crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	/* ISA-L takes an int length: feed huge buffers in pieces. */
	while (len > (1U << 30)) {
		crc = crc32_iscsi((unsigned char *)p, 1 << 30, crc);
		p += 1U << 30;
		len -= 1U << 30;
	}
	return crc32_iscsi((unsigned char *)p, (int)len, crc);
}
