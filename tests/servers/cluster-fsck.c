// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * aifs fsck against a real aifs-mds and three aifs-ds (replicas = 2):
 * each kind of problem is planted, in the MDS's tables (edited with LMDB
 * while the MDS is stopped) and in the data servers' stores, next to a
 * file that is whole; `aifs fsck` finds every one (exit 4) and touches
 * nothing, `aifs fsck --repair` repairs them all (exit 1), a third pass
 * is clean (exit 0), aifs-mds --check agrees, and what the repairs did
 * is there: the whole file's bytes, the lost copy back, the orphans'
 * chunks gone, the nameless file in /lost+found; an EC file's stripe
 * past its size, cut.
 */
#include <endian.h>
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster-harness.h"
#include "../../servers/mds/mds.h"

#define WAIT_MS		20000
#define STRAY_INO	(1ULL << 40)

static char fsck_out[65536];

/* `aifs fsck` with @args: its exit code, its output in fsck_out. */
static int run_fsck(const char *args)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "fsck 127.0.0.1:%s %s",
		 cluster_mds.srv.port, args);
	return cluster_cli(cmd, fsck_out, sizeof(fsck_out));
}

static u64 file_with_chunks(const char *name, struct aifs_layout *l, u32 nr,
			    u64 size)
{
	struct aifs_setattr sa = { .valid = AIFS_SETATTR_SIZE };
	struct aifs_attr attr;
	u64 ino;

	ino = cluster_create(name, l);
	CHECK(!cluster_write_chunks(l, ino, nr), "%s: writes", name);
	sa.ino = ino;
	sa.size = size;
	CHECK(!aifs_setattr(cluster_conn, &cluster_cred, &sa, &attr),
	      "%s: size", name);
	return ino;
}

/* An EC file's group (ec=2+1 over the three servers). */
static struct aifs_ec_group ec_group;

/* "ec": ec=2+1, stripe 0 written, its size one stripe (K chunks). */
static u64 ec_file(void)
{
	static u8 data[2 * DS_TEST_CHUNK];
	struct aifs_layout want = { .type = AIFS_LAYOUT_EC, .ec_k = 2,
				    .ec_m = 1 }, l;
	u64 ino = cluster_create("ec", &l);
	u32 f;

	want.chunk_size = cpu_to_le32(DS_TEST_CHUNK);
	want.stripe_count = cpu_to_le16(1);
	CHECK(!aifs_layout_set(cluster_conn, &cluster_cred, ino, &want, &l),
	      "ec: the layout");
	ec_group.chunk_size = l.chunk_size;
	ec_group.k = 2;
	ec_group.m = 1;
	for (f = 0; f < 3; f++)
		ec_group.members[f] = l.targets[f];
	ds_fill(data, sizeof(data), 7);
	CHECK(!ds_ec_write(cluster_proc(le32_to_cpu(l.targets[0])), ino, 0,
			   &ec_group, 0, data, sizeof(data)), "ec: stripe 0");
	CHECK(!cluster_truncate(ino, sizeof(data)), "ec: size");
	return ino;
}

/* Whether each member holds its fragment of stripe @stripe of @ino. */
static bool ec_stripe_held(u64 ino, u32 stripe, bool held)
{
	static u8 buf[DS_TEST_CHUNK];
	struct ds_proc *p;
	bool all = true;
	int err;
	u32 f;

	for (f = 0; f < 3; f++) {
		p = cluster_proc(le32_to_cpu(ec_group.members[f]));
		err = ds_frag_read(p, AIFS_OP_CHUNK_READ, ino, stripe, f, NULL,
				   0, sizeof(buf), buf);
		all &= held ? !err : err == -ENOENT;
	}
	return all;
}

/* What is planted in the tables while the MDS is down. */
struct plant {
	u64 gone;		/* its inode record goes: its name dangles */
	u64 nameless;		/* its name goes */
	u64 links;		/* its nlink goes wrong */
	u64 lost_seq;		/* the sequence entry of "nameless" */
};

static void db_check(int rc, const char *what)
{
	if (rc) {
		printf("FAIL lmdb: %s: %s\n", what, mdb_strerror(rc));
		test_failures++;
		exit(1);
	}
}

