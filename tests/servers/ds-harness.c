// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The shared part of the aifs-ds tests (see ds-harness.h).
 */
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "ds-harness.h"

#define DS_CALL_MS	20000
#define DS_WAIT_MS	10000	/* to start, to stop */

struct ds_proc ds_procs[DS_TEST_MAX];
static int ds_nr;
static const char *ds_mds_port;		/* registering with an MDS there */
static const char *ds_fs_uuid = DS_TEST_FS_UUID;

static void ds_die(const char *what)
{
	printf("FAIL: %s\n", what);
	test_failures++;
	exit(1);
}

/* A port free right now (the servers need each other's before starting). */
static void ds_free_port(char *port, size_t size)
{
	int free = test_free_port();

	if (!free)
		ds_die("no free port");
	snprintf(port, size, "%d", free);
}

static void ds_disconnect_all(void)
{
	int i;

	for (i = 0; i < ds_nr; i++) {
		if (ds_procs[i].conn)
			aifs_close(ds_procs[i].conn);
		ds_procs[i].conn = NULL;
	}
}

/* Static: fixed ids and peers.  With an MDS: ids and peers from it. */
static void ds_write_membership(struct ds_proc *p, char *conf, size_t size)
{
	char peers[1024] = "";
	int i, n = 0;

	if (ds_mds_port) {
		snprintf(conf, size, "ds_id = 0\npeers = none\n"
			 "mds = %s:%s\n", test_listen_address(), ds_mds_port);
		return;
	}
	for (i = 0; i < ds_nr; i++)
		if (&ds_procs[i] != p)
			n += snprintf(peers + n, sizeof(peers) - n,
				      "%s%d=%s:%s", n ? "," : "",
				      ds_procs[i].id, test_listen_address(),
				      ds_procs[i].srv.port);
	snprintf(conf, size, "ds_id = %d\npeers = %s\n", p->id,
		 n ? peers : "none");
}

static void ds_write_conf(struct ds_proc *p, const char *extra_conf)
{
	char conf[8192], membership[1280];

	ds_write_membership(p, membership, sizeof(membership));
	snprintf(conf, sizeof(conf),
		 "listen_address = %s\nlisten_port = %s\n"
		 "secret_file = %s/secret\ndata_dir = %s/data\n"
		 "fs_uuid = %s\n%s"
		 "worker_threads = 4\nio_timeout = 5\n"
		 "replica_timeout_ms = 3000\npeer_retry_ms = 200\n%s",
		 test_listen_address(), p->srv.port, test_dir, p->srv.dir, ds_fs_uuid, membership,
		 extra_conf ? extra_conf : "");
	test_server_write_config(&p->srv, conf);
}

void ds_setup_cluster(int n, const char *mds_port, const char *fs_uuid,
		      const char *extra_conf)
{
	ds_mds_port = mds_port;
	ds_fs_uuid = fs_uuid;
	ds_setup(n, extra_conf);
}

void ds_setup(int n, const char *extra_conf)
{
	struct ds_proc *p;
	int i;

	test_init();
	atexit(ds_disconnect_all);
	ds_nr = n;
	for (i = 0; i < n; i++) {
		p = &ds_procs[i];
		p->id = i + 1;
		p->srv.prog = "aifs-ds";
		snprintf(p->srv.dir, sizeof(p->srv.dir), "%s/ds%d", test_dir,
			 p->id);
		if (mkdir(p->srv.dir, 0700))
			ds_die(p->srv.dir);
		ds_free_port(p->srv.port, sizeof(p->srv.port));
	}
	for (i = 0; i < n; i++) {
		ds_write_conf(&ds_procs[i], extra_conf);
		ds_start(&ds_procs[i]);
	}
}

void ds_start(struct ds_proc *p)
{
	if (test_server_spawn(&p->srv, DS_WAIT_MS))
		ds_die("aifs-ds did not start");
}

/* Stop with @sig; SIGTERM must end it promptly with status 0. */
void ds_start_failing(struct ds_proc *p, const char *spec)
{
	setenv("AIFS_FAIL", spec, 1);
	ds_start(p);
	unsetenv("AIFS_FAIL");
}

void ds_stop(struct ds_proc *p, int sig)
{
	int status;

	if (p->conn)
		aifs_close(p->conn);
	p->conn = NULL;
	status = test_server_signal(&p->srv, sig, DS_WAIT_MS);
	if (sig == SIGTERM)
		CHECK(status == 0, "ds %d: SIGTERM gave status %d", p->id,
		      status);
}

void ds_connect(struct ds_proc *p)
{
	ds_connect_timeout(p, 0);
}

