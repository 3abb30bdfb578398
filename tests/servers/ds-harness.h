/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The shared part of the aifs-ds tests: data servers on loopback, each in
 * a directory of the test's (testutil.h: killed when the test exits,
 * however it exits), and chunk requests through libaifs.
 */
#ifndef AIFS_DS_HARNESS_H
#define AIFS_DS_HARNESS_H

#include "testutil.h"

#define DS_TEST_MAX	7
#define DS_TEST_CHUNK	(1U << 20)	/* chunk size the tests use */
#define DS_TEST_FS_UUID	"0aa1f500-0000-4000-8000-00000000a1f5"

struct ds_proc {
	int id;			/* ds_id, 1.. */
	struct test_server srv;	/* data_dir is srv.dir/data */
	struct aifs_conn *conn;
};

extern struct ds_proc ds_procs[DS_TEST_MAX];

/* @n servers with ids 1..n, each knowing the others as peers. */
void ds_setup(int n, const char *extra_conf);
/*
 * @n servers of the file system @fs_uuid registering with the MDS at
 * 127.0.0.1:@mds_port, which assigns their ids in the order they
 * register (ds_procs[].id is then unknown until cluster_setup() reads
 * the map) and tells them of their peers.
 */
void ds_setup_cluster(int n, const char *mds_port, const char *fs_uuid,
		      const char *extra_conf);
void ds_start(struct ds_proc *p);
/* ds_start() with the fail points of @spec armed (AIFS_FAIL). */
void ds_start_failing(struct ds_proc *p, const char *spec);
void ds_stop(struct ds_proc *p, int sig);
void ds_connect(struct ds_proc *p);
/* Its calls wait up to @call_timeout_ms (0: libaifs's bound; < 0: ever). */
void ds_connect_timeout(struct ds_proc *p, int call_timeout_ms);

void ds_chunk_id(struct aifs_chunk_id *id, u64 ino, u32 index);
int ds_write(struct ds_proc *p, u64 ino, u32 index, u32 offset,
	     const void *data, u32 len, const u32 *replicas, int nr,
	     u64 *version);
/* A whole-chunk ds_write() made with a layout of generation @layout_gen. */
int ds_write_gen(struct ds_proc *p, u64 ino, u32 index, const void *data,
		 u32 len, const u32 *replicas, int nr, u32 layout_gen);
/* CHUNK_WRITE with AIFS_IO_ZERO: @len bytes of zeros at @offset. */
/* CHUNK_WRITE of EC fragment @frag of @stripe straight to @p (refused). */
int ds_write_frag(struct ds_proc *p, u64 ino, u32 stripe, u32 frag,
		  const void *data, u32 len);
int ds_zero(struct ds_proc *p, u64 ino, u32 index, u32 offset, u32 len,
	    const u32 *replicas, int nr, u64 *version);
int ds_read(struct ds_proc *p, u64 ino, u32 index, u32 offset, u32 len,
	    u64 min_version, void *buf, u32 *data_len, u64 *version);
int ds_request(struct ds_proc *p, u16 opcode, const void *req, u32 len,
	       struct aifs_reply *reply);
/*
 * The calls below with _on: on a connection of the caller's (a thread's
 * own, say), waited for up to @timeout_ms, not on the harness's of @p.
 */
int ds_request_on(struct aifs_conn *conn, int timeout_ms, u16 opcode,
		  const void *req, u32 len, struct aifs_reply *reply);
void ds_fill(void *buf, u32 len, u32 seed);
/*
 * EC_WRITE of @len bytes at @off of stripe @stripe's data to @leader,
 * of layout generation ds_ec_layout_gen (1 unless a test sets it).
 */
extern u32 ds_ec_layout_gen;
int ds_ec_write(struct ds_proc *leader, u64 ino, u32 stripe,
		const struct aifs_ec_group *g, u32 off, const void *data,
		u32 len);
/*
 * EC_WRITE of @req (its offset, flags, layout generation and group; its
 * id is made stripe @stripe of @ino here) with @len bytes of @data after
 * it: none with AIFS_IO_ZERO (@req->rdma.len bytes of zeros).
 */
int ds_ec_write_on(struct aifs_conn *conn, int timeout_ms,
		   struct aifs_ec_write_req *req, u64 ino, u32 stripe,
		   const void *data, u32 len);
/*
 * Fragment @frag of stripe @stripe, @len bytes at @off into @buf (zeros
 * past what came): CHUNK_READ from @p, or EC_READ (decoded) with @g.
 */
int ds_frag_read(struct ds_proc *p, u16 op, u64 ino, u32 stripe, u32 frag,
		 const struct aifs_ec_group *g, u32 off, u32 len, void *buf);
int ds_frag_read_on(struct aifs_conn *conn, int timeout_ms, u16 op, u64 ino,
		    u32 stripe, u32 frag, const struct aifs_ec_group *g,
		    u32 off, u32 len, void *buf);
/* The stripe stamp fragment @frag of stripe @stripe holds on @p. */
int ds_frag_stamp(struct ds_proc *p, u64 ino, u32 stripe, u32 frag,
		  u64 *stamp);
int ds_frag_stamp_on(struct aifs_conn *conn, int timeout_ms, u64 ino,
		     u32 stripe, u32 frag, u64 *stamp);
/*
 * EC_VERIFY of stripe @stripe of @ino with @flags (AIFS_EC_VERIFY_*) to
 * a member of @g: 0 with what it compared and found in @rep, or -errno.
 */
int ds_ec_verify_on(struct aifs_conn *conn, int timeout_ms, u64 ino,
		    u32 stripe, const struct aifs_ec_group *g, u32 flags,
		    struct aifs_ec_verify_rep *rep);
/* Path of a chunk's data file in @p's data_dir (found by its name). */
int ds_chunk_file(struct ds_proc *p, u64 ino, u32 index, char *path,
		  size_t size);
/* Damage byte @off of chunk @index's data file on @p (one bit flipped). */
void ds_flip_byte(struct ds_proc *p, u64 ino, u32 index, off_t off);
/* DS_SCRUB with @flags (AIFS_SCRUB_*) to @p: 0 with its tally, or -errno. */
int ds_scrub(struct ds_proc *p, u32 flags, struct aifs_ds_scrub_rep *rep);

#endif /* AIFS_DS_HARNESS_H */
