// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Fault injection points (aifs/fail.h). The state is the process's: one
 * server per process. A spec is checked whole before anything changes, so
 * a bad one arms nothing.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aifs/fail.h"
#include "aifs/log.h"

#define FAIL_SPEC_MAX	1024

struct fail_state {
	bool armed;
	u32 times;		/* left to fire; 0: no limit */
	u32 after;		/* hits left to let pass */
	u32 value;
	u16 opcode;		/* 0: any */
};

static const char *const fail_names[AIFS_FAIL_NR_POINTS] = {
	[AIFS_FAIL_REPLY_DROP] = "reply.drop",
	[AIFS_FAIL_REQUEST_DELAY] = "request.delay",
	[AIFS_FAIL_DS_WRITE_ERROR] = "ds.write.error",
	[AIFS_FAIL_DS_WRITE_CRASH] = "ds.write.crash",
	[AIFS_FAIL_DS_READ_ERROR] = "ds.read.error",
	[AIFS_FAIL_MDS_COMMIT_CRASH] = "mds.commit.crash",
	[AIFS_FAIL_MDS_REBUILD_CRASH] = "mds.rebuild.crash",
	[AIFS_FAIL_DS_RESYNC_PAUSE] = "ds.resync.pause",
	[AIFS_FAIL_MDS_APPLY_PAUSE] = "mds.apply.pause",
	[AIFS_FAIL_DS_WRITE_PAUSE] = "ds.write.pause",
	[AIFS_FAIL_DS_MAP_FREEZE] = "ds.map.freeze",
	[AIFS_FAIL_DS_SYNC_PAUSE] = "ds.sync.pause",
};

static pthread_mutex_t fail_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fail_state fail_points[AIFS_FAIL_NR_POINTS];
/* Points armed: the fast path of aifs_fail() reads only this. */
static atomic_uint fail_nr_armed;

bool aifs_fail(enum aifs_fail_point point, u16 opcode, u32 *value)
{
	struct fail_state *f = &fail_points[point];
	bool fire = false;

	if (!atomic_load_explicit(&fail_nr_armed, memory_order_relaxed))
		return false;
	pthread_mutex_lock(&fail_lock);
	if (!f->armed || (f->opcode && f->opcode != opcode))
		goto out;
	if (f->after) {
		f->after--;
		goto out;
	}
	fire = true;
	if (value)
		*value = f->value;
	if (f->times && !--f->times) {
		f->armed = false;
		atomic_fetch_sub(&fail_nr_armed, 1);
	}
	aifs_info("fail point %s fired%s", fail_names[point],
		  f->armed ? "" : ", now disarmed");
out:
	pthread_mutex_unlock(&fail_lock);
	return fire;
}

int aifs_fail_errno(enum aifs_fail_point point, u16 opcode)
{
	u32 value;

	if (!aifs_fail(point, opcode, &value))
		return 0;
	return value ? -(int)value : -EIO;
}

void aifs_fail_crash(enum aifs_fail_point point, u16 opcode)
{
	if (!aifs_fail(point, opcode, NULL))
		return;
	aifs_warn("fail point %s: crashing", fail_names[point]);
	kill(getpid(), SIGKILL);
	_exit(137);
}

void aifs_fail_pause(enum aifs_fail_point point, u16 opcode)
{
	u32 ms;

	if (aifs_fail(point, opcode, &ms))
		usleep((ms ? ms : 1000) * 1000ULL);
}

static int fail_point_by_name(const char *name)
{
	int i;

	for (i = 0; i < AIFS_FAIL_NR_POINTS; i++)
		if (!strcmp(fail_names[i], name))
			return i;
	return -1;
}

static int fail_number(const char *s, u32 max, u32 *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-' || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/* "key=N" into @f. */
static int fail_parse_key(char *kv, struct fail_state *f)
{
	char *eq = strchr(kv, '=');
	u32 n;

	if (!eq)
		return -EINVAL;
	*eq = '\0';
	if (!strcmp(kv, "opcode")) {
		if (fail_number(eq + 1, UINT16_MAX, &n))
			return -EINVAL;
		f->opcode = n;
		return 0;
	}
	if (fail_number(eq + 1, UINT32_MAX, &n))
		return -EINVAL;
	if (!strcmp(kv, "times"))
		f->times = n;
	else if (!strcmp(kv, "after"))
		f->after = n;
	else if (!strcmp(kv, "value"))
		f->value = n;
	else
		return -EINVAL;
	return 0;
}

/* One "POINT[:key=N]..." or "POINT:off" into @next[point]: the point. */
static int fail_parse_item(char *item, struct fail_state *next, char *why,
			   size_t why_len)
{
	char *save, *name = strtok_r(item, ":", &save), *kv;
	struct fail_state f = { .armed = true, .times = 1 };
	int point;

	point = name ? fail_point_by_name(name) : -1;
	if (point < 0) {
		snprintf(why, why_len, "no fail point '%s'", name ? name : "");
		return -EINVAL;
	}
	while ((kv = strtok_r(NULL, ":", &save))) {
		if (!strcmp(kv, "off")) {
			f.armed = false;
			continue;
		}
		if (fail_parse_key(kv, &f)) {
			snprintf(why, why_len, "%s: bad setting '%s'", name, kv);
			return -EINVAL;
		}
	}
	next[point] = f;
	return point;
}

int aifs_fail_set(const char *spec, char *why, size_t why_len)
{
	struct fail_state next[AIFS_FAIL_NR_POINTS];
	bool given[AIFS_FAIL_NR_POINTS] = { false };
	char copy[FAIL_SPEC_MAX], *save, *item;
	unsigned int i, armed = 0;
	int point;

	if (strlen(spec) >= sizeof(copy)) {
		snprintf(why, why_len, "spec longer than %d bytes",
			 FAIL_SPEC_MAX - 1);
		return -EINVAL;
	}
	strcpy(copy, spec);
	for (item = strtok_r(copy, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		point = fail_parse_item(item, next, why, why_len);
		if (point < 0)
			return point;
		given[point] = true;
	}
	pthread_mutex_lock(&fail_lock);
	for (i = 0; i < AIFS_FAIL_NR_POINTS; i++) {
		if (given[i])
			fail_points[i] = next[i];
		armed += fail_points[i].armed;
	}
	atomic_store(&fail_nr_armed, armed);
	pthread_mutex_unlock(&fail_lock);
	aifs_warn("fault injection: %s", spec);
	return 0;
}

int aifs_fail_setup_from_env(void)
{
	const char *spec = getenv("AIFS_FAIL");
	char why[128];
	int err;

	if (!spec || !*spec)
		return 0;
	err = aifs_fail_set(spec, why, sizeof(why));
	if (err)
		aifs_err("AIFS_FAIL: %s", why);
	return err;
}