void ds_connect_timeout(struct ds_proc *p, int call_timeout_ms)
{
	struct aifs_secret secret = { .len = strlen(TEST_SECRET) };
	struct aifs_connect_opts opts = {
		.host = "127.0.0.1", .port = p->srv.port, .secret = &secret,
		.role = AIFS_ROLE_CLIENT, .call_timeout_ms = call_timeout_ms,
	};

	memcpy(secret.key, TEST_SECRET, secret.len);
	test_transport(&opts);
	if (p->conn)
		aifs_close(p->conn);
	p->conn = NULL;
	if (aifs_connect(&opts, &p->conn))
		ds_die("cannot connect to aifs-ds");
}

static int ds_uuid_bytes(const char *s, u8 uuid[16])
{
	unsigned int byte;
	int i;

	for (i = 0; i < 16; i++, s += 2) {
		if (*s == '-')
			s++;
		if (sscanf(s, "%2x", &byte) != 1)
			return -EINVAL;
		uuid[i] = byte;
	}
	return 0;
}

void ds_chunk_id(struct aifs_chunk_id *id, u64 ino, u32 index)
{
	memset(id, 0, sizeof(*id));
	if (ds_uuid_bytes(ds_fs_uuid, id->fs_uuid))
		ds_die("test uuid");
	id->ino = cpu_to_le64(ino);
	id->index = cpu_to_le32(index);
}

/* @p's connection of the harness, made when it has none. */
static struct aifs_conn *ds_conn_of(struct ds_proc *p)
{
	if (!p->conn)
		ds_connect(p);
	return p->conn;
}

int ds_request_on(struct aifs_conn *conn, int timeout_ms, u16 opcode,
		  const void *req, u32 len, struct aifs_reply *reply)
{
	struct iovec iov = { (void *)req, len };

	*reply = (struct aifs_reply){ 0 };
	return aifs_call(conn, opcode, &iov, 1, reply, timeout_ms);
}

int ds_request(struct ds_proc *p, u16 opcode, const void *req, u32 len,
	       struct aifs_reply *reply)
{
	return ds_request_on(ds_conn_of(p), DS_CALL_MS, opcode, req, len,
			     reply);
}

/*
 * CHUNK_WRITE of @req, @len bytes of @data after it (none for zeros), to
 * chunk @index of @ino (or EC fragment @frag of stripe @index, @frag >= 0).
 */
static int ds_write_call(struct ds_proc *p, struct aifs_chunk_write_req *req,
			 u64 ino, u32 index, int frag, const u32 *replicas,
			 int nr, const void *data, u32 len, u64 *version)
{
	struct aifs_span part = { NULL, len };
	struct aifs_reply reply = { 0 };
	struct aifs_chunk_rep rep;
	u8 head[AIFS_CHUNK_WRITE_REQ_SIZE];
	struct iovec iov[2];
	int i, err;

	req->chunk_size = cpu_to_le32(DS_TEST_CHUNK);
	req->nr_replicas = cpu_to_le16(nr);
	ds_chunk_id(&req->id, ino, index);
	if (frag >= 0)
		req->id.fragment = cpu_to_le16(AIFS_EC_FRAGMENT(frag));
	for (i = 0; i < nr; i++)
		req->replicas[i] = cpu_to_le32(replicas[i]);
	err = aifs_encode_chunk_write_req(head, sizeof(head), req, &part);
	if (err < 0)
		return err;
	iov[0] = (struct iovec){ head, sizeof(head) };
	iov[1] = (struct iovec){ (void *)data, len };
	if (!p->conn)
		ds_connect(p);
	err = aifs_call(p->conn, AIFS_OP_CHUNK_WRITE, iov, 2, &reply,
			DS_CALL_MS);
	if (!err && reply.status)
		err = -(int)reply.status;
	if (!err)
		err = aifs_decode_chunk_write_rep(reply.payload, reply.len,
						  &rep, NULL);
	if (!err && version)
		*version = le64_to_cpu(rep.version);
	aifs_reply_free(&reply);
	return err;
}

int ds_write(struct ds_proc *p, u64 ino, u32 index, u32 offset,
	     const void *data, u32 len, const u32 *replicas, int nr,
	     u64 *version)
{
	/* synced, as the kernel's client asks for every write */
	struct aifs_chunk_write_req req = {
		.offset = cpu_to_le32(offset),
		.flags = cpu_to_le32(AIFS_IO_SYNC),
	};

	return ds_write_call(p, &req, ino, index, -1, replicas, nr, data, len,
			     version);
}

int ds_write_frag(struct ds_proc *p, u64 ino, u32 stripe, u32 frag,
		  const void *data, u32 len)
{
	struct aifs_chunk_write_req req = {
		.flags = cpu_to_le32(AIFS_IO_SYNC),
	};

	return ds_write_call(p, &req, ino, stripe, frag, NULL, 0, data, len,
			     NULL);
}

