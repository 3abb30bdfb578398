// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A data server that stays away past the rebuild delay has its copies
 * made again elsewhere: a real aifs-mds (rebuild_delay_s = 1) and four
 * aifs-ds, replicas = 2.  The primary of a file is killed; the MDS gives
 * the file's group a new member, the third server, last in the group,
 * under the next layout generation.  The new member serves nothing of
 * the file while it catches up (CHUNK_SYNCs slowed by a fault injection
 * point, so that it can be seen), then holds the survivor's bytes and
 * versions.  The survivor refuses a write made with the old layout
 * (EREMCHG) and takes one made with the new, which reaches the new
 * member.  The lost server is RETIRED, and back, it serves nothing and
 * the MDS has its chunks deleted.
 * Then the MDS dies right after it committed another file's rebuilt
 * layout: the new member finishes on its own.
 */
#include <signal.h>
#include <stdlib.h>

#include "cluster-harness.h"

#define WAIT_MS		(CLUSTER_GRACE_MS + 30000)
#define NR_CHUNKS	3

static char want[DS_TEST_CHUNK], got[DS_TEST_CHUNK];

struct relayout {
	u64 ino;
	struct aifs_layout layout;
};

/* Has the file's layout moved to its next generation?  A wait cond. */
static bool relaid(void *arg)
{
	struct relayout *r = arg;
	struct aifs_layout l;

	if (aifs_layout_get(cluster_conn, &cluster_cred, r->ino, &l) ||
	    le32_to_cpu(l.generation) == le32_to_cpu(r->layout.generation))
		return false;
	r->layout = l;
	return true;
}

/* Has the server of @arg heard from the MDS that it is RETIRED? */
static bool told_retired(void *arg)
{
	const struct ds_proc *p = arg;

	return test_server_logged(&p->srv,
				  "the MDS holds this server RETIRED:");
}

/* Chunk @index on @p into @got, once it serves it: its version. */
static u64 served(struct ds_proc *p, u64 ino, u32 index)
{
	u64 version = 0;
	int err;

	err = cluster_read_chunk(p, ino, index, got, &version);
	CHECK(!err, "chunk %u on ds %d: %d", index, p->id, err);
	return version;
}

/* A ds_read() that does not answer ESTALE?  A cluster_wait() cond. */
static bool serves(void *arg)
{
	struct chunk_at *c = arg;
	u32 len;

	return ds_read(c->p, c->ino, c->index, 0, DS_TEST_CHUNK, 0, got, &len,
		       NULL) != -ESTALE;
}

/* @added holds what @kept does of @r's chunks, bytes and versions. */
static void same_copies(const struct relayout *r, struct ds_proc *kept,
			struct ds_proc *added)
{
	u32 i;

	for (i = 0; i < NR_CHUNKS; i++) {
		CHECK(served(added, r->ino, i) == served(kept, r->ino, i),
		      "chunk %u: versions differ", i);
		ds_fill(want, sizeof(want), r->ino * 1000 + i);
		CHECK(!memcmp(got, want, sizeof(want)),
		      "chunk %u: bytes differ", i);
	}
}

/* A new file of NR_CHUNKS chunks; its primary in *@lost, replica *@kept. */
static void new_file(const char *name, struct relayout *r,
		     struct ds_proc **lost, struct ds_proc **kept)
{
	r->ino = cluster_create(name, &r->layout);
	CHECK(!cluster_write_chunks(&r->layout, r->ino, NR_CHUNKS), "writes");
	*lost = cluster_proc(le32_to_cpu(r->layout.targets[0]));
	*kept = cluster_proc(le32_to_cpu(r->layout.targets[1]));
}

