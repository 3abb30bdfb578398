/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What the C tests of tests/servers share: a temporary directory, a server
 * of build/bin started in it (it dies with the test: PR_SET_PDEATHSIG) and
 * stopped, the shared secret, and CHECK().
 *
 * AIFS_SERVER_WRAPPER (e.g. "valgrind --error-exitcode=99") runs the server
 * under that command; AIFS_BUILD is the build directory (default "build").
 */
#ifndef AIFS_TESTUTIL_H
#define AIFS_TESTUTIL_H

#include <stdio.h>
#include <sys/stat.h>

#include "aifs/libaifs.h"

#define TEST_SECRET	"test-secret-of-the-aifs-cluster"

extern char test_dir[];		/* the temporary directory */
extern char test_port[8];	/* the server's port */
extern int test_failures;

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		printf("FAIL %s:%d: ", __func__, __LINE__);		\
		printf(__VA_ARGS__);					\
		printf("\n");						\
		test_failures++;					\
	}								\
} while (0)

/* Make the directory (removed at exit) and the secret file in it. */
void test_init(void);

/* Exit status of the test: 0 when every CHECK held. */
int test_result(void);

void test_write_file(const char *name, const char *text, mode_t mode);
void test_sleep_ms(long ms);

/* Load @text as a secret, through a 0600 file. */
void test_load_secret(struct aifs_secret *s, const char *text);

/*
 * Start build/bin/@prog with a config of a loopback listener on a free
 * port, the secret file and @settings (more "name = value" lines); wait
 * for its "listening on" log line and leave the port in test_port.
 */
void test_server_start(const char *prog, const char *settings);

/* SIGTERM the server: it must exit 0, promptly. */
void test_server_stop(void);

/* Connect to @host:@port as an admin tool. */
int test_connect(const char *host, const char *port,
		 const struct aifs_secret *s, int timeout_ms,
		 struct aifs_conn **conn);

/*
 * Run @fn(@conn, index) in @n threads at once, index 0..@n-1; each returns
 * the number of wrong answers it got, which must be 0.
 */
void test_threads(struct aifs_conn *conn, int n,
		  int (*fn)(struct aifs_conn *conn, int index));

#endif /* AIFS_TESTUTIL_H */
