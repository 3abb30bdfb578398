// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The MDS drains its chunk queue: a real aifs-mds and three aifs-ds.
 * Chunks written to a file's targets (the primary forwarding to the
 * replica) go from EVERY copy when the file is unlinked; a truncate
 * removes the chunks past the new size and cuts the one it ends in; a
 * data server restarted between two unlinks is called on a new
 * connection, not on the dead one first; a data server that was down
 * during the unlink, with the MDS restarted meanwhile (the job is
 * persisted), loses the chunks once it is back; a truncation asked again
 * after the MDS died before answering it (its cut committed, not made)
 * is answered only once the cut is made (G11).
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cluster-harness.h"

#define WAIT_MS		20000

static u32 chunk_len(struct chunk_at *c)
{
	static char buf[DS_TEST_CHUNK];
	u32 len = 0;

	if (ds_read(c->p, c->ino, c->index, 0, DS_TEST_CHUNK, 0, buf, &len,
		    NULL))
		return 0;
	return len;
}

static bool chunk_cut(void *arg)
{
	return chunk_len(arg) == DS_TEST_CHUNK / 2;
}

/* Both copies of chunks [from, to) of @ino gone within WAIT_MS. */
static void check_gone(const struct aifs_layout *l, u64 ino, u32 from,
		       u32 to)
{
	struct chunk_at c = { .ino = ino };
	u32 t;

	for (t = 0; t < le16_to_cpu(l->target_count); t++) {
		c.p = cluster_proc(le32_to_cpu(l->targets[t]));
		for (c.index = from; c.index < to; c.index++)
			CHECK(cluster_wait(cluster_chunk_gone, &c, WAIT_MS),
			      "chunk %u of ino %llu still on ds %s", c.index,
			      (unsigned long long)ino, c.p->srv.port);
	}
}

static void check_there(const struct aifs_layout *l, u64 ino, u32 nr)
{
	struct chunk_at c = { .ino = ino };
	u32 t;

	for (t = 0; t < le16_to_cpu(l->target_count); t++) {
		c.p = cluster_proc(le32_to_cpu(l->targets[t]));
		for (c.index = 0; c.index < nr; c.index++)
			CHECK(!cluster_chunk_gone(&c),
			      "chunk %u of ino %llu missing", c.index,
			      (unsigned long long)ino);
	}
}

static u64 file_with_chunks(const char *name, struct aifs_layout *l, u32 nr)
{
	struct aifs_setattr sa = { .valid = AIFS_SETATTR_SIZE };
	struct aifs_attr attr;
	u64 ino;

	ino = cluster_create(name, l);
	CHECK(le16_to_cpu(l->target_count) == 2, "%s: %u targets", name,
	      le16_to_cpu(l->target_count));
	CHECK(!cluster_write_chunks(l, ino, nr), "%s: writes", name);
	sa.ino = ino;
	sa.size = (u64)nr * DS_TEST_CHUNK;
	CHECK(!aifs_setattr(cluster_conn, &cluster_cred, &sa, &attr),
	      "%s: size", name);
	check_there(l, ino, nr);
	return ino;
}

static void test_unlink(void)
{
	struct aifs_entry_rep entry;
	struct aifs_layout l;
	u64 ino;

	ino = file_with_chunks("unlinked", &l, 3);
	CHECK(!aifs_unlink(cluster_conn, &cluster_cred, AIFS_ROOT_INO,
			   "unlinked", &entry), "unlink");
	check_gone(&l, ino, 0, 3);
}

static void test_truncate(void)
{
	struct aifs_setattr sa = { .valid = AIFS_SETATTR_SIZE };
	struct chunk_at c;
	struct aifs_attr attr;
	struct aifs_layout l;
	u32 t;

	sa.ino = file_with_chunks("truncated", &l, 3);
	sa.size = DS_TEST_CHUNK + DS_TEST_CHUNK / 2;
	CHECK(!aifs_setattr(cluster_conn, &cluster_cred, &sa, &attr),
	      "truncate");
	check_gone(&l, sa.ino, 2, 3);
	c.ino = sa.ino;
	for (t = 0; t < 2; t++) {
		c.p = cluster_proc(le32_to_cpu(l.targets[t]));
		c.index = 1;
		CHECK(cluster_wait(chunk_cut, &c, WAIT_MS),
		      "chunk 1 on ds %s: %u bytes", c.p->srv.port,
		      chunk_len(&c));
		c.index = 0;
		CHECK(chunk_len(&c) == DS_TEST_CHUNK, "chunk 0 on ds %s: %u",
		      c.p->srv.port, chunk_len(&c));
	}
}

