// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The shared pieces of the C tests of tests/servers (testutil.h).
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

char test_dir[] = "/tmp/aifs-test-XXXXXX";
char test_port[8];
int test_failures;
static pid_t server_pid;

void test_write_file(const char *name, const char *text, mode_t mode)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", test_dir, name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(1);
	}
	chmod(path, mode);
}

void test_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };

	nanosleep(&ts, NULL);
}

static void test_cleanup(void)
{
	char cmd[128];

	if (server_pid > 0)
		kill(server_pid, SIGKILL);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", test_dir);
	if (system(cmd))
		printf("could not remove %s\n", test_dir);
}

void test_init(void)
{
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

/* In the child: run the server with its output in @log. */
static void server_exec(const char *prog, const char *log)
{
	const char *wrapper = getenv("AIFS_SERVER_WRAPPER");
	const char *build = getenv("AIFS_BUILD");
	char cmd[1024];
	int fd;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	dup2(fd, 1);
	dup2(fd, 2);
	snprintf(cmd, sizeof(cmd), "exec %s %s/bin/%s -c %s/server.conf",
		 wrapper ? wrapper : "", build ? build : "build", prog,
		 test_dir);
	execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
	_exit(127);
}

/* The port of a "listening on [addr]:port" line of @log, if there is one. */
static bool server_port(const char *log)
{
	char line[256], *p;
	bool found = false;
	FILE *f;

	f = fopen(log, "r");
	while (f && !found && fgets(line, sizeof(line), f)) {
		p = strstr(line, "listening on ");
		if (p && (p = strrchr(line, ':'))) {
			snprintf(test_port, sizeof(test_port), "%d",
				 atoi(p + 1));
			found = true;
		}
	}
	if (f)
		fclose(f);
	return found;
}

void test_server_start(const char *prog, const char *settings)
{
	char conf[1024], log[128];
	int i;

	snprintf(conf, sizeof(conf),
		 "listen_address = ::\nlisten_port = 0\n"
		 "secret_file = %s/secret\n%s",
		 test_dir, settings);
	test_write_file("server.conf", conf, 0644);
	snprintf(log, sizeof(log), "%s/server.log", test_dir);
	server_pid = fork();
	if (server_pid == 0)
		server_exec(prog, log);
	for (i = 0; i < 600; i++) {
		if (server_port(log))
			return;
		test_sleep_ms(50);
	}
	printf("%s did not start\n", prog);
	kill(server_pid, SIGKILL);
	exit(1);
}

void test_server_stop(void)
{
	int status, i;

	kill(server_pid, SIGTERM);
	for (i = 0; i < 600; i++) {
		if (waitpid(server_pid, &status, WNOHANG) == server_pid) {
			CHECK(WIFEXITED(status) && !WEXITSTATUS(status),
			      "server exit status %#x", status);
			server_pid = 0;
			return;
		}
		test_sleep_ms(50);
	}
	CHECK(0, "server did not stop");
	kill(server_pid, SIGKILL);
	waitpid(server_pid, &status, 0);
	server_pid = 0;
}

int test_connect(const char *host, const char *port,
		 const struct aifs_secret *s, int timeout_ms,
		 struct aifs_conn **conn)
{
	struct aifs_connect_opts opts = {
		.host = host, .port = port, .secret = s,
		.role = AIFS_ROLE_ADMIN, .timeout_ms = timeout_ms,
	};

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
