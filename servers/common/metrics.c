// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The runtime's metrics: per-opcode request counts, errors and latency
 * histograms, bytes, connections and the worker pools, written in the
 * Prometheus text format (aifs/metrics.h).  The loop thread is the only
 * writer of every counter here; a scrape on the HTTP thread reads them
 * with relaxed atomics, so a scrape sees each value whole, and takes one
 * snapshot of the opcodes so that a histogram's count, its +Inf bucket
 * and aifs_requests_total agree within the scrape.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

static const struct {
	u64 ns;
	const char *le;
} metrics_buckets[AIFS_METRICS_BUCKETS] = {
	{ 25000, "2.5e-05" },		{ 50000, "5e-05" },
	{ 100000, "0.0001" },		{ 250000, "0.00025" },
	{ 500000, "0.0005" },		{ 1000000, "0.001" },
	{ 2500000, "0.0025" },		{ 5000000, "0.005" },
	{ 10000000, "0.01" },		{ 25000000, "0.025" },
	{ 50000000, "0.05" },		{ 100000000, "0.1" },
	{ 250000000, "0.25" },		{ 500000000, "0.5" },
	{ 1000000000, "1" },		{ 2500000000ULL, "2.5" },
	{ 5000000000ULL, "5" },		{ 10000000000ULL, "10" },
};

static u64 metrics_load(const u64 *v)
{
	return __atomic_load_n(v, __ATOMIC_RELAXED);
}

u64 aifs_metrics_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

void aifs_metrics_init(struct aifs_metrics *m)
{
	m->start_time = time(NULL);
	m->start_ns = aifs_metrics_clock();
}

void aifs_metrics_add(u64 *counter, s64 n)
{
	__atomic_fetch_add(counter, n, __ATOMIC_RELAXED);
}

static unsigned int metrics_bucket(u64 ns)
{
	unsigned int i;

	for (i = 0; i < AIFS_METRICS_BUCKETS; i++)
		if (ns <= metrics_buckets[i].ns)
			break;
	return i;
}

void aifs_metrics_request(struct aifs_metrics *m, u16 opcode, u32 status,
			  u64 arrived_ns)
{
	struct aifs_op_stats *op = &m->ops[opcode];
	u64 ns = aifs_metrics_clock() - arrived_ns;

	aifs_metrics_add(&op->sum_ns, ns);
	if (status)
		aifs_metrics_add(&op->errors, 1);
	aifs_metrics_add(&op->buckets[metrics_bucket(ns)], 1);
}

/* ---- the text format ---- */

