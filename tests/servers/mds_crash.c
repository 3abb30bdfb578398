// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Crash test: client processes create, rename and unlink in a storm
 * while aifs-mds is killed with SIGKILL; after a restart every change
 * acknowledged is there and nothing else but, possibly, the one change
 * each client had in flight, whole; and aifs-mds --check finds the
 * tables consistent.  The kill comes 600 ms after every client had a
 * change acknowledged in the round (a round where one had none would
 * test nothing of it); 3 rounds.
 */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mds_harness.h"


#define CLIENTS		4
#define ROUNDS		3
#define MAX_STEPS	300000
#define FIRST_ACK_MS	30000	/* a client's first change of a round */


static struct aifs_cred cred;

/*
 * A client's steps: for round i, create f<i>, rename f<i> to g<i>,
 * unlink g<i-1>.  Step s is round s / 3, part s % 3.
 */
static int do_step(struct aifs_conn *conn, u64 dir, int s)
{
	int i = s / 3;
	char a[32], b[32];
	struct aifs_entry_rep e;
	struct aifs_rename_rep r;

	switch (s % 3) {
	case 0:
		snprintf(a, sizeof(a), "f%d", i);
		return aifs_mknod(conn, &cred, dir, a, S_IFREG | 0644, 0, 0, &e);
	case 1:
		snprintf(a, sizeof(a), "f%d", i);
		snprintf(b, sizeof(b), "g%d", i);
		return aifs_rename(conn, &cred, dir, a, dir, b, 0, &r);
	default:
		if (!i)
			return 0;
		snprintf(a, sizeof(a), "g%d", i - 1);
		return aifs_unlink(conn, &cred, dir, a, &e);
	}
}

/* The names in the directory after @steps steps, as "f3 g2". */
static void state_after(int steps, char *out, size_t size)
{
	int i = (steps - 1) / 3, part = (steps - 1) % 3;

	if (!steps) {
		snprintf(out, size, "%s", "");
		return;
	}
	if (part == 0 && i)
		snprintf(out, size, "f%d g%d", i, i - 1);
	else if (part == 0)
		snprintf(out, size, "f%d", i);
	else if (part == 1 && i)
		snprintf(out, size, "g%d g%d", i, i - 1);
	else
		snprintf(out, size, "g%d", i);
}

/* Child: steps until the server dies, acknowledging each on @fd. */
static void storm(struct mds_harness *h, u64 dir, int start, int fd)
{
	struct aifs_conn *conn;
	int s;

	if (mds_harness_connect(h, &conn))
		_exit(1);
	for (s = start; s < MAX_STEPS && !do_step(conn, dir, s); s++)
		if (write(fd, &s, sizeof(s)) != sizeof(s))
			_exit(1);
	_exit(0);
}

static int listing(struct aifs_conn *conn, u64 dir, char *out, size_t size)
{
	static char buf[65536];
	struct aifs_readdir_page page;
	struct aifs_dirent ent;
	char name[AIFS_NAME_MAX + 1], f[AIFS_NAME_MAX + 1] = "",
	     g[2][AIFS_NAME_MAX + 1] = { "", "" };
	int err, ng = 0;

	err = aifs_readdir(conn, &cred, dir, 0, buf, sizeof(buf), &page);
	if (err)
		return err;
	while (aifs_readdir_next(&page, &ent, name) == 1) {
		if (name[0] == 'f')
			strcpy(f, name);
		else if (ng < 2)
			strcpy(g[ng++], name);
	}
	/* As state_after() writes it: f first, then g newest first. */
	if (ng == 2 && atoi(g[0] + 1) < atoi(g[1] + 1)) {
		strcpy(name, g[0]);
		strcpy(g[0], g[1]);
		strcpy(g[1], name);
	}
	snprintf(out, size, "%s%s%s%s%s", f, *f && ng ? " " : "", g[0],
		 ng == 2 ? " " : "", g[1]);
	return 0;
}

