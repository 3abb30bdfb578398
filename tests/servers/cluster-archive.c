// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * An MDS and six data servers; a replicated file (two copies, 1 MiB
 * chunks) of ten chunks and a bit less is archived to ec=4+2, every
 * server a member of its group.  The primary of its chunks is killed as
 * the archive begins: no stripe can be written whole, so the archive
 * waits, and meanwhile the file is still replicated and readable from
 * its other copy, nobody may open it for writing or truncate it (EBUSY),
 * and a second archive of it is no new one; so again after the MDS
 * restarts.  Back, the archive goes on
 * by itself: the file's layout becomes ec=4+2 one generation up, every
 * fragment holds the file's bytes (data) or their code (parity), the
 * old chunks go while the fragments beside them stay, and a reader of
 * the old layout is told EREMCHG by an old server.  Then the file can
 * be opened for writing again.  A file open for writing cannot be
 * archived; an EC file is refused.  Last, parity spoiled behind the
 * code's back (a FRAG_WRITE of junk, its CRCs right) is found by a scrub
 * pass of the server holding it and rewritten from the data; and a byte
 * flipped in a data fragment is found by its server's scrub (a CRC) and
 * the fragment decoded again from the rest of its stripe.
 */
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "aifs/ec.h"
#include "cluster-harness.h"

#define WAIT_MS		60000
#define K		4
#define M		2
#define WIDTH		(K + M)
#define CHUNK		DS_TEST_CHUNK
#define NR_CHUNKS	10
#define SIZE		((u64)NR_CHUNKS * CHUNK - 1000)
#define STRIPES		((NR_CHUNKS + K - 1) / K)

static u8 file[STRIPES * K * CHUNK];	/* the file's bytes, zeros past it */
static u8 buf[CHUNK];
static u64 ino;

static void file_model(void)
{
	u32 i;

	for (i = 0; i < NR_CHUNKS; i++)
		ds_fill(file + (u64)i * CHUNK, CHUNK, ino * 1000 + i);
	memset(file + SIZE, 0, sizeof(file) - SIZE);
}

static void set_size(void)
{
	struct aifs_setattr sa = {
		.ino = ino,
		.valid = AIFS_SETATTR_SIZE_GROW,
		.size = SIZE,
	};
	struct aifs_attr attr;

	CHECK(!aifs_setattr(cluster_conn, &cluster_cred, &sa, &attr),
	      "size of the file");
}

static int open_for_writing(void)
{
	struct aifs_open_rep rep;
	struct aifs_attr attr;
	int err;

	err = aifs_open(cluster_conn, &cluster_cred, ino, AIFS_OPEN_RDWR,
			&rep);
	if (!err)
		aifs_release(cluster_conn, &cluster_cred, ino,
			     le64_to_cpu(rep.handle), 0, NULL, &attr);
	return err;
}

static bool archived(void *arg)
{
	struct aifs_layout *l = arg;

	return !aifs_layout_get(cluster_conn, &cluster_cred, ino, l) &&
	       l->type == AIFS_LAYOUT_EC;
}

/* While the archive waits for a server: what may and may not be done. */
static void check_waiting(const struct aifs_layout *old,
			  const struct aifs_layout *want, u32 alive)
{
	struct aifs_setattr sa = {
		.ino = ino, .valid = AIFS_SETATTR_SIZE, .size = 5,
	};
	struct aifs_layout l;
	struct aifs_attr attr;
	u32 i, n;
	int err;

	err = open_for_writing();
	CHECK(err == -EBUSY, "open for writing while archived: %d", err);
	err = aifs_setattr(cluster_conn, &cluster_cred, &sa, &attr);
	CHECK(err == -EBUSY, "truncate while archived: %d", err);
	err = aifs_layout_archive(cluster_conn, &cluster_cred, ino, want, &l);
	CHECK(!err && l.type == AIFS_LAYOUT_REPLICA &&
	      l.generation == old->generation,
	      "archive again: %d, type %u", err, l.type);
	for (i = 0; i < NR_CHUNKS; i++) {
		err = cluster_read_chunk(cluster_proc(alive), ino, i, buf,
					 NULL);
		/* the chunk holds bytes past the size: not the file's */
		n = SIZE - (u64)i * CHUNK < CHUNK ? SIZE - (u64)i * CHUNK : CHUNK;
		CHECK(!err && !memcmp(buf, file + (u64)i * CHUNK, n),
		      "chunk %u from its other copy while archived: %d", i,
		      err);
	}
}

