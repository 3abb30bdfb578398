// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * An MDS and six data servers, a file laid out ec=4+2 (1 MiB fragments)
 * by its directory: two stripes written through their leader; the server
 * of data fragment 2 is killed and both stripes are written again (the
 * leader goes on once the MDS counts it out); back, it is SYNCING and
 * serves nothing until the MDS's recovery had it rebuild its fragments by
 * decoding (CHUNK_SYNC of an EC file), then UP with the new bytes of its
 * fragments, read straight from it; a parity server killed and back gets
 * its parity rebuilt the same way; one back while the leader's map still
 * counts it out has the next write all the same.  A seventh server holds
 * nothing of the file until a data server dies for good: past the
 * rebuild delay the MDS puts the seventh in its place in the layout (one
 * generation up), which rebuilds the lost fragments by decoding and
 * serves them.  Three out in turn while the file is cut: the last one
 * back makes the cut before it serves, the others rebuild no cut stripe.
 * A stripe written 260 times and then cut off the file loses every
 * fragment.
 * A rebuild's fence landing on a stripe's leader between its fragment
 * writes and its answer: the write is refused (EREMCHG).  Last, a leader
 * dying between its fragment writes leaves a torn stripe, rolled back or
 * forward by the first member to find it.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

#include "aifs/ec.h"
#include "cluster-harness.h"

/* rebuild_delay_s: well past the kill-and-return cases' few seconds */
#define REBUILD_S	15
#define WAIT_MS		(CLUSTER_GRACE_MS + 30000)
#define K		4
#define M		2
#define WIDTH		(K + M)
#define CHUNK		DS_TEST_CHUNK
#define STRIPES		2

static u8 model[STRIPES][WIDTH][CHUNK];
static u8 buf[CHUNK];
static struct aifs_ec_group group;
static u64 ino;

static void model_write(u32 stripe, u32 off, const u8 *data, u32 len)
{
	char *frags[WIDTH];
	u32 n, f;

	for (; len; off += n, data += n, len -= n) {
		n = CHUNK - off % CHUNK < len ? CHUNK - off % CHUNK : len;
		memcpy(&model[stripe][off / CHUNK][off % CHUNK], data, n);
	}
	for (f = 0; f < WIDTH; f++)
		frags[f] = (char *)model[stripe][f];
	aifs_ec_encode(aifs_ec_get(K, M), frags, CHUNK);
}

/*
 * Through the stripe's leader, retried while it refuses (EAGAIN: a
 * member is dead but not counted out yet; ESTALE: a leader just started
 * has no lease yet).
 */
static int write_stripe(u32 stripe, u32 off, u32 len, u32 seed)
{
	static u8 data[K * CHUNK];
	u64 until = aifs_now_ms() + WAIT_MS;
	int err;

	ds_fill(data, len, seed);
	while (((err = ds_ec_write(cluster_proc(le32_to_cpu(group.members[0])),
				   ino, stripe, &group, off, data, len)) ==
		-EAGAIN || err == -ESTALE) && aifs_now_ms() < until)
		test_sleep_ms(50);
	if (!err)
		model_write(stripe, off, data, len);
	return err;
}

static bool all_zeros(const u8 *p, u32 len)
{
	return !len || (!p[0] && !memcmp(p, p + 1, len - 1));
}

/* A fragment of a stripe cut off the file may be gone (ENOENT). */
static void check_fragment(u32 f, const char *what)
{
	struct ds_proc *p = cluster_proc(le32_to_cpu(group.members[f]));
	int err, tries = 0;
	u32 s;

	for (s = 0; s < STRIPES; s++) {
		/* a server UP in the map serves once its heartbeat says so */
		while ((err = ds_frag_read(p, AIFS_OP_CHUNK_READ, ino, s, f,
					   NULL, 0, CHUNK, buf)) == -ESTALE &&
		       ++tries < 400)
			test_sleep_ms(50);
		if (err == -ENOENT && all_zeros(model[s][f], CHUNK))
			continue;
		CHECK(!err && !memcmp(buf, model[s][f], CHUNK),
		      "%s: stripe %u fragment %u from its server: %d, %s",
		      what, s, f, err,
		      memcmp(buf, model[s][f], CHUNK) ? "differs" : "same");
	}
}

