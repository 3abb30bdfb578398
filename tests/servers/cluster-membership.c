// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Data servers and the real MDS: registration (ids assigned and kept in
 * ds.id), re-registration with the same ids after an MDS restart,
 * heartbeats keeping them UP, a killed server OFFLINE after the grace
 * period under a new map epoch and UP again once restarted, and
 * replication between servers that know each other only from the
 * cluster map (no static peers).
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cluster-harness.h"

#define WAIT_MS		(CLUSTER_GRACE_MS + 15000)
#define INO		77

/* The id in @p's ds.id, 0 if none. */
static u32 persisted_id(const struct ds_proc *p)
{
	char path[128], line[128];
	unsigned int id = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/data/ds.id", p->srv.dir);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		sscanf(line, "ds_id = %u", &id);
	if (f)
		fclose(f);
	return id;
}

static u32 map_id(const struct ds_proc *p)
{
	struct aifs_ds_info info;

	return cluster_ds_info(p, &info) ? le32_to_cpu(info.id) : 0;
}

static bool all_up(void *arg)
{
	struct cluster_state a = { &ds_procs[0], AIFS_DS_UP };
	struct cluster_state b = { &ds_procs[1], AIFS_DS_UP };

	(void)arg;
	return cluster_in_state(&a) && cluster_in_state(&b);
}

/* Chunk @index written to @primary with @replica; both copies the same. */
static void check_replicated(struct ds_proc *primary, struct ds_proc *replica,
			     u32 index)
{
	static char want[DS_TEST_CHUNK], got[DS_TEST_CHUNK];
	u32 peer = map_id(replica), len = 0;
	int err, tries = 0;

	ds_fill(want, sizeof(want), index);
	/* a server the MDS just made UP learns it at its next heartbeat */
	do {
		if (tries)
			test_sleep_ms(50);
		err = ds_write(primary, INO, index, 0, want, sizeof(want),
			       &peer, 1, NULL);
	} while ((err == -EAGAIN || err == -ESTALE) && ++tries < 100);
	CHECK(!err, "write of chunk %u: %d", index, err);
	tries = 0;
	do {
		if (tries)
			test_sleep_ms(50);
		err = ds_read(replica, INO, index, 0, DS_TEST_CHUNK, 0, got,
			      &len, NULL);
	} while (err == -ESTALE && ++tries < 100);
	CHECK(!err && len == DS_TEST_CHUNK && !memcmp(got, want, len),
	      "chunk %u on the replica: %d, %u bytes", index, err, len);
}

/* Does @arg's server have the id of the map in its ds.id already? */
static bool id_persisted(void *arg)
{
	const struct ds_proc *p = arg;
	u32 id = map_id(p);

	return id && id == persisted_id(p);
}

static void test_registered(u32 *ids)
{
	int i;

	for (i = 0; i < 2; i++) {
		/* the map may tell the id before the server wrote it down */
		CHECK(cluster_wait(id_persisted, &ds_procs[i], 10000),
		      "ds %d: id %u in the map, %u in ds.id", i,
		      map_id(&ds_procs[i]), persisted_id(&ds_procs[i]));
		ids[i] = map_id(&ds_procs[i]);
	}
	CHECK(ids[0] != ids[1], "both servers have id %u", ids[0]);
	/* Heartbeats keep them up past the grace period, not even a flap. */
	CHECK(all_up(NULL) && cluster_map_stays(CLUSTER_GRACE_MS + 1000) &&
	      all_up(NULL), "a beating server went down");
}

static void test_mds_restart(const u32 *ids)
{
	struct aifs_ds_info ds[DS_TEST_MAX];
	int i;

	cluster_mds_restart();
	CHECK(cluster_wait(all_up, NULL, WAIT_MS), "not back up");
	CHECK(cluster_map(ds, NULL) == 2, "servers were added");
	for (i = 0; i < 2; i++)
		CHECK(map_id(&ds_procs[i]) == ids[i] &&
		      persisted_id(&ds_procs[i]) == ids[i],
		      "ds %d: id %u after the restart, was %u", i,
		      map_id(&ds_procs[i]), ids[i]);
}

static void test_offline_and_back(const u32 *ids)
{
	struct cluster_state s = { &ds_procs[1], AIFS_DS_OFFLINE };
	struct aifs_ds_info ds[DS_TEST_MAX];
	u64 before, after;

	cluster_map(ds, &before);
	ds_stop(&ds_procs[1], SIGKILL);
	CHECK(cluster_wait(cluster_in_state, &s, WAIT_MS), "not offline");
	cluster_map(ds, &after);
	CHECK(after > before, "epoch %llu, was %llu", (unsigned long long)after,
	      (unsigned long long)before);
	ds_start(&ds_procs[1]);
	s.state = AIFS_DS_UP;
	CHECK(cluster_wait(cluster_in_state, &s, WAIT_MS), "not up again");
	CHECK(map_id(&ds_procs[1]) == ids[1], "id %u on return, was %u",
	      map_id(&ds_procs[1]), ids[1]);
	cluster_map(ds, &before);
	CHECK(before > after, "epoch %llu after coming back, was %llu",
	      (unsigned long long)before, (unsigned long long)after);
}

int main(void)
{
	u32 ids[2];

	setvbuf(stdout, NULL, _IONBF, 0);
	cluster_setup(2, CLUSTER_GRACE_MS, "default_replicas = 2\n");
	test_registered(ids);
	check_replicated(&ds_procs[0], &ds_procs[1], 0);
	check_replicated(&ds_procs[1], &ds_procs[0], 1);
	test_mds_restart(ids);
	test_offline_and_back(ids);
	/* The returning server is a peer again, both ways. */
	check_replicated(&ds_procs[0], &ds_procs[1], 2);
	check_replicated(&ds_procs[1], &ds_procs[0], 3);
	return test_result();
}
