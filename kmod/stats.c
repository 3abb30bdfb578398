// SPDX-License-Identifier: GPL-2.0
/*
 * aifs - per-mount statistics: requests to the metadata and the data
 * servers, and what readahead brought in.
 *
 * Every counter is counted here, per CPU (readahead sub-requests count
 * from several CPUs at once), and summed only when read. Today sysfs's
 * "stats" file shows the sums; the generic netlink family planned for the
 * aifs CLI is to read the same aifs_stats_sum().
 */
#include <linux/percpu.h>
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
	return fsi->stats ? 0 : -ENOMEM;
}

void aifs_stats_free(struct aifs_fs_info *fsi)
{
	free_percpu(fsi->stats);
	fsi->stats = NULL;
}

/**
 * aifs_stats_call - count one request and its outcome
 * @fsi: the mount
 * @peer: the kind of server it went to
 * @op: its opcode
 * @sent: bytes of payload sent
 * @ret: what aifs_conn_call() returned: the reply's payload length, or
 *	a negative errno (a server's status, or the connection's)
 */
void aifs_stats_call(struct aifs_fs_info *fsi, enum aifs_peer peer, u16 op,
		     u32 sent, int ret)
{
	struct aifs_stats __percpu *st = fsi->stats;

	this_cpu_inc(st->peer[peer].requests);
	this_cpu_add(st->peer[peer].bytes_sent, sent);
	if (ret >= 0)
		this_cpu_add(st->peer[peer].bytes_received, ret);
	else if (ret == -ETIMEDOUT)
		this_cpu_inc(st->peer[peer].timeouts);
	else
		this_cpu_inc(st->peer[peer].errors);
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

static const char *const aifs_counter_names[AIFS_NR_COUNTERS] = {
	[AIFS_CHUNK_READ_BYTES]	= "chunk_read_bytes",
	[AIFS_MAP_REFRESHES]	= "map_refreshes",
	[AIFS_RA_PAGES]		= "readahead_pages",
	[AIFS_RA_USED]		= "readahead_used",
	[AIFS_RA_WASTED]	= "readahead_wasted",
	[AIFS_RDMA_READ_BYTES]	= "rdma_read_bytes",
	[AIFS_RDMA_WRITE_BYTES]	= "rdma_write_bytes",
};

static int aifs_stats_emit_peer(char *buf, int len, const char *name,
				const struct aifs_peer_stats *p)
{
	len += sysfs_emit_at(buf, len, "%s_requests %llu\n", name, p->requests);
	len += sysfs_emit_at(buf, len, "%s_errors %llu\n", name, p->errors);
	len += sysfs_emit_at(buf, len, "%s_timeouts %llu\n", name, p->timeouts);
	len += sysfs_emit_at(buf, len, "%s_bytes_sent %llu\n", name,
			     p->bytes_sent);
	len += sysfs_emit_at(buf, len, "%s_bytes_received %llu\n", name,
			     p->bytes_received);
	return len;
}

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
 * Return: bytes written. The keys are listed in Documentation/mount-options.md.
 */
int aifs_stats_show(struct aifs_fs_info *fsi, char *buf)
{
	struct aifs_stats s;
	int i, len = 0;
	u16 op;

	aifs_stats_sum(fsi, &s);
	len = aifs_stats_emit_peer(buf, len, "mds", &s.peer[AIFS_PEER_MDS]);
	for (op = AIFS_STATS_OP_FIRST; op <= AIFS_STATS_OP_LAST; op++) {
		u64 n = s.mds_ops[op - AIFS_STATS_OP_FIRST];

		/* the gap between the namespace operations and MAP_GET */
		if (aifs_msg_fixed_size(op, false) >= 0)
			len = aifs_stats_emit_op(buf, len, op, n);
	}
	len = aifs_stats_emit_peer(buf, len, "ds", &s.peer[AIFS_PEER_DS]);
	for (i = 0; i < AIFS_NR_COUNTERS; i++)
		len += sysfs_emit_at(buf, len, "%s %llu\n",
				     aifs_counter_names[i], s.count[i]);
	return len;
}
