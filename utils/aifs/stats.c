// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * aifs stats [-i SECONDS] [MOUNTPOINT...]: a mount's client statistics,
 * from the module over generic netlink (genl.c). Without -i, totals since
 * the mount and rates over its life; with -i, what moved over SECONDS.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "latency.h"

/* in the order of enum aifs_counter, made from the same list */
#define COUNTER_NAME(id, name) name,
static const char *const counter_names[AIFS_NR_COUNTERS] = {
	AIFS_COUNTERS(COUNTER_NAME)
};

#undef COUNTER_NAME

static const char *const lat_class_names[AIFS_LAT_CLASSES] = {
	[AIFS_LAT_META] = "metadata",
	[AIFS_LAT_READ] = "read",
	[AIFS_LAT_WRITE] = "write",
	[AIFS_LAT_OTHER] = "other",
};

static const double percentiles[] = { 50, 95, 99 };

static void u64s_since(u64 *a, const u64 *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		a[i] = b[i] - a[i];
}

/* @later minus @st, every counter: what moved in between. */
static void stats_since(struct cli_mount_stats *st,
			const struct cli_mount_stats *later)
{
	u64s_since(st->count, later->count, AIFS_NR_COUNTERS);
	u64s_since(st->mds_ops, later->mds_ops, AIFS_STATS_NR_OPS);
	u64s_since(&st->lat[0][0], &later->lat[0][0],
		   AIFS_LAT_CLASSES * AIFS_LAT_BUCKETS);
	st->age_ms = later->age_ms - st->age_ms;
}

/* The opcode's name in lower case, as sysfs has it after "mds_". */
static const char *stats_op_name(u16 op, char *buf, size_t size)
{
	size_t i;

	snprintf(buf, size, "%s", aifs_opcode_name(op));
	for (i = 0; buf[i]; i++)
		buf[i] = tolower((unsigned char)buf[i]);
	return buf;
}

/* Opcodes of the MDS range the protocol has (not those of the gap). */
static bool stats_op_known(u16 op)
{
	return aifs_msg_fixed_size(op, false) >= 0;
}

/* The share of buffered reads' pages the client did not fetch; < 0: none. */
static double stats_cache_hits(const struct cli_mount_stats *st)
{
	u64 buffered = st->count[AIFS_C_READ_BYTES] -
		       st->count[AIFS_C_DIRECT_READ_BYTES];
	double pages = (double)buffered / sysconf(_SC_PAGESIZE);
	double filled = (double)st->count[AIFS_C_CACHE_FILL_PAGES];

	if (pages < 1)
		return -1;
	return filled >= pages ? 0 : (pages - filled) / pages;
}

static double stats_rate(const struct cli_mount_stats *st, u64 v)
{
	return st->age_ms ? (double)v * 1000 / (double)st->age_ms : 0;
}

/* ---- text ---- */

static const char *human_us(u64 us, char *buf, size_t size)
{
	if (us < 1000)
		snprintf(buf, size, "%llu us", (unsigned long long)us);
	else if (us < 1000000)
		snprintf(buf, size, "%.1f ms", us / 1e3);
	else
		snprintf(buf, size, "%.2f s", us / 1e6);
	return buf;
}

static void print_io(const struct cli_mount_stats *st, const char *what,
		     enum aifs_counter all, enum aifs_counter direct)
{
	char a[32], b[32], c[32];

	printf("  %-8s %12s %14s  (O_DIRECT %s)\n", what,
	       cli_human(st->count[all], "B", a, sizeof(a)),
	       cli_human(stats_rate(st, st->count[all]), "B/s", b, sizeof(b)),
	       cli_human(st->count[direct], "B", c, sizeof(c)));
}

static void print_latency(const struct cli_mount_stats *st)
{
	char buf[32];
	size_t p;
	int c;

	printf("  %-10s %10s", "latency", "requests");
	for (p = 0; p < ARRAY_SIZE(percentiles); p++)
		printf(" %9s%g", "p", percentiles[p]);
	printf("\n");
	for (c = 0; c < AIFS_LAT_CLASSES; c++) {
		printf("  %-10s %10llu", lat_class_names[c],
		       (unsigned long long)lat_count(st->lat[c]));
		for (p = 0; p < ARRAY_SIZE(percentiles); p++)
			printf(" %11s", human_us(lat_percentile(st->lat[c],
								percentiles[p]),
						 buf, sizeof(buf)));
		printf("\n");
	}
}

/* @c: a block of request counters, MDS or DS (same order). */
static void print_peer(const char *what, const u64 *c)
{
	printf("  %s: %llu requests, %llu errors, %llu timeouts\n", what,
	       (unsigned long long)c[AIFS_C_MDS_REQUESTS],
	       (unsigned long long)c[AIFS_C_MDS_ERRORS],
	       (unsigned long long)c[AIFS_C_MDS_TIMEOUTS]);
}

