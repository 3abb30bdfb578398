/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What the benchmark suite's tools (aifs-mdtest, aifs-loader) share:
 * the clock, their options' numbers, a cold cache and JSON strings.
 * Messages are prefixed with the program's name.
 */
#ifndef AIFS_BENCH_TOOL_H
#define AIFS_BENCH_TOOL_H

#include <stdint.h>

#define NSEC_PER_SEC	1000000000ULL

uint64_t tool_now_ns(void);
unsigned long tool_parse_count(const char *arg, const char *opt,
			       unsigned long min, unsigned long max);
double tool_parse_real(const char *arg, const char *opt, double min,
		       double max);
int tool_drop_page_cache(void);
double tool_rate(double amount, double seconds);
void tool_print_json_string(const char *s);

#endif