/* Does the file's layout have its generation past *@arg? */
static bool layout_moved(void *arg)
{
	struct aifs_layout l;

	return !aifs_layout_get(cluster_conn, &cluster_cred, ino, &l) &&
	       le32_to_cpu(l.generation) > *(u32 *)arg;
}

/*
 * The server of fragment @f dies for good: the MDS rebuilds the file
 * around it on the server the file did not use, in its place.
 */
static void rebuild_around(u32 f)
{
	struct ds_proc *p = cluster_proc(le32_to_cpu(group.members[f]));
	struct cluster_state s = { p, AIFS_DS_OFFLINE };
	struct aifs_layout l;
	u32 gen, i;
	int err;

	err = aifs_layout_get(cluster_conn, &cluster_cred, ino, &l);
	gen = le32_to_cpu(l.generation);
	ds_stop(p, SIGKILL);
	CHECK(cluster_wait(cluster_in_state, &s, WAIT_MS),
	      "fragment %u's server not counted out", f);
	/* the rebuild is due REBUILD_S after the server was counted out */
	CHECK(!err && cluster_wait(layout_moved, &gen,
				   REBUILD_S * 1000 + WAIT_MS),
	      "no rebuild of the file around fragment %u's server", f);
	err = aifs_layout_get(cluster_conn, &cluster_cred, ino, &l);
	for (i = 0; i < WIDTH; i++)
		CHECK(i == f ? l.targets[i] != group.members[i] :
			       l.targets[i] == group.members[i],
		      "rebuilt layout: member %u is %u, was %u", i,
		      le32_to_cpu(l.targets[i]),
		      le32_to_cpu(group.members[i]));
	group.members[f] = l.targets[f];
	ds_ec_layout_gen = le32_to_cpu(l.generation);
	check_fragment(f, "on the new member");
}

/* Kill the server of fragment @f, write, bring it back: rebuilt. */
static void kill_write_return(u32 f, u32 seed)
{
	struct ds_proc *p = cluster_proc(le32_to_cpu(group.members[f]));
	struct cluster_state s = { p, AIFS_DS_OFFLINE };
	int err;

	ds_stop(p, SIGKILL);
	err = write_stripe(0, CHUNK / 2, 2 * CHUNK, seed);
	CHECK(!err, "write with fragment %u's server dead: %d", f, err);
	err = write_stripe(1, 0, K * CHUNK, seed + 1);
	CHECK(!err, "full stripe with fragment %u's server dead: %d", f, err);
	CHECK(cluster_in_state(&s), "fragment %u's server not OFFLINE", f);
	ds_start(p);
	s.state = AIFS_DS_UP;
	CHECK(cluster_wait(cluster_in_state, &s, WAIT_MS),
	      "fragment %u's server not UP again", f);
	check_fragment(f, "rebuilt");
}

/*
 * The server of fragment @f dies, is counted out, and comes back (UP,
 * its fragments rebuilt) while the leader's map still counts it out
 * (the leader fetches no map meanwhile: ds.map.freeze): the leader tries
 * it all the same, and it has the next write.
 */
