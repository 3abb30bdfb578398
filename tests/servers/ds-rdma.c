// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Bulk data by RDMA on one aifs-ds (AIFS_IO_RDMA): a write's data fetched
 * by the server's RDMA READ and a read's data placed by its RDMA WRITE,
 * at offsets inside blocks and across them, forwarded to a replica, a
 * read past the chunk's end, and what a hostile client gets: a short
 * segment is refused, a bad key ends its own connection only, and the
 * server goes on serving.  Over TCP (no AIFS_TEST_RDMA) the same requests
 * are refused with EOPNOTSUPP.
 */
#include <stdlib.h>

#include "ds-harness.h"

#define INO		0x5eed
#define SPAN		(1U << 20)

static u8 data[SPAN], got[SPAN + 4096];

/*
 * CHUNK_WRITE of @len bytes at @offset, fetched by the server from @seg,
 * forwarded to server 2 when @replicated.
 */
static int rdma_write(struct aifs_conn *conn, u32 offset, u32 len,
		      const struct aifs_rdma_seg *seg, bool replicated)
{
	struct aifs_chunk_write_req req = {
		.offset = cpu_to_le32(offset),
		.flags = cpu_to_le32(AIFS_IO_RDMA | AIFS_IO_SYNC),
		.chunk_size = cpu_to_le32(DS_TEST_CHUNK),
		.nr_replicas = cpu_to_le16(replicated),
		.rdma = *seg,
		.replicas[0] = cpu_to_le32(replicated ? 2 : 0),
	};
	struct aifs_span part = { NULL, 0 };
	struct aifs_reply reply = { 0 };
	u8 head[AIFS_CHUNK_WRITE_REQ_SIZE];
	struct iovec iov = { head, sizeof(head) };
	struct aifs_chunk_rep rep;
	int err;

	req.rdma.len = cpu_to_le32(len);
	ds_chunk_id(&req.id, INO, 0);
	err = aifs_encode_chunk_write_req(head, sizeof(head), &req, &part);
	if (err < 0)
		return err;
	err = aifs_call(conn, AIFS_OP_CHUNK_WRITE, &iov, 1, &reply, 30000);
	if (!err && reply.status)
		err = -(int)reply.status;
	if (!err)
		err = aifs_decode_chunk_write_rep(reply.payload, reply.len,
						  &rep, NULL);
	if (!err && le32_to_cpu(rep.length) != len)
		err = -EBADMSG;
	aifs_reply_free(&reply);
	return err;
}

/* CHUNK_READ of @len bytes at @offset into @seg; the chunk's length. */
static int rdma_read(struct aifs_conn *conn, u32 offset, u32 len,
		     const struct aifs_rdma_seg *seg, u32 *chunk_len)
{
	struct aifs_chunk_read_req req = {
		.offset = cpu_to_le32(offset),
		.length = cpu_to_le32(len),
		.flags = cpu_to_le32(AIFS_IO_RDMA),
		.rdma = *seg,
	};
	struct aifs_span parts[AIFS_MSG_MAX_PARTS];
	struct iovec iov = { &req, sizeof(req) };
	struct aifs_chunk_read_rep rep;
	struct aifs_reply reply = { 0 };
	int err;

	ds_chunk_id(&req.id, INO, 0);
	err = aifs_call(conn, AIFS_OP_CHUNK_READ, &iov, 1, &reply, 30000);
	if (!err && reply.status)
		err = -(int)reply.status;
	if (!err)
		err = aifs_decode_chunk_read_rep(reply.payload, reply.len, &rep,
						 parts);
	if (!err && (parts[0].len || rep.data_len))
		err = -EBADMSG;	/* the data went by RDMA, not here */
	if (!err)
		*chunk_len = le32_to_cpu(rep.chunk_len);
	aifs_reply_free(&reply);
	return err;
}

static struct aifs_conn *conn_new(void)
{
	struct ds_proc *p = &ds_procs[0];
	struct aifs_conn *conn;

	p->conn = NULL;
	ds_connect(p);
	conn = p->conn;
	p->conn = NULL;
	return conn;
}

