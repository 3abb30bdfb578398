// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A data server back from OFFLINE is not trusted blindly: a real aifs-mds
 * and three aifs-ds, replicas = 2.  The replica of a file is killed; the
 * primary acknowledges an overwrite of chunk 0 without it only once the
 * MDS counts it OFFLINE, and a new chunk 2.  Back, the server is SYNCING:
 * it serves nothing (a read, a write as primary and a CHUNK_LIST answer
 * ESTALE) while the MDS has it catch up (its CHUNK_SYNCs slowed by a fault
 * injection point, so that the state can be seen).  Then it is UP and
 * holds the primary's bytes, versions and CRCs of every chunk.
 *
 * Then the replica is stopped (SIGSTOP), not killed: counted out, and an
 * overwrite of chunk 1 acknowledged without it, it is let go on.  It
 * never serves its old copy: its lease from the MDS ran out while it
 * slept, and it catches up before it serves again.  Then the MDS stalls
 * past the grace: all servers come back SYNCING and catch up from the
 * one of each group counted out last.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

#include "cluster-harness.h"

#define WAIT_MS		(CLUSTER_GRACE_MS + 20000)
#define NR_CHUNKS	3

static char want[NR_CHUNKS][DS_TEST_CHUNK], got[DS_TEST_CHUNK];

/*
 * Chunk @index to @primary with @replica, bytes of @seed; retried while
 * the primary refuses: EAGAIN (the replica is dead but not counted out)
 * or ESTALE (the primary serves nothing for now: its lease from an MDS
 * slow to answer ran out, or it is catching up after being counted out).
 */
static void put(struct ds_proc *primary, u32 replica, u64 ino, u32 index,
		u32 seed)
{
	u64 until = aifs_now_ms() + WAIT_MS;
	int err;

	ds_fill(want[index], DS_TEST_CHUNK, seed);
	while ((err = ds_write(primary, ino, index, 0, want[index],
			       DS_TEST_CHUNK, &replica, 1, NULL)) &&
	       (err == -EAGAIN || err == -ESTALE) && aifs_now_ms() < until)
		test_sleep_ms(50);
	CHECK(!err, "write of chunk %u: %d", index, err);
}

struct crossing {
	struct ds_proc *primary;
	u32 replica;
	u64 ino;
	int failed;
	int err;	/* of the last write that failed */
};

/* Writes of chunk 3 through one primary, retried while it says EAGAIN. */
static void *crossing_writer(void *arg)
{
	struct crossing *c = arg;
	static char buf[2][DS_TEST_CHUNK / 4];
	char *mine = buf[c->replica & 1];
	int i, err, tries;

	ds_fill(mine, sizeof(buf[0]), c->replica);
	for (i = 0; i < 10; i++) {
		tries = 0;
		/*
		 * as the kernel's client goes round again: EAGAIN (a replica
		 * failed mid-forward), ESTALE (this primary's copy is stale
		 * after a crossing forward, and catches up first: a pull,
		 * which on a loaded machine takes many of these rounds)
		 */
		while ((err = ds_write(c->primary, c->ino, 3, 0, mine,
				       sizeof(buf[0]), &c->replica, 1,
				       NULL)) &&
		       (err == -EAGAIN || err == -ESTALE) && ++tries < 2000)
			test_sleep_ms(10);
		c->failed += !!err;
		if (err)
			c->err = err;
	}
	return NULL;
}

/*
 * Did a primary give up waiting for a replica that is alive (its forward
 * timed out: "skipped, it resyncs when back")?  The state a write that
 * waited for nothing never reaches, however slow the machine.
 */
static void no_replica_timed_out(const char *when)
{
	int i;

	for (i = 0; i < 3; i++)
		CHECK(!test_server_logged(&ds_procs[i].srv,
					  "skipped, it resyncs when back"),
		      "%s: ds %d gave up on a live replica (see %s)", when,
		      ds_procs[i].id, ds_procs[i].srv.dir);
}

/*
 * Two primaries of one chunk at once, each forwarding to the other (two
 * clients, one failed over): neither waits for the other for ever, nor
 * until its forward times out.
 */
static void crossing_primaries(struct ds_proc *p, u32 pid, struct ds_proc *r,
			       u32 rid, u64 ino)
{
	struct crossing a = { p, rid, ino, 0, 0 }, b = { r, pid, ino, 0, 0 };
	pthread_t ta, tb;

	CHECK(!pthread_create(&ta, NULL, crossing_writer, &a) &&
	      !pthread_create(&tb, NULL, crossing_writer, &b), "threads");
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	CHECK(!a.failed && !b.failed, "crossing writes failed: %d (%d) and %d (%d)",
	      a.failed, a.err, b.failed, b.err);
	no_replica_timed_out("crossing writes");
}

