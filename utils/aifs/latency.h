/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
#ifndef AIFS_CLI_LATENCY_H
#define AIFS_CLI_LATENCY_H

#include "aifs/aifs_user.h"
#include "aifs/aifs_genl.h"

/* Requests in a histogram of AIFS_LAT_BUCKETS. */
u64 lat_count(const u64 *buckets);
/* Its @pct-th percentile in microseconds, as an upper bound; 0 if empty. */
u64 lat_percentile(const u64 *buckets, double pct);

#endif /* AIFS_CLI_LATENCY_H */
