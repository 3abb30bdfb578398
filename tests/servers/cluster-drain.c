// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Draining with a real aifs-mds and three aifs-ds: drain = yes in a
 * server's ds.conf and a SIGHUP make it DRAINING in the map under a new
 * epoch; new files are never placed on a DRAINING or an OFFLINE server;
 * drain = no and a SIGHUP make it UP again, and files land on it again.
 */
#include <signal.h>
#include <stdlib.h>

#include "cluster-harness.h"

#define WAIT_MS		(CLUSTER_GRACE_MS + 15000)
#define FILES		16

/* Set drain in @p's config file and tell it with SIGHUP. */
static void set_drain(struct ds_proc *p, bool drain)
{
	static char conf[DS_TEST_MAX][8192];
	int i = p - ds_procs;
	char path[128];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/server.conf", p->srv.dir);
	if (!conf[i][0]) {
		f = fopen(path, "r");
		n = f ? fread(conf[i], 1, sizeof(conf[i]) - 1, f) : 0;
		conf[i][n] = 0;
		if (f)
			fclose(f);
	}
	f = fopen(path, "w");
	CHECK(f && fprintf(f, "%sdrain = %s\n", conf[i],
			   drain ? "yes" : "no") > 0 && !fclose(f),
	      "cannot write %s", path);
	CHECK(!kill(p->srv.pid, SIGHUP), "SIGHUP");
}

/* Move @p to @state by @drain: the map says so under a new epoch. */
static void check_moves(struct ds_proc *p, bool drain, u32 state)
{
	struct cluster_state s = { p, state };
	struct aifs_ds_info ds[DS_TEST_MAX];
	u64 before, after;

	cluster_map(ds, &before);
	set_drain(p, drain);
	CHECK(cluster_wait(cluster_in_state, &s, WAIT_MS), "not in state %u",
	      state);
	cluster_map(ds, &after);
	CHECK(after > before, "epoch %llu, was %llu",
	      (unsigned long long)after, (unsigned long long)before);
}

/*
 * Create FILES files named @tag-N: none placed on @avoid or @avoid2; the
 * number placed on @want returned.
 */
static int place(const char *tag, u32 avoid, u32 avoid2, u32 want)
{
	struct aifs_layout l;
	char name[32];
	int i, t, on_want = 0;
	u32 id;

	for (i = 0; i < FILES; i++) {
		snprintf(name, sizeof(name), "%s-%d", tag, i);
		cluster_create(name, &l);
		for (t = 0; t < le16_to_cpu(l.target_count); t++) {
			id = le32_to_cpu(l.targets[t]);
			CHECK(id != avoid && id != avoid2,
			      "%s: placed on ds %u", name, id);
			on_want += id == want;
		}
	}
	return on_want;
}

static u32 id_of(struct ds_proc *p)
{
	struct aifs_ds_info info;

	return cluster_ds_info(p, &info) ? le32_to_cpu(info.id) : 0;
}

int main(void)
{
	struct cluster_state offline = { &ds_procs[2], AIFS_DS_OFFLINE };
	struct cluster_state drained = { &ds_procs[0], AIFS_DS_DRAINING };
	u32 a, b, c;

	setvbuf(stdout, NULL, _IONBF, 0);
	cluster_setup(3, CLUSTER_GRACE_MS, "default_replicas = 1\n");
	a = id_of(&ds_procs[0]);
	b = id_of(&ds_procs[1]);
	c = id_of(&ds_procs[2]);

	check_moves(&ds_procs[0], true, AIFS_DS_DRAINING);
	place("draining", a, 0, 0);
	/* Still DRAINING after heartbeats past the grace period. */
	CHECK(cluster_map_stays(CLUSTER_GRACE_MS + 1000) &&
	      cluster_in_state(&drained), "drained server changed state");

	ds_stop(&ds_procs[2], SIGKILL);
	CHECK(cluster_wait(cluster_in_state, &offline, WAIT_MS), "not offline");
	CHECK(place("offline", a, c, b) == FILES,
	      "files not all on the only UP server");

	check_moves(&ds_procs[0], false, AIFS_DS_UP);
	CHECK(place("undrained", c, 0, a) > 0,
	      "no file on the undrained server");
	return test_result();
}
