// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * What every server's main() does the same way: logging, the config from
 * the command line, and the create, run and destroy of the runtime
 * (see aifs/server.h).
 */
#include <stdlib.h>

#include "aifs/server.h"

int aifs_server_main(int argc, char **argv,
		     const struct aifs_server_program *prog)
{
	const char *path;

	aifs_log_setup(prog->name, AIFS_LOG_INFO);
	switch (aifs_config_from_args(argc, argv, prog->config_path,
				      prog->settings, prog->config, &path)) {
	case AIFS_CONFIG_RUN:
		break;
	case AIFS_CONFIG_DONE:
		return EXIT_SUCCESS;
	default:
		return EXIT_FAILURE;
	}
	aifs_log_setup(prog->name, prog->server->log_level);
	if (prog->config_file)
		*prog->config_file = path;
	return prog->main(prog->data);
}

int aifs_server_serve(const struct aifs_server_config *cfg, void *data,
		      aifs_server_setup_fn *setup)
{
	struct aifs_server *srv;
	int err;

	err = aifs_server_create(cfg, data, &srv);
	if (err)
		return err;
	err = setup(srv, data);
	if (!err)
		err = aifs_server_run(srv);
	aifs_server_destroy(srv);
	return err;
}