static void check_fragments(const struct aifs_layout *l)
{
	char *frags[WIDTH];
	static u8 parity[M][CHUNK];
	struct ds_proc *p;
	u64 until;
	u32 s, f;
	int err;

	for (s = 0; s < STRIPES; s++) {
		for (f = 0; f < K; f++)
			frags[f] = (char *)file + ((u64)s * K + f) * CHUNK;
		for (f = 0; f < M; f++)
			frags[K + f] = (char *)parity[f];
		aifs_ec_encode(aifs_ec_get(K, M), frags, CHUNK);
		for (f = 0; f < WIDTH; f++) {
			/* asked again while its server serves nothing */
			p = cluster_proc(le32_to_cpu(l->targets[f]));
			until = aifs_now_ms() + WAIT_MS;
			while ((err = ds_frag_read(p, AIFS_OP_CHUNK_READ, ino,
						   s, f, NULL, 0, CHUNK,
						   buf)) == -ESTALE &&
			       aifs_now_ms() < until)
				test_sleep_ms(50);
			/* a fragment wholly past the size is a hole */
			if (err == -ENOENT && f < K &&
			    (u64)(s * K + f) * CHUNK >= SIZE)
				err = 0;
			CHECK(!err && !memcmp(buf, frags[f], CHUNK),
			      "stripe %u fragment %u: %d%s", s, f, err,
			      !err && memcmp(buf, frags[f], CHUNK) ?
			      ", differs" : "");
		}
	}
}

/* A CHUNK_READ of chunk 0 made with the old layout's generation. */
static void check_old_reader(const struct aifs_layout *old)
{
	struct aifs_chunk_read_req req = {
		.length = cpu_to_le32(4096),
		.layout_gen = old->generation,
	};
	struct aifs_reply reply;
	int err;

	ds_chunk_id(&req.id, ino, 0);
	err = ds_request(cluster_proc(le32_to_cpu(old->targets[1])),
			 AIFS_OP_CHUNK_READ, &req, sizeof(req), &reply);
	CHECK(!err && reply.status == EREMCHG,
	      "a reader of the old layout: %d, status %u", err, reply.status);
	if (!err)
		aifs_reply_free(&reply);
}

/*
 * Junk over the first 4 KiB of stripe 0's first parity fragment, written
 * as another slice of the write that gave it its stamp: CRCs and stamp
 * vouch for it, and only its disagreement with the data shows.
 */
static void spoil_parity(struct ds_proc *p)
{
	struct aifs_frag_write_req req = {
		.chunk_size = cpu_to_le32(CHUNK),
	};
	struct aifs_span part = { NULL, 4096 };
	u8 head[AIFS_FRAG_WRITE_REQ_SIZE];
	struct aifs_reply reply = { 0 };
	static u8 junk[4096];
	struct iovec iov[2] = {
		{ head, sizeof(head) }, { junk, sizeof(junk) },
	};
	u64 stamp = 0;
	int err;

	memset(junk, 0x5a, sizeof(junk));
	ds_chunk_id(&req.id, ino, 0);
	req.id.fragment = cpu_to_le16(AIFS_EC_FRAGMENT(K));
	err = ds_frag_stamp(p, ino, 0, K, &stamp);
	req.stamp = req.prev = cpu_to_le64(stamp);
	if (!err)
		err = aifs_encode_frag_write_req(head, sizeof(head), &req,
						 &part);
	if (err > 0) {
		if (!p->conn)
			ds_connect(p);
		err = aifs_call(p->conn, AIFS_OP_FRAG_WRITE, iov, 2, &reply,
				10000);
	}
	CHECK(!err && !reply.status, "junk in the parity: %d %u", err,
	      reply.status);
	aifs_reply_free(&reply);
}

/* How the scrub of @p stands. */
static void scrub_ask(struct ds_proc *p, struct aifs_ds_scrub_rep *rep)
{
	int err = ds_scrub(p, 0, rep);

	CHECK(!err, "DS_SCRUB: %d", err);
}

