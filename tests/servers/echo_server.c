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
	nanosleep(&ts, NULL);
	return 0;
}

int main(int argc, char **argv)
{
	struct echo_config cfg;
	struct aifs_server *srv;
	int err;

	aifs_log_setup("aifs-echo-server", AIFS_LOG_INFO);
	switch (aifs_config_from_args(argc, argv, "/etc/aifs/echo.conf",
				      echo_settings, &cfg)) {
	case AIFS_CONFIG_RUN:
		break;
	case AIFS_CONFIG_DONE:
		return EXIT_SUCCESS;
	default:
		return EXIT_FAILURE;
	}
	aifs_log_setup("aifs-echo-server", cfg.server.log_level);
	if (aifs_server_create(&cfg.server, &cfg, &srv))
		return EXIT_FAILURE;
	err = cfg.ping_on_worker ?
		aifs_server_register(srv, AIFS_OP_PING, echo_slow_ping,
				     AIFS_HANDLER_BLOCKING) : 0;
	if (!err)
		err = aifs_server_run(srv);
	aifs_server_destroy(srv);
	return err ? EXIT_FAILURE : EXIT_SUCCESS;
}
