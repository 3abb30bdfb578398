// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The DS's own metrics, appended to the runtime's on every scrape
 * (aifs/metrics.h, Documentation/metrics.md): capacity as DS_STATFS
 * tells it, scrub as DS_SCRUB tells it, forwards to replicas and resync.
 * Runs on the HTTP thread; what it reads is atomic or read under its
 * owner's lock.
 */
#include <stdio.h>

#include "ds.h"

#define STATFS_METRIC(name, help, field) \
	AIFS_METRIC_FIELD(name, "gauge", help, struct aifs_statfs_rep, field)

static const struct aifs_metric_field ds_statfs_metrics[] = {
	STATFS_METRIC("aifs_ds_capacity_bytes",
		      "Size of the file system of data_dir.", total_bytes),
	STATFS_METRIC("aifs_ds_free_bytes",
		      "Free bytes of the file system of data_dir.", free_bytes),
	STATFS_METRIC("aifs_ds_available_bytes",
		      "Free bytes of data_dir available to the server.",
		      avail_bytes),
	STATFS_METRIC("aifs_ds_chunks", "Chunks (and EC fragments) stored.",
		      files),
};

#define SCRUB_METRIC(name, type, help, field) \
	AIFS_METRIC_FIELD(name, type, help, struct aifs_ds_scrub_rep, field)

static const struct aifs_metric_field ds_scrub_metrics[] = {
	SCRUB_METRIC("aifs_ds_scrub_running", "gauge",
		     "1 while a scrub pass runs.", running),
	SCRUB_METRIC("aifs_ds_scrub_passes_total", "counter",
		     "Scrub passes finished since the start.", passes),
	SCRUB_METRIC("aifs_ds_scrub_pass_chunks", "gauge",
		     "Chunks the current (or last) pass verified.", pass_chunks),
	SCRUB_METRIC("aifs_ds_scrub_pass_total_chunks", "gauge",
		     "Chunks stored when the current (or last) pass began.",
		     pass_total),
	SCRUB_METRIC("aifs_ds_scrub_chunks_total", "counter",
		     "Chunks verified by scrub since the start.", chunks),
	SCRUB_METRIC("aifs_ds_scrub_bytes_total", "counter",
		     "Bytes verified by scrub since the start.", bytes),
	SCRUB_METRIC("aifs_ds_scrub_bad_chunks_total", "counter",
		     "Chunks scrub found damaged (and queued for repair).", bad),
	SCRUB_METRIC("aifs_ds_scrub_stripes_total", "counter",
		     "EC stripes whose parity scrub compared with their data.",
		     stripes),
	SCRUB_METRIC("aifs_ds_scrub_stripes_bad_total", "counter",
		     "EC stripes whose parity did not match (rewritten).",
		     stripes_bad),
	SCRUB_METRIC("aifs_ds_resynced_chunks_total", "counter",
		     "Chunks made whole again from their group by resync.",
		     resynced),
	SCRUB_METRIC("aifs_ds_resync_failed_chunks_total", "counter",
		     "Resync attempts that found no source.", resync_failed),
};

static void ds_metrics_capacity(struct ds *ds, FILE *out)
{
	struct aifs_statfs_rep rep;

	if (!ds_capacity(ds, &rep))
		aifs_metric_fields(out, ds_statfs_metrics,
				   ARRAY_SIZE(ds_statfs_metrics), &rep);
}

/* Nothing when scrub_rate_mib is 0: there is no scrub. */
static void ds_metrics_scrub(struct ds *ds, FILE *out)
{
	struct aifs_ds_scrub_rep rep;

	if (!ds_scrub_report(ds, false, &rep))
		aifs_metric_fields(out, ds_scrub_metrics,
				   ARRAY_SIZE(ds_scrub_metrics), &rep);
}

static u64 ds_forwards(struct ds *ds)
{
	return atomic_load(&ds->forwards);
}

static u64 ds_forwards_refused(struct ds *ds)
{
	return atomic_load(&ds->forwards_refused);
}

static u64 ds_catching_up(struct ds *ds)
{
	return atomic_load(&ds->catching_up);
}

static u64 ds_repairs(struct ds *ds)
{
	return atomic_load(&ds->repairs);
}

static u64 ds_lease(struct ds *ds)
{
	return ds_serving(ds);
}

/* Replication and catching up, each read by its owner's rules. */
static const struct {
	const char *name, *type, *help;
	u64 (*value)(struct ds *ds);
} ds_activity_metrics[] = {
	{ "aifs_ds_forwards_total", "counter",
	  "Writes forwarded to replicas by this server as primary.",
	  ds_forwards },
	{ "aifs_ds_forwards_refused_total", "counter",
	  "Forwards that could not be done now: the client's write was retried.",
	  ds_forwards_refused },
	{ "aifs_ds_resync_queue", "gauge",
	  "Chunks queued for resync from their group, or resyncing.",
	  ds_resync_queued },
	{ "aifs_ds_chunks_to_repair", "gauge",
	  "Chunks marked stale here (behind or damaged), waiting for a source.",
	  ds_repairs },
	{ "aifs_ds_catchup_inodes", "gauge",
	  "Inodes this server still catches up on after being away.",
	  ds_catching_up },
	{ "aifs_ds_serving", "gauge",
	  "1 while the MDS's lease lets this server serve reads and primary writes.",
	  ds_lease },
};

static void ds_metrics_activity(struct ds *ds, FILE *out)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ds_activity_metrics); i++)
		aifs_metric_one(out, ds_activity_metrics[i].name,
				ds_activity_metrics[i].type,
				ds_activity_metrics[i].help,
				ds_activity_metrics[i].value(ds));
}

/* aifs_metrics_fn of the DS. */
void ds_metrics(FILE *out, void *data)
{
	struct ds *ds = data;

	ds_metrics_capacity(ds, out);
	ds_metrics_scrub(ds, out);
	ds_metrics_activity(ds, out);
}
