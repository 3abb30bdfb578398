// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* What the benchmark suite's tools share (tool.h). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"

#define PROG	program_invocation_short_name

uint64_t tool_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* A whole number from @min to @max for option @opt, or exit 2. */
unsigned long tool_parse_count(const char *arg, const char *opt,
			       unsigned long min, unsigned long max)
{
	unsigned long n;
	char *end;

	errno = 0;
	n = strtoul(arg, &end, 10);
	if (errno || !isdigit((unsigned char)arg[0]) || *end || n < min ||
	    n > max) {
		fprintf(stderr, "%s: %s wants %lu to %lu, not '%s'\n", PROG,
			opt, min, max, arg);
		exit(2);
	}
	return n;
}

/* A number from @min to @max for option @opt, or exit 2. */
double tool_parse_real(const char *arg, const char *opt, double min,
		       double max)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(arg, &end);
	if (errno || end == arg || *end || !(x >= min && x <= max)) {
		fprintf(stderr, "%s: %s wants %g to %g, not '%s'\n", PROG, opt,
			min, max, arg);
		exit(2);
	}
	return x;
}

/* sync, then drop the clean page cache, dentries and inodes. */
int tool_drop_page_cache(void)
{
	static const char path[] = "/proc/sys/vm/drop_caches";
	int fd;

	sync();
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, "3", 1) != 1) {
		fprintf(stderr, "%s: -d: %s: %s (needs root)\n", PROG, path,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

double tool_rate(double amount, double seconds)
{
	return seconds > 0 ? amount / seconds : 0;
}

/* @s as a JSON string: quotes, backslashes and control bytes escaped. */
void tool_print_json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}