static void back_before_the_leader_knows(u32 f, u32 seed)
{
	struct ds_proc *leader = cluster_proc(le32_to_cpu(group.members[0]));
	struct ds_proc *p = cluster_proc(le32_to_cpu(group.members[f]));
	struct cluster_state s = { p, AIFS_DS_OFFLINE };
	int err;

	ds_stop(p, SIGKILL);
	CHECK(cluster_wait(cluster_in_state, &s, WAIT_MS),
	      "fragment %u's server not counted out", f);
	ds_stop(leader, SIGTERM);
	ds_start_failing(leader, "ds.map.freeze:value=120000");
	/* the freeze begins once it holds a map: p's return comes after */
	cluster_wait_map_known(leader, WAIT_MS);
	ds_start(p);
	s.state = AIFS_DS_UP;
	CHECK(cluster_wait(cluster_in_state, &s, WAIT_MS),
	      "fragment %u's server not UP again", f);
	/* the leader heard of the new epoch, and did not fetch it */
	CHECK(cluster_wait(cluster_fired,
			   &(struct cluster_fail){ leader, "ds.map.freeze" },
			   WAIT_MS),
	      "the leader's map did not lag");
	err = write_stripe(0, 0, K * CHUNK, seed);
	CHECK(!err, "write while the leader's map lags: %d", err);
	check_fragment(f, "back before the leader's map said so");
	ds_stop(leader, SIGTERM);
	ds_start(leader);
}

/*
 * The server of fragment @f misses a write while dead; back, its
 * rebuild of stripe 0 meets a write of that stripe (its first EC_READ
 * held 3 s on the leader, request.delay, while the stripe is written
 * again) and the catch-up answers EAGAIN: it must stay SYNCING and
 * rebuild again, not be taken as it is. Until 2026-12-04 the MDS took
 * any EC member whose catch-up said EAGAIN for the last copy of its
 * group (the check counted an EC group's members by l->replicas: none),
 * and the server served the fragment it had before its death.
 */
static void written_while_catching_up(u32 f, u32 seed)
{
	struct ds_proc *leader = cluster_proc(le32_to_cpu(group.members[0]));
	struct ds_proc *p = cluster_proc(le32_to_cpu(group.members[f]));
	struct cluster_state s = { p, AIFS_DS_OFFLINE };
	char spec[64];
	int err;

	ds_stop(leader, SIGTERM);
	snprintf(spec, sizeof(spec), "request.delay:opcode=%d:value=3000",
		 AIFS_OP_EC_READ);
	ds_start_failing(leader, spec);
	ds_stop(p, SIGKILL);
	CHECK(cluster_wait(cluster_in_state, &s, WAIT_MS),
	      "fragment %u's server not counted out", f);
	err = write_stripe(0, 0, K * CHUNK, seed);
	CHECK(!err, "write with fragment %u's server dead: %d", f, err);
	ds_start(p);
	CHECK(cluster_wait(cluster_fired,
			   &(struct cluster_fail){ leader, "request.delay" },
			   WAIT_MS),
	      "the rebuild's EC_READ never reached the leader");
	err = write_stripe(0, CHUNK / 4, CHUNK, seed + 1);
	CHECK(!err, "write during the rebuild: %d", err);
	s.state = AIFS_DS_UP;
	CHECK(cluster_wait(cluster_in_state, &s, WAIT_MS),
	      "fragment %u's server not UP again", f);
	check_fragment(f, "written while it caught up");
	CHECK(!test_server_logged(&cluster_mds.srv, "taken as it is"),
	      "the MDS took an EC member for the last copy of its group");
	ds_stop(leader, SIGTERM);
	ds_start(leader);
}

/* Kill the server of fragment @f and wait until the MDS counts it out. */
static void kill_counted_out(u32 f)
{
	struct ds_proc *p = cluster_proc(le32_to_cpu(group.members[f]));
	struct cluster_state s = { p, AIFS_DS_OFFLINE };

	ds_stop(p, SIGKILL);
	CHECK(cluster_wait(cluster_in_state, &s, WAIT_MS),
	      "fragment %u's server not counted out", f);
}

static void start_until_up(u32 f, const char *what)
{
	struct ds_proc *p = cluster_proc(le32_to_cpu(group.members[f]));
	struct cluster_state s = { p, AIFS_DS_UP };

	ds_start(p);
	CHECK(cluster_wait(cluster_in_state, &s, WAIT_MS),
	      "fragment %u's server not UP again (%s)", f, what);
}

