// SPDX-License-Identifier: GPL-2.0
/*
 * aifs - per-mount statistics: requests to the metadata and the data
 * servers, and what readahead brought in.
 *
 * Every counter is counted here, per CPU (readahead sub-requests count
 * from several CPUs at once), and summed only when read: by sysfs's
 * "stats" file, and by the generic netlink family (genl.c) that the aifs
 * command reads, which has the latency histograms too.
 */
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/string_helpers.h>
#include <linux/sysfs.h>

#include "internal.h"

/**
 * aifs_stats_init - allocate a mount's counters, all zero
 * @fsi: the mount
 *
 * Return: 0 or -ENOMEM.
 */
int aifs_stats_init(struct aifs_fs_info *fsi)
{
	fsi->stats = alloc_percpu(struct aifs_stats);
	fsi->born_ns = ktime_get_boottime_ns();
	return fsi->stats ? 0 : -ENOMEM;
}

void aifs_stats_free(struct aifs_fs_info *fsi)
{
	free_percpu(fsi->stats);
	fsi->stats = NULL;
}

static enum aifs_lat_class aifs_lat_class_of(enum aifs_peer peer, u16 op)
{
	if (peer == AIFS_PEER_MDS)
		return AIFS_LAT_META;
	switch (op) {
	case AIFS_OP_CHUNK_READ:
	case AIFS_OP_EC_READ:
		return AIFS_LAT_READ;
	case AIFS_OP_CHUNK_WRITE:
	case AIFS_OP_EC_WRITE:
		return AIFS_LAT_WRITE;
	default:
		return AIFS_LAT_OTHER;
	}
}

/**
 * aifs_stats_call - count one request, its outcome and its latency
 * @fsi: the mount
 * @peer: the kind of server it went to
 * @op: its opcode
 * @sent: bytes of payload sent
 * @ret: what aifs_conn_call() returned: the reply's payload length, or
 *	a negative errno (a server's status, or the connection's)
 * @start_ns: ktime_get_ns() when it was sent
 */
void aifs_stats_call(struct aifs_fs_info *fsi, enum aifs_peer peer, u16 op,
		     u32 sent, int ret, u64 start_ns)
{
	struct aifs_stats __percpu *st = fsi->stats;
	/* the peer's block of counters, named by the MDS's */
	unsigned int c = peer * AIFS_PEER_COUNTERS;
	u64 us = div_u64(ktime_get_ns() - start_ns, NSEC_PER_USEC);

	BUILD_BUG_ON(AIFS_C_DS_REQUESTS !=
		     AIFS_C_MDS_REQUESTS + AIFS_PEER_COUNTERS * AIFS_PEER_DS);
	BUILD_BUG_ON(AIFS_C_DS_BYTES_RECEIVED - AIFS_C_DS_REQUESTS !=
		     AIFS_C_MDS_BYTES_RECEIVED - AIFS_C_MDS_REQUESTS);
	this_cpu_inc(st->count[c + AIFS_C_MDS_REQUESTS]);
	this_cpu_add(st->count[c + AIFS_C_MDS_BYTES_SENT], sent);
	if (ret >= 0)
		this_cpu_add(st->count[c + AIFS_C_MDS_BYTES_RECEIVED], ret);
	else if (ret == -ETIMEDOUT)
		this_cpu_inc(st->count[c + AIFS_C_MDS_TIMEOUTS]);
	else
		this_cpu_inc(st->count[c + AIFS_C_MDS_ERRORS]);
	this_cpu_inc(st->lat[aifs_lat_class_of(peer, op)][aifs_lat_bucket(us)]);
	if (peer == AIFS_PEER_MDS && op >= AIFS_STATS_OP_FIRST &&
	    op <= AIFS_STATS_OP_LAST)
		this_cpu_inc(st->mds_ops[op - AIFS_STATS_OP_FIRST]);
}

/**
 * aifs_stats_sum - the counters of a mount, summed over the CPUs
 * @fsi: the mount
 * @sum: out: the sums
 *
 * Each CPU's counters are read without stopping the others: a sum is
 * exact once the mount is idle, and close while it is busy.
 */
void aifs_stats_sum(struct aifs_fs_info *fsi, struct aifs_stats *sum)
{
	u64 *dst = (u64 *)sum;
	int cpu;
	size_t i;

	/* summed as an array of u64: the struct must be nothing else */
	BUILD_BUG_ON(sizeof(*sum) % sizeof(u64));
	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const u64 *src = (const u64 *)per_cpu_ptr(fsi->stats, cpu);

		for (i = 0; i < sizeof(*sum) / sizeof(u64); i++)
			dst[i] += READ_ONCE(src[i]);
	}
}

/* in the order of enum aifs_counter, made from the same list */
#define AIFS_COUNTER_NAME(id, name) name,
static const char *const aifs_counter_names[AIFS_NR_COUNTERS] = {
	AIFS_COUNTERS(AIFS_COUNTER_NAME)
};

#undef AIFS_COUNTER_NAME

/* "mds_" and the opcode's name in lower case, e.g. "mds_lookup". */
static int aifs_stats_emit_op(char *buf, int len, u16 op, u64 val)
{
	char name[32];

	strscpy(name, aifs_opcode_name(op), sizeof(name));
	string_lower(name, name);
	return len + sysfs_emit_at(buf, len, "mds_%s %llu\n", name, val);
}

/**
 * aifs_stats_show - a mount's counters as "key value" lines, for sysfs
 * @fsi: the mount
 * @buf: a sysfs page
 *
 * The latency histograms are left to the generic netlink family (a page
 * would not hold them).
 *
 * Return: bytes written. The keys are listed in Documentation/mount-options.md.
 */
int aifs_stats_show(struct aifs_fs_info *fsi, char *buf)
{
	struct aifs_stats *s;
	int i, len = 0;
	u16 op;

	s = kmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	aifs_stats_sum(fsi, s);
	for (i = 0; i < AIFS_NR_COUNTERS; i++)
		len += sysfs_emit_at(buf, len, "%s %llu\n",
				     aifs_counter_names[i], s->count[i]);
	for (op = AIFS_STATS_OP_FIRST; op <= AIFS_STATS_OP_LAST; op++) {
		u64 n = s->mds_ops[op - AIFS_STATS_OP_FIRST];

		/* the gap between the namespace operations and MAP_GET */
		if (aifs_msg_fixed_size(op, false) >= 0)
			len = aifs_stats_emit_op(buf, len, op, n);
	}
	kfree(s);
	return len;
}
