// SPDX-License-Identifier: GPL-2.0
/*
 * aifs - fault injection.
 *
 * Named failure points of the client, in the manner of Lustre's
 * fail_loc, armed at run time in debugfs (the kernel's own fault
 * injection framework is not built into Debian's kernels):
 *
 *	/sys/kernel/debug/aifs/fail/POINT/times	fire this many times; 0: off
 *	/sys/kernel/debug/aifs/fail/POINT/after	let this many hits pass first
 *	/sys/kernel/debug/aifs/fail/POINT/value	the point's argument
 *
 * Points (aifs_fail_names[]): reply_drop, a reply received is dropped as
 * if lost on the way (value: only replies of this opcode; 0: any), and
 * its call times out; read_error, a CHUNK_READ fails before it is sent
 * with errno value (EIO), so the next replica is tried; write_error, a
 * CHUNK_WRITE likewise. While nothing is armed a point costs one atomic
 * read.
 */
#define pr_fmt(fmt) "aifs: " fmt

#include <linux/debugfs.h>
#include <linux/spinlock.h>

#include "internal.h"

struct aifs_fail_state {
	atomic_t times;
	atomic_t after;
	u32 value;
};

static const char *const aifs_fail_names[AIFS_NR_FAIL_POINTS] = {
	[AIFS_FAIL_REPLY_DROP]	= "reply_drop",
	[AIFS_FAIL_READ_ERROR]	= "read_error",
	[AIFS_FAIL_WRITE_ERROR]	= "write_error",
};

static struct aifs_fail_state aifs_fail_points[AIFS_NR_FAIL_POINTS];
/* serialises the look at @after and @times of a firing point */
static DEFINE_SPINLOCK(aifs_fail_lock);
static struct dentry *aifs_debugfs;

/**
 * aifs_fail - whether a failure point fires now
 * @point: the point
 * @opcode: for reply_drop, the reply's opcode; else 0
 * @value: out: the point's argument, when it fires
 *
 * Return: true when it fires.
 */
bool aifs_fail(enum aifs_fail_point point, u16 opcode, u32 *value)
{
	struct aifs_fail_state *f = &aifs_fail_points[point];
	bool fire = false;
	u32 v;

	if (likely(!atomic_read(&f->times)))
		return false;
	v = READ_ONCE(f->value);
	if (point == AIFS_FAIL_REPLY_DROP && v && v != opcode)
		return false;
	spin_lock(&aifs_fail_lock);
	if (atomic_read(&f->after) > 0)
		atomic_dec(&f->after);
	else if (atomic_read(&f->times) > 0)
		fire = atomic_dec_return(&f->times) >= 0;
	spin_unlock(&aifs_fail_lock);
	if (!fire)
		return false;
	pr_info("fail point %s fired\n", aifs_fail_names[point]);
	*value = v;
	return true;
}

/* The errno a read_error or write_error point fails with, or 0. */
int aifs_fail_errno(enum aifs_fail_point point)
{
	u32 value;

	if (!aifs_fail(point, 0, &value))
		return 0;
	return value && value < MAX_ERRNO ? -(int)value : -EIO;
}

void aifs_fail_init(void)
{
	struct dentry *fail, *dir;
	int i;

	/* debugfs is for testing: without it the points stay off */
	aifs_debugfs = debugfs_create_dir("aifs", NULL);
	fail = debugfs_create_dir("fail", aifs_debugfs);
	for (i = 0; i < AIFS_NR_FAIL_POINTS; i++) {
		dir = debugfs_create_dir(aifs_fail_names[i], fail);
		debugfs_create_atomic_t("times", 0600, dir,
					&aifs_fail_points[i].times);
		debugfs_create_atomic_t("after", 0600, dir,
					&aifs_fail_points[i].after);
		debugfs_create_u32("value", 0600, dir,
				   &aifs_fail_points[i].value);
	}
}

void aifs_fail_exit(void)
{
	debugfs_remove(aifs_debugfs);
}
