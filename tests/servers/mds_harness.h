/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * An aifs-mds of its own for a test or a benchmark: the test's directory
 * (testutil.h: the secret, CHECK(), the server killed and the directory
 * removed when the test exits) with a config and a freshly formatted
 * database, the server started on a free loopback port, and connections
 * to it through libaifs.
 */
#ifndef AIFS_MDS_HARNESS_H
#define AIFS_MDS_HARNESS_H

#include "testutil.h"

struct mds_harness {
	struct test_server srv;	/* the database is srv.dir/db */
	struct aifs_secret secret;
};

/* Format a new file system; @conf is extra config lines (or ""). */
int mds_harness_init(struct mds_harness *h, const char *conf);
int mds_harness_start(struct mds_harness *h);
/* Signal the server and wait for it: test_server_signal(). */
int mds_harness_stop(struct mds_harness *h, int sig);
/* Run aifs-mds with @args (e.g. "--check") on the test's config. */
int mds_harness_run(struct mds_harness *h, const char *args);
int mds_harness_connect(struct mds_harness *h, struct aifs_conn **conn);
/* The same, announcing @client_uuid in HELLO (a client that reconnects). */
int mds_harness_connect_as(struct mds_harness *h, const u8 client_uuid[16],
			   struct aifs_conn **conn);

#endif /* AIFS_MDS_HARNESS_H */
