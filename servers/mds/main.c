// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * aifs-mds: the metadata server.  Reads /etc/aifs/mds.conf, opens the
 * LMDB database at db_path (made by --format), frees the orphans a crash
 * left, and serves the namespace and the cluster map until SIGTERM, after
 * which the writer commits what is queued.  Documentation/mds.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mds.h"

#define MDS_CONFIG_PATH	"/etc/aifs/mds.conf"

static const struct aifs_setting mds_settings[] = {
	AIFS_SERVER_SETTINGS(struct mds_config, server, "7400"),
	AIFS_SETTING_STRING("db_path", struct mds_config, db_path,
			    "/var/lib/aifs/mds"),
	AIFS_SETTING_INT("map_size_mib", struct mds_config, map_size_mib,
			 "65536", 16, 1 << 30),
	AIFS_SETTING_INT("db_reserve_mib", struct mds_config, db_reserve_mib,
			 "64", 1, 1 << 20),
	AIFS_SETTING_INT("heartbeat_ms", struct mds_config, heartbeat_ms,
			 "1000", 10, 600000),
	AIFS_SETTING_INT("heartbeat_grace_ms", struct mds_config,
			 heartbeat_grace_ms, "10000", 20, 3600000),
	AIFS_SETTING_INT("rebuild_delay_s", struct mds_config, rebuild_delay_s,
			 "600", 0, 30 * 86400),
	AIFS_SETTING_INT("reply_cache_seconds", struct mds_config,
			 reply_cache_seconds, "600", 1, 86400),
	AIFS_SETTING_INT("reply_memory_mib", struct mds_config,
			 reply_memory_mib, "64", 1, 65536),
	AIFS_SETTING_INT("open_grace_ms", struct mds_config, open_grace_ms,
			 "60000", 0, 3600000),
	AIFS_SETTING_INT("default_replicas", struct mds_config,
			 default_replicas, "2", 1, AIFS_MAX_REPLICAS),
	AIFS_SETTING_INT("default_stripe_count", struct mds_config,
			 default_stripe_count, "1", 1, AIFS_LAYOUT_MAX_TARGETS),
	AIFS_SETTING_INT("default_chunk_kib", struct mds_config,
			 default_chunk_kib, "4096", AIFS_CHUNK_SIZE_MIN >> 10,
			 AIFS_CHUNK_SIZE_MAX >> 10),
	{ 0 }
};

static const struct {
	u16 opcode;
	aifs_handler_fn *fn;
} mds_handlers[] = {
	{ AIFS_OP_LOOKUP, mds_handle_lookup },
	{ AIFS_OP_GETATTR, mds_handle_getattr },
	{ AIFS_OP_SETATTR, mds_handle_setattr },
	{ AIFS_OP_CREATE, mds_handle_create },
	{ AIFS_OP_MKDIR, mds_handle_mkdir },
	{ AIFS_OP_MKNOD, mds_handle_mknod },
	{ AIFS_OP_UNLINK, mds_handle_unlink },
	{ AIFS_OP_RMDIR, mds_handle_rmdir },
	{ AIFS_OP_RENAME, mds_handle_rename },
	{ AIFS_OP_LINK, mds_handle_link },
	{ AIFS_OP_SYMLINK, mds_handle_symlink },
	{ AIFS_OP_READLINK, mds_handle_readlink },
	{ AIFS_OP_READDIR, mds_handle_readdir },
	{ AIFS_OP_STATFS, mds_handle_statfs },
	{ AIFS_OP_GETXATTR, mds_handle_getxattr },
	{ AIFS_OP_SETXATTR, mds_handle_setxattr },
	{ AIFS_OP_LISTXATTR, mds_handle_listxattr },
	{ AIFS_OP_REMOVEXATTR, mds_handle_removexattr },
	{ AIFS_OP_OPEN, mds_handle_open },
	{ AIFS_OP_CLOSE, mds_handle_close },
	{ AIFS_OP_LAYOUT_GET, mds_handle_layout_get },
	{ AIFS_OP_LAYOUT_SET, mds_handle_layout_set },
	{ AIFS_OP_MAP_GET, mds_handle_map_get },
	{ AIFS_OP_DS_REGISTER, mds_handle_ds_register },
	{ AIFS_OP_DS_HEARTBEAT, mds_handle_ds_heartbeat },
	{ AIFS_OP_MDS_FSCK, mds_handle_fsck },
	{ AIFS_OP_RECOVERY_GET, mds_handle_recovery_get },
	{ AIFS_OP_DS_REPAIRS, mds_handle_ds_repairs },
	{ AIFS_OP_REPAIRS_GET, mds_handle_repairs_get },
};

enum mds_mode {
	MDS_SERVE,
	MDS_FORMAT,
	MDS_CHECK,
};