static MDB_val dentry_key(u8 *buf, const char *name)
{
	u64 be = htobe64(AIFS_ROOT_INO);

	memcpy(buf, &be, 8);
	memcpy(buf + 8, name, strlen(name));
	return (MDB_val){ 8 + strlen(name), buf };
}

static void plant_tables(void *arg)
{
	struct plant *pl = arg;
	MDB_dbi inodes, dentries, dirseq;
	struct mds_dentry d;
	struct mds_inode inode;
	char path[PATH_MAX];
	u8 kbuf[300], sbuf[16];
	MDB_val k, v;
	MDB_env *env;
	MDB_txn *txn;
	u64 be[2];

	snprintf(path, sizeof(path), "%s/db", cluster_mds.srv.dir);
	db_check(mdb_env_create(&env), "env");
	db_check(mdb_env_set_maxdbs(env, MDS_NR_DBS), "maxdbs");
	db_check(mdb_env_set_mapsize(env, 1ULL << 30), "mapsize");
	db_check(mdb_env_open(env, path, 0, 0600), path);
	db_check(mdb_txn_begin(env, NULL, 0, &txn), "txn");
	db_check(mdb_dbi_open(txn, "inodes", MDB_INTEGERKEY, &inodes), "inodes");
	db_check(mdb_dbi_open(txn, "dentries", 0, &dentries), "dentries");
	db_check(mdb_dbi_open(txn, "dirseq", 0, &dirseq), "dirseq");

	k = (MDB_val){ sizeof(pl->gone), &pl->gone };
	db_check(mdb_del(txn, inodes, &k, NULL), "del inode");

	k = dentry_key(kbuf, "nameless");
	db_check(mdb_get(txn, dentries, &k, &v), "get nameless");
	memcpy(&d, v.mv_data, sizeof(d));
	db_check(mdb_del(txn, dentries, &k, NULL), "del nameless");
	be[0] = htobe64(AIFS_ROOT_INO);
	be[1] = htobe64(d.seq);
	memcpy(sbuf, be, sizeof(be));
	k = (MDB_val){ sizeof(sbuf), sbuf };
	db_check(mdb_del(txn, dirseq, &k, NULL), "del nameless seq");

	k = (MDB_val){ sizeof(pl->links), &pl->links };
	db_check(mdb_get(txn, inodes, &k, &v), "get links");
	memcpy(&inode, v.mv_data, sizeof(inode));
	inode.nlink = 5;
	v = (MDB_val){ sizeof(inode), &inode };
	db_check(mdb_put(txn, inodes, &k, &v, 0), "put links");

	db_check(mdb_txn_commit(txn), "commit");
	mdb_env_close(env);
}

static void found(const char *what)
{
	CHECK(strstr(fsck_out, what), "fsck does not say \"%s\"", what);
}

/* Chunk @index of @ino on the server of layout target @t. */
static struct chunk_at chunk_on(const struct aifs_layout *l, unsigned int t,
				u64 ino, u32 index)
{
	return (struct chunk_at){ cluster_proc(le32_to_cpu(l->targets[t])),
				  ino, index };
}

