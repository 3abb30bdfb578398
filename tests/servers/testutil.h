/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What the C tests of tests/servers (and the MDS and DS harnesses) share:
 * a temporary directory, servers of build/bin started in it (they die with
 * the test: PR_SET_PDEATHSIG) and stopped, the shared secret, and CHECK().
 *
 * AIFS_SERVER_WRAPPER (e.g. "valgrind --error-exitcode=99") runs the server
 * under that command; AIFS_BUILD is the build directory (default "build").
 * The directory is kept when the test failed (its servers' logs are
 * there), and when AIFS_KEEP_TEST_DIRS is set.
 */
#ifndef AIFS_TESTUTIL_H
#define AIFS_TESTUTIL_H

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

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

/* @expr returns @want (0 or -errno). */
#define EXPECT(expr, want) do {						\
	int __r = (expr);						\
	CHECK(__r == (want), "%s = %d (%s), want %d", #expr, __r,	\
	      strerror(-__r), (want));					\
} while (0)

/*
 * Make the directory and the secret file in it, once: at exit every server
 * still running is killed and the directory removed.
 */
void test_init(void);

/* Exit status of the test: 0 when every CHECK held. */
int test_result(void);

void test_write_file(const char *name, const char *text, mode_t mode);
void test_sleep_ms(long ms);

/* Load @text as a secret, through a 0600 file. */
void test_load_secret(struct aifs_secret *s, const char *text);

/* The path of the program @prog of build/bin. */
const char *test_bin(const char *prog);

/* How long a server may take to start or to stop, unless said otherwise. */
#define TEST_SERVER_WAIT_MS	30000

/*
 * A server of build/bin run by a test, in a directory of its own: its
 * config is @dir/server.conf, its output goes to @dir/server.log.
 */
struct test_server {
	const char *prog;	/* "aifs-ds" */
	char dir[64];
	char port[8];		/* from its "listening on" log line */
	pid_t pid;		/* 0: not running */
};

void test_server_write_config(const struct test_server *srv,
			      const char *conf);

/*
 * Start @srv on a fresh log and wait up to @timeout_ms for its "listening
 * on" line, leaving the port in @srv->port.  -EIO (its log printed) when
 * it exits or does not listen in time; it is killed then.
 */
int test_server_spawn(struct test_server *srv, int timeout_ms);

/*
 * A port of loopback free now (0: none), for a server that must be told
 * its port before it starts (peers name each other; the metrics listener
 * cannot be asked for port 0): below the kernel's ephemeral range, so
 * that no connection made meanwhile is given it, and at random, so that
 * tests running at once seldom pick the same one.
 */
#define TEST_PORT_MIN	10000
int test_free_port(void);

/* Whether a line of @srv's log (since its start) has @words in it. */
bool test_server_logged(const struct test_server *srv, const char *words);

/*
 * Send @sig to @srv and wait up to @timeout_ms for it to end (then kill
 * it).  Its exit status, 128 + the signal that ended it, or -1 when it
 * was not running or had to be killed.
 */
int test_server_signal(struct test_server *srv, int sig, int timeout_ms);

/*
 * Start build/bin/@prog in the test's directory with a config of a
 * loopback listener on a free port, the secret file and @settings (more
 * "name = value" lines); leave the port in test_port.  Exits on failure.
 */
void test_server_start(const char *prog, const char *settings);

/* SIGTERM that server: it must exit 0, promptly. */
void test_server_stop(void);

/* Connect to @host:@port as an admin tool. */
/*
 * With AIFS_TEST_RDMA=ADDRESS in the environment, connect over RDMA to
 * ADDRESS (a Soft-RoCE address the test servers also listen on) instead:
 * the same tests, over the other transport.
 */
void test_transport(struct aifs_connect_opts *opts);

/* Where a test's servers listen: 127.0.0.1, or the RDMA address. */
const char *test_listen_address(void);

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
