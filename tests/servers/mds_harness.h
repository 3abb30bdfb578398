/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * An aifs-mds of its own for a test or a benchmark: a temporary directory
 * with a secret, a config and a freshly formatted database, the server
 * started on a free loopback port (and killed with its parent), and
 * connections to it through libaifs.
 */
#ifndef AIFS_MDS_HARNESS_H
#define AIFS_MDS_HARNESS_H

#include <sys/types.h>

#include "aifs/libaifs.h"

/* A failed check: counted in the test's failures, and said. */
#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		printf("FAIL %s:%d: ", __func__, __LINE__);		\
		printf(__VA_ARGS__);					\
		printf("\n");						\
		failures++;						\
	}								\
} while (0)

struct mds_harness {
	char dir[64];
	char port[8];
	pid_t pid;
	struct aifs_secret secret;
};

/* Format a new file system; @conf is extra config lines (or ""). */
int mds_harness_init(struct mds_harness *h, const char *conf);
int mds_harness_start(struct mds_harness *h);
/* Signal the server and wait for it: its exit status, or -1. */
int mds_harness_stop(struct mds_harness *h, int sig);
/* Run aifs-mds with @args (e.g. "--check") on the test's config. */
int mds_harness_run(struct mds_harness *h, const char *args);
int mds_harness_connect(struct mds_harness *h, struct aifs_conn **conn);
/* Kill the server if it runs, remove the directory. */
void mds_harness_cleanup(struct mds_harness *h);

#endif /* AIFS_MDS_HARNESS_H */