/* Chunk @index on @p, retried while @p does not serve yet: its version. */
static u64 get(struct ds_proc *p, u64 ino, u32 index)
{
	u64 version = 0;
	int err;

	err = cluster_read_chunk(p, ino, index, got, &version);
	CHECK(!err && !memcmp(got, want[index], DS_TEST_CHUNK),
	      "chunk %u on ds %d: %d", index, p->id, err);
	return version;
}

static void crcs(struct ds_proc *p, u64 ino, u32 index, u32 *out)
{
	struct aifs_chunk_checksum_req req = { .nr_blocks = cpu_to_le32(16) };
	struct aifs_span parts[AIFS_MSG_MAX_PARTS];
	struct aifs_chunk_checksum_rep rep;
	struct aifs_reply reply;
	u32 i;

	ds_chunk_id(&req.id, ino, index);
	memset(out, 0, 16 * 4);
	if (ds_request(p, AIFS_OP_CHUNK_CHECKSUM, &req, sizeof(req), &reply) ||
	    reply.status ||
	    aifs_decode_chunk_checksum_rep(reply.payload, reply.len, &rep,
					   parts)) {
		CHECK(0, "checksums of chunk %u on ds %d", index, p->id);
		return;
	}
	for (i = 0; i < le32_to_cpu(rep.count) && i < 16; i++)
		out[i] = aifs_span_le32(&parts[0], i);
	aifs_reply_free(&reply);
}

/* `aifs recovery` says "data server @id: @what". */
static void recovery_says(u32 id, const char *what)
{
	char out[4096], want[128];

	snprintf(want, sizeof(want), "data server %u: %s", id, what);
	CHECK(cluster_recovery(out, sizeof(out)) == 0 && strstr(out, want),
	      "aifs recovery does not say \"%s\"", want);
}

static void while_syncing(struct ds_proc *r, u32 primary_id, u64 ino)
{
	struct aifs_chunk_list_req list = {
		.max = cpu_to_le32(8),
	};
	struct aifs_reply reply;
	u32 len = 0;
	int err;

	recovery_says(r->id, "SYNCING, catching up (round ");
	err = ds_read(r, ino, 1, 0, DS_TEST_CHUNK, 0, got, &len, NULL);
	CHECK(err == -ESTALE, "read of a SYNCING server: %d", err);
	err = ds_write(r, ino, 1, 0, want[1], 100, &primary_id, 1, NULL);
	CHECK(err == -ESTALE, "write to a SYNCING primary: %d", err);
	ds_chunk_id(&list.id, ino, 0);
	err = ds_request(r, AIFS_OP_CHUNK_LIST, &list, sizeof(list), &reply);
	CHECK(!err && reply.status == ESTALE,
	      "CHUNK_LIST of a SYNCING server: %d, status %u", err,
	      reply.status);
	aifs_reply_free(&reply);
}

/* Reads of chunk 1 on @r until it serves: none may give old bytes. */
static void never_old(struct ds_proc *r, u64 ino)
{
	struct cluster_state s = { r, AIFS_DS_UP };
	int err, stale = 0, fresh = 0, i;
	u32 len;

	for (i = 0; i < 400 && fresh < 5; i++) {
		len = 0;
		err = ds_read(r, ino, 1, 0, DS_TEST_CHUNK, 0, got, &len, NULL);
		if (err == -ESTALE) {
			stale++;
		} else {
			CHECK(!err && len == DS_TEST_CHUNK &&
			      !memcmp(got, want[1], DS_TEST_CHUNK),
			      "the woken replica served: %d, %u bytes, %s", err,
			      len, err ? "" : "old bytes");
			fresh++;
		}
		test_sleep_ms(25);
	}
	CHECK(stale, "the woken replica served at once");
	CHECK(fresh && cluster_in_state(&s), "not serving again: %d", fresh);
}

static void asleep_while_written(struct ds_proc *p, struct ds_proc *r,
				 u32 rid, u64 ino)
{
	struct cluster_state s = { r, AIFS_DS_OFFLINE };

	CHECK(!kill(r->srv.pid, SIGSTOP), "SIGSTOP");
	CHECK(cluster_wait(cluster_in_state, &s, WAIT_MS), "not offline");
	put(p, rid, ino, 1, 5);
	CHECK(!kill(r->srv.pid, SIGCONT), "SIGCONT");
	never_old(r, ino);
}

/* Are all servers of the map OFFLINE?  A cluster_wait() cond. */
static bool all_offline(void *arg)
{
	struct aifs_ds_info ds[DS_TEST_MAX];
	int i, n = cluster_map(ds, NULL);

	(void)arg;
	for (i = 0; i < n; i++)
		if (le32_to_cpu(ds[i].state) != AIFS_DS_OFFLINE)
			return false;
	return n > 0;
}