static void print_mds_ops(const struct cli_mount_stats *st)
{
	const char *sep = "";
	char name[32];
	u16 op;

	printf("  metadata operations:");
	for (op = AIFS_STATS_OP_FIRST; op <= AIFS_STATS_OP_LAST; op++) {
		u64 n = st->mds_ops[op - AIFS_STATS_OP_FIRST];

		if (!n || !stats_op_known(op))
			continue;
		printf("%s %s %llu", sep, stats_op_name(op, name, sizeof(name)),
		       (unsigned long long)n);
		sep = ",";
	}
	printf("%s\n", *sep ? "" : " none");
}

static void print_stats(const struct cli_mount *m,
			const struct cli_mount_stats *st, bool interval)
{
	const u64 *c = st->count;
	double hits = stats_cache_hits(st);

	printf("%s: aifs-%u over %s, %s %.1f s\n", m->dir, st->id,
	       st->transport, interval ? "over the last" : "mounted",
	       st->age_ms / 1e3);
	print_io(st, "read", AIFS_C_READ_BYTES, AIFS_C_DIRECT_READ_BYTES);
	print_io(st, "written", AIFS_C_WRITE_BYTES, AIFS_C_DIRECT_WRITE_BYTES);
	print_latency(st);
	print_peer("metadata server", c + AIFS_C_MDS_REQUESTS);
	print_peer("data servers", c + AIFS_C_DS_REQUESTS);
	printf("  page cache: %llu pages filled from servers",
	       (unsigned long long)c[AIFS_C_CACHE_FILL_PAGES]);
	if (hits >= 0)
		printf(", hits %.1f %% of the pages read", 100 * hits);
	printf("\n  readahead: %llu pages, %llu used, %llu wasted\n",
	       (unsigned long long)c[AIFS_C_RA_PAGES],
	       (unsigned long long)c[AIFS_C_RA_USED],
	       (unsigned long long)c[AIFS_C_RA_WASTED]);
	printf("  retries %llu, failovers %llu, reconnects %llu, map refreshes %llu\n",
	       (unsigned long long)c[AIFS_C_RETRIES],
	       (unsigned long long)c[AIFS_C_FAILOVERS],
	       (unsigned long long)c[AIFS_C_RECONNECTS],
	       (unsigned long long)c[AIFS_C_MAP_REFRESHES]);
	print_mds_ops(st);
}

/* ---- JSON ---- */

static struct json_object *json_counters(const struct cli_mount_stats *st)
{
	struct json_object *o = json_object_new_object();
	int i;

	for (i = 0; i < AIFS_NR_COUNTERS; i++)
		json_object_object_add(o, counter_names[i],
				       json_object_new_uint64(st->count[i]));
	return o;
}

static struct json_object *json_mds_ops(const struct cli_mount_stats *st)
{
	struct json_object *o = json_object_new_object();
	char name[32];
	u16 op;

	for (op = AIFS_STATS_OP_FIRST; op <= AIFS_STATS_OP_LAST; op++)
		if (stats_op_known(op))
			json_object_object_add(o,
				stats_op_name(op, name, sizeof(name)),
				json_object_new_uint64(st->mds_ops[op -
							AIFS_STATS_OP_FIRST]));
	return o;
}

/* Per class: requests, percentiles, and the non-empty buckets [low, n]. */
static struct json_object *json_latency(const struct cli_mount_stats *st)
{
	struct json_object *o = json_object_new_object(), *c, *buckets, *b;
	char key[16];
	unsigned int i;
	size_t p;
	int k;

	for (k = 0; k < AIFS_LAT_CLASSES; k++) {
		c = json_object_new_object();
		json_object_object_add(c, "requests",
			json_object_new_uint64(lat_count(st->lat[k])));
		for (p = 0; p < ARRAY_SIZE(percentiles); p++) {
			snprintf(key, sizeof(key), "p%g", percentiles[p]);
			json_object_object_add(c, key, json_object_new_uint64(
				lat_percentile(st->lat[k], percentiles[p])));
		}
		buckets = json_object_new_array();
		for (i = 0; i < AIFS_LAT_BUCKETS; i++) {
			if (!st->lat[k][i])
				continue;
			b = json_object_new_array();
			json_object_array_add(b, json_object_new_uint64(
				aifs_lat_bucket_low(i)));
			json_object_array_add(b, json_object_new_uint64(
				st->lat[k][i]));
			json_object_array_add(buckets, b);
		}
		json_object_object_add(c, "buckets", buckets);
		json_object_object_add(o, lat_class_names[k], c);
	}
	return o;
}