/* Scrub pass @pass of @p, from start to end: its tally then. */
static void scrub_pass(struct ds_proc *p, u64 pass,
		       struct aifs_ds_scrub_rep *out)
{
	u32 flags = AIFS_SCRUB_START;
	struct aifs_ds_scrub_rep rep = { 0 };
	int i, err = 0;

	for (i = 0; i < 600 && !err; i++) {
		err = ds_scrub(p, flags, &rep);
		if (!err && le64_to_cpu(rep.passes) >= pass &&
		    !le32_to_cpu(rep.running))
			break;
		flags = 0;
		test_sleep_ms(50);
	}
	CHECK(!err && le64_to_cpu(rep.passes) == pass, "scrub pass: %d", err);
	*out = rep;
}

static void check_parity_scrub(const struct aifs_layout *l)
{
	struct ds_proc *p = cluster_proc(le32_to_cpu(l->targets[K]));
	struct aifs_ds_scrub_rep rep;

	spoil_parity(p);
	scrub_pass(p, 1, &rep);
	CHECK(le64_to_cpu(rep.stripes) == STRIPES &&
	      le64_to_cpu(rep.stripes_bad) == 1,
	      "scrub of the parity: %llu stripes, %llu bad",
	      (unsigned long long)le64_to_cpu(rep.stripes),
	      (unsigned long long)le64_to_cpu(rep.stripes_bad));
	check_fragments(l);
}

/* A byte of stripe 0's data fragment 1 flipped on its server's disk. */
static void flip_fragment_byte(struct ds_proc *p)
{
	char pattern[512];
	glob_t g;
	u8 byte;
	int fd = -1;

	snprintf(pattern, sizeof(pattern),
		 "%s/data/chunks/*/*/%016llx.%08x.%02x", p->srv.dir,
		 (unsigned long long)ino, 0, AIFS_EC_FRAGMENT(1));
	if (!glob(pattern, 0, NULL, &g) && g.gl_pathc == 1)
		fd = open(g.gl_pathv[0], O_RDWR);
	CHECK(fd >= 0 && pread(fd, &byte, 1, 70000) == 1, "fragment file");
	byte ^= 0x10;
	CHECK(pwrite(fd, &byte, 1, 70000) == 1, "flip");
	close(fd);
	globfree(&g);
}

static void check_fragment_repair(const struct aifs_layout *l)
{
	struct ds_proc *p = cluster_proc(le32_to_cpu(l->targets[1]));
	struct aifs_ds_scrub_rep rep;
	u64 before, failed;
	int i;

	/*
	 * the counts so far: the server was a replicated copy of the file,
	 * and its resyncs of that time may still be counted
	 */
	scrub_ask(p, &rep);
	before = le64_to_cpu(rep.resynced);
	failed = le64_to_cpu(rep.resync_failed);
	flip_fragment_byte(p);
	scrub_pass(p, 1, &rep);
	CHECK(le64_to_cpu(rep.bad) == 1, "damaged fragments found: %llu",
	      (unsigned long long)le64_to_cpu(rep.bad));
	for (i = 0; i < 200 && le64_to_cpu(rep.resynced) == before; i++) {
		test_sleep_ms(50);
		scrub_ask(p, &rep);
	}
	CHECK(le64_to_cpu(rep.resynced) > before &&
	      le64_to_cpu(rep.resync_failed) == failed,
	      "fragment repaired: %llu resyncs (%llu before), %llu failed (%llu before)",
	      (unsigned long long)le64_to_cpu(rep.resynced),
	      (unsigned long long)before,
	      (unsigned long long)le64_to_cpu(rep.resync_failed),
	      (unsigned long long)failed);
	check_fragments(l);
}

