// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Percentiles of the module's latency histograms (aifs_genl.h): kept
 * apart from the command so that the unit tests can drive them.
 */
#include "latency.h"

u64 lat_count(const u64 *buckets)
{
	u64 n = 0;
	unsigned int b;

	for (b = 0; b < AIFS_LAT_BUCKETS; b++)
		n += buckets[b];
	return n;
}

/*
 * The @pct-th percentile (0 < @pct <= 100) of @buckets in microseconds:
 * the upper end of the bucket the percentile falls in, so the true value
 * is at most this and more than four fifths of it (the last bucket, open
 * above, gives its lower end). 0 when the histogram is empty.
 */
u64 lat_percentile(const u64 *buckets, double pct)
{
	u64 total = lat_count(buckets), rank, seen = 0;
	unsigned int b;

	if (!total)
		return 0;
	/* the smallest rank with at least pct % of the values at or below */
	rank = (u64)(pct / 100.0 * (double)total + 0.999999);
	if (rank < 1)
		rank = 1;
	for (b = 0; b < AIFS_LAT_BUCKETS - 1; b++) {
		seen += buckets[b];
		if (seen >= rank)
			break;
	}
	if (b == AIFS_LAT_BUCKETS - 1)
		return aifs_lat_bucket_low(b);
	/* the largest whole microsecond of bucket b */
	return aifs_lat_bucket_low(b + 1) - 1;
}