/*
 * A write of data fragment 0 that parity member @p fails (ds.write.error
 * on its FRAG_WRITE, ENOSPC, once): refused, but fragment 0 and the
 * other parity took it.  Then data fragment @f, which the write never
 * touched, is lost (its server killed) and read decoded: its own bytes,
 * not garbage.  Until 2026-12-05 the member that failed kept its old
 * parity unmarked, the stripe torn, and the decoder (parity from the
 * last, first) read @p's with the new fragment 0 (found by the EC
 * nemesis with full disks).  Now the leader marks it behind (FRAG_BEHIND)
 * and it is rebuilt by decoding.
 */
static void torn_by_a_member(u32 p, u32 f, u32 seed)
{
	struct ds_proc *leader = cluster_proc(le32_to_cpu(group.members[0]));
	struct ds_proc *member = cluster_proc(le32_to_cpu(group.members[p]));
	struct ds_proc *reader = cluster_proc(le32_to_cpu(group.members[1]));
	struct ds_proc *lost = cluster_proc(le32_to_cpu(group.members[f]));
	struct cluster_state s = { lost, AIFS_DS_OFFLINE };
	static u8 data[CHUNK];
	char spec[64];
	int err;

	ds_stop(member, SIGTERM);
	snprintf(spec, sizeof(spec), "ds.write.error:opcode=%d:value=%d:times=1",
		 AIFS_OP_FRAG_WRITE, ENOSPC);
	ds_start_failing(member, spec);
	CHECK(cluster_wait(cluster_in_state,
			   &(struct cluster_state){ member, AIFS_DS_UP }, WAIT_MS),
	      "parity member %u not UP again", p);
	ds_fill(data, CHUNK / 2, seed);
	do
		err = ds_ec_write(leader, ino, 0, &group, 0, data, CHUNK / 2);
	while (err == -ESTALE && !test_server_logged(&member->srv,
					"fail point ds.write.error fired"));
	CHECK(err, "a write whose parity member failed was acknowledged");
	CHECK(test_server_logged(&member->srv, "fail point ds.write.error fired"),
	      "the parity member's write never failed");
	ds_stop(lost, SIGKILL);
	CHECK(cluster_wait(cluster_in_state, &s, WAIT_MS),
	      "fragment %u's server not counted out", f);
	err = ds_frag_read(reader, AIFS_OP_EC_READ, ino, 0, f, &group, 0, CHUNK,
			   buf);
	CHECK(!err && !memcmp(buf, model[0][f], CHUNK),
	      "fragment %u decoded after a torn write: %s, %s", f,
	      strerror(-err), memcmp(buf, model[0][f], CHUNK) ? "garbage" :
								 "its bytes");
	start_until_up(f, "after a torn write");
	/* what the refused write left of fragment 0, made known again */
	CHECK(!write_stripe(0, 0, K * CHUNK, seed + 1), "stripe 0 again");
	ds_stop(member, SIGTERM);
	ds_start(member);
}

/* Restart @p with fail points @spec armed, and wait until it is UP. */
static void restart_failing(struct ds_proc *p, const char *spec)
{
	ds_stop(p, SIGTERM);
	ds_start_failing(p, spec);
	CHECK(cluster_wait(cluster_in_state,
			   &(struct cluster_state){ p, AIFS_DS_UP }, WAIT_MS),
	      "server %d not UP again with %s", p->id, spec);
}

/*
 * The leader dies between its fragment writes and its answer
 * (ds.write.crash on EC_WRITE) of a write of all stripe 0, which the
 * first @refused data members after it failed (ds.write.error on their
 * FRAG_WRITE, once): the stripe is torn, the leader's fragment out.  It
 * is read decoded at the last data member: with fewer than K members
 * holding the write, it is rolled back (the old bytes, for it was never
 * acknowledged); with K or more, rolled forward (the new).  Until
 * 2026-12-05 fragments carried no stripe stamp, nothing found the tear,
 * and the decoder mixed old and new fragments into garbage (G3).  Then
 * the leader is back, rebuilds its fragments, and every member serves
 * the stripe the read saw.
 */
