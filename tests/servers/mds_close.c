// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * CLOSE commits the size of this opener's writes, not a size that a
 * truncate by another session made stale: two sessions on one file.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "mds_harness.h"

static struct aifs_conn *a, *b;
static struct aifs_cred cred;

static u64 size_after_close(struct aifs_conn *c, u64 ino, u64 handle,
			    u64 size)
{
	struct timespec mtime = { 1700000000, 0 };
	struct aifs_attr attr;
	int err;

	err = aifs_release(c, &cred, ino, handle, size, &mtime, &attr);
	CHECK(!err, "close: %d", err);
	return le64_to_cpu(attr.size);
}

static u64 open_rw(struct aifs_conn *c, u64 ino)
{
	struct aifs_open_rep rep;

	CHECK(!aifs_open(c, &cred, ino, AIFS_OPEN_RDWR, &rep), "open");
	return le64_to_cpu(rep.handle);
}

static void set_size(struct aifs_conn *c, u64 ino, u64 handle, u64 size)
{
	struct aifs_setattr sa = { .ino = ino, .handle = handle,
				   .valid = AIFS_SETATTR_SIZE, .size = size };
	struct aifs_attr attr;

	CHECK(!aifs_setattr(c, &cred, &sa, &attr), "setattr size %llu",
	      (unsigned long long)size);
}

static void test_truncate_between(void)
{
	struct aifs_create_rep rep;
	u64 ino, ha, hb, size;

	CHECK(!aifs_create(a, &cred, AIFS_ROOT_INO, "f", 0644, 022,
			   AIFS_OPEN_RDWR, &rep), "create");
	ino = le64_to_cpu(rep.open.attr.ino);
	ha = le64_to_cpu(rep.open.handle);
	set_size(a, ino, ha, 1000);		/* A wrote 1000 bytes */
	hb = open_rw(b, ino);
	set_size(b, ino, hb, 10);		/* B truncates */
	size = size_after_close(a, ino, ha, 1000);
	CHECK(size == 10, "A's close undid B's truncate: size %llu",
	      (unsigned long long)size);
	/* B's own truncate does not stop B's close from growing it. */
	size = size_after_close(b, ino, hb, 20);
	CHECK(size == 20, "B's close: size %llu", (unsigned long long)size);
	/* A new open after the truncate grows it as before. */
	ha = open_rw(a, ino);
	size = size_after_close(a, ino, ha, 5000);
	CHECK(size == 5000, "a later close: size %llu",
	      (unsigned long long)size);
}

/* O_TRUNC by another opener counts as a truncate too. */
static void test_open_trunc_between(void)
{
	struct aifs_open_rep rep;
	struct aifs_entry_rep e;
	u64 ino, ha, size;

	CHECK(!aifs_lookup(a, &cred, AIFS_ROOT_INO, "f", &e), "lookup");
	ino = le64_to_cpu(e.attr.ino);
	ha = open_rw(a, ino);
	CHECK(!aifs_open(b, &cred, ino, AIFS_OPEN_RDWR | AIFS_OPEN_TRUNC, &rep),
	      "open O_TRUNC");
	size = size_after_close(a, ino, ha, 5000);
	CHECK(size == 0, "close after O_TRUNC: size %llu",
	      (unsigned long long)size);
	size_after_close(b, ino, le64_to_cpu(rep.handle), 0);
}

int main(void)
{
	struct mds_harness h;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (aifs_cred_self(&cred) || mds_harness_init(&h, "") ||
	    mds_harness_start(&h) || mds_harness_connect(&h, &a) ||
	    mds_harness_connect(&h, &b)) {
		printf("FAIL: cannot start aifs-mds (log in %s)\n", h.srv.dir);
		return 1;
	}
	test_truncate_between();
	test_open_trunc_between();
	aifs_close(a);
	aifs_close(b);
	CHECK(mds_harness_stop(&h, SIGTERM) == 0, "clean stop");
	return test_result();
}
