// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The latency histograms the module keeps and aifs stats reads: every
 * value lands in the bucket whose range holds it, the buckets are in
 * order and no wider than promised, and the percentiles of known
 * histograms are what they must be.
 */
#include <string.h>

#include "test.h"
#include "../../../utils/aifs/latency.h"

/* Every bucket's range holds exactly the values that land in it. */
static void test_buckets(void)
{
	unsigned int b, prev = 0;
	u64 v, low, next;

	TEST_CTX("bucket ranges");
	CHECK_EQ(aifs_lat_bucket(0), 0);
	CHECK_EQ(aifs_lat_bucket_low(0), 0);
	for (b = 1; b < AIFS_LAT_BUCKETS; b++) {
		low = aifs_lat_bucket_low(b);
		CHECK(low > aifs_lat_bucket_low(b - 1));
		CHECK_EQ(aifs_lat_bucket(low), b);
		CHECK_EQ(aifs_lat_bucket(low - 1), b - 1);
		next = aifs_lat_bucket_low(b + 1);
		/* no wider than a quarter of its lower end, above 4 us */
		if (b >= AIFS_LAT_SUB && b < AIFS_LAT_BUCKETS - 1)
			CHECK(next - low <= low / 4);
	}
	/* every value from 0 to a second, and on up by steps, in order */
	for (v = 0; v < (1ULL << 40); v = v < 1000000 ? v + 1 : v * 9 / 8) {
		b = aifs_lat_bucket(v);
		CHECK(b < AIFS_LAT_BUCKETS);
		CHECK(b >= prev);
		if (b < AIFS_LAT_BUCKETS - 1) {
			CHECK(aifs_lat_bucket_low(b) <= v);
			CHECK(v < aifs_lat_bucket_low(b + 1));
		}
		prev = b;
		if (test_failures > 20)
			return;
	}
	CHECK_EQ(aifs_lat_bucket(~0ULL), AIFS_LAT_BUCKETS - 1);
}

static void put(u64 *h, u64 us, u64 n)
{
	h[aifs_lat_bucket(us)] += n;
}

static void test_percentiles(void)
{
	u64 h[AIFS_LAT_BUCKETS];

	TEST_CTX("empty");
	memset(h, 0, sizeof(h));
	CHECK_EQ(lat_count(h), 0);
	CHECK_EQ(lat_percentile(h, 50), 0);

	TEST_CTX("one value of 3 us");
	put(h, 3, 1);
	CHECK_EQ(lat_percentile(h, 50), 3);
	CHECK_EQ(lat_percentile(h, 99), 3);

	TEST_CTX("90 x 100 us, 9 x 1000 us, 1 x 50000 us");
	memset(h, 0, sizeof(h));
	put(h, 100, 90);
	put(h, 1000, 9);
	put(h, 50000, 1);
	CHECK_EQ(lat_count(h), 100);
	/* 100 us is in [96, 112): 111 is its largest whole microsecond */
	CHECK_EQ(lat_percentile(h, 50), 111);
	CHECK_EQ(lat_percentile(h, 90), 111);
	/* 1000 us is in [896, 1024) */
	CHECK_EQ(lat_percentile(h, 95), 1023);
	CHECK_EQ(lat_percentile(h, 99), 1023);
	/* 50000 us is in [49152, 57344) */
	CHECK_EQ(lat_percentile(h, 99.5), 57343);
	CHECK_EQ(lat_percentile(h, 100), 57343);

	TEST_CTX("beyond the last bucket");
	memset(h, 0, sizeof(h));
	put(h, 1ULL << 40, 5);
	CHECK_EQ(lat_percentile(h, 50),
		 aifs_lat_bucket_low(AIFS_LAT_BUCKETS - 1));
}

int main(void)
{
	test_buckets();
	test_percentiles();
	return test_result("cli-latency");
}
