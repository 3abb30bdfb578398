// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The shared pieces of the C tests of tests/servers (testutil.h).
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

/* How often a wait looks again. */
#define TEST_POLL_MS		20
/* Servers running at once, at the most (the MDS and four data servers). */
#define TEST_MAX_SERVERS	8

char test_dir[] = "/tmp/aifs-test-XXXXXX";
char test_port[8];
int test_failures;
static pid_t running[TEST_MAX_SERVERS];	/* killed at exit */
static struct test_server test_srv;	/* test_server_start()'s */

static void write_path(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(1);
	}
	chmod(path, mode);
}

void test_write_file(const char *name, const char *text, mode_t mode)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", test_dir, name);
	write_path(path, text, mode);
}

int test_free_port(void)
{
	static unsigned int seed;
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int low = 0, fd, port, tries;
	bool free;
	FILE *f;

	f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
	if (!f || fscanf(f, "%d", &low) != 1)
		low = 32768;
	if (f)
		fclose(f);
	if (low <= TEST_PORT_MIN + 1000)
		return 0;
	if (!seed)
		seed = (unsigned int)getpid() ^ (unsigned int)time(NULL);
	for (tries = 0; tries < 100; tries++) {
		port = TEST_PORT_MIN + rand_r(&seed) % (low - TEST_PORT_MIN);
		sin.sin_port = htons(port);
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		free = fd >= 0 && !bind(fd, (struct sockaddr *)&sin,
					sizeof(sin));
		if (fd >= 0)
			close(fd);
		if (free)
			return port;
	}
	return 0;
}

void test_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };

	nanosleep(&ts, NULL);
}

static void test_cleanup(void)
{
	char cmd[128];
	int i;

	for (i = 0; i < TEST_MAX_SERVERS; i++) {
		if (running[i] > 0) {
			kill(running[i], SIGKILL);
			waitpid(running[i], NULL, 0);
		}
	}
	/* a failure is read from its servers' logs, not run again */
	if (test_failures || getenv("AIFS_KEEP_TEST_DIRS")) {
		printf("kept %s (the servers' logs are there)\n", test_dir);
		return;
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", test_dir);
	if (system(cmd))
		printf("could not remove %s\n", test_dir);
}

void test_init(void)
{
	static bool done;

	if (done)
		return;
	done = true;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!mkdtemp(test_dir)) {
		perror("mkdtemp");
		exit(1);
	}
	atexit(test_cleanup);
	test_write_file("secret", TEST_SECRET "\n", 0600);
}

int test_result(void)
{
	printf("%s\n", test_failures ? "FAILED" : "all passed");
	return test_failures ? 1 : 0;
}

void test_load_secret(struct aifs_secret *s, const char *text)
{
	char path[128], why[256];
	int err;

	test_write_file("tmp-secret", text, 0600);
	snprintf(path, sizeof(path), "%s/tmp-secret", test_dir);
	err = aifs_secret_load(s, path, why, sizeof(why));
	if (err) {
		printf("%s\n", why);
		exit(1);
	}
}

const char *test_bin(const char *prog)
{
	static char path[512];
	const char *build = getenv("AIFS_BUILD");

	snprintf(path, sizeof(path), "%s/bin/%s", build ? build : "build",
		 prog);
	return path;
}

void test_server_write_config(const struct test_server *srv,
			      const char *conf)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/server.conf", srv->dir);
	write_path(path, conf, 0644);
}

/* Remember @pid for test_cleanup(), or forget it (@pid 0 for @old). */
static void server_track(pid_t old, pid_t pid)
{
	int i;

	for (i = 0; i < TEST_MAX_SERVERS; i++) {
		if (running[i] == old) {
			running[i] = pid;
			return;
		}
	}
	printf("more than %d servers\n", TEST_MAX_SERVERS);
	exit(1);
}

/* In the child: run the server with its output to @log_fd. */
static void server_exec(const struct test_server *srv, int log_fd)
{
	const char *wrapper = getenv("AIFS_SERVER_WRAPPER");
	char cmd[1024];

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	dup2(log_fd, 1);
	dup2(log_fd, 2);
	snprintf(cmd, sizeof(cmd), "exec %s %s -c %s/server.conf",
		 wrapper ? wrapper : "", test_bin(srv->prog), srv->dir);
	execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
	_exit(127);
}

/* The port of a "listening on [addr]:port" line of @log, if there is one. */
static bool server_port(const char *log, char *port, size_t size)
{
	char line[256], *p;
	bool found = false;
	FILE *f;

	f = fopen(log, "r");
	while (f && !found && fgets(line, sizeof(line), f)) {
		p = strstr(line, "listening on ");
		if (p && (p = strrchr(line, ':'))) {
			snprintf(port, size, "%d", atoi(p + 1));
			found = true;
		}
	}
	if (f)
		fclose(f);
	return found;
}

static bool server_exited(struct test_server *srv)
{
	if (waitpid(srv->pid, NULL, WNOHANG) != srv->pid)
		return false;
	server_track(srv->pid, 0);
	srv->pid = 0;
	return true;
}

/*
 * The log of the server's last run kept as server.log.N, the first N
 * free: what a server did before a restart is often what a failure
 * needs (test_server_logged() reads the current run's only).
 */
