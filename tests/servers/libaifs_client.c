// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * libaifs against aifs-echo-server on loopback: the secret file rules,
 * connect and handshake over IPv4 and IPv6, refusals both ways (a client
 * with the wrong secret, a server without it), many threads calling on one
 * connection, timeouts, and a server that goes away.
 *
 * AIFS_SERVER_WRAPPER (e.g. "valgrind --error-exitcode=99") runs the server
 * under that command.
 */
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#define THREADS		8
#define CALLS		25

static void test_secret_file(void)
{
	char path[128], why[256], big[AIFS_SECRET_MAX + 2];
	struct aifs_secret s;
	int err;

	snprintf(path, sizeof(path), "%s/s", test_dir);
	err = aifs_secret_load(&s, path, why, sizeof(why));
	CHECK(err == -ENOENT && strstr(why, path), "missing: %d %s", err, why);

	test_write_file("s", "0123456789abcdef\n", 0600);
	err = aifs_secret_load(&s, path, why, sizeof(why));
	CHECK(!err && s.len == 16 && !memcmp(s.key, "0123456789abcdef", 16),
	      "16 bytes and a newline: %d", err);

	test_write_file("s", "0123456789abcdef\n", 0644);
	err = aifs_secret_load(&s, path, why, sizeof(why));
	CHECK(err == -EPERM && strstr(why, "readable by others"),
	      "world-readable: %d %s", err, why);

	test_write_file("s", "0123456789abcde\n", 0600);
	err = aifs_secret_load(&s, path, why, sizeof(why));
	CHECK(err == -EINVAL && strstr(why, "not 15"), "short: %d %s", err, why);

	test_write_file("s", "0123456789abcdef\n\n", 0600);
	err = aifs_secret_load(&s, path, why, sizeof(why));
	CHECK(!err && s.len == 17, "only one newline stripped: %d", err);

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	test_write_file("s", big, 0600);
	err = aifs_secret_load(&s, path, why, sizeof(why));
	CHECK(err == -EINVAL && strstr(why, "more than 256"), "long: %d %s",
	      err, why);
}

static void test_connect_and_ping(const struct aifs_secret *s)
{
	static const char *const hosts[] = { "127.0.0.1", "::1", "localhost" };
	struct aifs_conn *conn;
	unsigned int i;
	int err;

	for (i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++) {
		err = test_connect(hosts[i], test_port, s, 0, &conn);
		CHECK(!err, "connect %s: %s", hosts[i], strerror(-err));
		if (err)
			continue;
		CHECK(aifs_conn_version(conn) == AIFS_PROTO_VERSION, "version");
		err = aifs_ping(conn, 5000);
		CHECK(!err, "ping %s: %s", hosts[i], strerror(-err));
		aifs_close(conn);
	}
}

static void test_wrong_secret(void)
{
	struct aifs_secret other;
	struct aifs_conn *conn;
	int err;

	test_load_secret(&other, "another-cluster-entirely");
	err = test_connect("127.0.0.1", test_port, &other, 0, &conn);
	CHECK(err == -EACCES, "wrong secret: %d", err);
}

/* A server that answers the handshake without knowing the secret. */
static void *impostor(void *arg)
{
	int lfd = *(int *)arg, fd;
	struct {
		struct aifs_frame_hdr hdr;
		union {
			struct aifs_hello_rep hello;
			struct aifs_auth_rep auth;
		};
	} msg;		/* no padding: 48-byte header, 8-aligned union */
	u8 buf[256];
	u16 opcode;
	u32 len;
	int i;

	fd = accept(lfd, NULL, NULL);
	for (i = 0; i < 2 && fd >= 0; i++) {
		if (recv(fd, buf, sizeof(msg.hdr), MSG_WAITALL) != sizeof(msg.hdr))
			break;
		memcpy(&msg.hdr, buf, sizeof(msg.hdr));
		opcode = le16_to_cpu(msg.hdr.opcode);
		len = le32_to_cpu(msg.hdr.payload_len);
		if (len > sizeof(buf) || recv(fd, buf, len, MSG_WAITALL) != len)
			break;
		memset(&msg.auth, 0, sizeof(msg.hello));
		msg.hello.version = cpu_to_le16(AIFS_PROTO_VERSION);
		len = opcode == AIFS_OP_HELLO ? sizeof(msg.hello) :
						sizeof(msg.auth);
		aifs_frame_hdr_init(&msg.hdr, opcode, AIFS_FLAG_REPLY,
				    le64_to_cpu(msg.hdr.request_id), len);
		aifs_frame_hdr_seal(&msg.hdr);
		if (send(fd, &msg, sizeof(msg.hdr) + len, MSG_NOSIGNAL) < 0)
			break;
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* A loopback listener that never accepts; its port in @service. */
static int quiet_listener(char *service)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	socklen_t len = sizeof(sin);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&sin, sizeof(sin)) ||
	    listen(fd, 4) || getsockname(fd, (struct sockaddr *)&sin, &len)) {
		perror("listener");
		exit(1);
	}
	snprintf(service, 8, "%d", ntohs(sin.sin_port));
	return fd;
}

