// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A truncate and the writes after it: a real aifs-mds and two aifs-ds
 * (replicas = 2).  SETATTR cuts the live copies before it answers; with
 * the replica down (counted out by the MDS), the job stays queued and is
 * sent again to both copies once the replica is back, after new data was
 * written past the new size on the primary.  The returning replica
 * catches up from the primary (SYNCING), and the late job must leave the
 * new data alone on both: once the MDS's chunk queue is empty (the job
 * done on every copy, as its metrics say), every byte written after the
 * truncate survives, the truncated range reads as zeros.  A replica too
 * slow for the MDS's first call (stopped longer than it waits) is cut all
 * the same before SETATTR answers; one whose cut fails is counted out
 * before SETATTR answers, and serves the cut bytes to nobody.  A chunk
 * cut to nothing and written again, on a replica that missed the cut:
 * the new write is not taken there for one it holds (versions carry the
 * truncation the chunk was created under), nor removed by the late cut.
 * Then the size flags a client with writes not committed yet sends: CUT
 * cuts at a size above the MDS's, SIZE_GROW only grows.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cluster-harness.h"

#define WAIT_MS		20000
#define CUT		(DS_TEST_CHUNK / 2)	/* the new size */
#define NEW_LEN		(64U << 10)		/* written after the cut */

/*
 * Chunk @index of @ino on @p as a client sees it: holes (ENOENT) read as
 * zeros; asked again while @p serves nothing (ESTALE: catching up, or
 * its lease from the MDS ran out on a loaded machine); any other error
 * fails the check (and reads as nothing).
 */
static u32 chunk_get(struct ds_proc *p, u64 ino, u32 index, char *buf)
{
	u64 until = aifs_now_ms() + WAIT_MS;
	u32 len;
	int err;

	for (;;) {
		len = 0;
		memset(buf, 0, DS_TEST_CHUNK);
		err = ds_read(p, ino, index, 0, DS_TEST_CHUNK, 0, buf, &len,
			      NULL);
		if (err != -ESTALE || aifs_now_ms() >= until)
			break;
		test_sleep_ms(50);
	}
	CHECK(!err || err == -ENOENT, "ds %s: read of chunk %u: %s",
	      p->srv.port, index, strerror(-err));
	return err ? 0 : len;
}

/* File @name (new) of two whole chunks on both copies, and its size. */
static u64 file_of_two_chunks(const char *name, struct aifs_layout *l,
			      char *old)
{
	struct aifs_setattr sa = { .valid = AIFS_SETATTR_SIZE };
	struct aifs_attr attr;

	sa.ino = cluster_create(name, l);
	CHECK(le16_to_cpu(l->target_count) == 2, "%u targets",
	      le16_to_cpu(l->target_count));
	CHECK(!cluster_write_chunks(l, sa.ino, 2), "writes");
	sa.size = 2ULL * DS_TEST_CHUNK;
	CHECK(!aifs_setattr(cluster_conn, &cluster_cred, &sa, &attr), "size");
	ds_fill(old, DS_TEST_CHUNK, sa.ino * 1000);
	return sa.ino;
}

/*
 * File @name of two chunks on both copies, then its replica killed and
 * counted out: the file's inode; its primary, replica and replica's id.
 */
static u64 replica_away(const char *name, char *old, struct ds_proc **primary,
			struct ds_proc **replica, u32 *replica_id)
{
	struct cluster_state state;
	struct aifs_layout l;
	u64 ino;

	ino = file_of_two_chunks(name, &l, old);
	*primary = cluster_proc(le32_to_cpu(l.targets[0]));
	*replica_id = le32_to_cpu(l.targets[1]);
	*replica = cluster_proc(*replica_id);
	ds_stop(*replica, SIGKILL);
	state = (struct cluster_state){ *replica, AIFS_DS_OFFLINE };
	CHECK(cluster_wait(cluster_in_state, &state, 2 * WAIT_MS),
	      "the killed replica is not counted out");
	return ino;
}

static void truncate_to(u64 ino, u64 size)
{
	CHECK(!cluster_truncate(ino, size), "truncate");
}

