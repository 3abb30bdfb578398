// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * See mds_harness.h.
 */
#include <stdlib.h>
#include <string.h>

#include "mds_harness.h"

int mds_harness_run(struct mds_harness *h, const char *args)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd),
		 "%s -c %s/server.conf %s >>%s/server.log 2>&1",
		 test_bin(h->srv.prog), h->srv.dir, args, h->srv.dir);
	return system(cmd);
}

int mds_harness_init(struct mds_harness *h, const char *conf)
{
	/* a 1 GiB map unless @conf sets one (the config refuses two) */
	const char *map = strstr(conf, "map_size_mib") ? "" :
			  "map_size_mib = 1024\n";
	char text[2048];

	test_init();
	memset(h, 0, sizeof(*h));
	h->srv.prog = "aifs-mds";
	snprintf(h->srv.dir, sizeof(h->srv.dir), "%s", test_dir);
	snprintf(text, sizeof(text),
		 "listen_address = %s\nlisten_port = 0\n"
		 "secret_file = %s/secret\ndb_path = %s/db\n"
		 "%sio_timeout = 5\n%s",
		 test_listen_address(), test_dir, h->srv.dir, map, conf);
	test_server_write_config(&h->srv, text);
	test_load_secret(&h->secret, TEST_SECRET);
	return mds_harness_run(h, "--format") ? -EIO : 0;
}

int mds_harness_start(struct mds_harness *h)
{
	return test_server_spawn(&h->srv, TEST_SERVER_WAIT_MS);
}

int mds_harness_stop(struct mds_harness *h, int sig)
{
	return test_server_signal(&h->srv, sig, TEST_SERVER_WAIT_MS);
}

int mds_harness_connect_as(struct mds_harness *h, const u8 client_uuid[16],
			   struct aifs_conn **conn)
{
	struct aifs_connect_opts opts = {
		.host = "127.0.0.1",
		.port = h->srv.port,
		.secret = &h->secret,
		.role = AIFS_ROLE_CLIENT,
	};

	memcpy(opts.client_uuid, client_uuid, sizeof(opts.client_uuid));
	test_transport(&opts);
	return aifs_connect(&opts, conn);
}

int mds_harness_connect(struct mds_harness *h, struct aifs_conn **conn)
{
	static const u8 none[16];

	return mds_harness_connect_as(h, none, conn);
}
