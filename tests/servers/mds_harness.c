// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * See mds_harness.h.  AIFS_BUILD names the build directory (scripts/
 * run-tests sets it), AIFS_SERVER_WRAPPER a command to run the server
 * under (valgrind).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mds_harness.h"

#define SECRET	"test-secret-of-the-aifs-cluster"

static const char *mds_program(void)
{
	static char path[512];
	const char *build = getenv("AIFS_BUILD");

	snprintf(path, sizeof(path), "%s/bin/aifs-mds", build ? build : "build");
	return path;
}

static int write_file(const struct mds_harness *h, const char *name,
		      const char *text, mode_t mode)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", h->dir, name);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fputs(text, f);
	if (fclose(f))
		return -EIO;
	return chmod(path, mode) ? -errno : 0;
}

int mds_harness_run(struct mds_harness *h, const char *args)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "%s -c %s/mds.conf %s >>%s/mds.log 2>&1",
		 mds_program(), h->dir, args, h->dir);
	return system(cmd);
}

int mds_harness_init(struct mds_harness *h, const char *conf)
{
	char text[2048], why[256];
	int err;

	memset(h, 0, sizeof(*h));
	strcpy(h->dir, "/tmp/aifs-mds-test-XXXXXX");
	if (!mkdtemp(h->dir))
		return -errno;
	snprintf(text, sizeof(text),
		 "listen_address = 127.0.0.1\nlisten_port = 0\n"
		 "secret_file = %s/secret\ndb_path = %s/db\n"
		 "map_size_mib = 1024\nio_timeout = 5\n%s",
		 h->dir, h->dir, conf);
	err = write_file(h, "secret", SECRET "\n", 0600);
	if (!err)
		err = write_file(h, "mds.conf", text, 0644);
	snprintf(text, sizeof(text), "%s/secret", h->dir);
	if (!err)
		err = aifs_secret_load(&h->secret, text, why, sizeof(why));
	if (!err && mds_harness_run(h, "--format"))
		err = -EIO;
	return err;
}

/* The port from the "listening on 127.0.0.1:PORT (tcp)" log line. */
static int harness_port(struct mds_harness *h)
{
	char path[128], line[256], *p;
	FILE *log;
	int found = 0;

	snprintf(path, sizeof(path), "%s/mds.log", h->dir);
	log = fopen(path, "r");
	if (!log)
		return 0;
	while (fgets(line, sizeof(line), log)) {
		p = strstr(line, "listening on 127.0.0.1:");
		if (p) {
			snprintf(h->port, sizeof(h->port), "%d",
				 atoi(p + strlen("listening on 127.0.0.1:")));
			found = 1;
		}
	}
	fclose(log);
	return found;
}

static void harness_exec(struct mds_harness *h)
{
	char conf[128], log[128];
	const char *wrapper = getenv("AIFS_SERVER_WRAPPER");
	char cmd[1024];

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	snprintf(conf, sizeof(conf), "%s/mds.conf", h->dir);
	snprintf(log, sizeof(log), "%s/mds.log", h->dir);
	if (!freopen(log, "a", stderr))
		_exit(126);
	snprintf(cmd, sizeof(cmd), "exec %s %s -c %s", wrapper ? wrapper : "",
		 mds_program(), conf);
	execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
	_exit(127);
}

int mds_harness_start(struct mds_harness *h)
{
	struct timespec ts = { 0, 20 * 1000000L };
	char path[128];
	int i;

	/* A fresh log: the port of an earlier run must not be read. */
	snprintf(path, sizeof(path), "%s/mds.log", h->dir);
	if (truncate(path, 0) && errno != ENOENT)
		return -errno;
	h->pid = fork();
	if (h->pid < 0)
		return -errno;
	if (!h->pid)
		harness_exec(h);
	for (i = 0; i < 1500; i++) {
		if (harness_port(h))
			return 0;
		if (waitpid(h->pid, NULL, WNOHANG) == h->pid)
			break;
		nanosleep(&ts, NULL);
	}
	h->pid = 0;
	return -EIO;
}

int mds_harness_stop(struct mds_harness *h, int sig)
{
	int status;

	if (!h->pid)
		return -1;
	kill(h->pid, sig);
	if (waitpid(h->pid, &status, 0) != h->pid)
		return -1;
	h->pid = 0;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int mds_harness_connect(struct mds_harness *h, struct aifs_conn **conn)
{
	struct aifs_connect_opts opts = {
		.host = "127.0.0.1",
		.port = h->port,
		.secret = &h->secret,
		.role = AIFS_ROLE_CLIENT,
	};

	return aifs_connect(&opts, conn);
}

void mds_harness_cleanup(struct mds_harness *h)
{
	char cmd[128];

	if (h->pid)
		mds_harness_stop(h, SIGKILL);
	if (getenv("AIFS_KEEP_TEST_DIR"))
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", h->dir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", h->dir);
}