int main(void)
{
	struct aifs_layout whole_l, gone_l, past_l, l;
	int up = 3;
	struct plant pl = { 0 };
	struct aifs_entry_rep entry;
	struct chunk_at lost, stray, past, gone;
	char path[PATH_MAX], name[48];
	static char a[DS_TEST_CHUNK], want[DS_TEST_CHUNK];
	u64 whole, past_ino, ec, version;
	u32 i, t;

	setvbuf(stdout, NULL, _IONBF, 0);
	cluster_setup(3, 2000, "default_replicas = 2\ndefault_stripe_count = 1\n");
	CHECK(run_fsck("") == 0, "a new file system is not clean");

	whole = file_with_chunks("whole", &whole_l, 3, 3 * DS_TEST_CHUNK);
	pl.gone = file_with_chunks("gone", &gone_l, 2, 2 * DS_TEST_CHUNK);
	pl.nameless = file_with_chunks("nameless", &l, 1, DS_TEST_CHUNK);
	pl.links = file_with_chunks("links", &l, 1, DS_TEST_CHUNK);
	past_ino = file_with_chunks("past", &past_l, 2, 2 * DS_TEST_CHUNK);
	ec = ec_file();
	CHECK(run_fsck("") == 0, "clean before the damage");

	/* 3 chunks written, 2 in the size: the third is past it */
	CHECK(!cluster_write_chunks(&past_l, past_ino, 3), "past: writes");
	past = chunk_on(&past_l, 0, past_ino, 2);
	/* an EC stripe past the size (until 2026-12-05 EC files went unchecked) */
	ds_fill(a, sizeof(a), 8);
	CHECK(!ds_ec_write(cluster_proc(le32_to_cpu(ec_group.members[0])), ec,
			   1, &ec_group, 0, a, sizeof(a)), "ec: stripe 1");

	/* the stores: a copy lost, chunks of no inode */
	lost = chunk_on(&whole_l, 1, whole, 1);
	CHECK(!ds_chunk_file(lost.p, whole, 1, path, sizeof(path)),
	      "chunk 1 of whole on its second copy");
	CHECK(!unlink(path), "unlink %s", path);
	strcat(path, ".meta");
	CHECK(!unlink(path), "unlink %s", path);
	/*
	 * with the server's record of what it holds (held.c): else the server
	 * finds the loss itself, from the listing fsck asks for, and pulls
	 * the copy back before fsck could
	 */
	snprintf(strrchr(path, '/') + 1, 32, "%016llx.held",
		 (unsigned long long)whole);
	CHECK(!unlink(path), "unlink %s", path);
	stray = (struct chunk_at){ cluster_proc(1), STRAY_INO, 0 };
	CHECK(!ds_write(stray.p, STRAY_INO, 0, 0, a, DS_TEST_CHUNK, NULL, 0,
			NULL), "stray chunk");
	/* the tables */
	cluster_mds_edit(plant_tables, &pl);
	CHECK(cluster_wait(cluster_up_count, &up, WAIT_MS),
	      "the data servers are not UP again");

	CHECK(run_fsck("") == 4, "fsck without --repair: not 4");
	found("dangling: entry 1/gone");
	found("nameless: inode");
	found("links: inode");
	found("orphan-chunks: inode 1099511627776 on data server");
	found("orphan-chunks: inode");
	found("missing-copy: inode");
	found("past-size: inode");
	snprintf(name, sizeof(name), "past-size: inode %llu:",
		 (unsigned long long)ec);
	found(name);
	CHECK(!cluster_chunk_gone(&stray), "fsck without --repair deleted");
	CHECK(cluster_chunk_gone(&lost), "fsck without --repair copied");

	CHECK(run_fsck("--repair") == 1, "fsck --repair: not 1");
	CHECK(run_fsck("") == 0, "not clean after --repair");
	CHECK(mds_harness_run(&cluster_mds, "--check") == 0, "--check");

	CHECK(!cluster_chunk_gone(&lost), "the lost copy is not back");
	CHECK(cluster_chunk_gone(&stray), "the stray chunk stays");
	for (i = 0; i < 2; i++) {
		gone = chunk_on(&gone_l, i, pl.gone, 0);
		CHECK(cluster_chunk_gone(&gone), "chunks of the gone inode stay");
	}
	CHECK(cluster_wait(cluster_chunk_gone, &past, WAIT_MS),
	      "the chunk past the size stays");
	CHECK(ec_stripe_held(ec, 1, false), "the EC stripe past the size stays");
	CHECK(ec_stripe_held(ec, 0, true), "the EC stripe in the size went");
	/* both copies hold what was written (a repair copies a copy) */
	for (i = 0; i < 3; i++) {
		ds_fill(want, sizeof(want), whole * 1000 + i);
		for (t = 0; t < 2; t++)
			CHECK(!cluster_read_chunk(chunk_on(&whole_l, t, whole,
							   i).p,
						  whole, i, a, &version) &&
			      !memcmp(a, want, sizeof(a)),
			      "chunk %u of whole on copy %u is not what was written",
			      i, t);
	}
	snprintf(name, sizeof(name), "#%llu", (unsigned long long)pl.nameless);
	CHECK(!aifs_lookup(cluster_conn, &cluster_cred, AIFS_ROOT_INO,
			   "lost+found", &entry), "no /lost+found");
	CHECK(!aifs_lookup(cluster_conn, &cluster_cred,
			   le64_to_cpu(entry.attr.ino), name, &entry),
	      "no /lost+found/%s", name);
	CHECK(le32_to_cpu(entry.attr.nlink) == 1, "nlink %u in lost+found",
	      le32_to_cpu(entry.attr.nlink));
	return test_result();
}