/* Is data server @id a target of @l? */
static bool targets_of(const struct aifs_layout *l, u32 id)
{
	u32 t;

	for (t = 0; t < le16_to_cpu(l->target_count); t++)
		if (le32_to_cpu(l->targets[t]) == id)
			return true;
	return false;
}

/* A server's map entry, UP under an epoch newer than @epoch. */
struct registered_again {
	struct ds_proc *p;
	u64 epoch;
};

/* Has @arg's server registered again?  A cluster_wait() cond. */
static bool ds_registered_again(void *arg)
{
	struct registered_again *r = arg;
	struct aifs_ds_info info;

	return cluster_ds_info(r->p, &info) &&
	       le32_to_cpu(info.state) == AIFS_DS_UP &&
	       le64_to_cpu(info.epoch) > r->epoch;
}

/*
 * A server restarted at its address between two unlinks: the drainer's
 * connection to it from the first is dead, and the second's jobs go on a
 * new one at once, not after a failed call and its wait.
 */
static void test_ds_restarted(void)
{
	struct aifs_layout la, lb;
	struct aifs_entry_rep entry;
	struct registered_again again;
	struct aifs_ds_info info;
	struct ds_proc *p;
	u64 before, ino;

	before = file_with_chunks("before", &la, 1);
	ino = file_with_chunks("after", &lb, 1);
	CHECK(!aifs_unlink(cluster_conn, &cluster_cred, AIFS_ROOT_INO,
			   "before", &entry), "unlink before");
	check_gone(&la, before, 0, 1);
	/* two targets of three servers each: the files share one */
	p = cluster_proc(le32_to_cpu(la.targets[0]));
	if (!targets_of(&lb, p->id))
		p = cluster_proc(le32_to_cpu(la.targets[1]));
	CHECK(cluster_ds_info(p, &info), "ds %s not in the map", p->srv.port);
	ds_stop(p, SIGTERM);
	ds_start(p);
	/* still UP in the map until it registers: wait for that */
	again = (struct registered_again){ p, le64_to_cpu(info.epoch) };
	CHECK(cluster_wait(ds_registered_again, &again, WAIT_MS),
	      "the restarted server did not register again");
	CHECK(!aifs_unlink(cluster_conn, &cluster_cred, AIFS_ROOT_INO, "after",
			   &entry), "unlink after");
	check_gone(&lb, ino, 0, 1);
	CHECK(!test_server_logged(&cluster_mds.srv, "its chunk jobs wait"),
	      "the drainer called the restarted server on its old connection");
}

/* A replica down during the unlink and the MDS restarted: still done. */
static void test_ds_down(void)
{
	struct chunk_at primary, replica;
	struct aifs_entry_rep entry;
	struct aifs_layout l;
	u64 ino;

	ino = file_with_chunks("down", &l, 2);
	primary = (struct chunk_at){ cluster_proc(le32_to_cpu(l.targets[0])),
				     ino, 1 };
	replica = (struct chunk_at){ cluster_proc(le32_to_cpu(l.targets[1])),
				     ino, 1 };
	ds_stop(replica.p, SIGKILL);
	CHECK(!aifs_unlink(cluster_conn, &cluster_cred, AIFS_ROOT_INO, "down",
			   &entry), "unlink");
	CHECK(cluster_wait(cluster_chunk_gone, &primary, WAIT_MS),
	      "the live copy stays");
	CHECK(!cluster_chunk_gone(&replica), "the dead server's copy went?");
	cluster_mds_restart();
	ds_start(replica.p);
	CHECK(cluster_wait(cluster_chunk_gone, &replica, WAIT_MS),
	      "the returning server's copy stays");
	replica.index = 0;
	CHECK(cluster_chunk_gone(&replica),
	      "chunk 0 stays on the returning server");
}

