// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ds-load: the load generator of bench/ds-bench.  Prints GB/s of
 *
 *   ds-load raw STREAMS SECONDS            loopback TCP, a plain socket copy
 *   ds-load write|read STREAMS SECONDS PORT SECRET_FILE FS_UUID
 *                                          4 MiB CHUNK_WRITE/READs to aifs-ds
 *
 * each over STREAMS connections (one thread each).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "aifs/libaifs.h"

#define IO_SIZE		(4U << 20)
#define CHUNKS_PER_STREAM 8
#define MAX_STREAMS	64

static int seconds;
static const char *mode, *port, *secret_path, *fs_uuid;
static u64 total_bytes;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void add_bytes(u64 n)
{
	pthread_mutex_lock(&lock);
	total_bytes += n;
	pthread_mutex_unlock(&lock);
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* ---- raw: what loopback TCP itself moves ---- */

static void *raw_sink(void *arg)
{
	int fd = (int)(long)arg;
	char *buf = malloc(IO_SIZE);
	ssize_t n;

	while (buf && (n = read(fd, buf, IO_SIZE)) > 0)
		add_bytes(n);
	free(buf);
	close(fd);
	return NULL;
}

static void *raw_source(void *arg)
{
	struct sockaddr_in *sin = arg;
	char *buf = calloc(1, IO_SIZE);
	u64 end = aifs_now_ms() + seconds * 1000ULL;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (!buf || fd < 0 || connect(fd, (struct sockaddr *)sin, sizeof(*sin)))
		die("raw connect");
	while (aifs_now_ms() < end)
		if (write(fd, buf, IO_SIZE) < 0)
			die("raw write");
	close(fd);
	free(buf);
	return NULL;
}

static void run_raw(int streams)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	pthread_t src[MAX_STREAMS], sink[MAX_STREAMS];
	socklen_t len = sizeof(sin);
	int l = socket(AF_INET, SOCK_STREAM, 0), i, fd;

	if (l < 0 || bind(l, (struct sockaddr *)&sin, sizeof(sin)) ||
	    listen(l, streams) || getsockname(l, (struct sockaddr *)&sin, &len))
		die("raw listen");
	for (i = 0; i < streams; i++) {
		pthread_create(&src[i], NULL, raw_source, &sin);
		fd = accept(l, NULL, NULL);
		if (fd < 0)
			die("accept");
		pthread_create(&sink[i], NULL, raw_sink, (void *)(long)fd);
	}
	for (i = 0; i < streams; i++) {
		pthread_join(src[i], NULL);
		pthread_join(sink[i], NULL);
	}
	close(l);
}

/* ---- write, read: one aifs-ds ---- */

static void chunk_id(struct aifs_chunk_id *id, int stream, u64 i)
{
	unsigned int b;
	int k;
	const char *s = fs_uuid;

	memset(id, 0, sizeof(*id));
	for (k = 0; k < 16; k++, s += 2) {
		if (*s == '-')
			s++;
		if (sscanf(s, "%2x", &b) != 1)
			die("fs uuid");
		id->fs_uuid[k] = b;
	}
	id->ino = cpu_to_le64(1000 + stream);
	id->index = cpu_to_le32(i % CHUNKS_PER_STREAM);
}

static int one_write(struct aifs_conn *conn, int stream, u64 i, void *data,
		     struct aifs_reply *reply)
{
	struct aifs_chunk_write_req req = {
		.data_len = cpu_to_le32(IO_SIZE),
		.chunk_size = cpu_to_le32(IO_SIZE),
	};
	struct iovec iov[2] = { { &req, sizeof(req) }, { data, IO_SIZE } };

	chunk_id(&req.id, stream, i);
	return aifs_call(conn, AIFS_OP_CHUNK_WRITE, iov, 2, reply, 30000);
}

static int one_read(struct aifs_conn *conn, int stream, u64 i,
		    struct aifs_reply *reply)
{
	struct aifs_chunk_read_req req = { .length = cpu_to_le32(IO_SIZE) };
	struct iovec iov = { &req, sizeof(req) };

	chunk_id(&req.id, stream, i);
	return aifs_call(conn, AIFS_OP_CHUNK_READ, &iov, 1, reply, 30000);
}

static void *ds_stream(void *arg)
{
	int stream = (int)(long)arg;
	struct aifs_secret secret;
	struct aifs_connect_opts opts = {
		.host = "127.0.0.1", .port = port, .secret = &secret,
		.role = AIFS_ROLE_CLIENT,
	};
	struct aifs_reply reply;
	struct aifs_conn *conn;
	void *data = calloc(1, IO_SIZE);
	u64 end = aifs_now_ms() + seconds * 1000ULL, i;
	bool write = !strcmp(mode, "write");
	int err;

	if (!data || aifs_secret_load(&secret, secret_path, NULL, 0) ||
	    aifs_connect(&opts, &conn))
		die("connect to aifs-ds");
	for (i = 0; aifs_now_ms() < end || i < CHUNKS_PER_STREAM; i++) {
		err = write ? one_write(conn, stream, i, data, &reply) :
			one_read(conn, stream, i, &reply);
		if (err || reply.status) {
			fprintf(stderr, "%s: %d %u\n", mode, err, reply.status);
			exit(1);
		}
		aifs_reply_free(&reply);
		add_bytes(IO_SIZE);
	}
	aifs_close(conn);
	free(data);
	return NULL;
}

static void run_ds(int streams)
{
	pthread_t t[MAX_STREAMS];
	int i;

	for (i = 0; i < streams; i++)
		pthread_create(&t[i], NULL, ds_stream, (void *)(long)i);
	for (i = 0; i < streams; i++)
		pthread_join(t[i], NULL);
}

int main(int argc, char **argv)
{
	int streams;
	u64 start;

	if (argc < 4 || (strcmp(argv[1], "raw") && argc < 7)) {
		fprintf(stderr, "usage: see the top of bench/ds-load.c\n");
		return 2;
	}
	mode = argv[1];
	streams = atoi(argv[2]);
	seconds = atoi(argv[3]);
	if (streams < 1 || streams > MAX_STREAMS || seconds < 1)
		return 2;
	start = aifs_now_ms();
	if (!strcmp(mode, "raw")) {
		run_raw(streams);
	} else {
		port = argv[4];
		secret_path = argv[5];
		fs_uuid = argv[6];
		run_ds(streams);
	}
	printf("%.2f\n", total_bytes / 1e6 / (aifs_now_ms() - start));
	return 0;
}