/* The rebuild as the MDS runs it, and the lost server back after it. */
static void rebuilt(void)
{
	struct relayout r = { 0 };
	struct aifs_entry_rep entry;
	struct cluster_state s;
	struct ds_proc *lost, *kept, *added;
	struct chunk_at gone;
	u32 added_id, len = 0;
	int err;

	new_file("f", &r, &lost, &kept);
	ds_stop(lost, SIGKILL);
	CHECK(cluster_wait(relaid, &r, WAIT_MS), "the layout did not move");
	CHECK(le32_to_cpu(r.layout.targets[0]) == (u32)kept->id,
	      "the survivor is not the primary: %u",
	      le32_to_cpu(r.layout.targets[0]));
	added_id = le32_to_cpu(r.layout.targets[1]);
	added = cluster_proc(added_id);
	CHECK(added && added != lost && added != kept,
	      "new member %u", added_id);
	if (!added)
		return;
	err = ds_read(added, r.ino, 0, 0, DS_TEST_CHUNK, 0, got, &len, NULL);
	CHECK(err == -ESTALE, "a new member catching up served: %d", err);
	same_copies(&r, kept, added);

	ds_fill(want, sizeof(want), 77);
	err = ds_write_gen(kept, r.ino, 1, want, sizeof(want),
			   &(u32){ lost->id }, 1, 1);
	CHECK(err == -EREMCHG, "a write with the old layout: %d", err);
	err = ds_write_gen(kept, r.ino, 1, want, sizeof(want), &added_id, 1,
			   le32_to_cpu(r.layout.generation));
	CHECK(!err, "a write with the new layout: %d", err);
	served(added, r.ino, 1);
	CHECK(!memcmp(got, want, sizeof(want)), "the new member missed it");

	s = (struct cluster_state){ lost, AIFS_DS_RETIRED };
	CHECK(cluster_wait(cluster_in_state, &s, WAIT_MS), "not retired");
	ds_start(lost);
	CHECK(cluster_wait(told_retired, lost, WAIT_MS),
	      "the lost server back never heard it is RETIRED");
	CHECK(cluster_in_state(&s), "the lost server is back in service");
	err = ds_read(lost, r.ino, 0, 0, DS_TEST_CHUNK, 0, got, &len, NULL);
	CHECK(err == -ESTALE, "a retired server served: %d", err);
	gone = (struct chunk_at){ lost, r.ino, 0 };
	CHECK(cluster_wait(cluster_chunk_gone, &gone, WAIT_MS),
	      "the retired server keeps its chunks");
	/* the next rebuild is of the next file alone */
	CHECK(!aifs_unlink(cluster_conn, &cluster_cred, AIFS_ROOT_INO, "f",
			   &entry), "unlink");
}

/*
 * The MDS dies once it committed a rebuilt layout (mds.rebuild.crash),
 * before it fenced the group or had the new member copy.  Restarted, it
 * has nothing left to do for the file; the new member, its mark older
 * than 30 s, asks it for the layout, fences the survivor and catches up
 * on its own.
 */
static void finished_alone(void)
{
	struct relayout r = { 0 };
	struct ds_proc *lost, *kept, *added;
	struct chunk_at c;
	int err;

	new_file("g", &r, &lost, &kept);
	setenv("AIFS_FAIL", "mds.rebuild.crash", 1);
	cluster_mds_restart();
	unsetenv("AIFS_FAIL");
	ds_stop(lost, SIGKILL);
	CHECK(cluster_mds_revive(WAIT_MS),
	      "the MDS did not die at mds.rebuild.crash");
	CHECK(relaid(&r), "the layout was not committed before the crash");
	added = cluster_proc(le32_to_cpu(r.layout.targets[1]));
	CHECK(added && added != lost && added != kept, "new member %u",
	      le32_to_cpu(r.layout.targets[1]));
	if (!added)
		return;
	c = (struct chunk_at){ added, r.ino, 0 };
	CHECK(cluster_wait(serves, &c, 90000),
	      "the new member did not catch up on its own");
	same_copies(&r, kept, added);
	ds_fill(want, sizeof(want), 78);
	err = ds_write_gen(kept, r.ino, 1, want, sizeof(want),
			   &(u32){ lost->id }, 1, 1);
	CHECK(err == -EREMCHG, "the survivor was not fenced: %d", err);
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	/* a few CHUNK_SYNCs slow, so that catching up can be seen */
	setenv("AIFS_FAIL", "request.delay:opcode=73:value=1500:times=4", 1);
	cluster_setup(4, CLUSTER_GRACE_MS,
		      "default_replicas = 2\nrebuild_delay_s = 1\n");
	unsetenv("AIFS_FAIL");
	rebuilt();
	finished_alone();
	return test_result();
}