/*
 * Chunk 0 of @p (@what: which copy, in which case): the old bytes up to
 * CUT, then @new or zeros.
 */
static void check_chunk0(struct ds_proc *p, const char *what, u64 ino,
			 const char *old, const char *new, char *buf)
{
	u32 len = chunk_get(p, ino, 0, buf);
	u32 i, end = new ? CUT + NEW_LEN : CUT;

	CHECK(len == end, "%s (ds %s): chunk 0 has %u bytes, not %u", what,
	      p->srv.port, len, end);
	CHECK(!memcmp(buf, old, CUT), "%s (ds %s): old bytes changed", what,
	      p->srv.port);
	CHECK(!new || !memcmp(buf + CUT, new, NEW_LEN),
	      "%s (ds %s): the bytes written after the truncate are lost",
	      what, p->srv.port);
	for (i = end; i < DS_TEST_CHUNK && !buf[i]; i++)
		;
	CHECK(i == DS_TEST_CHUNK,
	      "%s (ds %s): byte %u past the end is not zero", what,
	      p->srv.port, i);
}

/* Longer than the MDS waits for one call to a data server (5 s). */
#define SLOW_MS		7000

struct stopped {
	struct ds_proc *p;
	u64 resumed_at;		/* aifs_now_ms() when let go on */
};

static void *resume_later(void *arg)
{
	struct stopped *s = arg;

	test_sleep_ms(SLOW_MS);
	s->resumed_at = aifs_now_ms();
	kill(s->p->srv.pid, SIGCONT);
	return NULL;
}

/*
 * The replica stopped (alive, but mute) across a truncation: SETATTR
 * waits for it to come back and take the cut rather than answer with a
 * copy still holding the cut bytes.
 */
static void check_slow_replica(char *old, char *buf)
{
	struct stopped replica;
	struct aifs_layout l;
	pthread_t thread;
	u64 ino, answered;

	ino = file_of_two_chunks("slow", &l, old);
	replica.p = cluster_proc(le32_to_cpu(l.targets[1]));
	kill(replica.p->srv.pid, SIGSTOP);
	CHECK(!pthread_create(&thread, NULL, resume_later, &replica), "thread");
	truncate_to(ino, CUT);
	answered = aifs_now_ms();
	pthread_join(thread, NULL);
	CHECK(answered >= replica.resumed_at,
	      "SETATTR answered %llu ms before the stopped replica went on",
	      (unsigned long long)(replica.resumed_at - answered));
	check_chunk0(replica.p, "the slow replica", ino, old, NULL, buf);
}

/* SETATTR of @valid and @size on @ino; the size the MDS answers. */
static u64 setattr_size(u64 ino, u32 valid, u64 size)
{
	struct aifs_setattr sa = { .valid = valid, .ino = ino, .size = size };
	struct aifs_attr attr = { 0 };

	CHECK(!aifs_setattr(cluster_conn, &cluster_cred, &sa, &attr),
	      "setattr %#x to %llu", valid, (unsigned long long)size);
	return le64_to_cpu(attr.size);
}

/*
 * Two chunks written, the size never committed (the MDS says 0): a
 * truncation to CUT with AIFS_SETATTR_CUT cuts both copies there, though
 * CUT is above the MDS's size; SIZE_GROW then never shrinks the file.
 */
static void check_size_flags(char *old, char *buf)
{
	struct ds_proc *primary, *replica;
	struct chunk_at gone;
	struct aifs_layout l;
	u64 ino;

	ino = cluster_create("uncommitted", &l);
	CHECK(!cluster_write_chunks(&l, ino, 2), "writes");
	ds_fill(old, DS_TEST_CHUNK, ino * 1000);
	primary = cluster_proc(le32_to_cpu(l.targets[0]));
	replica = cluster_proc(le32_to_cpu(l.targets[1]));
	CHECK(setattr_size(ino, AIFS_SETATTR_SIZE | AIFS_SETATTR_CUT, CUT) ==
	      CUT, "size after the cut");
	check_chunk0(primary, "CUT: the primary", ino, old, NULL, buf);
	check_chunk0(replica, "CUT: the replica", ino, old, NULL, buf);
	gone = (struct chunk_at){ primary, ino, 1 };
	CHECK(cluster_chunk_gone(&gone), "chunk 1 still on the primary");
	CHECK(setattr_size(ino, AIFS_SETATTR_SIZE_GROW, CUT / 2) == CUT,
	      "SIZE_GROW shrank the file");
	check_chunk0(primary, "SIZE_GROW below the size", ino, old, NULL,
		     buf);
	CHECK(setattr_size(ino, AIFS_SETATTR_SIZE_GROW, 2ULL * DS_TEST_CHUNK) ==
	      2ULL * DS_TEST_CHUNK, "SIZE_GROW did not grow the file");
	check_chunk0(primary, "SIZE_GROW above the size", ino, old, NULL,
		     buf);
}