/* Lend @buf and write [@off, +@len) from it, read it back by RDMA. */
static void check_span(struct aifs_conn *conn, u32 off, u32 len, u32 seed)
{
	struct aifs_rdma_seg seg;
	struct aifs_lent *in, *out;
	u32 chunk_len;
	int i, err;

	ds_fill(data, len, seed);
	memset(got, 0xa5, sizeof(got));
	CHECK(!aifs_lend(conn, data, len, &seg, &out), "lend the write data");
	err = rdma_write(conn, off, len, &seg, true);
	CHECK(!err, "RDMA write %u+%u: %d", off, len, err);
	aifs_take_back(out);
	CHECK(!aifs_lend(conn, got, sizeof(got), &seg, &in), "lend the read");
	err = rdma_read(conn, off, len, &seg, &chunk_len);
	aifs_take_back(in);
	CHECK(!err && !memcmp(got, data, len) && got[len] == 0xa5,
	      "RDMA read %u+%u: %d, data %s", off, len, err,
	      memcmp(got, data, len) ? "differs" : "right");
	/* and the same bytes as a plain read sees them, on both copies */
	for (i = 0; i < 2; i++) {
		err = ds_read(&ds_procs[i], INO, 0, off, len, 0, got,
			      &chunk_len, NULL);
		CHECK(!err && chunk_len == len && !memcmp(got, data, len),
		      "plain read of server %d after RDMA write %u+%u: %d",
		      i + 1, off, len, err);
	}
}

static void test_spans(struct aifs_conn *conn)
{
	check_span(conn, 0, SPAN, 1);
	check_span(conn, 1000, 5000, 2);
	check_span(conn, 65536 - 10, 20, 3);
	check_span(conn, DS_TEST_CHUNK - 4096, 4096, 4);
}

/* Past the chunk's end: only the stored bytes come, the rest is a hole. */
static void test_read_past_end(struct aifs_conn *conn)
{
	struct aifs_rdma_seg seg;
	struct aifs_lent *in;
	u32 chunk_len;
	int err;

	memset(got, 0xa5, sizeof(got));
	CHECK(!aifs_lend(conn, got, sizeof(got), &seg, &in), "lend");
	err = rdma_read(conn, DS_TEST_CHUNK - 1000, 1000, &seg, &chunk_len);
	CHECK(!err && chunk_len == DS_TEST_CHUNK, "read at the end: %d", err);
	ds_fill(data, 4096, 4);
	CHECK(!memcmp(got, data + 3096, 1000) && got[1000] == 0xa5,
	      "bytes at the end");
	aifs_take_back(in);
}

/*
 * A segment shorter than the read is refused and the connection stays;
 * a key the client never registered ends that connection, not another.
 */
static void test_hostile(struct aifs_conn *conn)
{
	struct aifs_conn *other = conn_new(), *again;
	struct aifs_rdma_seg seg, bad;
	struct aifs_lent *in;
	u32 chunk_len;
	int err;

	CHECK(!aifs_lend(conn, got, 4096, &seg, &in), "lend");
	err = rdma_read(conn, 0, 8192, &seg, &chunk_len);
	CHECK(err == -EINVAL, "read into a short segment: %d", err);
	CHECK(!aifs_ping(conn, 10000), "connection after a short segment");

	bad = seg;
	bad.rkey = cpu_to_le32(le32_to_cpu(seg.rkey) ^ 0x5a5a00);
	err = rdma_read(conn, 0, 4096, &bad, &chunk_len);
	CHECK(err && err != -EINVAL, "read to a bad key: %d", err);
	err = rdma_write(conn, 0, 4096, &bad, false);
	CHECK(err, "write from a bad key after it: %d", err);
	aifs_take_back(in);

	CHECK(!aifs_ping(other, 10000), "another connection goes on");
	again = conn_new();
	check_span(again, 4096, 8192, 5);
	aifs_close(again);
	aifs_close(other);
}

/* Over TCP the server has nothing to move data with. */
static void test_tcp(void)
{
	struct aifs_rdma_seg seg = { .addr = cpu_to_le64(4096),
				     .rkey = cpu_to_le32(1),
				     .len = cpu_to_le32(4096) };
	struct aifs_conn *conn = conn_new();
	u32 chunk_len;
	int err;

	CHECK(aifs_lend(conn, got, 4096, &seg, NULL) == -EOPNOTSUPP,
	      "lend over TCP");
	err = rdma_read(conn, 0, 4096, &seg, &chunk_len);
	CHECK(err == -EOPNOTSUPP, "RDMA read over TCP: %d", err);
	err = rdma_write(conn, 0, 4096, &seg, false);
	CHECK(err == -EOPNOTSUPP, "RDMA write over TCP: %d", err);
	aifs_close(conn);
}

int main(void)
{
	struct aifs_conn *conn;

	ds_setup(2, NULL);
	if (!getenv("AIFS_TEST_RDMA")) {
		test_tcp();
		return test_result();
	}
	conn = conn_new();
	test_spans(conn);
	test_read_past_end(conn);
	test_hostile(conn);
	aifs_close(conn);
	return test_result();
}
