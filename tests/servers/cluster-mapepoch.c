// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A cluster map epoch is seen by no one before it is durable.  Otherwise
 * a crash of the MDS between a map change and its commit brings the
 * epoch back, after the restart, with other contents; and a reader that
 * skips fetching an epoch it has (the data servers do) keeps a map that
 * never was.
 *
 * Data server B is counted out (OFFLINE), then started again: the MDS
 * holds its registration applied but not committed (mds.apply.pause)
 * while a client reads the map, and dies (SIGKILL) before the commit.
 * Restarted with A stopped and B dead, it shows the durable map: the
 * client's epoch must be in it, with what the client read.  Once A
 * registers again the epoch moves on: an epoch the client read must not
 * come back with other contents.
 */
#include <signal.h>
#include <stdio.h>

#include "cluster-harness.h"

#define WAIT_MS		(CLUSTER_GRACE_MS + 15000)
#define PAUSE_MS	30000	/* far longer than the test needs */

/* What a reader of the map learnt: its epoch, and the state of B in it. */
struct map_seen {
	u64 epoch;
	u32 b_state;		/* AIFS_DS_*; ~0 when B is not in the map */
};

static void map_read(const struct ds_proc *b, struct map_seen *seen)
{
	struct aifs_ds_info ds[DS_TEST_MAX];
	int i, n;

	seen->epoch = 0;
	seen->b_state = ~0u;
	n = cluster_map(ds, &seen->epoch);
	CHECK(n >= 0, "MAP_GET: %d", n);
	for (i = 0; i < n; i++)
		if (le32_to_cpu(ds[i].id) == (u32)b->id)
			seen->b_state = le32_to_cpu(ds[i].state);
}

static const char *state_name(u32 state)
{
	return state == ~0u ? "absent" : aifs_ds_state_name(state);
}

static bool apply_paused(void *arg)
{
	(void)arg;
	return test_server_logged(&cluster_mds.srv,
				  "fail point mds.apply.pause fired");
}

/* Has the map moved past the epoch of @arg (a struct map_seen)? */
static bool map_moved(void *arg)
{
	const struct map_seen *before = arg;
	struct aifs_ds_info ds[DS_TEST_MAX];
	u64 epoch = 0;

	return cluster_map(ds, &epoch) >= 0 && epoch > before->epoch;
}

/* B's registration applied, uncommitted: what a client reads. */
static void read_uncommitted(struct ds_proc *b, struct map_seen *seen)
{
	char args[160], out[512];

	snprintf(args, sizeof(args),
		 "fail %s:%s mds.apply.pause:opcode=%d:value=%d",
		 test_listen_address(), cluster_mds.srv.port,
		 AIFS_OP_DS_REGISTER, PAUSE_MS);
	CHECK(cluster_cli(args, out, sizeof(out)) == 0, "aifs fail");
	ds_start(b);
	CHECK(cluster_wait(apply_paused, NULL, WAIT_MS),
	      "B's registration never reached the pause");
	map_read(b, seen);
	printf("read while uncommitted: epoch %llu, B %s\n",
	       (unsigned long long)seen->epoch, state_name(seen->b_state));
}

int main(void)
{
	struct ds_proc *a = &ds_procs[0], *b = &ds_procs[1];
	struct cluster_state b_out = { b, AIFS_DS_OFFLINE };
	struct map_seen seen, durable, later;

	setvbuf(stdout, NULL, _IONBF, 0);
	cluster_setup(2, CLUSTER_GRACE_MS, "fault_injection = yes\n");
	ds_stop(b, SIGKILL);
	if (!cluster_wait(cluster_in_state, &b_out, WAIT_MS)) {
		CHECK(0, "B never went OFFLINE");
		return test_result();
	}
	read_uncommitted(b, &seen);

	/* a crash before the commit; nobody registers on the way back */
	kill(a->srv.pid, SIGSTOP);
	ds_stop(b, SIGKILL);
	cluster_mds_revive(0);
	map_read(b, &durable);
	printf("durable: epoch %llu, B %s\n",
	       (unsigned long long)durable.epoch, state_name(durable.b_state));
	CHECK(seen.epoch <= durable.epoch,
	      "a client read epoch %llu (B %s) before it was durable: the MDS came back at %llu",
	      (unsigned long long)seen.epoch, state_name(seen.b_state),
	      (unsigned long long)durable.epoch);
	CHECK(seen.epoch != durable.epoch || seen.b_state == durable.b_state,
	      "epoch %llu is durable with B %s, a client read it with B %s",
	      (unsigned long long)seen.epoch, state_name(durable.b_state),
	      state_name(seen.b_state));

	kill(a->srv.pid, SIGCONT);
	CHECK(cluster_wait(map_moved, &durable, WAIT_MS),
	      "A did not register again");
	map_read(b, &later);
	printf("after A registered again: epoch %llu, B %s\n",
	       (unsigned long long)later.epoch, state_name(later.b_state));
	CHECK(seen.epoch != later.epoch || seen.b_state == later.b_state,
	      "epoch %llu came back with B %s; a client read it with B %s",
	      (unsigned long long)seen.epoch, state_name(later.b_state),
	      state_name(seen.b_state));
	return test_result();
}