int ds_write_gen(struct ds_proc *p, u64 ino, u32 index, const void *data,
		 u32 len, const u32 *replicas, int nr, u32 layout_gen)
{
	struct aifs_chunk_write_req req = {
		.flags = cpu_to_le32(AIFS_IO_SYNC),
		.layout_gen = cpu_to_le32(layout_gen),
	};

	return ds_write_call(p, &req, ino, index, -1, replicas, nr, data,
			     len, NULL);
}

int ds_zero(struct ds_proc *p, u64 ino, u32 index, u32 offset, u32 len,
	    const u32 *replicas, int nr, u64 *version)
{
	struct aifs_chunk_write_req req = {
		.offset = cpu_to_le32(offset),
		.flags = cpu_to_le32(AIFS_IO_ZERO | AIFS_IO_SYNC),
		.rdma.len = cpu_to_le32(len),
	};

	return ds_write_call(p, &req, ino, index, -1, replicas, nr, NULL, 0,
			     version);
}

/*
 * @op of the @req_len bytes at @req on @conn, answered as CHUNK_READ is:
 * its data into @buf (room for @len), its length and version.
 */
static int ds_read_call_on(struct aifs_conn *conn, int timeout_ms, u16 op,
			   const void *req, u32 req_len, void *buf, u32 len,
			   u32 *data_len, u64 *version)
{
	struct aifs_span parts[AIFS_MSG_MAX_PARTS];
	struct aifs_chunk_read_rep rep;
	struct aifs_reply reply;
	int err;

	err = ds_request_on(conn, timeout_ms, op, req, req_len, &reply);
	if (!err && reply.status)
		err = -(int)reply.status;
	if (!err)
		err = aifs_decode_chunk_read_rep(reply.payload, reply.len, &rep,
						 parts);
	if (!err && parts[0].len > len)
		err = -EBADMSG;
	if (!err) {
		memcpy(buf, parts[0].data, parts[0].len);
		if (data_len)
			*data_len = parts[0].len;
		if (version)
			*version = le64_to_cpu(rep.version);
	}
	aifs_reply_free(&reply);
	return err;
}

int ds_read(struct ds_proc *p, u64 ino, u32 index, u32 offset, u32 len,
	    u64 min_version, void *buf, u32 *data_len, u64 *version)
{
	struct aifs_chunk_read_req req = {
		.version = cpu_to_le64(min_version),
		.offset = cpu_to_le32(offset),
		.length = cpu_to_le32(len),
	};

	ds_chunk_id(&req.id, ino, index);
	return ds_read_call_on(ds_conn_of(p), DS_CALL_MS, AIFS_OP_CHUNK_READ,
			       &req, sizeof(req), buf, len, data_len, version);
}

u32 ds_ec_layout_gen = 1;

int ds_ec_write_on(struct aifs_conn *conn, int timeout_ms,
		   struct aifs_ec_write_req *req, u64 ino, u32 stripe,
		   const void *data, u32 len)
{
	struct aifs_span part = { NULL, len };
	u8 head[AIFS_EC_WRITE_REQ_SIZE];
	struct aifs_reply reply = { 0 };
	struct iovec iov[2];
	int err;

	ds_chunk_id(&req->id, ino, stripe);
	err = aifs_encode_ec_write_req(head, sizeof(head), req, &part);
	if (err < 0)
		return err;
	iov[0] = (struct iovec){ head, sizeof(head) };
	iov[1] = (struct iovec){ (void *)data, len };
	err = aifs_call(conn, AIFS_OP_EC_WRITE, iov, len ? 2 : 1, &reply,
			timeout_ms);
	if (!err)
		err = -(int)reply.status;
	aifs_reply_free(&reply);
	return err;
}

int ds_ec_write(struct ds_proc *leader, u64 ino, u32 stripe,
		const struct aifs_ec_group *g, u32 off, const void *data,
		u32 len)
{
	struct aifs_ec_write_req req = {
		.offset = cpu_to_le32(off),
		.flags = cpu_to_le32(AIFS_IO_SYNC),
		.layout_gen = cpu_to_le32(ds_ec_layout_gen),
		.group = *g,
	};

	return ds_ec_write_on(ds_conn_of(leader), DS_CALL_MS, &req, ino,
			      stripe, data, len);
}

int ds_frag_read(struct ds_proc *p, u16 op, u64 ino, u32 stripe, u32 frag,
		 const struct aifs_ec_group *g, u32 off, u32 len, void *buf)
{
	return ds_frag_read_on(ds_conn_of(p), DS_CALL_MS, op, ino, stripe,
			       frag, g, off, len, buf);
}