static void leader_dies_mid_write(u32 refused, u32 seed)
{
	struct ds_proc *leader = cluster_proc(le32_to_cpu(group.members[0]));
	struct ds_proc *reader = cluster_proc(le32_to_cpu(group.members[K - 1]));
	bool forward = WIDTH - 1 - refused >= K;
	static u8 data[K * CHUNK];
	char spec[128];
	u64 until;
	u32 f;
	int err;

	snprintf(spec, sizeof(spec),
		 "ds.write.error:opcode=%d:value=%d:times=1",
		 AIFS_OP_FRAG_WRITE, EIO);
	for (f = 1; f <= refused; f++)
		restart_failing(cluster_proc(le32_to_cpu(group.members[f])),
				spec);
	snprintf(spec, sizeof(spec), "ds.write.crash:opcode=%d",
		 AIFS_OP_EC_WRITE);
	restart_failing(leader, spec);
	/*
	 * the reader's connections to the servers restarted go on the
	 * first call: a read of stripe 1 through all of them makes them new
	 */
	for (f = 0; f < 3 && ds_frag_read(reader, AIFS_OP_EC_READ, ino, 1, 0,
					   &group, 0, CHUNK, buf); f++)
		test_sleep_ms(100);
	ds_fill(data, K * CHUNK, seed);
	do
		err = ds_ec_write(leader, ino, 0, &group, 0, data, K * CHUNK);
	while (err == -ESTALE);
	CHECK(err && test_server_logged(&leader->srv,
					"fail point ds.write.crash: crashing"),
	      "the leader did not die in its write: %d", err);
	ds_stop(leader, SIGKILL);	/* reaped */
	if (forward)
		model_write(0, 0, data, K * CHUNK);
	/* ESTALE until the MDS counts the leader out: it may be writing */
	until = aifs_now_ms() + WAIT_MS;
	while ((err = ds_frag_read(reader, AIFS_OP_EC_READ, ino, 0, 0, &group,
				   0, CHUNK, buf)) == -ESTALE &&
	       aifs_now_ms() < until)
		test_sleep_ms(50);
	CHECK(!err && !memcmp(buf, model[0][0], CHUNK),
	      "the dead leader's fragment after a torn write, %u refused: %s, %s",
	      refused, strerror(-err),
	      memcmp(buf, model[0][0], CHUNK) ?
	      (memcmp(buf, data, CHUNK) ? "garbage" : "rolled forward") :
	      forward ? "rolled forward" : "rolled back");
	for (f = 1; f < WIDTH; f++)
		check_fragment(f, "after a torn write");
	for (f = 1; f <= refused; f++) {
		ds_stop(cluster_proc(le32_to_cpu(group.members[f])), SIGTERM);
		start_until_up(f, "without fail points");
	}
	start_until_up(0, "after dying in a write");
	check_fragment(0, "the leader back after a torn write");
}

/*
 * More than M of a stripe's servers out, one after the other: a write is
 * refused once M are out (EAGAIN: it would leave too few copies of the
 * stripe to tell a member back current from stale) and changes nothing;
 * the one counted out last is current (M went out before it), taken as
 * it is, and the first two rebuild from the stripe it makes whole again.
 * The refused write is sent once the leader's map counts the three out:
 * a leader whose map lags writes the fragments before it finds too few
 * took them, and the stripe is torn (the write hole, consistency.md G3).
 */
