// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * See cluster-harness.h.  The MDS comes from mds_harness.c, the data
 * servers from ds-harness.c (ds_setup_cluster).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cluster-harness.h"

#define CLUSTER_UP_MS	15000

struct mds_harness cluster_mds;
struct aifs_conn *cluster_conn;
struct aifs_cred cluster_cred;
static int cluster_metrics_port;

static void cluster_die(const char *what)
{
	printf("FAIL: %s\n", what);
	test_failures++;
	exit(1);
}

static void cluster_cleanup(void)
{
	if (cluster_conn)
		aifs_close(cluster_conn);
	cluster_conn = NULL;
}

/* The uuid the MDS's --format logged. */
static void cluster_fs_uuid(char uuid[37])
{
	char path[128], line[512], *p;
	FILE *log;
	bool found = false;

	snprintf(path, sizeof(path), "%s/server.log", cluster_mds.srv.dir);
	log = fopen(path, "r");
	while (log && !found && fgets(line, sizeof(line), log)) {
		p = strstr(line, "formatted file system ");
		found = p && sscanf(p, "formatted file system %36s", uuid) == 1;
	}
	if (log)
		fclose(log);
	if (!found)
		cluster_die("no uuid in the MDS's log");
}

/* From now on the MDS listens on the port it got: a restart keeps it. */
static void cluster_pin_port(void)
{
	char path[128], text[4096], *p;
	size_t len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/server.conf", cluster_mds.srv.dir);
	f = fopen(path, "r+");
	if (!f)
		cluster_die(path);
	len = fread(text, 1, sizeof(text) - 1, f);
	text[len] = 0;
	p = strstr(text, "listen_port = 0\n");
	if (!p)
		cluster_die("no listen_port in the MDS's server.conf");
	rewind(f);
	fprintf(f, "%.*slisten_port = %s\n%s", (int)(p - text), text,
		cluster_mds.srv.port, p + strlen("listen_port = 0\n"));
	if (fclose(f))
		cluster_die(path);
}

static void cluster_mds_connect(void)
{
	if (cluster_conn)
		aifs_close(cluster_conn);
	cluster_conn = NULL;
	if (mds_harness_connect(&cluster_mds, &cluster_conn))
		cluster_die("cannot connect to aifs-mds");
}

/* The MDS stopped by @sig, and started again: its exit status. */
static int cluster_mds_cycle(int sig, void (*while_down)(void *arg),
			     void *arg)
{
	int status;

	if (cluster_conn)
		aifs_close(cluster_conn);
	cluster_conn = NULL;
	status = mds_harness_stop(&cluster_mds, sig);
	if (while_down)
		while_down(arg);
	if (mds_harness_start(&cluster_mds))
		cluster_die("aifs-mds did not start again");
	cluster_mds_connect();
	return status;
}

void cluster_mds_restart(void)
{
	CHECK(cluster_mds_cycle(SIGTERM, NULL, NULL) == 0,
	      "the MDS did not stop cleanly");
}

void cluster_mds_edit(void (*edit)(void *arg), void *arg)
{
	CHECK(cluster_mds_cycle(SIGTERM, edit, arg) == 0,
	      "the MDS did not stop cleanly");
}

bool cluster_mds_revive(int ms)
{
	siginfo_t info = { 0 };
	int waited;

	for (waited = 0; waited < ms; waited += 50) {
		if (!waitid(P_PID, cluster_mds.srv.pid, &info,
			    WEXITED | WNOHANG | WNOWAIT) && info.si_pid)
			break;
		test_sleep_ms(50);
	}
	cluster_mds_cycle(SIGKILL, NULL, NULL);
	return waited < ms;
}

bool cluster_up_count(void *arg)
{
	struct aifs_ds_info ds[DS_TEST_MAX];
	int i, n, up = 0;

	n = cluster_map(ds, NULL);
	for (i = 0; i < n; i++)
		up += le32_to_cpu(ds[i].state) == AIFS_DS_UP;
	return up == *(int *)arg;
}