static struct json_object *json_stats(const struct cli_mount *m,
				      const struct cli_mount_stats *st,
				      bool interval)
{
	struct json_object *o = json_object_new_object(), *rate;
	double hits = stats_cache_hits(st);

	json_object_object_add(o, "mount_point",
			       json_object_new_string(m->dir));
	json_object_object_add(o, "mount_id", json_object_new_int(st->id));
	json_object_object_add(o, "transport",
			       json_object_new_string(st->transport));
	json_object_object_add(o, interval ? "interval_s" : "age_s",
			       json_object_new_double(st->age_ms / 1e3));
	json_object_object_add(o, "counters", json_counters(st));
	json_object_object_add(o, "mds_ops", json_mds_ops(st));
	json_object_object_add(o, "latency_us", json_latency(st));
	rate = json_object_new_object();
	json_object_object_add(rate, "read", json_object_new_double(
		stats_rate(st, st->count[AIFS_C_READ_BYTES])));
	json_object_object_add(rate, "write", json_object_new_double(
		stats_rate(st, st->count[AIFS_C_WRITE_BYTES])));
	json_object_object_add(o, "bytes_per_s", rate);
	json_object_object_add(o, "page_cache_hit_ratio",
			       hits < 0 ? NULL : json_object_new_double(hits));
	return o;
}

/* ---- the command ---- */

static int stats_sample(const struct cli_mount *m, struct cli_mount_stats *st)
{
	int err = cli_stats_get(m->dev, st);

	if (err == -ENOENT)
		fprintf(stderr, "aifs: the aifs module is not loaded\n");
	else if (err == -ENODEV)
		fprintf(stderr, "aifs: %s: the module knows no such mount\n",
			m->dir);
	else if (err && err != -EIO)
		fprintf(stderr, "aifs: %s: %s\n", m->dir, strerror(-err));
	return err;
}

/* The statistics of @nr mounts, or of what moved over @interval_ms. */
static int stats_collect(struct cli_mount *mounts, size_t nr,
			 unsigned int interval_ms, struct cli_mount_stats *st)
{
	struct cli_mount_stats *later;
	size_t i;
	int err = 0;

	for (i = 0; i < nr && !err; i++)
		err = stats_sample(&mounts[i], &st[i]);
	if (err || !interval_ms)
		return err;
	later = malloc(sizeof(*later));
	if (!later)
		return -ENOMEM;
	usleep(interval_ms * 1000);
	for (i = 0; i < nr && !err; i++) {
		err = stats_sample(&mounts[i], later);
		if (!err)
			stats_since(&st[i], later);
	}
	free(later);
	return err;
}

static int stats_print(struct aifs_cli *cli, struct cli_mount *mounts,
		       size_t nr, const struct cli_mount_stats *st,
		       bool interval)
{
	struct json_object *all, *top;
	size_t i;

	if (!cli->json) {
		for (i = 0; i < nr; i++)
			print_stats(&mounts[i], &st[i], interval);
		return 0;
	}
	all = json_object_new_array();
	for (i = 0; i < nr; i++)
		json_object_array_add(all, json_stats(&mounts[i], &st[i],
						      interval));
	top = json_object_new_object();
	json_object_object_add(top, "mounts", all);
	return cli_json_put(top);
}

/* Seconds, as "5" or "0.5", in milliseconds: 0 when it is not one. */
static unsigned int stats_interval_ms(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	return *end || end == s || v <= 0 || v > 3600 ? 0 :
	       (unsigned int)(v * 1000 + 0.5) ?: 1;
}

/* stats [-i SECONDS] [MOUNTPOINT...] */
int cmd_stats(struct aifs_cli *cli, int argc, char **argv)
{
	struct cli_mount_stats *st = NULL;
	unsigned int interval_ms = 0;
	struct cli_mount *mounts;
	size_t nr;
	int opt, err;

	optind = 0;
	while ((opt = getopt(argc, argv, "+i:")) != -1) {
		interval_ms = opt == 'i' ? stats_interval_ms(optarg) : 0;
		if (!interval_ms) {
			cli_usage(stderr);
			return 2;
		}
	}
	if (cli_mounts(argc - optind, argv + optind, &mounts, &nr))
		return 1;
	st = calloc(nr, sizeof(*st));
	err = st ? stats_collect(mounts, nr, interval_ms, st) : -ENOMEM;
	if (!err)
		err = stats_print(cli, mounts, nr, st, interval_ms);
	free(st);
	cli_mounts_free(mounts, nr);
	return err ? 1 : 0;
}
