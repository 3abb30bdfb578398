/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Server metrics in the Prometheus text exposition format (version
 * 0.0.4), served by libmicrohttpd's own thread at GET /metrics on
 * metrics_port (0: not served).  The runtime writes what every server
 * has (requests, latency, bytes, connections, workers); a server appends
 * its own through the callback of aifs_server_on_metrics().  See
 * Documentation/metrics.md for every metric.
 *
 * The callback runs on the HTTP thread, beside the loop and the workers:
 * it may block a little (statvfs, a read transaction) but must read what
 * others change only under their locks or with atomics.
 */
#ifndef AIFS_METRICS_H
#define AIFS_METRICS_H

#include <stdio.h>

#include "aifs/aifs_codec.h"
#include "aifs/config.h"

/* The "# HELP" and "# TYPE" lines of @name; @type: "counter", "gauge". */
void aifs_metric_head(FILE *out, const char *name, const char *type,
		      const char *help);

/* One sample "name{labels} value"; @labels without the braces, or NULL. */
void aifs_metric_u64(FILE *out, const char *name, const char *labels,
		     u64 value);
void aifs_metric_double(FILE *out, const char *name, const char *labels,
			double value);

/* A metric of one sample without labels: its head and its value. */
void aifs_metric_one(FILE *out, const char *name, const char *type,
		     const char *help, u64 value);

/*
 * A metric read from an __le32 or __le64 field of a wire struct: a server
 * shows what a status reply (DS_STATFS, DS_SCRUB, RECOVERY_GET) carries
 * by a table of these, without a getter per field.
 */
struct aifs_metric_field {
	const char *name, *type, *help;
	size_t offset, size;
};

#define AIFS_METRIC_FIELD(_name, _type, _help, T, field) {		\
	.name = _name, .type = _type, .help = _help,			\
	.offset = offsetof(T, field),					\
	.size = sizeof(((T *)0)->field) +				\
		AIFS_BUILD_BUG_ON_ZERO(sizeof(((T *)0)->field) != 4 &&	\
				       sizeof(((T *)0)->field) != 8) }

/* @f's field of the struct at @base, in host order. */
u64 aifs_metric_field_value(const struct aifs_metric_field *f,
			    const void *base);

/* Each of the @n metrics of @f: its head and its one sample from @base. */
void aifs_metric_fields(FILE *out, const struct aifs_metric_field *f,
			size_t n, const void *base);

/* Appends the server's own metrics to @out; @data: the server's. */
typedef void aifs_metrics_fn(FILE *out, void *data);

#endif /* AIFS_METRICS_H */
