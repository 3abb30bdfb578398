// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * aifs-echo-server: the server runtime with nothing but PING, for the
 * tests of tests/servers/.  With ping_on_worker = yes, PING goes through
 * the worker pool (after ping_delay_ms), which is the path every blocking
 * MDS and DS handler takes.
 */
#include <stdlib.h>
#include <time.h>

#include "aifs/server.h"

struct echo_config {
	struct aifs_server_config server;
	int ping_on_worker;
	int ping_delay_ms;
};

static const struct aifs_setting echo_settings[] = {
	AIFS_SERVER_SETTINGS(struct echo_config, server, "7499"),
	AIFS_SETTING_ENUM("ping_on_worker", struct echo_config, ping_on_worker,
			  "no", aifs_setting_bool_names),
	AIFS_SETTING_INT("ping_delay_ms", struct echo_config, ping_delay_ms,
			 "0", 0, 60000),
	{ 0 }
};

static int echo_slow_ping(struct aifs_request *req)
{
	const struct echo_config *cfg = req->data;
	struct timespec ts = {
		.tv_sec = cfg->ping_delay_ms / 1000,
		.tv_nsec = cfg->ping_delay_ms % 1000 * 1000000L,
	};

	if (req->payload_len)
		return -EINVAL;
	/* a test stopping the server with this PING in flight waits for it */
	aifs_dbg("PING on a worker: answering in %d ms", cfg->ping_delay_ms);
	nanosleep(&ts, NULL);
	return 0;
}

/* With ping_on_worker, PING through the worker pool. */
static int echo_setup(struct aifs_server *srv, void *data)
{
	const struct echo_config *cfg = data;

	if (!cfg->ping_on_worker)
		return 0;
	return aifs_server_register(srv, AIFS_OP_PING, echo_slow_ping,
				    AIFS_HANDLER_BLOCKING);
}

static int echo_main(void *data)
{
	struct echo_config *cfg = data;

	return aifs_server_serve(&cfg->server, cfg, echo_setup) ?
		EXIT_FAILURE : EXIT_SUCCESS;
}

int main(int argc, char **argv)
{
	struct echo_config cfg;
	const struct aifs_server_program echo = {
		.name = "aifs-echo-server",
		.config_path = "/etc/aifs/echo.conf",
		.settings = echo_settings,
		.config = &cfg,
		.server = &cfg.server,
		.main = echo_main,
		.data = &cfg,
	};

	return aifs_server_main(argc, argv, &echo);
}
