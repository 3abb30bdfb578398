/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The tests of aifs-mds and aifs-ds together (tests/servers/cluster-*.c):
 * a real MDS on a fixed port (so that the data servers find it again
 * after it restarts) and real data servers registering with it, all
 * killed when the test exits however it exits.
 */
#ifndef AIFS_CLUSTER_HARNESS_H
#define AIFS_CLUSTER_HARNESS_H

#include <stdbool.h>

#include "mds_harness.h"
#include "ds-harness.h"

extern struct mds_harness cluster_mds;
extern struct aifs_conn *cluster_conn;	/* a client of the MDS */
extern struct aifs_cred cluster_cred;

/*
 * A heartbeat grace a loaded machine does not run past: a server counted
 * out while alive fails tests that do not expect it.  A test that needs a
 * server OFFLINE kills or stops it and waits for the map to say so.
 */
#define CLUSTER_GRACE_MS	5000

/*
 * An MDS with @mds_conf (chunks of DS_TEST_CHUNK bytes, heartbeats every
 * 100 ms, a grace of @grace_ms, metrics on a free port of loopback) and
 * @n data servers, waited for until all are UP in the map; their ids in
 * ds_procs[] are then those of the map.
 */
void cluster_setup(int n, int grace_ms, const char *mds_conf);
void cluster_mds_restart(void);
/* Stop the MDS, call @edit(@arg) (its database is closed), start it. */
void cluster_mds_edit(void (*edit)(void *arg), void *arg);
/*
 * Wait up to @ms for the MDS to die by itself (a fault point), then start
 * it again; false if it was still running (killed then).
 */
bool cluster_mds_revive(int ms);

/*
 * The value of the MDS's metric @name without labels (GET /metrics on
 * the port cluster_setup() gave it) in *@value: 0, -ENOENT when the MDS
 * does not serve it, or -errno.
 */
int cluster_mds_metric(const char *name, u64 *value);

/* The cluster map: servers in @ds (at most DS_TEST_MAX), their count. */
int cluster_map(struct aifs_ds_info *ds, u64 *epoch);
/* The map entry of @p (found by its port); false when not in the map. */
bool cluster_ds_info(const struct ds_proc *p, struct aifs_ds_info *info);
/* The process of data server @id. */
struct ds_proc *cluster_proc(u32 id);
/* Poll @cond(@arg) every 50 ms for up to @ms; its last answer. */
bool cluster_wait(bool (*cond)(void *arg), void *arg, int ms);
/*
 * Until @p holds the MDS's map of now (its peers, their states): its next
 * epochs are news to it.  A failed check after @ms.
 */
void cluster_wait_map_known(struct ds_proc *p, int ms);

/*
 * Does the map stay at its epoch for @ms: no server changes its state,
 * not even out and back?
 */
bool cluster_map_stays(int ms);

/* A server and a state (AIFS_DS_*), for cluster_in_state(). */
struct cluster_state {
	struct ds_proc *p;
	u32 state;
};

/* Are *(int *)@arg servers UP in the map?  A cluster_wait() cond. */
bool cluster_up_count(void *arg);

/* Is @arg's server in @arg's state in the map?  A cluster_wait() cond. */
bool cluster_in_state(void *arg);

/* A chunk on one server, for cluster_chunk_gone(). */
struct chunk_at {
	struct ds_proc *p;
	u64 ino;
	u32 index;
};

/* Is @arg's chunk absent (no data file)?  A cluster_wait() cond. */
bool cluster_chunk_gone(void *arg);

/* A server and one of its fail points, for cluster_fired(). */
struct cluster_fail {
	struct ds_proc *p;
	const char *point;	/* "ds.write.pause" */
};

/* Has @arg's fail point fired on its server?  A cluster_wait() cond. */
bool cluster_fired(void *arg);

/*
 * CHUNK_SYNC of @ino with @flags and its layout (at generation @gen; 0:
 * its own) sent to @p as the MDS would, on a connection of its own (@p's
 * may wait on a write): 0 or -errno.  AIFS_CHUNK_SYNC_FENCE is a
 * rebuild's fence; no flags, a catch-up of @p's copies from their groups.
 */
int cluster_sync(struct ds_proc *p, u64 ino, u32 flags, u32 gen);

/* One range of a catch-up: up to @max chunks of @ino from @from, @rep. */
int cluster_sync_range(struct ds_proc *p, u64 ino, u32 from, u32 max,
		       struct aifs_chunk_sync_rep *rep);

/*
 * Chunk @index of @ino, DS_TEST_CHUNK bytes, from @p into @buf, tried
 * again while @p answers ESTALE (20 s): 0, -ENODATA for fewer bytes, or
 * -errno; its version in *@version.
 */
int cluster_read_chunk(struct ds_proc *p, u64 ino, u32 index, void *buf,
		       u64 *version);

/*
 * The aifs command with @args (its server addresses in them), with the
 * cluster's secret: its exit code, its output (stderr too) in @out.
 */
int cluster_cli(const char *args, char *out, size_t size);
/* `aifs recovery` of the cluster's MDS into @out: its exit status. */
int cluster_recovery(char *out, size_t size);

/* A new file @name in the root, its layout in @layout; its ino. */
u64 cluster_create(const char *name, struct aifs_layout *layout);
/* SETATTR of @ino's size to @size, through the MDS: 0 or -errno. */
int cluster_truncate(u64 ino, u64 size);
/* Write @nr whole chunks of @ino through their primaries; 0 or -errno. */
int cluster_write_chunks(const struct aifs_layout *layout, u64 ino, u32 nr);

#endif /* AIFS_CLUSTER_HARNESS_H */