/* To a listener of the test's own, which speaks TCP whatever the run. */
static int connect_tcp(const char *service, const struct aifs_secret *s,
		       int timeout_ms, struct aifs_conn **conn)
{
	struct aifs_connect_opts opts = {
		.host = "127.0.0.1", .port = service, .secret = s,
		.role = AIFS_ROLE_ADMIN, .timeout_ms = timeout_ms,
	};

	return aifs_connect(&opts, conn);
}

static void test_impostor_server(const struct aifs_secret *s)
{
	struct aifs_conn *conn;
	char service[8];
	pthread_t thread;
	int fd, err;

	fd = quiet_listener(service);
	pthread_create(&thread, NULL, impostor, &fd);
	err = connect_tcp(service, s, 5000, &conn);
	CHECK(err == -EACCES, "server without the secret: %d", err);
	pthread_join(thread, NULL);
	close(fd);
}

static void test_silent_server(const struct aifs_secret *s)
{
	struct aifs_conn *conn;
	char service[8];
	u64 start = time(NULL);
	int fd, err;

	fd = quiet_listener(service);
	err = connect_tcp(service, s, 300, &conn);
	CHECK(err == -ETIMEDOUT, "silent server: %d", err);
	CHECK(time(NULL) - start < 3, "connect timeout not kept");
	close(fd);
	/* Nobody listens there any more (nor for RDMA, in an RDMA run). */
	err = test_connect("127.0.0.1", service, s, 0, &conn);
	CHECK(err == -ECONNREFUSED, "closed port: %d", err);
}

/*
 * Half the calls are empty PINGs (answered 0 after ping_delay_ms), half
 * carry a payload (answered EINVAL at once): replies overtake each other,
 * and each must reach the thread that asked.
 */
static int pinger(struct aifs_conn *conn, int index)
{
	char note[32] = "";
	struct iovec iov = { note, sizeof(note) };
	struct aifs_reply reply;
	int i, err, errors = 0;
	bool empty;

	for (i = 0; i < CALLS; i++) {
		empty = (i + index) % 2;
		snprintf(note, sizeof(note), "thread %d call %d", index, i);
		err = aifs_call(conn, AIFS_OP_PING, empty ? NULL : &iov,
				empty ? 0 : 1, &reply, 10000);
		if (err || reply.status != (empty ? 0 : EINVAL) || reply.len)
			errors++;
		if (!err)
			aifs_reply_free(&reply);
	}
	return errors;
}

/* Run @fn on a new connection to the echo server, then close it. */
static void with_connection(const struct aifs_secret *s,
			    void (*fn)(struct aifs_conn *conn))
{
	struct aifs_conn *conn;
	int err;

	err = test_connect("127.0.0.1", test_port, s, 0, &conn);
	CHECK(!err, "connect: %d", err);
	if (err)
		return;
	fn(conn);
	aifs_close(conn);
}

static void test_concurrent_callers(struct aifs_conn *conn)
{
	test_threads(conn, THREADS, pinger);
}

static void test_call_timeout(struct aifs_conn *conn)
{
	int err;

	err = aifs_ping(conn, 1);
	CHECK(err == -ETIMEDOUT, "1 ms for a 20 ms PING: %d", err);
	/* The late reply is dropped; the connection goes on. */
	err = aifs_ping(conn, 5000);
	CHECK(!err, "ping after a timeout: %d", err);
}

static void test_server_goes_away(struct aifs_conn *conn)
{
	int err;

	test_server_stop();
	err = aifs_ping(conn, 5000);
	CHECK(err < 0 && err != -ETIMEDOUT, "ping a stopped server: %d", err);
}

int main(void)
{
	struct aifs_secret secret;

	test_init();
	test_load_secret(&secret, TEST_SECRET "\n");
	test_server_start("aifs-echo-server",
			  "ping_on_worker = yes\nping_delay_ms = 20\n"
			  "worker_threads = 4\n");

	test_secret_file();
	test_connect_and_ping(&secret);
	test_wrong_secret();
	test_impostor_server(&secret);
	test_silent_server(&secret);
	with_connection(&secret, test_concurrent_callers);
	with_connection(&secret, test_call_timeout);
	with_connection(&secret, test_server_goes_away);
	return test_result();
}