/*
 * The first acknowledgement on @fd (a storm()'s pipe) by @until, into
 * *@done; false when the client ended or was silent until then.
 */
static bool first_ack(int fd, int *done, u64 until)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	u64 now = aifs_now_ms();
	int s;

	if (now >= until || poll(&p, 1, until - now) != 1 ||
	    read(fd, &s, sizeof(s)) != sizeof(s))
		return false;
	*done = s + 1;
	return true;
}

static int round_storm(struct mds_harness *h, const u64 *dirs, int *done)
{
	struct timespec storm_time = { 0, 600 * 1000000L };
	u64 until = aifs_now_ms() + FIRST_ACK_MS;
	int pipes[CLIENTS][2], k, s;
	pid_t pids[CLIENTS];

	for (k = 0; k < CLIENTS; k++) {
		if (pipe(pipes[k]))
			return -errno;
		pids[k] = fork();
		if (!pids[k]) {
			close(pipes[k][0]);
			storm(h, dirs[k], done[k], pipes[k][1]);
		}
		close(pipes[k][1]);
	}
	for (k = 0; k < CLIENTS; k++)
		CHECK(first_ack(pipes[k][0], &done[k], until),
		      "client %d: nothing acknowledged before the kill", k);
	nanosleep(&storm_time, NULL);
	CHECK(mds_harness_stop(h, SIGKILL) == 128 + SIGKILL, "killed");
	for (k = 0; k < CLIENTS; k++) {
		while (read(pipes[k][0], &s, sizeof(s)) == sizeof(s))
			done[k] = s + 1;
		close(pipes[k][0]);
		waitpid(pids[k], NULL, 0);
	}
	return 0;
}

/* After the restart: acknowledged steps, maybe the one in flight. */
static void round_verify(struct mds_harness *h, const u64 *dirs, int *done)
{
	char got[128], acked[128], next[128];
	struct aifs_conn *conn;
	int k;

	CHECK(!mds_harness_start(h) && !mds_harness_connect(h, &conn),
	      "restart");
	if (test_failures)
		return;
	for (k = 0; k < CLIENTS; k++) {
		CHECK(!listing(conn, dirs[k], got, sizeof(got)), "readdir");
		state_after(done[k], acked, sizeof(acked));
		state_after(done[k] + 1, next, sizeof(next));
		CHECK(!strcmp(got, acked) || !strcmp(got, next),
		      "client %d after %d steps: \"%s\", want \"%s\" or \"%s\"",
		      k, done[k], got, acked, next);
		if (!strcmp(got, next))
			done[k]++;
		printf("client %d: %d steps acknowledged\n", k, done[k]);
	}
	aifs_close(conn);
}

int main(void)
{
	struct aifs_entry_rep e;
	struct mds_harness h;
	struct aifs_conn *conn;
	u64 dirs[CLIENTS];
	int done[CLIENTS] = { 0 }, k, round;
	char name[16];

	if (mds_harness_init(&h, "worker_threads = 8\n") ||
	    mds_harness_start(&h) || mds_harness_connect(&h, &conn)) {
		printf("FAIL: cannot start aifs-mds (log in %s)\n", h.srv.dir);
		return 1;
	}
	for (k = 0; k < CLIENTS; k++) {
		snprintf(name, sizeof(name), "c%d", k);
		CHECK(!aifs_mkdir(conn, &cred, AIFS_ROOT_INO, name, 0755, 0, &e),
		      "mkdir");
		dirs[k] = le64_to_cpu(e.attr.ino);
	}
	aifs_close(conn);
	for (round = 0; round < ROUNDS && !test_failures; round++) {
		CHECK(!round_storm(&h, dirs, done), "storm");
		round_verify(&h, dirs, done);
	}
	CHECK(mds_harness_stop(&h, SIGTERM) == 0, "clean stop");
	CHECK(mds_harness_run(&h, "--check") == 0, "--check");
	return test_result();
}