int ds_frag_read_on(struct aifs_conn *conn, int timeout_ms, u16 op, u64 ino,
		    u32 stripe, u32 frag, const struct aifs_ec_group *g,
		    u32 off, u32 len, void *buf)
{
	struct aifs_ec_read_req ec = {
		.offset = cpu_to_le32(off),
		.length = cpu_to_le32(len),
	};
	struct aifs_chunk_read_req chunk = {
		.offset = cpu_to_le32(off),
		.length = cpu_to_le32(len),
	};

	ds_chunk_id(&chunk.id, ino, stripe);
	chunk.id.fragment = cpu_to_le16(AIFS_EC_FRAGMENT(frag));
	ec.id = chunk.id;
	if (g)
		ec.group = *g;
	memset(buf, 0, len);
	if (op == AIFS_OP_EC_READ)
		return ds_read_call_on(conn, timeout_ms, op, &ec, sizeof(ec),
				       buf, len, NULL, NULL);
	return ds_read_call_on(conn, timeout_ms, op, &chunk, sizeof(chunk),
			       buf, len, NULL, NULL);
}

int ds_frag_stamp(struct ds_proc *p, u64 ino, u32 stripe, u32 frag,
		  u64 *stamp)
{
	return ds_frag_stamp_on(ds_conn_of(p), DS_CALL_MS, ino, stripe, frag,
				stamp);
}

int ds_frag_stamp_on(struct aifs_conn *conn, int timeout_ms, u64 ino,
		     u32 stripe, u32 frag, u64 *stamp)
{
	struct aifs_chunk_read_req req = { .length = 0 };
	u8 none;

	ds_chunk_id(&req.id, ino, stripe);
	req.id.fragment = cpu_to_le16(AIFS_EC_FRAGMENT(frag));
	return ds_read_call_on(conn, timeout_ms, AIFS_OP_FRAG_READ, &req,
			       sizeof(req), &none, 0, NULL, stamp);
}

int ds_ec_verify_on(struct aifs_conn *conn, int timeout_ms, u64 ino,
		    u32 stripe, const struct aifs_ec_group *g, u32 flags,
		    struct aifs_ec_verify_rep *rep)
{
	struct aifs_ec_verify_req req = {
		.flags = cpu_to_le32(flags),
		.group = *g,
	};
	struct aifs_reply reply;
	int err;

	ds_chunk_id(&req.id, ino, stripe);
	err = ds_request_on(conn, timeout_ms, AIFS_OP_EC_VERIFY, &req,
			    sizeof(req), &reply);
	if (!err && reply.status)
		err = -(int)reply.status;
	if (!err)
		err = aifs_decode_ec_verify_rep(reply.payload, reply.len, rep,
						NULL);
	aifs_reply_free(&reply);
	return err;
}

void ds_fill(void *buf, u32 len, u32 seed)
{
	u8 *p = buf;
	u32 x = seed * 2654435761U + 1, i;

	for (i = 0; i < len; i++) {
		x = x * 1103515245U + 12345U;
		p[i] = x >> 16;
	}
}

int ds_chunk_file(struct ds_proc *p, u64 ino, u32 index, char *path,
		  size_t size)
{
	char pattern[256];
	glob_t g;
	int err;

	snprintf(pattern, sizeof(pattern), "%s/data/chunks/*/*/%016llx.%08x.00",
		 p->srv.dir, (unsigned long long)ino, index);
	err = glob(pattern, 0, NULL, &g);
	if (!err && g.gl_pathc == 1)
		snprintf(path, size, "%s", g.gl_pathv[0]);
	else
		err = -ENOENT;
	globfree(&g);
	return err;
}

void ds_flip_byte(struct ds_proc *p, u64 ino, u32 index, off_t off)
{
	char path[512];
	u8 byte;
	int fd;

	CHECK(!ds_chunk_file(p, ino, index, path, sizeof(path)),
	      "no chunk file");
	fd = open(path, O_RDWR);
	CHECK(fd >= 0 && pread(fd, &byte, 1, off) == 1, "read %s", path);
	byte ^= 0x20;
	CHECK(pwrite(fd, &byte, 1, off) == 1, "flip in %s", path);
	close(fd);
}

int ds_scrub(struct ds_proc *p, u32 flags, struct aifs_ds_scrub_rep *rep)
{
	struct aifs_ds_scrub_req req = { .flags = cpu_to_le32(flags) };
	struct aifs_reply reply;
	int err;

	err = ds_request(p, AIFS_OP_DS_SCRUB, &req, sizeof(req), &reply);
	if (!err && reply.status)
		err = -(int)reply.status;
	if (!err)
		err = aifs_decode_ds_scrub_rep(reply.payload, reply.len, rep,
					       NULL);
	aifs_reply_free(&reply);
	return err;
}