static void more_than_m_out(u32 a, u32 b, u32 c, u32 seed)
{
	static u8 data[K * CHUNK];
	int err;

	kill_counted_out(a);
	CHECK(!write_stripe(0, 0, K * CHUNK, seed), "write, one out");
	kill_counted_out(b);
	CHECK(!write_stripe(1, CHUNK / 2, CHUNK, seed + 1), "write, M out");
	kill_counted_out(c);
	cluster_wait_map_known(cluster_proc(le32_to_cpu(group.members[0])),
			       WAIT_MS);
	ds_fill(data, K * CHUNK, seed + 2);
	err = ds_ec_write(cluster_proc(le32_to_cpu(group.members[0])), ino,
			  0, &group, 0, data, K * CHUNK);
	CHECK(err == -EAGAIN, "a write with M + 1 out: %s, not EAGAIN",
	      strerror(-err));
	start_until_up(c, "out last");
	start_until_up(a, "out first");
	start_until_up(b, "out second");
	for (a = 0; a < WIDTH; a++)
		check_fragment(a, "after M + 1 out");
}

/*
 * More than M of the servers out, one after the other, and the file cut
 * to its first stripe meanwhile: the one counted out last is current for
 * writes (none was acknowledged without it), but it missed the cut.  It
 * must make the cut before it serves, and the first two must not rebuild
 * stripe 1 from its old fragment with the others' holes (garbage).
 * Until 2026-12-05 it was taken as it is with the cut still queued for
 * it, and served the bytes cut (found by the EC nemesis: old writes, and
 * garbage, read back past a truncation).
 */
static void cut_while_out(u32 a, u32 b, u32 c, u32 seed)
{
	int err;
	u32 f;

	/* the writes went to the data servers: the MDS's size is 0 */
	err = cluster_truncate(ino, (u64)STRIPES * K * CHUNK);
	CHECK(!err, "the file's size: %s", strerror(-err));
	kill_counted_out(a);
	kill_counted_out(b);
	kill_counted_out(c);
	err = cluster_truncate(ino, (u64)K * CHUNK);
	CHECK(!err, "the cut with M + 1 out: %s", strerror(-err));
	memset(model[1], 0, sizeof(model[1]));
	start_until_up(c, "out last, the cut missed");
	check_fragment(c, "out last while the file was cut");
	start_until_up(a, "out first");
	start_until_up(b, "out second");
	for (f = 0; f < WIDTH; f++)
		check_fragment(f, "rebuilt after a cut");
	CHECK(!write_stripe(1, 0, K * CHUNK, seed), "stripe 1 again");
}

/*
 * A stripe written more than 256 times, its stamps' count past a byte,
 * then cut off the file by its first truncation: every fragment goes (a
 * stamp is no count of the file's truncations, which a cut takes a
 * fragment to hold).
 */
static void cut_after_many_writes(u32 seed)
{
	u32 i, f;
	int err;

	for (i = 0; i < 260; i++) {
		err = write_stripe(1, i * 4096 % (K * CHUNK), 4096, seed + i);
		CHECK(!err, "write %u of stripe 1: %s", i, strerror(-err));
		if (err)
			return;
	}
	err = cluster_truncate(ino, (u64)STRIPES * K * CHUNK) ?:
	      cluster_truncate(ino, (u64)K * CHUNK);
	CHECK(!err, "the cut of stripe 1: %s", strerror(-err));
	memset(model[1], 0, sizeof(model[1]));
	for (f = 0; f < WIDTH; f++)
		check_fragment(f, "cut after 260 writes");
	CHECK(!write_stripe(1, 0, K * CHUNK, seed), "stripe 1 again");
}

/* An EC write through @leader, on a thread, for fenced_write(). */
struct held_ec_write {
	struct ds_proc *leader;
	struct aifs_ec_group g;
	u64 ino;
	int err;
	pthread_t thread;
};

/* Tried again while the restarted leader has no lease yet (ESTALE). */
static void *held_ec_write(void *arg)
{
	static u8 data[K * CHUNK];
	struct held_ec_write *w = arg;
	u64 until = aifs_now_ms() + WAIT_MS;

	ds_fill(data, K * CHUNK, 77);
	while ((w->err = ds_ec_write(w->leader, w->ino, 0, &w->g, 0, data,
				     K * CHUNK)) == -ESTALE &&
	       aifs_now_ms() < until)
		test_sleep_ms(50);
	return NULL;
}

