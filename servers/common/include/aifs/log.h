/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Server logging: one line per message on stderr, which systemd hands to
 * journald.  "aifs-mds: warn: 10.0.0.7:51220: handshake timed out"
 */
#ifndef AIFS_LOG_H
#define AIFS_LOG_H

enum aifs_log_level {
	AIFS_LOG_ERROR,
	AIFS_LOG_WARN,
	AIFS_LOG_INFO,
	AIFS_LOG_DEBUG,
};

/* "error", "warn", "info", "debug", NULL: the config's log_level values. */
extern const char *const aifs_log_level_names[];

/* Name the program in every line, and drop messages above @level. */
void aifs_log_setup(const char *component, enum aifs_log_level level);

/* The program's name, as aifs_log_setup() set it ("aifs" before). */
const char *aifs_log_component(void);

void aifs_log(enum aifs_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define aifs_err(...)	aifs_log(AIFS_LOG_ERROR, __VA_ARGS__)
#define aifs_warn(...)	aifs_log(AIFS_LOG_WARN, __VA_ARGS__)
#define aifs_info(...)	aifs_log(AIFS_LOG_INFO, __VA_ARGS__)
#define aifs_dbg(...)	aifs_log(AIFS_LOG_DEBUG, __VA_ARGS__)

#endif /* AIFS_LOG_H */
