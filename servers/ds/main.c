// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * aifs-ds: the data server.  One instance per data directory (one NVMe
 * device in production), configured by /etc/aifs/ds.conf or -c FILE.
 * See Documentation/ds.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ds.h"

#define DS_CONFIG_PATH	"/etc/aifs/ds.conf"

static const struct aifs_setting ds_settings[] = {
	AIFS_SERVER_SETTINGS(struct ds_config, server, "7410"),
	AIFS_SETTING_STRING("data_dir", struct ds_config, data_dir,
			    "/var/lib/aifs/ds"),
	AIFS_SETTING_STRING("fs_uuid", struct ds_config, fs_uuid, "none"),
	AIFS_SETTING_ENUM("direct_io", struct ds_config, direct_io, "no",
			  aifs_setting_bool_names),
	AIFS_SETTING_INT("ds_id", struct ds_config, ds_id, "0", 0, INT32_MAX),
	AIFS_SETTING_STRING("mds", struct ds_config, mds, "none"),
	AIFS_SETTING_STRING("peers", struct ds_config, peers, "none"),
	AIFS_SETTING_STRING("public_address", struct ds_config, public_address,
			    "auto"),
	AIFS_SETTING_INT("replica_timeout_ms", struct ds_config,
			 replica_timeout_ms, "10000", 100, 600000),
	AIFS_SETTING_INT("peer_retry_ms", struct ds_config, peer_retry_ms,
			 "1000", 0, 600000),
	AIFS_SETTING_ENUM("drain", struct ds_config, drain, "no",
			  aifs_setting_bool_names),
	AIFS_SETTING_INT("scrub_rate_mib", struct ds_config, scrub_rate_mib,
			 "32", 0, 1000000),
	AIFS_SETTING_INT("scrub_interval_s", struct ds_config,
			 scrub_interval_s, "604800", 1, 315360000),
	AIFS_SETTING_INT("resync_rate_mib", struct ds_config, resync_rate_mib,
			 "128", 0, 1000000),
	AIFS_SETTING_INT("resync_queue", struct ds_config, resync_queue,
			 "4096", 1, 1048576),
	{ 0 }
};

/* The config file as it is now into @cfg: 0 or -errno, logged. */
int ds_config_reread(const struct ds *ds, struct ds_config *cfg)
{
	return aifs_config_load(ds_settings, cfg, ds->config_file);
}

static void ds_usage(const char *prog)
{
	printf("usage: %s [-c FILE] [--format] [--print-config]\n"
	       "  -c, --config FILE  configuration (default %s)\n"
	       "  --format           give data_dir its identity (ds.id, with\n"
	       "                     the configured fs_uuid) and exit; a first\n"
	       "                     start does it too\n"
	       "  --print-config     print the settings in effect and exit\n"
	       "  -h, --help         this text\n"
	       "Settings of ds.conf besides the common ones of every server:\n"
	       "  data_dir, fs_uuid, direct_io, ds_id, mds, peers,\n"
	       "  public_address, replica_timeout_ms, peer_retry_ms, drain,\n"
	       "  scrub_rate_mib, scrub_interval_s, resync_rate_mib,\n"
	       "  resync_queue\n"
	       "(Documentation/ds.md explains each; SIGHUP reads drain again).\n",
	       prog, DS_CONFIG_PATH);
}

/*
 * Take our own options out of argv; the runtime's parser has the rest.
 * Returns 1 when --help was asked for.
 */
static int ds_own_args(int *argc, char **argv, bool *format)
{
	int i, n = 1;

	for (i = 1; i < *argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return 1;
		if (!strcmp(argv[i], "--format"))
			*format = true;
		else
			argv[n++] = argv[i];
	}
	*argc = n;
	argv[n] = NULL;
	return 0;
}

static int ds_init(struct ds *ds)
{
	int err;

	pthread_mutex_init(&ds->ident_lock, NULL);
	ds->lock_fd = -1;
	err = aifs_secret_load(&ds->secret, ds->cfg.server.secret_file, NULL, 0);
	if (!err)
		err = ds_identity_load(ds);
	if (!err)
		err = ds_store_init(ds);
	if (!err)
		err = ds_catchup_init(ds);
	if (!err)
		err = ds_repair_init(ds);
	if (!err)
		err = ds_peers_init(ds);
	return err;
}

static void ds_exit(struct ds *ds)
{
	ds_peers_exit(ds);
	ds_store_exit(ds);
	aifs_secret_wipe(&ds->secret);
	if (ds->lock_fd >= 0)
		close(ds->lock_fd);
	pthread_mutex_destroy(&ds->ident_lock);
}

static int ds_serve(struct ds *ds)
{
	struct aifs_server *srv;
	int err;

	err = aifs_server_create(&ds->cfg.server, ds, &srv);
	if (err)
		return err;
	/* After the runtime blocked SIGTERM: our threads inherit that. */
	aifs_server_on_reload(srv, ds_mds_reload);
	aifs_server_on_metrics(srv, ds_metrics);
	err = ds_io_register(srv);
	if (!err)
		err = ds_statfs_register(srv);
	if (!err)
		err = ds_scrub_register(srv);
	if (!err)
		err = ds_sync_register(srv);
	if (!err)
		err = ds_ec_register(srv);
	if (!err)
		err = ds_resync_start(ds);
	/* before anything is served: what a crash cut short is stale */
	if (!err)
		err = ds_intent_recover(ds);
	if (!err)
		ds_repair_requeue(ds);
	if (!err)
		err = ds_scrub_start(ds);
	if (!err)
		err = ds_catchup_start(ds);
	/* before registering: the MDS hears whether we speak RDMA */
	if (!err)
		err = aifs_server_listen(srv);
	if (!err)
		err = ds_mds_start(ds, srv);
	if (!err)
		err = aifs_server_run(srv);
	ds_mds_stop(ds);
	aifs_server_destroy(srv);
	ds_catchup_stop(ds);
	ds_scrub_stop(ds);
	ds_resync_stop(ds);
	return err;
}

/* What main() hands ds_main() through aifs_server_main(). */
struct ds_start {
	struct ds ds;
	bool format;
};

static int ds_main(void *data)
{
	struct ds_start *start = data;
	struct ds *ds = &start->ds;
	int err;

	if (start->format) {
		err = ds_identity_format(ds);
		if (ds->lock_fd >= 0)
			close(ds->lock_fd);
		return err ? EXIT_FAILURE : EXIT_SUCCESS;
	}
	err = ds_init(ds);
	if (!err)
		err = ds_serve(ds);
	else
		aifs_err("cannot start: %s", strerror(-err));
	ds_exit(ds);
	return err ? EXIT_FAILURE : EXIT_SUCCESS;
}

int main(int argc, char **argv)
{
	static struct ds_start start;
	const struct aifs_server_program ds_program = {
		.name = "aifs-ds",
		.config_path = DS_CONFIG_PATH,
		.config_file = &start.ds.config_file,
		.settings = ds_settings,
		.config = &start.ds.cfg,
		.server = &start.ds.cfg.server,
		.main = ds_main,
		.data = &start,
	};

	if (ds_own_args(&argc, argv, &start.format)) {
		ds_usage(argv[0]);
		return EXIT_SUCCESS;
	}
	return aifs_server_main(argc, argv, &ds_program);
}