/* Truncation @fence of @ino to CUT on @p, as the MDS's queue sends it. */
static int cut_on(struct ds_proc *p, u64 ino, u32 fence,
		  struct aifs_chunk_rep *rep)
{
	struct aifs_chunk_id id;

	if (!p->conn)
		ds_connect(p);
	ds_chunk_id(&id, ino, 0);
	return aifs_chunk_truncate(p->conn, &id, CUT, fence, rep);
}

/* Has @arg's server paused a pull (ds.resync.pause)?  A cluster_wait() cond. */
/*
 * A cut that comes while the copy it is for is pulled from its peer.  The
 * replica, away, missed truncation 1 of a file (made on the primary by
 * the test, as the MDS's queue would: the cut, then the delete that
 * records it), then a write past the cut.  Back, it pulls chunk 0 from the
 * primary and pauses once the pulled bytes are written (ds.resync.pause):
 * the late cut comes then.  It must wait (EAGAIN) rather than cut the
 * pulled bytes, and once the pull ends it finds itself done there.
 */
static void check_cut_while_pulled(char *old, char *new, char *buf)
{
	struct ds_proc *primary, *replica;
	struct cluster_state state;
	struct aifs_chunk_rep rep = { 0 };
	struct aifs_chunk_id id;
	u32 replica_id;
	u64 ino;
	int err;

	ino = replica_away("pulled", old, &primary, &replica, &replica_id);
	CHECK(!cut_on(primary, ino, 1, &rep), "the cut on the primary");
	ds_chunk_id(&id, ino, 1);
	CHECK(!aifs_chunk_delete(primary->conn, &id, AIFS_DELETE_FROM, 1),
	      "the delete on the primary");
	CHECK(!ds_write(primary, ino, 0, CUT, new, NEW_LEN, &replica_id, 1,
			NULL), "write at the new size");

	ds_start_failing(replica, "ds.resync.pause:value=10000");
	CHECK(cluster_wait(cluster_fired,
			   &(struct cluster_fail){ replica, "ds.resync.pause" },
			   WAIT_MS),
	      "the returning replica never pulled chunk 0");
	rep = (struct aifs_chunk_rep){ 0 };
	err = cut_on(replica, ino, 1, &rep);
	CHECK(err == -EAGAIN,
	      "a cut during the pull: %s, not EAGAIN (version %llu, length %u)",
	      strerror(-err), (unsigned long long)le64_to_cpu(rep.version),
	      le32_to_cpu(rep.length));
	state = (struct cluster_state){ replica, AIFS_DS_UP };
	CHECK(cluster_wait(cluster_in_state, &state, 2 * WAIT_MS),
	      "the returning replica did not catch up");
	rep = (struct aifs_chunk_rep){ 0 };
	CHECK(!cut_on(replica, ino, 1, &rep) && !rep.version,
	      "the cut again after the pull: applied (version %llu)",
	      (unsigned long long)le64_to_cpu(rep.version));
	check_chunk0(primary, "cut during a pull: the primary", ino, old, new,
		     buf);
	check_chunk0(replica, "cut during a pull: the replica", ino, old, new,
		     buf);
	CHECK(aifs_unlink(cluster_conn, &cluster_cred, AIFS_ROOT_INO, "pulled",
			  &(struct aifs_entry_rep){ 0 }) == 0, "unlink");
}