/* SIGSTOP or SIGCONT to the data servers. */
static void signal_servers(int sig)
{
	int i;

	for (i = 0; i < 3; i++)
		CHECK(!kill(ds_procs[i].srv.pid, sig), "signal %d to ds %d",
		      sig, ds_procs[i].id);
}

/*
 * The MDS stalls (SIGSTOP) past the grace: once it runs again it counts
 * every server out at once, and all come back SYNCING; no group has a
 * member that serves, and in each the one counted out last is the
 * source. All UP again, the bytes there.  The servers are stopped too
 * until the map says they are out: else the heartbeats waiting for the
 * MDS may reach it before it looks at the clock, and nobody goes out.
 */
static void mds_stalled(struct ds_proc *p, struct ds_proc *r, u64 ino)
{
	int three = 3;

	CHECK(!kill(cluster_mds.srv.pid, SIGSTOP), "SIGSTOP of the MDS");
	signal_servers(SIGSTOP);
	/* no heartbeat can reach it: past the grace by the clock alone */
	test_sleep_ms(CLUSTER_GRACE_MS + 1000);
	CHECK(!kill(cluster_mds.srv.pid, SIGCONT), "SIGCONT of the MDS");
	CHECK(cluster_wait(all_offline, NULL, WAIT_MS),
	      "the MDS stalled past the grace did not count all out");
	signal_servers(SIGCONT);
	CHECK(cluster_wait(cluster_up_count, &three, WAIT_MS),
	      "not all UP again after the MDS stalled");
	get(p, ino, 1);
	get(r, ino, 1);
}

/*
 * Both copies go, the primary first, and the MDS restarts: the replica,
 * back alone, holds the last copy (nothing was written without it: the
 * order they went out in is kept with the map) and serves again without
 * a peer to catch up from.
 */
static void last_copy(struct ds_proc *p, struct ds_proc *r, u64 ino)
{
	struct cluster_state s = { p, AIFS_DS_OFFLINE };

	ds_stop(p, SIGKILL);
	CHECK(cluster_wait(cluster_in_state, &s, WAIT_MS), "primary not out");
	s.p = r;
	ds_stop(r, SIGKILL);
	CHECK(cluster_wait(cluster_in_state, &s, WAIT_MS), "replica not out");
	cluster_mds_restart();
	ds_start(r);
	s.state = AIFS_DS_UP;
	CHECK(cluster_wait(cluster_in_state, &s, WAIT_MS),
	      "the last copy stays SYNCING");
	get(r, ino, 1);
}

int main(void)
{
	struct cluster_state s;
	struct aifs_layout l;
	struct ds_proc *p, *r;
	u32 pid, rid, i, a[16], b[16];
	u64 ino;

	setvbuf(stdout, NULL, _IONBF, 0);
	cluster_setup(3, CLUSTER_GRACE_MS, "default_replicas = 2\n");
	ino = cluster_create("f", &l);
	pid = le32_to_cpu(l.targets[0]);
	rid = le32_to_cpu(l.targets[1]);
	p = cluster_proc(pid);
	r = cluster_proc(rid);
	put(p, rid, ino, 0, 1);
	/* the replica as primary, as a client failing over: both get it */
	put(r, pid, ino, 1, 2);
	no_replica_timed_out("a write through the second member");
	get(p, ino, 1);
	get(r, ino, 1);
	crossing_primaries(p, pid, r, rid, ino);

	ds_stop(r, SIGKILL);
	s = (struct cluster_state){ r, AIFS_DS_OFFLINE };
	put(p, rid, ino, 0, 3);		/* without the replica, once it is out */
	CHECK(cluster_in_state(&s),
	      "a write went without a replica the MDS did not count out");
	put(p, rid, ino, 2, 4);
	recovery_says(rid, "OFFLINE, rebuilt around in ");

	ds_start_failing(r, "request.delay:opcode=73:value=1500");
	s.state = AIFS_DS_SYNCING;
	CHECK(cluster_wait(cluster_in_state, &s, WAIT_MS), "not syncing");
	while_syncing(r, pid, ino);
	s.state = AIFS_DS_UP;
	CHECK(cluster_wait(cluster_in_state, &s, WAIT_MS), "not up again");
	for (i = 0; i < NR_CHUNKS; i++) {
		CHECK(get(r, ino, i) == get(p, ino, i),
		      "chunk %u: versions differ", i);
		crcs(r, ino, i, a);
		crcs(p, ino, i, b);
		CHECK(!memcmp(a, b, sizeof(a)), "chunk %u: CRCs differ", i);
	}
	asleep_while_written(p, r, rid, ino);
	mds_stalled(p, r, ino);
	last_copy(p, r, ino);
	return test_result();
}