static void server_log_keep(const char *log)
{
	char kept[160];
	int n;

	for (n = 1; n < 1000; n++) {
		snprintf(kept, sizeof(kept), "%s.%d", log, n);
		if (access(kept, F_OK)) {
			if (rename(log, kept) && errno != ENOENT)
				perror(kept);
			return;
		}
	}
}

int test_server_spawn(struct test_server *srv, int timeout_ms)
{
	char log[128], cmd[160];
	int fd, ms;

	snprintf(log, sizeof(log), "%s/server.log", srv->dir);
	server_log_keep(log);
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
	if (fd < 0) {
		perror(log);
		exit(1);
	}
	srv->pid = fork();
	if (srv->pid == 0)
		server_exec(srv, fd);
	close(fd);
	server_track(0, srv->pid);
	for (ms = 0; ms < timeout_ms; ms += TEST_POLL_MS) {
		if (server_port(log, srv->port, sizeof(srv->port)))
			return 0;
		if (server_exited(srv))
			break;
		test_sleep_ms(TEST_POLL_MS);
	}
	printf("%s did not start; its log:\n", srv->prog);
	snprintf(cmd, sizeof(cmd), "cat %s", log);
	if (system(cmd))
		printf("(no log)\n");
	test_server_signal(srv, SIGKILL, timeout_ms);
	return -EIO;
}

bool test_server_logged(const struct test_server *srv, const char *words)
{
	char path[128], line[512];
	bool found = false;
	FILE *log;

	snprintf(path, sizeof(path), "%s/server.log", srv->dir);
	log = fopen(path, "r");
	while (log && !found && fgets(line, sizeof(line), log))
		found = strstr(line, words);
	if (log)
		fclose(log);
	return found;
}

int test_server_signal(struct test_server *srv, int sig, int timeout_ms)
{
	int status, ms;

	if (!srv->pid)
		return -1;
	kill(srv->pid, sig);
	for (ms = 0; waitpid(srv->pid, &status, WNOHANG) != srv->pid;
	     ms += TEST_POLL_MS) {
		if (ms >= timeout_ms) {
			kill(srv->pid, SIGKILL);
			waitpid(srv->pid, &status, 0);
			status = -1;
			break;
		}
		test_sleep_ms(TEST_POLL_MS);
	}
	server_track(srv->pid, 0);
	srv->pid = 0;
	if (status == -1)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) :
				   128 + WTERMSIG(status);
}

void test_server_start(const char *prog, const char *settings)
{
	char conf[1024];

	test_srv.prog = prog;
	snprintf(test_srv.dir, sizeof(test_srv.dir), "%s", test_dir);
	snprintf(conf, sizeof(conf),
		 "listen_address = ::\nlisten_port = 0\n"
		 "secret_file = %s/secret\n%s",
		 test_dir, settings);
	test_server_write_config(&test_srv, conf);
	if (test_server_spawn(&test_srv, TEST_SERVER_WAIT_MS))
		exit(1);
	snprintf(test_port, sizeof(test_port), "%s", test_srv.port);
}

void test_server_stop(void)
{
	int status = test_server_signal(&test_srv, SIGTERM,
					TEST_SERVER_WAIT_MS);

	CHECK(status == 0, "server exit status %d (-1: did not stop)", status);
}

static const char *test_rdma_address(void)
{
	const char *rdma = getenv("AIFS_TEST_RDMA");

	return rdma && *rdma ? rdma : NULL;
}

void test_transport(struct aifs_connect_opts *opts)
{
	if (test_rdma_address()) {
		opts->host = test_rdma_address();
		opts->transport = AIFS_TRANSPORT_RDMA;
	}
}

const char *test_listen_address(void)
{
	return test_rdma_address() ? test_rdma_address() : "127.0.0.1";
}

int test_connect(const char *host, const char *port,
		 const struct aifs_secret *s, int timeout_ms,
		 struct aifs_conn **conn)
{
	struct aifs_connect_opts opts = {
		.host = host, .port = port, .secret = s,
		.role = AIFS_ROLE_ADMIN, .timeout_ms = timeout_ms,
	};

	test_transport(&opts);
	return aifs_connect(&opts, conn);
}

struct test_thread {
	pthread_t thread;
	struct aifs_conn *conn;
	int index;
	int (*fn)(struct aifs_conn *conn, int index);
	int errors;
};

static void *test_thread_main(void *arg)
{
	struct test_thread *t = arg;

	t->errors = t->fn(t->conn, t->index);
	return NULL;
}

void test_threads(struct aifs_conn *conn, int n,
		  int (*fn)(struct aifs_conn *conn, int index))
{
	struct test_thread *t = calloc(n, sizeof(*t));
	int i;

	for (i = 0; i < n; i++) {
		t[i] = (struct test_thread){ .conn = conn, .index = i,
					     .fn = fn };
		pthread_create(&t[i].thread, NULL, test_thread_main, &t[i]);
	}
	for (i = 0; i < n; i++) {
		pthread_join(t[i].thread, NULL);
		CHECK(!t[i].errors, "thread %d: %d wrong replies", i,
		      t[i].errors);
	}
	free(t);
}