/* Chunk 0 of @p holds @len bytes of @want, then holes. */
static void check_chunk0_is(struct ds_proc *p, const char *what, u64 ino,
			    const char *want, u32 len, char *buf)
{
	u32 got = chunk_get(p, ino, 0, buf), i;

	CHECK(got == len, "%s (ds %s): chunk 0 has %u bytes, not %u", what,
	      p->srv.port, got, len);
	CHECK(!memcmp(buf, want, len), "%s (ds %s): not the bytes written",
	      what, p->srv.port);
	for (i = len; i < DS_TEST_CHUNK && !buf[i]; i++)
		;
	CHECK(i == DS_TEST_CHUNK,
	      "%s (ds %s): byte %u past the end is not zero", what,
	      p->srv.port, i);
}

/*
 * A chunk cut away and written again (an O_TRUNC checkpoint) while the
 * replica missed the cut: the test plays the MDS's queue on the primary
 * alone (truncation 1, to size 0).  The replica's old copy is at version
 * 3; the new chunk's first write must not be taken there for one it
 * holds.  It is acknowledged once the replica holds its bytes (the write
 * is tried again while the replica answers ESTALE and pulls), and the
 * late cut, when it reaches the replica, leaves them.
 */
static void check_recreated(char *old, char *new, char *buf)
{
	struct ds_proc *primary, *replica;
	struct aifs_chunk_id id;
	struct aifs_layout l;
	u32 replica_id;
	u64 ino, until;
	int i, err;

	ino = file_of_two_chunks("recreated", &l, old);
	primary = cluster_proc(le32_to_cpu(l.targets[0]));
	replica_id = le32_to_cpu(l.targets[1]);
	replica = cluster_proc(replica_id);
	for (i = 0; i < 2; i++)
		CHECK(!ds_write(primary, ino, 0, 0, old, DS_TEST_CHUNK,
				&replica_id, 1, NULL), "rewrite %d", i);
	ds_chunk_id(&id, ino, 0);
	CHECK(!aifs_chunk_delete(primary->conn, &id, AIFS_DELETE_FROM, 1),
	      "the cut to size 0 on the primary");
	until = aifs_now_ms() + WAIT_MS;
	while ((err = ds_write(primary, ino, 0, 0, new, NEW_LEN, &replica_id,
			       1, NULL)) == -ESTALE && aifs_now_ms() < until)
		test_sleep_ms(50);
	CHECK(!err, "the write after the cut: %s", strerror(-err));
	check_chunk0_is(replica, "written again: the replica", ino, new,
			NEW_LEN, buf);
	if (!replica->conn)
		ds_connect(replica);
	CHECK(!aifs_chunk_delete(replica->conn, &id, AIFS_DELETE_FROM, 1),
	      "the late cut on the replica");
	check_chunk0_is(replica, "after the late cut: the replica", ino, new,
			NEW_LEN, buf);
	check_chunk0_is(primary, "after the late cut: the primary", ino, new,
			NEW_LEN, buf);
	CHECK(aifs_unlink(cluster_conn, &cluster_cred, AIFS_ROOT_INO,
			  "recreated", &(struct aifs_entry_rep){ 0 }) == 0,
	      "unlink");
}

/* Has @arg's server failed a cut (ds.write.error)?  A cluster_wait() cond. */
/*
 * A replica that fails the cut (ds.write.error on its first
 * CHUNK_TRUNCATE) while it serves: SETATTR must not answer while it
 * still serves the bytes cut.  It is counted out, catches up with the
 * primary (SYNCING, reads ESTALE meanwhile), and then holds the cut.
 */
static void check_failed_cut(char *old, char *buf)
{
	struct ds_proc *replica;
	struct cluster_state state;
	struct aifs_layout l;
	char spec[64];
	u64 ino;

	ino = file_of_two_chunks("failed-cut", &l, old);
	replica = cluster_proc(le32_to_cpu(l.targets[1]));
	ds_stop(replica, SIGTERM);
	snprintf(spec, sizeof(spec), "ds.write.error:opcode=%d:value=%d",
		 AIFS_OP_CHUNK_TRUNCATE, EIO);
	ds_start_failing(replica, spec);
	state = (struct cluster_state){ replica, AIFS_DS_UP };
	CHECK(cluster_wait(cluster_in_state, &state, WAIT_MS),
	      "the restarted replica is not up");
	truncate_to(ino, CUT);
	check_chunk0(replica, "the replica that failed the cut", ino, old,
		     NULL, buf);
	CHECK(cluster_wait(cluster_fired,
			   &(struct cluster_fail){ replica, "ds.write.error" },
			   WAIT_MS),
	      "the replica's cut never failed");
}