static void mds_usage(const char *prog, FILE *out)
{
	fprintf(out,
		"usage: %s [-c FILE] [--format | --check | --print-config]\n"
		"  -c, --config FILE  configuration (default %s)\n"
		"  --format           create a new, empty file system at db_path\n"
		"  --check            check the consistency of the database\n"
		"  --print-config     print the settings in effect and exit\n"
		"  -h, --help         this text\n",
		prog, MDS_CONFIG_PATH);
}

/*
 * Our own options, taken out of @argv before the runtime parses the
 * rest.  Returns -1 when the command line was handled (help).
 */
static int mds_args(int *argc, char **argv, enum mds_mode *mode)
{
	int i, n = 1;

	*mode = MDS_SERVE;
	for (i = 1; i < *argc; i++) {
		if (!strcmp(argv[i], "--format")) {
			*mode = MDS_FORMAT;
		} else if (!strcmp(argv[i], "--check")) {
			*mode = MDS_CHECK;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			mds_usage(argv[0], stdout);
			return -1;
		} else {
			argv[n++] = argv[i];
		}
	}
	*argc = n;
	argv[n] = NULL;
	return 0;
}

static int mds_register_handlers(struct mds *mds)
{
	size_t i;
	int err;

	for (i = 0; i < ARRAY_SIZE(mds_handlers); i++) {
		err = aifs_server_register(mds->srv, mds_handlers[i].opcode,
					   mds_handlers[i].fn,
					   AIFS_HANDLER_BLOCKING);
		if (err)
			return err;
	}
	aifs_server_on_session(mds->srv, mds_session_start, mds_session_end);
	aifs_server_on_metrics(mds->srv, mds_metrics);
	return 0;
}

static void mds_log_uuid(const struct mds *mds, const char *what)
{
	const u8 *u = mds->super.uuid;

	aifs_info("%s file system %02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x at %s",
		  what, u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8],
		  u[9], u[10], u[11], u[12], u[13], u[14], u[15],
		  mds->cfg->db_path);
}

/*
 * Serve: the runtime first (it blocks SIGTERM in every thread it and we
 * start after it), then the writer and the handlers.  On the way out the
 * runtime ends every session (releasing opens through the writer) before
 * the writer commits its queue and stops.
 */
static int mds_serve(struct mds *mds)
{
	int err;

	mds_space_check(mds);
	err = mds_orphans_reap(mds);
	if (!err)
		err = mds_map_load(mds);
	if (!err)
		err = mds_opens_create(mds);
	if (!err)
		err = mds_replies_create(mds);
	if (!err)
		err = aifs_server_create(&mds->cfg->server, mds, &mds->srv);
	if (err)
		return err;
	aifs_server_set_fs_uuid(mds->srv, mds->super.uuid);
	aifs_server_set_map_epoch(mds->srv, mds->super.map_epoch);
	err = mds_writer_start(mds);
	if (!err)
		err = mds_drain_start(mds);
	if (!err)
		err = mds_recovery_start(mds);
	if (!err)
		err = mds_fsck_start(mds);
	if (!err)
		err = mds_archive_start(mds);
	if (!err)
		err = mds_register_handlers(mds);
	if (!err) {
		mds_log_uuid(mds, "serving");
		err = aifs_server_run(mds->srv);
	}
	mds_writer_forget_server(mds);
	aifs_server_destroy(mds->srv);
	mds_archive_stop(mds);
	mds_fsck_stop(mds);
	mds_recovery_stop(mds);
	mds_drain_stop(mds);
	mds_writer_stop(mds);
	return err;
}

/* What main() hands mds_main() through aifs_server_main(). */
struct mds_start {
	struct mds_config cfg;
	struct mds mds;
	enum mds_mode mode;
};

static int mds_main(void *data)
{
	struct mds_start *start = data;
	struct mds *mds = &start->mds;
	int err;

	/* --check only reads: it may run beside the aifs-mds serving */
	err = mds_db_open(mds, start->mode == MDS_FORMAT,
			  start->mode != MDS_CHECK);
	if (err)
		return EXIT_FAILURE;
	switch (start->mode) {
	case MDS_FORMAT:
		err = mds_db_format(mds);
		if (!err)
			mds_log_uuid(mds, "formatted");
		break;
	case MDS_CHECK:
		err = mds_check(mds);
		break;
	case MDS_SERVE:
		err = mds_serve(mds);
		break;
	}
	mds_opens_destroy(mds);
	mds_replies_destroy(mds);
	mds_map_destroy(mds);
	mds_db_close(mds);
	if (err < 0)
		aifs_err("%s", strerror(-err));
	return err ? EXIT_FAILURE : EXIT_SUCCESS;
}

int main(int argc, char **argv)
{
	struct mds_start start = { .mds.cfg = &start.cfg };
	const struct aifs_server_program mds_program = {
		.name = "aifs-mds",
		.config_path = MDS_CONFIG_PATH,
		.settings = mds_settings,
		.config = &start.cfg,
		.server = &start.cfg.server,
		.main = mds_main,
		.data = &start,
	};

	if (mds_args(&argc, argv, &start.mode))
		return EXIT_SUCCESS;
	return aifs_server_main(argc, argv, &mds_program);
}
