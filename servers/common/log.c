// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Logging to stderr.  Under systemd (JOURNAL_STREAM set) each line starts
 * with the "<N>" syslog priority that journald turns into the entry's
 * level (journald stamps the time); elsewhere the line starts with the
 * time in UTC to the millisecond, for lining logs of several servers up
 * against each other, and the level is spelled out.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <syslog.h>
#include <time.h>

#include "aifs/log.h"

const char *const aifs_log_level_names[] = {
	[AIFS_LOG_ERROR] = "error",
	[AIFS_LOG_WARN] = "warn",
	[AIFS_LOG_INFO] = "info",
	[AIFS_LOG_DEBUG] = "debug",
	NULL,
};

static const int log_priority[] = {
	[AIFS_LOG_ERROR] = LOG_ERR,
	[AIFS_LOG_WARN] = LOG_WARNING,
	[AIFS_LOG_INFO] = LOG_INFO,
	[AIFS_LOG_DEBUG] = LOG_DEBUG,
};

static const char *log_component = "aifs";
static enum aifs_log_level log_level = AIFS_LOG_INFO;
static bool log_to_journal;

void aifs_log_setup(const char *component, enum aifs_log_level level)
{
	log_component = component;
	log_level = level;
	log_to_journal = getenv("JOURNAL_STREAM");
}

const char *aifs_log_component(void)
{
	return log_component;
}

/* "2026-12-04T23:14:09.123Z " into @buf (at least 32 bytes). */
static void log_time(char *buf, size_t size)
{
	struct timespec now;
	struct tm tm;
	size_t n;

	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	n = strftime(buf, size, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, size - n, ".%03ldZ ", now.tv_nsec / 1000000);
}

void aifs_log(enum aifs_log_level level, const char *fmt, ...)
{
	char line[1024], stamp[32];
	va_list ap;
	int n;

	if (level > log_level)
		return;
	if (log_to_journal) {
		n = snprintf(line, sizeof(line), "<%d>%s: ",
			     log_priority[level], log_component);
	} else {
		log_time(stamp, sizeof(stamp));
		n = snprintf(line, sizeof(line), "%s%s: %s: ", stamp,
			     log_component, aifs_log_level_names[level]);
	}
	if (n < 0 || (size_t)n >= sizeof(line))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	va_end(ap);
	/* One write per line, so that threads do not interleave. */
	fprintf(stderr, "%s\n", line);
}
