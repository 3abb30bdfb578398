// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Open files belong to a client, not to its connection: an unlinked file
 * that a client holds open keeps its inode across the client's
 * reconnection, and goes when the client stays away past open_grace_ms;
 * a client without a uuid loses its opens with its session.  A second
 * aifs-mds on the database is refused at once and frees none of them.
 *
 * The sleeps here are windows in which something must NOT happen (an
 * orphan freed while its client is back or still has a session): a
 * loaded machine only makes them longer in effect, never lets a freed
 * orphan pass for a kept one.  What must happen is waited for
 * (freed_within()).  The MDS shows no session count, so "let the server
 * see it go" cannot wait on state: on a slow machine that check may run
 * before the server saw the close, and then proves less, never fails
 * wrongly.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "mds_harness.h"

#define GRACE_MS	3000
#define GONE_WAIT_MS	(10 * GRACE_MS)

static struct mds_harness h;
static struct aifs_conn *watcher;	/* a client of its own, never closed */
static struct aifs_cred cred;
static const u8 uuid_u[16] = { 0xa1, 1 }, uuid_v[16] = { 0xa1, 2 };
static const u8 uuid_w[16] = { 0xa1, 3 };

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static struct aifs_conn *connect_as(const u8 *uuid)
{
	struct aifs_conn *c = NULL;

	CHECK(!mds_harness_connect_as(&h, uuid, &c), "connect");
	return c;
}

/* Create @name open for writing and unlink it: an orphan held by @c. */
static u64 orphan(struct aifs_conn *c, const char *name, u64 *handle)
{
	struct aifs_create_rep rep;
	struct aifs_entry_rep e;

	CHECK(!aifs_create(c, &cred, AIFS_ROOT_INO, name, 0644, 022,
			   AIFS_OPEN_RDWR, &rep), "create %s", name);
	CHECK(!aifs_unlink(c, &cred, AIFS_ROOT_INO, name, &e), "unlink %s",
	      name);
	*handle = le64_to_cpu(rep.open.handle);
	return le64_to_cpu(rep.open.attr.ino);
}

static int getattr(u64 ino)
{
	struct aifs_attr attr;

	return aifs_getattr(watcher, &cred, ino, &attr);
}

/* Wait for the orphan @ino to be freed; false if it never is. */
static bool freed_within(u64 ino, int ms)
{
	for (; ms > 0; ms -= 50) {
		if (getattr(ino) == -ESTALE)
			return true;
		sleep_ms(50);
	}
	return false;
}

static int release(struct aifs_conn *c, u64 ino, u64 handle)
{
	struct aifs_attr attr;

	return aifs_release(c, &cred, ino, handle, 0, NULL, &attr);
}

static void test_without_uuid(void)
{
	static const u8 none[16];
	struct aifs_conn *c = connect_as(none);
	u64 handle, ino = orphan(c, "no-uuid", &handle);

	aifs_close(c);
	CHECK(freed_within(ino, GONE_WAIT_MS),
	      "the orphan of a client without uuid outlived its session");
}

static void test_reconnect_keeps_opens(void)
{
	struct aifs_conn *c = connect_as(uuid_u), *other;
	u64 handle, ino = orphan(c, "reconnect", &handle);

	aifs_close(c);
	sleep_ms(GRACE_MS / 6);		/* let the server see it go */
	CHECK(getattr(ino) == 0, "orphan freed at once when its client left");
	c = connect_as(uuid_u);
	other = connect_as(uuid_v);
	CHECK(release(other, ino, handle) == -EBADF,
	      "another client closed the handle");
	sleep_ms(GRACE_MS + GRACE_MS / 2);
	CHECK(getattr(ino) == 0, "orphan freed while its client was back");
	CHECK(release(c, ino, handle) == 0, "close after reconnecting");
	CHECK(getattr(ino) == -ESTALE, "orphan kept after its last close");
	aifs_close(other);
	aifs_close(c);
}

/* Two connections of one client: the opens stay while either lives. */
static void test_client_with_two_sessions(void)
{
	struct aifs_conn *a = connect_as(uuid_u), *b = connect_as(uuid_u);
	u64 handle, ino = orphan(a, "two-sessions", &handle);

	aifs_close(a);
	sleep_ms(GRACE_MS + GRACE_MS / 2);
	CHECK(getattr(ino) == 0, "orphan freed while its client had a session");
	aifs_close(b);
	CHECK(freed_within(ino, GONE_WAIT_MS),
	      "orphan of a client gone for good never freed");
}

/*
 * A second aifs-mds started on the database (the config asks for a free
 * port: no failure to bind stops it) must exit at once, before it takes
 * the first one's open orphan for a crash's leftover and frees it.  One
 * that serves instead is ended by the timeout (status 124).
 */
static void test_second_mds(void)
{
	struct aifs_conn *c = connect_as(uuid_w);
	u64 handle, ino = orphan(c, "second-mds", &handle);
	char cmd[512];
	int status;

	snprintf(cmd, sizeof(cmd),
		 "timeout 10 %s -c %s/server.conf >>%s/server.log 2>&1",
		 test_bin("aifs-mds"), h.srv.dir, h.srv.dir);
	status = system(cmd);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1,
	      "a second aifs-mds on the database: exit %d, want 1",
	      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	CHECK(test_server_logged(&h.srv, "aifs-mds.lock: another aifs-mds holds it"),
	      "the second aifs-mds did not name the lock it could not take");
	CHECK(getattr(ino) == 0,
	      "the second aifs-mds freed an orphan open on the first");
	CHECK(release(c, ino, handle) == 0,
	      "close after the second aifs-mds started");
	CHECK(getattr(ino) == -ESTALE, "orphan kept after its last close");
	aifs_close(c);
}

int main(void)
{
	char conf[96];

	setvbuf(stdout, NULL, _IONBF, 0);
	snprintf(conf, sizeof(conf),
		 "open_grace_ms = %d\nheartbeat_grace_ms = 400\n", GRACE_MS);
	if (aifs_cred_self(&cred) || mds_harness_init(&h, conf) ||
	    mds_harness_start(&h) || mds_harness_connect(&h, &watcher)) {
		printf("FAIL: cannot start aifs-mds (log in %s)\n", h.srv.dir);
		return 1;
	}
	test_second_mds();
	test_without_uuid();
	test_reconnect_keeps_opens();
	test_client_with_two_sessions();
	aifs_close(watcher);
	CHECK(mds_harness_stop(&h, SIGTERM) == 0, "clean stop");
	return test_result();
}