/* A file open for writing, and an EC file: no archive of either. */
static void check_refusals(const struct aifs_layout *want)
{
	struct aifs_open_rep rep;
	struct aifs_layout l;
	struct aifs_attr attr;
	int err;

	err = aifs_layout_archive(cluster_conn, &cluster_cred, ino, want, &l);
	CHECK(err == -EINVAL, "archive of an EC file: %d", err);
	ino = cluster_create("open", &l);
	CHECK(!cluster_write_chunks(&l, ino, 1), "write the other file");
	set_size();
	CHECK(!aifs_open(cluster_conn, &cluster_cred, ino, AIFS_OPEN_WRONLY,
			 &rep), "open for writing");
	err = aifs_layout_archive(cluster_conn, &cluster_cred, ino, want, &l);
	CHECK(err == -EBUSY, "archive of a file open for writing: %d", err);
	aifs_release(cluster_conn, &cluster_cred, ino, le64_to_cpu(rep.handle),
		     0, NULL, &attr);
	err = aifs_layout_archive(cluster_conn, &cluster_cred, ino, want, &l);
	CHECK(!err && l.type == AIFS_LAYOUT_REPLICA,
	      "archive once closed: %d", err);
	CHECK(cluster_wait(archived, &l, WAIT_MS), "second archive never done");
}

int main(void)
{
	struct aifs_layout l, old, want = { 0 };
	struct cluster_state dead;
	struct ds_proc *primary;
	struct chunk_at gone;
	u32 i, f;
	int err;

	cluster_setup(WIDTH, CLUSTER_GRACE_MS, "default_stripe_count = 1\n"
		      "default_replicas = 2\n");
	ino = cluster_create("f", &old);
	CHECK(old.type == AIFS_LAYOUT_REPLICA &&
	      le16_to_cpu(old.target_count) == 2, "a replicated file");
	CHECK(!cluster_write_chunks(&old, ino, NR_CHUNKS), "write the chunks");
	set_size();
	file_model();

	want.type = AIFS_LAYOUT_EC;
	want.ec_k = K;
	want.ec_m = M;
	want.chunk_size = cpu_to_le32(CHUNK);
	want.stripe_count = cpu_to_le16(1);
	/* both copies whole before one goes: a resync may be due yet */
	for (i = 0; i < NR_CHUNKS; i++)
		CHECK(!cluster_read_chunk(cluster_proc(le32_to_cpu(old.targets[1])),
					  ino, i, buf, NULL),
		      "chunk %u from its second copy", i);
	primary = cluster_proc(le32_to_cpu(old.targets[0]));
	ds_stop(primary, SIGKILL);
	err = aifs_layout_archive(cluster_conn, &cluster_cred, ino, &want, &l);
	CHECK(!err && l.type == AIFS_LAYOUT_REPLICA,
	      "archive begun: %d, layout type %u", err, l.type);
	/* still waiting once the MDS knows the member dead */
	dead = (struct cluster_state){ primary, AIFS_DS_OFFLINE };
	CHECK(cluster_wait(cluster_in_state, &dead, WAIT_MS),
	      "the killed primary is not counted out");
	CHECK(!archived(&l), "archived with a member dead");
	check_waiting(&old, &want, le32_to_cpu(old.targets[1]));
	/* the record outlives the MDS: the archive goes on after it */
	cluster_mds_restart();
	check_waiting(&old, &want, le32_to_cpu(old.targets[1]));
	ds_start(primary);
	CHECK(cluster_wait(archived, &l, WAIT_MS), "archive never done");
	CHECK(le16_to_cpu(l.target_count) == WIDTH && l.ec_k == K &&
	      l.ec_m == M && le32_to_cpu(l.chunk_size) == CHUNK &&
	      le32_to_cpu(l.generation) == le32_to_cpu(old.generation) + 1,
	      "the archived layout: %u targets, %u+%u, generation %u",
	      le16_to_cpu(l.target_count), l.ec_k, l.ec_m,
	      le32_to_cpu(l.generation));
	check_fragments(&l);
	for (i = 0; i < 2; i++) {
		for (f = 0; f < NR_CHUNKS; f++) {
			gone = (struct chunk_at){
				cluster_proc(le32_to_cpu(old.targets[i])), ino, f
			};
			CHECK(cluster_wait(cluster_chunk_gone, &gone, WAIT_MS),
			      "old chunk %u on data server %u", f,
			      le32_to_cpu(old.targets[i]));
		}
	}
	check_fragments(&l);
	check_parity_scrub(&l);
	check_fragment_repair(&l);
	check_old_reader(&old);
	err = open_for_writing();
	CHECK(!err, "open for writing once archived: %d", err);
	check_refusals(&want);
	return test_result();
}