void cluster_setup(int n, int grace_ms, const char *mds_conf)
{
	char conf[1024], uuid[37];
	struct aifs_ds_info info;
	int i;

	atexit(cluster_cleanup);
	cluster_metrics_port = test_free_port();
	if (!cluster_metrics_port)
		cluster_die("no free port for the MDS's metrics");
	snprintf(conf, sizeof(conf),
		 "default_chunk_kib = %u\nheartbeat_ms = 100\n"
		 "heartbeat_grace_ms = %d\nmetrics_address = 127.0.0.1\n"
		 "metrics_port = %d\n%s", DS_TEST_CHUNK >> 10, grace_ms,
		 cluster_metrics_port, mds_conf);
	if (mds_harness_init(&cluster_mds, conf))
		cluster_die("aifs-mds --format failed");
	cluster_fs_uuid(uuid);
	if (mds_harness_start(&cluster_mds))
		cluster_die("aifs-mds did not start");
	cluster_pin_port();
	cluster_mds_connect();
	if (aifs_cred_self(&cluster_cred))
		cluster_die("credentials");
	ds_setup_cluster(n, cluster_mds.srv.port, strdup(uuid), NULL);
	if (!cluster_wait(cluster_up_count, &n, CLUSTER_UP_MS))
		cluster_die("the data servers did not all come up");
	/* the MDS numbers them as they registered, not as they started */
	for (i = 0; i < n; i++) {
		if (!cluster_ds_info(&ds_procs[i], &info))
			cluster_die("a data server UP is not in the map");
		ds_procs[i].id = le32_to_cpu(info.id);
	}
}

int cluster_map(struct aifs_ds_info *ds, u64 *epoch)
{
	struct aifs_map_rep rep;
	int err;

	err = aifs_map_get(cluster_conn, 0, &rep, ds, DS_TEST_MAX);
	if (err)
		return err;
	if (epoch)
		*epoch = le64_to_cpu(rep.epoch);
	return le32_to_cpu(rep.count);
}

int cluster_mds_metric(const char *name, u64 *value)
{
	static const char get[] = "GET /metrics HTTP/1.0\r\n\r\n";
	struct sockaddr_in sin = { .sin_family = AF_INET };
	static char text[1 << 16];
	unsigned long long v;
	size_t len = 0;
	ssize_t n;
	char *line;
	int fd, err = 0;

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons(cluster_metrics_port);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) ||
	    write(fd, get, strlen(get)) != (ssize_t)strlen(get))
		err = -errno;
	/* HTTP/1.0: the server ends the answer by closing */
	while (!err && len < sizeof(text) - 1 &&
	       (n = read(fd, text + len, sizeof(text) - 1 - len)) > 0)
		len += n;
	close(fd);
	if (err)
		return err;
	text[len] = '\0';
	for (line = strchr(text, '\n'); line; line = strchr(line + 1, '\n'))
		if (!strncmp(line + 1, name, strlen(name)) &&
		    line[1 + strlen(name)] == ' ' &&
		    sscanf(line + 1 + strlen(name), " %llu", &v) == 1) {
			*value = v;
			return 0;
		}
	return -ENOENT;
}

bool cluster_ds_info(const struct ds_proc *p, struct aifs_ds_info *info)
{
	struct aifs_ds_info ds[DS_TEST_MAX];
	int i, n;

	n = cluster_map(ds, NULL);
	for (i = 0; i < n; i++) {
		if (le16_to_cpu(ds[i].addr.port) == atoi(p->srv.port)) {
			*info = ds[i];
			return true;
		}
	}
	return false;
}

struct ds_proc *cluster_proc(u32 id)
{
	struct aifs_ds_info info;
	int i;

	for (i = 0; i < DS_TEST_MAX && ds_procs[i].srv.dir[0]; i++)
		if (cluster_ds_info(&ds_procs[i], &info) &&
		    le32_to_cpu(info.id) == id)
			return &ds_procs[i];
	cluster_die("a data server of the map is none of ours");
	return NULL;
}