/*
 * A rebuild's fence landing on a stripe's leader once it wrote the
 * fragments (held there by ds.write.pause): the write is refused
 * (EREMCHG), not acknowledged, for the new member decoding the stripe
 * after the fence would not have it.
 */
static void fenced_write(void)
{
	struct held_ec_write w = { .err = -1 };
	struct aifs_layout l;
	u32 f, gen, f_gen;
	char spec[64];
	int err;

	w.ino = cluster_create("g", &l);
	w.g = group;
	for (f = 0; f < WIDTH; f++)
		w.g.members[f] = l.targets[f];
	gen = le32_to_cpu(l.generation);
	f_gen = ds_ec_layout_gen;
	ds_ec_layout_gen = gen;
	w.leader = cluster_proc(le32_to_cpu(l.targets[0]));
	ds_stop(w.leader, SIGTERM);
	snprintf(spec, sizeof(spec), "ds.write.pause:value=3000:opcode=%d",
		 AIFS_OP_EC_WRITE);
	ds_start_failing(w.leader, spec);
	CHECK(!pthread_create(&w.thread, NULL, held_ec_write, &w), "thread");
	CHECK(cluster_wait(cluster_fired,
			   &(struct cluster_fail){ w.leader, "ds.write.pause" },
			   WAIT_MS),
	      "the EC write never reached the pause");
	err = cluster_sync(w.leader, w.ino, AIFS_CHUNK_SYNC_FENCE, gen + 1);
	CHECK(!err, "the fence: %s", strerror(-err));
	pthread_join(w.thread, NULL);
	CHECK(w.err == -EREMCHG,
	      "an EC write fenced once written: %s, not EREMCHG",
	      strerror(-w.err));
	ds_ec_layout_gen = f_gen;	/* file f's again */
}

int main(void)
{
	struct aifs_layout want = { 0 }, l;
	u32 f;
	int err;

	cluster_setup(WIDTH + 1, CLUSTER_GRACE_MS, "default_stripe_count = 1\n"
		      "rebuild_delay_s = 15\n");
	want.type = AIFS_LAYOUT_EC;
	want.ec_k = K;
	want.ec_m = M;
	want.chunk_size = cpu_to_le32(CHUNK);
	want.stripe_count = cpu_to_le16(1);
	err = aifs_layout_set(cluster_conn, &cluster_cred, AIFS_ROOT_INO,
			      &want, &l);
	CHECK(!err, "layout of the root: %d", err);
	ino = cluster_create("f", &l);
	CHECK(l.type == AIFS_LAYOUT_EC && le16_to_cpu(l.target_count) == WIDTH,
	      "the file's layout: type %u, %u targets", l.type,
	      le16_to_cpu(l.target_count));
	/* a data server back from being out knows it: older ones are refused */
	ds_ec_layout_gen = le32_to_cpu(l.generation);
	group.chunk_size = cpu_to_le32(CHUNK);
	group.k = K;
	group.m = M;
	for (f = 0; f < WIDTH; f++)
		group.members[f] = l.targets[f];

	CHECK(!write_stripe(0, 0, K * CHUNK, 1), "stripe 0");
	CHECK(!write_stripe(1, 0, K * CHUNK, 2), "stripe 1");
	for (f = 0; f < WIDTH; f++)
		check_fragment(f, "written");
	cut_after_many_writes(5);

	kill_write_return(2, 10);
	kill_write_return(K + 1, 20);
	back_before_the_leader_knows(3, 30);
	torn_by_a_member(K + 1, 2, 35);
	written_while_catching_up(1, 40);
	more_than_m_out(2, 3, 5, 50);
	cut_while_out(1, 4, 3, 60);
	for (f = 0; f < WIDTH; f++)
		check_fragment(f, "in the end");
	rebuild_around(1);
	for (f = 0; f < WIDTH; f++)
		check_fragment(f, "after the rebuild");
	fenced_write();
	leader_dies_mid_write(2, 47);
	leader_dies_mid_write(1, 48);
	return test_result();
}
