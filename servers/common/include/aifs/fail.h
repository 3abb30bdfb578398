/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Fault injection, in the manner of Lustre's fail_loc: named points in the
 * code that, once armed, fail on purpose (drop a reply, delay a request,
 * fail an I/O, crash between a commit and its acknowledgement), so that
 * tests can reach the recovery paths at a chosen moment.
 *
 * Points are armed by a spec, "POINT[:key=N]...[,POINT...]" with keys
 *
 *	times=N   fire N times, then disarm (default 1; 0: every time)
 *	after=N   let the first N hits pass (default 0)
 *	value=N   the point's argument: an errno, milliseconds (see below)
 *	opcode=N  fire only for requests of this opcode (default: any)
 *
 * and "POINT:off" disarms one. A spec comes from the environment variable
 * AIFS_FAIL when the server starts, or at run time from a FAIL_SET
 * request, which a server honours only with "fault_injection = yes".
 */
#ifndef AIFS_FAIL_H
#define AIFS_FAIL_H

#include <stdbool.h>

#include <stddef.h>

#include "aifs/aifs_codec.h"

enum aifs_fail_point {
	/* The reply to a request is not sent (value: unused). */
	AIFS_FAIL_REPLY_DROP,
	/* A request waits value ms (1000) on its worker before its handler. */
	AIFS_FAIL_REQUEST_DELAY,
	/*
	 * aifs-ds: a chunk write, or a cut or delete of a truncation (with
	 * opcode=), fails with errno value (EIO), nothing written.
	 */
	AIFS_FAIL_DS_WRITE_ERROR,
	/* aifs-ds: the server dies once a chunk write is durable, unanswered. */
	AIFS_FAIL_DS_WRITE_CRASH,
	/* aifs-ds: a chunk read fails with errno value (EIO). */
	AIFS_FAIL_DS_READ_ERROR,
	/* aifs-mds: the server dies once a batch is committed, unanswered. */
	AIFS_FAIL_MDS_COMMIT_CRASH,
	/*
	 * aifs-mds: the server dies once a rebuild committed a file's new
	 * layout, before it fenced the group and had the new member catch up.
	 */
	AIFS_FAIL_MDS_REBUILD_CRASH,
	/*
	 * aifs-ds: a pull from a peer waits value ms (1000) once the peer's
	 * bytes are written here, before the copy is made whole.
	 */
	AIFS_FAIL_DS_RESYNC_PAUSE,
	/*
	 * aifs-mds: the writer waits value ms (1000) once a change (of the
	 * opcode: a request's; 0, the server's own) is applied in its batch,
	 * before the batch commits: what readers see of it before it is
	 * durable, and what a crash then loses.
	 */
	AIFS_FAIL_MDS_APPLY_PAUSE,
	/*
	 * aifs-ds: a primary's write waits value ms (1000) once applied here,
	 * before it looks at the layout generation again and forwards; an EC
	 * leader's once every fragment is written, before its second look.
	 */
	AIFS_FAIL_DS_WRITE_PAUSE,
	/*
	 * aifs-ds: once it holds a map, the next new epoch and those of the
	 * value ms (1000) after it are not fetched: a map that lags.
	 */
	AIFS_FAIL_DS_MAP_FREEZE,
	/*
	 * aifs-ds: a catch-up (CHUNK_SYNC) waits value ms (1000) once it
	 * listed its peers' chunks, before it copies or deletes any.
	 */
	AIFS_FAIL_DS_SYNC_PAUSE,
	AIFS_FAIL_NR_POINTS
};

/*
 * Whether @point fires now for a request of @opcode (0: not a request);
 * its value in *@value. Cheap while nothing is armed.
 */
bool aifs_fail(enum aifs_fail_point point, u16 opcode, u32 *value);

/* The errno @point fails with when it fires (its value, EIO by default). */
int aifs_fail_errno(enum aifs_fail_point point, u16 opcode);

/* When @point fires: log it and die by SIGKILL, as a power cut would. */
void aifs_fail_crash(enum aifs_fail_point point, u16 opcode);

/* Sleeps for the fail point's value in ms (1000 if 0) when it fires. */
void aifs_fail_pause(enum aifs_fail_point point, u16 opcode);

/*
 * Arm or disarm points by @spec (see above): 0, or -EINVAL with @why
 * filled and nothing changed.
 */
int aifs_fail_set(const char *spec, char *why, size_t why_len);

/* Arm the points of $AIFS_FAIL, if set; a bad spec is -EINVAL, logged. */
int aifs_fail_setup_from_env(void);

#endif