/* Is every job of the MDS's chunk queue done on every copy? */
static bool chunk_queue_empty(void *arg)
{
	u64 jobs = 1;

	(void)arg;
	return !cluster_mds_metric("aifs_mds_chunk_queue", &jobs) && !jobs;
}

int main(void)
{
	static char old[DS_TEST_CHUNK], new[NEW_LEN], buf[DS_TEST_CHUNK];
	struct ds_proc *primary, *replica;
	struct cluster_state state;
	struct chunk_at gone;
	struct aifs_layout l;
	u64 ino, jobs = 0;
	u32 replica_id;
	int i;

	setvbuf(stdout, NULL, _IONBF, 0);
	/* heartbeats may be late for the stopped replica: not offline */
	cluster_setup(2, 3 * SLOW_MS, "default_replicas = 2\n");
	ds_fill(new, NEW_LEN, 4242);
	/* first: the only pull of the returning replica is the one paused */
	check_cut_while_pulled(old, new, buf);
	check_recreated(old, new, buf);

	/* Both copies up: cut before SETATTR answers, no waiting. */
	ino = file_of_two_chunks("cut", &l, old);
	primary = cluster_proc(le32_to_cpu(l.targets[0]));
	replica_id = le32_to_cpu(l.targets[1]);
	replica = cluster_proc(replica_id);
	truncate_to(ino, CUT);
	check_chunk0(primary, "both up: the primary", ino, old, NULL, buf);
	check_chunk0(replica, "both up: the replica", ino, old, NULL, buf);
	gone = (struct chunk_at){ replica, ino, 1 };
	CHECK(cluster_chunk_gone(&gone), "chunk 1 still on the replica");

	/* The replica down: the job waits for it, then comes late. */
	CHECK(aifs_unlink(cluster_conn, &cluster_cred, AIFS_ROOT_INO, "cut",
			  &(struct aifs_entry_rep){ 0 }) == 0, "unlink");
	ino = replica_away("cut", old, &primary, &replica, &replica_id);
	truncate_to(ino, CUT);
	ds_fill(new, NEW_LEN, 4242);
	CHECK(!ds_write(primary, ino, 0, CUT, new, NEW_LEN, &replica_id, 1,
			NULL), "write at the new size");
	CHECK(!ds_write(primary, ino, 1, 0, new, NEW_LEN, &replica_id, 1,
			NULL), "write past the new size");
	CHECK(!cluster_mds_metric("aifs_mds_chunk_queue", &jobs) && jobs,
	      "no job waits for the killed replica (%llu queued)",
	      (unsigned long long)jobs);
	ds_start(replica);
	state = (struct cluster_state){ replica, AIFS_DS_UP };
	CHECK(cluster_wait(cluster_in_state, &state, WAIT_MS),
	      "the returning replica did not catch up");
	/* the late job (retried at most every 5 s) comes, and changes nothing */
	CHECK(cluster_wait(chunk_queue_empty, NULL, 2 * WAIT_MS),
	      "the late job never reached the returning replica");
	check_chunk0(primary, "after the late job: the primary", ino, old, new,
		     buf);
	check_chunk0(replica, "after the late job: the replica", ino, old, new,
		     buf);
	for (i = 0; i < 2; i++)
		CHECK(chunk_get(i ? replica : primary, ino, 1, buf) ==
		      NEW_LEN && !memcmp(buf, new, NEW_LEN),
		      "%s lost chunk 1 written after the truncate",
		      i ? "the replica" : "the primary");

	check_slow_replica(old, buf);
	check_failed_cut(old, buf);
	check_size_flags(old, buf);
	CHECK(mds_harness_run(&cluster_mds, "--check") == 0, "--check");
	return test_result();
}