/* SETATTR @sa as a try of request *@id of client @uuid: 0 or -errno. */
static int setattr_try(const u8 *uuid, const struct aifs_setattr *sa,
		       u64 *id, int timeout_ms)
{
	struct aifs_setattr_req req = {
		.cred = cluster_cred, .ino = cpu_to_le64(sa->ino),
		.valid = cpu_to_le32(sa->valid), .size = cpu_to_le64(sa->size),
	};
	u8 msg[AIFS_SETATTR_REQ_SIZE];
	struct aifs_reply reply;
	struct aifs_conn *conn;
	struct iovec iov;
	int n, err;

	n = aifs_encode_setattr_req(msg, sizeof(msg), &req, NULL);
	if (n < 0)
		return n;
	iov = (struct iovec){ msg, n };
	err = mds_harness_connect_as(&cluster_mds, uuid, &conn);
	if (err)
		return err;
	err = aifs_call_id(conn, AIFS_OP_SETATTR, id, &iov, 1, &reply,
			   timeout_ms);
	if (!err && reply.status)
		err = -(int)reply.status;
	aifs_reply_free(&reply);
	aifs_close(conn);
	return err;
}

/*
 * The data servers make their first two CHUNK_DELETEs 4 s late
 * (request.delay: the cut, and the restarted MDS's try of it) and the MDS
 * dies while it waits for them to make a truncation's cut,
 * committed but not answered.  The client asks again with the same
 * request id, as the kernel's does on its new connection: the reply
 * cache answers, but not before the cut is made, so that the write the
 * client makes next is not cut by it (G11: the retry was answered at
 * once, and the late cut removed that write).
 */
static void test_truncate_retried(void)
{
	static const u8 uuid[16] = { 0x11, 0x22, 7 };
	struct aifs_setattr sa = { .valid = AIFS_SETATTR_SIZE };
	struct cluster_fail late;
	struct chunk_at c;
	struct aifs_layout l;
	static char buf[DS_TEST_CHUNK];
	u64 id = 0;
	int i, err, up = 3;

	setenv("AIFS_FAIL", "request.delay:opcode=67:value=4000:times=2", 1);
	for (i = 0; i < 3; i++) {
		ds_stop(&ds_procs[i], SIGTERM);
		ds_start(&ds_procs[i]);
	}
	unsetenv("AIFS_FAIL");
	CHECK(cluster_wait(cluster_up_count, &up, WAIT_MS), "not all UP");
	sa.ino = file_with_chunks("retried", &l, 2);
	sa.size = DS_TEST_CHUNK;
	late = (struct cluster_fail){ cluster_proc(le32_to_cpu(l.targets[0])),
				      "request.delay" };
	err = setattr_try(uuid, &sa, &id, 1000);
	CHECK(err == -ETIMEDOUT, "the truncation answered early: %d", err);
	CHECK(cluster_wait(cluster_fired, &late, WAIT_MS),
	      "the cut never reached the data servers");
	cluster_mds_revive(0);
	err = setattr_try(uuid, &sa, &id, 3 * WAIT_MS);
	CHECK(!err, "the truncation asked again: %d", err);
	/* chunk 1 written again at once, after the truncate returned */
	ds_fill(buf, sizeof(buf), 4242);
	err = ds_write(late.p, sa.ino, 1, 0, buf, sizeof(buf),
		       &(u32){ le32_to_cpu(l.targets[1]) }, 1, NULL);
	CHECK(!err, "the write after the truncation: %d", err);
	test_sleep_ms(5000);	/* past the late cuts */
	c = (struct chunk_at){ .ino = sa.ino, .index = 1 };
	for (i = 0; i < 2; i++) {
		c.p = cluster_proc(le32_to_cpu(l.targets[i]));
		CHECK(chunk_len(&c) == DS_TEST_CHUNK,
		      "ds %d: the write after the truncation is cut (%u bytes)",
		      c.p->id, chunk_len(&c));
	}
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	cluster_setup(3, 2000, "default_replicas = 2\n");
	test_unlink();
	test_truncate();
	test_ds_restarted();
	test_ds_down();
	test_truncate_retried();
	CHECK(mds_harness_run(&cluster_mds, "--check") == 0, "--check");
	return test_result();
}