bool cluster_in_state(void *arg)
{
	struct cluster_state *s = arg;
	struct aifs_ds_info info;

	return cluster_ds_info(s->p, &info) &&
	       le32_to_cpu(info.state) == s->state;
}

bool cluster_wait(bool (*cond)(void *arg), void *arg, int ms)
{
	int waited;

	for (waited = 0; waited < ms; waited += 50) {
		if (cond(arg))
			return true;
		test_sleep_ms(50);
	}
	return cond(arg);
}

bool cluster_map_stays(int ms)
{
	struct aifs_ds_info ds[DS_TEST_MAX];
	u64 was = 0, now = 0;
	int waited;

	if (cluster_map(ds, &was) < 0)
		return false;
	for (waited = 0; waited < ms; waited += 50) {
		test_sleep_ms(50);
		if (cluster_map(ds, &now) < 0 || now != was)
			return false;
	}
	return true;
}

/* A server and a map epoch: for knows_epoch(). */
struct map_wait {
	struct ds_proc *p;
	u64 epoch;
};

/* Does the server hold the map of the epoch, or a later one? */
static bool knows_epoch(void *arg)
{
	struct map_wait *w = arg;
	struct aifs_reply reply;
	bool knows;
	int err;

	if (!w->p->conn)
		ds_connect(w->p);
	err = aifs_call(w->p->conn, AIFS_OP_PING, NULL, 0, &reply, 5000);
	knows = !err && reply.map_epoch >= w->epoch;
	aifs_reply_free(&reply);
	return knows;
}

void cluster_wait_map_known(struct ds_proc *p, int ms)
{
	static struct aifs_ds_info map[DS_TEST_MAX];
	struct map_wait w = { p, 0 };

	CHECK(cluster_map(map, &w.epoch) > 0, "the cluster map");
	CHECK(cluster_wait(knows_epoch, &w, ms),
	      "data server %d never heard of map epoch %llu", p->id,
	      (unsigned long long)w.epoch);
}

bool cluster_fired(void *arg)
{
	const struct cluster_fail *f = arg;
	char line[96];

	snprintf(line, sizeof(line), "fail point %s fired", f->point);
	return test_server_logged(&f->p->srv, line);
}

/* CHUNK_SYNC @req of @ino on @p (its id and layout filled in here). */
static int cluster_sync_call(struct ds_proc *p, u64 ino, u32 from, u32 gen,
			     struct aifs_chunk_sync_req *req,
			     struct aifs_chunk_sync_rep *rep)
{
	struct ds_proc other = *p;
	u8 msg[AIFS_CHUNK_SYNC_REQ_SIZE];
	struct aifs_reply reply;
	int n, err;

	if (aifs_layout_get(cluster_conn, &cluster_cred, ino, &req->layout))
		return -EIO;
	if (gen)
		req->layout.generation = cpu_to_le32(gen);
	ds_chunk_id(&req->id, ino, from);
	n = aifs_encode_chunk_sync_req(msg, sizeof(msg), req, NULL);
	if (n < 0)
		return n;
	other.conn = NULL;
	err = ds_request(&other, AIFS_OP_CHUNK_SYNC, msg, n, &reply);
	if (!err && reply.status)
		err = -(int)reply.status;
	if (!err && rep)
		err = aifs_decode_chunk_sync_rep(reply.payload, reply.len, rep,
						 NULL);
	aifs_reply_free(&reply);
	aifs_close(other.conn);
	return err;
}

int cluster_sync(struct ds_proc *p, u64 ino, u32 flags, u32 gen)
{
	struct aifs_chunk_sync_req req = {
		.max = cpu_to_le32(flags ? 1 : AIFS_CHUNK_LIST_MAX),
		.flags = cpu_to_le32(flags),
	};

	return cluster_sync_call(p, ino, 0, gen, &req, NULL);
}