void aifs_metric_head(FILE *out, const char *name, const char *type,
		      const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void metric_name(FILE *out, const char *name, const char *labels)
{
	if (labels)
		fprintf(out, "%s{%s} ", name, labels);
	else
		fprintf(out, "%s ", name);
}

void aifs_metric_u64(FILE *out, const char *name, const char *labels,
		     u64 value)
{
	metric_name(out, name, labels);
	fprintf(out, "%llu\n", (unsigned long long)value);
}

void aifs_metric_double(FILE *out, const char *name, const char *labels,
			double value)
{
	metric_name(out, name, labels);
	fprintf(out, "%.9g\n", value);
}

void aifs_metric_one(FILE *out, const char *name, const char *type,
		     const char *help, u64 value)
{
	aifs_metric_head(out, name, type, help);
	aifs_metric_u64(out, name, NULL, value);
}

u64 aifs_metric_field_value(const struct aifs_metric_field *f,
			    const void *base)
{
	return aifs_le_field((const u8 *)base + f->offset, f->size);
}

void aifs_metric_fields(FILE *out, const struct aifs_metric_field *f,
			size_t n, const void *base)
{
	size_t i;

	for (i = 0; i < n; i++)
		aifs_metric_one(out, f[i].name, f[i].type, f[i].help,
				aifs_metric_field_value(&f[i], base));
}

/* ---- the runtime's metrics ---- */

static u64 op_count(const struct aifs_op_stats *op)
{
	u64 n = 0;
	unsigned int i;

	for (i = 0; i <= AIFS_METRICS_BUCKETS; i++)
		n += op->buckets[i];
	return n;
}

static void op_snapshot(const struct aifs_op_stats *op,
			struct aifs_op_stats *snap)
{
	unsigned int i;

	for (i = 0; i <= AIFS_METRICS_BUCKETS; i++)
		snap->buckets[i] = metrics_load(&op->buckets[i]);
	snap->errors = metrics_load(&op->errors);
	snap->sum_ns = metrics_load(&op->sum_ns);
}

#define METRICS_LATENCY	"aifs_request_duration_seconds"

static void op_histogram(FILE *out, const char *op,
			 const struct aifs_op_stats *s)
{
	u64 cum = 0;
	unsigned int i;

	for (i = 0; i < AIFS_METRICS_BUCKETS; i++) {
		cum += s->buckets[i];
		fprintf(out, METRICS_LATENCY "_bucket{op=\"%s\",le=\"%s\"} %llu\n",
			op, metrics_buckets[i].le, (unsigned long long)cum);
	}
	cum += s->buckets[AIFS_METRICS_BUCKETS];
	fprintf(out, METRICS_LATENCY "_bucket{op=\"%s\",le=\"+Inf\"} %llu\n",
		op, (unsigned long long)cum);
	fprintf(out, METRICS_LATENCY "_sum{op=\"%s\"} %.9f\n", op,
		s->sum_ns / 1e9);
	fprintf(out, METRICS_LATENCY "_count{op=\"%s\"} %llu\n", op,
		(unsigned long long)cum);
}

static u64 op_errors(const struct aifs_op_stats *s)
{
	return s->errors;
}

/*
 * The per-opcode families: each with the value of an opcode's snapshot,
 * or NULL: the histogram.
 */
static const struct {
	const char *name, *type, *help;
	u64 (*value)(const struct aifs_op_stats *s);
} metrics_op_families[] = {
	{ "aifs_requests_total", "counter",
	  "Requests answered, by opcode.", op_count },
	{ "aifs_request_errors_total", "counter",
	  "Requests answered with a non-zero status, by opcode.", op_errors },
	{ METRICS_LATENCY, "histogram",
	  "Time from a request's arrival to its reply being queued.", NULL },
};

static void metrics_ops(struct aifs_server *srv, FILE *out,
			const struct aifs_op_stats *snap)
{
	const char *op;
	char labels[64];
	size_t f;
	u16 i;

	for (f = 0; f < ARRAY_SIZE(metrics_op_families); f++) {
		aifs_metric_head(out, metrics_op_families[f].name,
				 metrics_op_families[f].type,
				 metrics_op_families[f].help);
		for (i = 0; i < AIFS_SERVER_MAX_OPCODE; i++) {
			if (!srv->handlers[i].fn)
				continue;
			op = aifs_opcode_name(i);
			if (!metrics_op_families[f].value) {
				op_histogram(out, op, &snap[i]);
				continue;
			}
			snprintf(labels, sizeof(labels), "op=\"%s\"", op);
			aifs_metric_u64(out, metrics_op_families[f].name, labels,
					metrics_op_families[f].value(&snap[i]));
		}
	}
}

/* A worker pool as a scrape sees it. */
struct metrics_pool {
	const char *name;
	unsigned int threads, busy, queued;
};

static void pool_load(struct metrics_pool *p, const char *name,
		      struct aifs_workers *w)
{
	p->name = name;
	p->threads = w->started ? w->nr_threads : 0;
	aifs_workers_load(w, &p->queued, &p->busy);
}

static const struct {
	const char *name, *help;
	size_t offset;		/* of an unsigned int in struct metrics_pool */
} metrics_pool_families[] = {
	{ "aifs_worker_threads",
	  "Threads of a pool: workers (blocking handlers) or peer (requests of other servers).",
	  offsetof(struct metrics_pool, threads) },
	{ "aifs_workers_busy", "Threads of a pool running a request now.",
	  offsetof(struct metrics_pool, busy) },
	{ "aifs_work_queue_depth", "Requests waiting for a thread of a pool.",
	  offsetof(struct metrics_pool, queued) },
};

static void metrics_pools(struct aifs_server *srv, FILE *out)
{
	struct metrics_pool pools[2];
	const unsigned int *v;
	char labels[32];
	size_t f, i;

	pool_load(&pools[0], "workers", &srv->workers);
	pool_load(&pools[1], "peer", &srv->peer_workers);
	for (f = 0; f < ARRAY_SIZE(metrics_pool_families); f++) {
		aifs_metric_head(out, metrics_pool_families[f].name, "gauge",
				 metrics_pool_families[f].help);
		for (i = 0; i < ARRAY_SIZE(pools); i++) {
			v = (const void *)((const u8 *)&pools[i] +
					   metrics_pool_families[f].offset);
			snprintf(labels, sizeof(labels), "pool=\"%s\"",
				 pools[i].name);
			aifs_metric_u64(out, metrics_pool_families[f].name,
					labels, *v);
		}
	}
}

static void metrics_process(struct aifs_server *srv, FILE *out)
{
	struct aifs_metrics *m = &srv->metrics;

	aifs_metric_head(out, "aifs_build_info", "gauge",
			 "The server program and the protocol versions it speaks; always 1.");
	fprintf(out, "aifs_build_info{server=\"%s\",protocol_min=\"%d\",protocol_max=\"%d\"} 1\n",
		aifs_log_component(), AIFS_PROTO_MIN_VERSION,
		AIFS_PROTO_VERSION);
	aifs_metric_one(out, "aifs_start_time_seconds", "gauge",
			"When the server started, in Unix seconds.",
			m->start_time);
	aifs_metric_head(out, "aifs_uptime_seconds", "gauge",
			 "Seconds since the server started.");
	aifs_metric_double(out, "aifs_uptime_seconds", NULL,
			   (aifs_metrics_clock() - m->start_ns) / 1e9);
	aifs_metric_one(out, "aifs_map_epoch", "gauge",
			"The cluster map epoch every reply carries.",
			metrics_load(&srv->map_epoch));
}

/* The runtime's counters of bytes and connections in struct aifs_metrics. */
static const struct {
	const char *name, *type, *help;
	size_t offset;
} metrics_io_counters[] = {
	{ "aifs_received_bytes_total", "counter",
	  "Bytes received on client and server connections.",
	  offsetof(struct aifs_metrics, rx_bytes) },
	{ "aifs_sent_bytes_total", "counter",
	  "Bytes sent on client and server connections.",
	  offsetof(struct aifs_metrics, tx_bytes) },
	{ "aifs_connections", "gauge", "Connections open now.",
	  offsetof(struct aifs_metrics, connections) },
	{ "aifs_connections_accepted_total", "counter",
	  "Connections accepted (and not refused at max_connections).",
	  offsetof(struct aifs_metrics, accepted) },
};

static void metrics_io(struct aifs_server *srv, FILE *out)
{
	const u8 *m = (const u8 *)&srv->metrics;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(metrics_io_counters); i++)
		aifs_metric_one(out, metrics_io_counters[i].name,
				metrics_io_counters[i].type,
				metrics_io_counters[i].help,
				metrics_load((const u64 *)(m +
					     metrics_io_counters[i].offset)));
}

int aifs_metrics_write(struct aifs_server *srv, FILE *out)
{
	struct aifs_op_stats *snap;
	u16 i;

	snap = calloc(AIFS_SERVER_MAX_OPCODE, sizeof(*snap));
	if (!snap)
		return -ENOMEM;
	for (i = 0; i < AIFS_SERVER_MAX_OPCODE; i++)
		op_snapshot(&srv->metrics.ops[i], &snap[i]);
	metrics_process(srv, out);
	metrics_ops(srv, out, snap);
	free(snap);
	metrics_io(srv, out);
	metrics_pools(srv, out);
	if (srv->metrics.fn)
		srv->metrics.fn(out, srv->data);
	return 0;
}
