// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The MDS's own metrics, appended to the runtime's on every scrape
 * (aifs/metrics.h, Documentation/metrics.md): the LMDB environment, the
 * sizes of the tables that are queues, the data servers by state and
 * recovery.  Runs on the HTTP thread: LMDB's environment calls and a read
 * transaction (MDB_NOTLS) are safe there, the map is read under its lock.
 */
#include <stdio.h>
#include <sys/stat.h>

#include "mds.h"

/* Tables whose entry count is worth watching: mdb_stat() knows it. */
static const struct {
	enum mds_dbi db;
	const char *name, *help;
} mds_table_metrics[] = {
	{ MDS_DB_INODES, "aifs_mds_inodes", "Inodes in the namespace." },
	{ MDS_DB_ORPHANS, "aifs_mds_orphans",
	  "Unlinked inodes kept while open." },
	{ MDS_DB_CHUNKQ, "aifs_mds_chunk_queue",
	  "Chunk deletions and truncations queued for the data servers." },
	{ MDS_DB_ARCHIVE, "aifs_mds_archive_queue",
	  "Files being converted to erasure coding (aifs archive)." },
};

static void mds_metrics_tables(struct mds *mds, FILE *out)
{
	struct mds_txn t;
	MDB_stat st;
	size_t i;

	if (mds_read_begin(mds, &t))
		return;
	for (i = 0; i < ARRAY_SIZE(mds_table_metrics); i++)
		if (!mdb_stat(t.txn, mds->dbi[mds_table_metrics[i].db], &st))
			aifs_metric_one(out, mds_table_metrics[i].name, "gauge",
					mds_table_metrics[i].help,
					st.ms_entries);
	mds_read_end(&t);
}

static void mds_metrics_lmdb(struct mds *mds, FILE *out)
{
	char path[PATH_MAX + 16];
	MDB_envinfo info;
	MDB_stat st;
	struct stat sb;

	if (!mdb_env_info(mds->env, &info) && !mdb_env_stat(mds->env, &st)) {
		aifs_metric_one(out, "aifs_mds_lmdb_map_size_bytes", "gauge",
				"The LMDB map size (map_size_mib).",
				info.me_mapsize);
		aifs_metric_one(out, "aifs_mds_lmdb_used_bytes", "gauge",
				"Pages of the LMDB map in use, in bytes.",
				(u64)(info.me_last_pgno + 1) * st.ms_psize);
	}
	snprintf(path, sizeof(path), "%s/data.mdb", mds->cfg->db_path);
	if (!stat(path, &sb))
		aifs_metric_one(out, "aifs_mds_lmdb_file_bytes", "gauge",
				"Size of the LMDB data file (data.mdb).",
				sb.st_size);
	aifs_metric_one(out, "aifs_mds_db_full", "gauge",
			"1 while creates get ENOSPC: no db_reserve_mib ahead.",
			atomic_load(&mds->db_full));
}

static void mds_metrics_map(struct mds *mds, FILE *out)
{
	u64 count[AIFS_DS_LAST + 1] = { 0 };
	struct aifs_ds_info info;
	char labels[32];
	u32 after = 0, state;

	while (!mds_map_next(mds, after, &info)) {
		after = le32_to_cpu(info.id);
		state = le32_to_cpu(info.state);
		if (state <= AIFS_DS_LAST)
			count[state]++;
	}
	aifs_metric_head(out, "aifs_mds_data_servers", "gauge",
			 "Data servers in the cluster map, by state.");
	for (state = AIFS_DS_UP; state <= AIFS_DS_LAST; state++) {
		snprintf(labels, sizeof(labels), "state=\"%s\"",
			 aifs_ds_state_name(state));
		aifs_metric_u64(out, "aifs_mds_data_servers", labels,
				count[state]);
	}
}

/* aifs_metrics_fn of the MDS. */
void mds_metrics(FILE *out, void *data)
{
	struct mds *mds = data;

	mds_metrics_lmdb(mds, out);
	mds_metrics_tables(mds, out);
	mds_metrics_map(mds, out);
	mds_recovery_metrics(mds, out);
	mds_repairs_metrics(mds, out);
}