int cluster_sync_range(struct ds_proc *p, u64 ino, u32 from, u32 max,
		       struct aifs_chunk_sync_rep *rep)
{
	struct aifs_chunk_sync_req req = { .max = cpu_to_le32(max) };

	return cluster_sync_call(p, ino, from, 0, &req, rep);
}

bool cluster_chunk_gone(void *arg)
{
	struct chunk_at *c = arg;
	char path[512];

	return ds_chunk_file(c->p, c->ino, c->index, path, sizeof(path)) ==
	       -ENOENT;
}

int cluster_read_chunk(struct ds_proc *p, u64 ino, u32 index, void *buf,
		       u64 *version)
{
	u32 len = 0;
	int err, tries = 0;

	do {
		if (tries)
			test_sleep_ms(50);
		err = ds_read(p, ino, index, 0, DS_TEST_CHUNK, 0, buf, &len,
			      version);
	} while (err == -ESTALE && ++tries < 400);
	return err ? err : len == DS_TEST_CHUNK ? 0 : -ENODATA;
}

u64 cluster_create(const char *name, struct aifs_layout *layout)
{
	struct aifs_create_rep rep;
	struct aifs_attr attr;
	u64 ino;

	if (aifs_create(cluster_conn, &cluster_cred, AIFS_ROOT_INO, name, 0644,
			022, AIFS_OPEN_RDWR, &rep))
		cluster_die("create");
	ino = le64_to_cpu(rep.open.attr.ino);
	*layout = rep.open.layout;
	if (aifs_release(cluster_conn, &cluster_cred, ino,
			 le64_to_cpu(rep.open.handle), 0, NULL, &attr))
		cluster_die("close");
	return ino;
}

int cluster_truncate(u64 ino, u64 size)
{
	struct aifs_setattr sa = { .valid = AIFS_SETATTR_SIZE, .ino = ino,
				   .size = size };
	struct aifs_attr attr;

	return aifs_setattr(cluster_conn, &cluster_cred, &sa, &attr);
}

/*
 * Chunk @index of @ino to its primary, retried while it refuses, as a
 * client would retry: EAGAIN (its map does not list the replica yet),
 * ESTALE (a replica is behind: a refused write may have left it a gap,
 * and it pulls the chunk).
 */
static int cluster_write_chunk(const struct aifs_layout *layout, u64 ino,
			       u32 index)
{
	u32 stripes = le16_to_cpu(layout->stripe_count), replicas[8];
	u32 width = le16_to_cpu(layout->target_count) / stripes, r;
	u32 g = index % stripes * width;
	static char buf[DS_TEST_CHUNK];
	int err, tries = 0;

	for (r = 1; r < width; r++)
		replicas[r - 1] = le32_to_cpu(layout->targets[g + r]);
	ds_fill(buf, sizeof(buf), ino * 1000 + index);
	do {
		if (tries)
			test_sleep_ms(50);
		err = ds_write(cluster_proc(le32_to_cpu(layout->targets[g])),
			       ino, index, 0, buf, sizeof(buf), replicas,
			       width - 1, NULL);
	} while ((err == -EAGAIN || err == -ESTALE) && ++tries < 100);
	return err;
}

int cluster_write_chunks(const struct aifs_layout *layout, u64 ino, u32 nr)
{
	u32 i;
	int err = 0;

	for (i = 0; i < nr && !err; i++)
		err = cluster_write_chunk(layout, ino, i);
	return err;
}

int cluster_cli(const char *args, char *out, size_t size)
{
	char cmd[1024];
	size_t len;
	FILE *p;
	int status;

	snprintf(cmd, sizeof(cmd), "%s -s %s/secret %s 2>&1", test_bin("aifs"),
		 cluster_mds.srv.dir, args);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	len = fread(out, 1, size - 1, p);
	out[len] = '\0';
	status = pclose(p);
	printf("$ aifs %s\n%s", args, out);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int cluster_recovery(char *out, size_t size)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "recovery 127.0.0.1:%s",
		 cluster_mds.srv.port);
	return cluster_cli(cmd, out, size);
}
