// SPDX-License-Identifier: GPL-2.0
/* The unaligned access helpers moved from asm/ to linux/ (6.12). */
#include <linux/unaligned.h>

u32 aifs_probe(const void *p)
{
	return get_unaligned_le32(p);
}
