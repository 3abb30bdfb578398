/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The generic netlink family of aifs.ko, shared by the module and the aifs
 * command: per-mount client statistics.
 *
 * STATS_GET names a mount by the major and minor of its st_dev and is
 * answered with its counters. Counters travel as arrays of u64 in host
 * byte order (netlink is local), indexed by the enums below: a newer
 * module may send more entries than an older command knows (it ignores
 * them), an older module fewer (the command shows what it got). Entries
 * are only ever appended.
 */
#ifndef AIFS_GENL_H
#define AIFS_GENL_H

#include <linux/types.h>

#include "aifs_proto.h"

#define AIFS_GENL_NAME		"aifs"
#define AIFS_GENL_VERSION	1

enum aifs_genl_cmd {
	AIFS_GENL_CMD_UNSPEC,
	AIFS_GENL_CMD_STATS_GET,	/* DEV_MAJOR, DEV_MINOR -> the stats */
	__AIFS_GENL_CMD_MAX,
};

enum aifs_genl_attr {
	AIFS_GENL_A_UNSPEC,
	AIFS_GENL_A_DEV_MAJOR,		/* u32: of the mount's st_dev */
	AIFS_GENL_A_DEV_MINOR,		/* u32 */
	AIFS_GENL_A_MOUNT_ID,		/* u32: /sys/fs/aifs/aifs-<id> */
	AIFS_GENL_A_AGE_MS,		/* u64: since the mount was made */
	AIFS_GENL_A_TRANSPORT,		/* string: "tcp" or "rdma" */
	AIFS_GENL_A_COUNTERS,		/* u64[], by enum aifs_counter */
	AIFS_GENL_A_MDS_OPS,		/* u64[], by opcode from AIFS_STATS_OP_FIRST */
	AIFS_GENL_A_LATENCY,		/* u64[AIFS_LAT_CLASSES][AIFS_LAT_BUCKETS] */
	AIFS_GENL_A_PAD,
	__AIFS_GENL_A_MAX,
};
#define AIFS_GENL_A_MAX		(__AIFS_GENL_A_MAX - 1)

/*
 * A mount's counters: name (also the key in /sys/fs/aifs/aifs-<id>/stats)
 * and meaning. The two blocks of request counters, MDS then DS, have the
 * same five entries in the same order (enum aifs_peer picks the block).
 */
#define AIFS_COUNTERS(C)						\
	C(MDS_REQUESTS, "mds_requests")		/* sent, each try */	\
	C(MDS_ERRORS, "mds_errors")		/* failed, not timed out */ \
	C(MDS_TIMEOUTS, "mds_timeouts")		/* no reply within timeo */ \
	C(MDS_BYTES_SENT, "mds_bytes_sent")	/* payload, no headers */ \
	C(MDS_BYTES_RECEIVED, "mds_bytes_received")			\
	C(DS_REQUESTS, "ds_requests")					\
	C(DS_ERRORS, "ds_errors")					\
	C(DS_TIMEOUTS, "ds_timeouts")					\
	C(DS_BYTES_SENT, "ds_bytes_sent")				\
	C(DS_BYTES_RECEIVED, "ds_bytes_received")			\
	C(CHUNK_READ_BYTES, "chunk_read_bytes")	/* asked of servers */	\
	C(MAP_REFRESHES, "map_refreshes")	/* cluster maps fetched */ \
	C(RA_PAGES, "readahead_pages")		/* read by readahead */	\
	C(RA_USED, "readahead_used")		/* of those, read later */ \
	C(RA_WASTED, "readahead_wasted")	/* and never read */	\
	C(RDMA_READ_BYTES, "rdma_read_bytes")	/* servers RDMA-wrote */ \
	C(RDMA_WRITE_BYTES, "rdma_write_bytes")	/* servers RDMA-read */	\
	C(READ_BYTES, "read_bytes")		/* read(2) returned */	\
	C(WRITE_BYTES, "write_bytes")		/* write(2) took */	\
	C(DIRECT_READ_BYTES, "direct_read_bytes")	/* of read_bytes */ \
	C(DIRECT_WRITE_BYTES, "direct_write_bytes")	/* of write_bytes */ \
	C(CHUNK_WRITE_BYTES, "chunk_write_bytes")	/* sent to servers */ \
	C(CACHE_FILL_PAGES, "cache_fill_pages")	/* fetched into the cache */ \
	C(RETRIES, "retries")			/* requests tried again */ \
	C(FAILOVERS, "failovers")		/* served by another server */ \
	C(RECONNECTS, "reconnects")		/* connections made again */

#define AIFS_COUNTER_ENUM(id, name) AIFS_C_##id,
enum aifs_counter {
	AIFS_COUNTERS(AIFS_COUNTER_ENUM)
	AIFS_NR_COUNTERS,
};
#undef AIFS_COUNTER_ENUM

/* MDS requests counted by opcode: the namespace operations and MAP_GET */
#define AIFS_STATS_OP_FIRST	AIFS_OP_LOOKUP
#define AIFS_STATS_OP_LAST	AIFS_OP_MAP_GET
#define AIFS_STATS_NR_OPS	(AIFS_STATS_OP_LAST - AIFS_STATS_OP_FIRST + 1)

/* Entries per block of request counters (MDS_REQUESTS .. MDS_BYTES_RECEIVED) */
#define AIFS_PEER_COUNTERS	(AIFS_C_DS_REQUESTS - AIFS_C_MDS_REQUESTS)

/* Requests whose latency is kept, by kind. */
enum aifs_lat_class {
	AIFS_LAT_META,		/* to the MDS */
	AIFS_LAT_READ,		/* CHUNK_READ, EC_READ */
	AIFS_LAT_WRITE,		/* CHUNK_WRITE, EC_WRITE */
	AIFS_LAT_OTHER,		/* other requests to data servers */
	AIFS_LAT_CLASSES,
};

/*
 * Latency histograms, in microseconds: below AIFS_LAT_SUB one bucket per
 * microsecond, above it AIFS_LAT_SUB buckets per power of two, so that a
 * bucket is never wider than a quarter of its lower bound. The last
 * bucket also takes everything from 2^AIFS_LAT_MAX_SHIFT us (134 s) up.
 */
#define AIFS_LAT_SUB_SHIFT	2
#define AIFS_LAT_SUB		(1U << AIFS_LAT_SUB_SHIFT)
#define AIFS_LAT_MAX_SHIFT	27
#define AIFS_LAT_BUCKETS	((AIFS_LAT_MAX_SHIFT - AIFS_LAT_SUB_SHIFT + 1) * \
				 AIFS_LAT_SUB)

/* The bucket of a latency of @us microseconds. */
static inline unsigned int aifs_lat_bucket(__u64 us)
{
	unsigned int shift;

	if (us < AIFS_LAT_SUB)
		return us;
	if (us >> AIFS_LAT_MAX_SHIFT)
		return AIFS_LAT_BUCKETS - 1;
	shift = 63 - __builtin_clzll(us) - AIFS_LAT_SUB_SHIFT;
	return (shift + 1) * AIFS_LAT_SUB +
	       ((us >> shift) & (AIFS_LAT_SUB - 1));
}

/* The smallest latency, in microseconds, of bucket @b. */
static inline __u64 aifs_lat_bucket_low(unsigned int b)
{
	unsigned int shift;

	if (b < AIFS_LAT_SUB)
		return b;
	shift = b / AIFS_LAT_SUB - 1;
	return (__u64)(AIFS_LAT_SUB + b % AIFS_LAT_SUB) << shift;
}

#endif /* AIFS_GENL_H */
