/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The kernel types and byte-order helpers that the shared codec uses,
 * for userspace.  The kernel build never includes this file.
 */
#ifndef AIFS_USER_H
#define AIFS_USER_H

#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <linux/types.h>

#ifdef __CHECKER__
#define __force __attribute__((force))
#else
#define __force
#endif

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;

#define AIFS_LE_CONV(bits)						\
static inline __le##bits cpu_to_le##bits(u##bits v)			\
{									\
	return (__force __le##bits)htole##bits(v);			\
}									\
static inline u##bits le##bits##_to_cpu(__le##bits v)			\
{									\
	return le##bits##toh((__force u##bits)v);			\
}
AIFS_LE_CONV(16)
AIFS_LE_CONV(32)
AIFS_LE_CONV(64)
#undef AIFS_LE_CONV

/*
 * The __le32 or __le64 (by @size) at @p, in host order: for tables that
 * name the fields of a wire struct (metrics, the command's JSON).
 */
static inline u64 aifs_le_field(const void *p, size_t size)
{
	__le64 v64;
	__le32 v32;

	if (size == sizeof(v64)) {
		memcpy(&v64, p, sizeof(v64));
		return le64_to_cpu(v64);
	}
	memcpy(&v32, p, sizeof(v32));
	return le32_to_cpu(v32);
}

/* Raw CRC32C update with the kernel's crc32c() convention (no inversion). */
u32 crc32c(u32 crc, const void *buf, size_t len);

#endif /* AIFS_USER_H */
