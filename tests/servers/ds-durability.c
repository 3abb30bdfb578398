// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * What an aifs-ds has made durable when it answers (issue 29, defect 6):
 * a write with AIFS_IO_SYNC that created its chunk has synced the data,
 * the sidecar, the chunk's directory and each directory made for it (a
 * new name lives in its directory: without that sync a power cut after
 * the reply could lose the chunk, which then read as a hole); a write to
 * a chunk that was there syncs no directory; a DELETE syncs the
 * directory it removed from; a forward past a gap syncs the stale mark
 * it sets.  The servers' fsync(2) and fdatasync(2) are
 * logged by aifs-sync-log.so, preloaded.
 */
#include <libgen.h>
#include <stdlib.h>
#include <unistd.h>

#include "ds-harness.h"

#define INO	0x5eed
#define LEN	4096

static char sync_log[256];
static u8 data[LEN];

/* Forget what was synced so far. */
static void log_reset(void)
{
	CHECK(!truncate(sync_log, 0), "truncate %s: %m", sync_log);
}

/* Whether the log has the line "@call @path". */
static bool log_has(const char *call, const char *path)
{
	char line[1024], want[1024];
	bool found = false;
	FILE *f;

	snprintf(want, sizeof(want), "%s %s\n", call, path);
	f = fopen(sync_log, "r");
	while (f && !found && fgets(line, sizeof(line), f))
		found = !strcmp(line, want);
	if (f)
		fclose(f);
	return found;
}

/*
 * How many directories under @p's data directory the log has synced: the
 * paths without a dot in their last name (every file there has one).
 */
static int log_dirs(const struct ds_proc *p)
{
	char line[1024], prefix[512];
	int n = 0;
	FILE *f;

	snprintf(prefix, sizeof(prefix), "fsync %s/data/chunks", p->srv.dir);
	f = fopen(sync_log, "r");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		n += !strncmp(line, prefix, strlen(prefix)) &&
		     !strchr(strrchr(line, '/'), '.');
	}
	if (f)
		fclose(f);
	return n;
}

/* @path's directory, and @up levels above it, into @dir. */
static void dir_of(const char *path, int up, char *dir, size_t size)
{
	char buf[512];

	snprintf(dir, size, "%s", path);
	while (up-- >= 0) {
		snprintf(buf, sizeof(buf), "%s", dir);
		snprintf(dir, size, "%s", dirname(buf));
	}
}

/* The servers run with the library preloaded and the log named. */
static void preload(void)
{
	static char wrapper[1024];
	const char *build = getenv("AIFS_BUILD");
	const char *asan = getenv("ASAN_OPTIONS");

	test_init();
	snprintf(sync_log, sizeof(sync_log), "%s/sync.log", test_dir);
	/* the AddressSanitizer build: its runtime is not the first library */
	snprintf(wrapper, sizeof(wrapper),
		 "env LD_PRELOAD=%s/lib/aifs-sync-log.so AIFS_SYNC_LOG=%s "
		 "ASAN_OPTIONS=%s%sverify_asan_link_order=0",
		 build ? build : "build", sync_log, asan ? asan : "",
		 asan ? ":" : "");
	setenv("AIFS_SERVER_WRAPPER", wrapper, 1);
}

static void test_new_chunk(void)
{
	char path[512], meta[520], dir[512];
	int i;

	log_reset();
	EXPECT(ds_write(&ds_procs[0], INO, 0, 0, data, LEN, NULL, 0, NULL), 0);
	CHECK(!ds_chunk_file(&ds_procs[0], INO, 0, path, sizeof(path)),
	      "no chunk file");
	snprintf(meta, sizeof(meta), "%s.meta", path);
	CHECK(log_has("fdatasync", path), "data of a new chunk not synced");
	CHECK(log_has("fdatasync", meta), "sidecar of a new chunk not synced");
	/* chunks/<h1>/<h2>, both made for it, and chunks */
	for (i = 0; i < 3; i++) {
		dir_of(path, i, dir, sizeof(dir));
		CHECK(log_has("fsync", dir), "%s not synced after a chunk "
		      "was made there", dir);
	}
	CHECK(log_dirs(&ds_procs[0]) == 3, "%d directories synced, not 3",
	      log_dirs(&ds_procs[0]));

	/* another chunk of the inode: its directory is there already */
	log_reset();
	EXPECT(ds_write(&ds_procs[0], INO, 1, 0, data, LEN, NULL, 0, NULL), 0);
	dir_of(path, 0, dir, sizeof(dir));
	CHECK(log_has("fsync", dir), "%s not synced after a second chunk", dir);
	CHECK(log_dirs(&ds_procs[0]) == 1, "%d directories synced, not 1",
	      log_dirs(&ds_procs[0]));

	/* a chunk that is there: data and sidecar, no name */
	log_reset();
	EXPECT(ds_write(&ds_procs[0], INO, 0, LEN, data, LEN, NULL, 0, NULL),
	       0);
	CHECK(log_has("fdatasync", path), "data of a rewrite not synced");
	CHECK(log_dirs(&ds_procs[0]) == 0,
	      "%d directories synced for a rewrite", log_dirs(&ds_procs[0]));
}

/*
 * A forward past a gap marks the copy stale before it answers ESTALE, and
 * durably: the primary may acknowledge without this copy (its server
 * counted out), which after a crash must still not serve what it lacks.
 */
static void test_stale_mark(void)
{
	static u8 msg[AIFS_CHUNK_WRITE_REQ_SIZE + LEN];
	struct aifs_chunk_write_req req = {
		.version = cpu_to_le64(1000),
		.chunk_size = cpu_to_le32(DS_TEST_CHUNK),
	};
	struct aifs_span part = { data, LEN };
	char path[512], meta[520];
	struct aifs_reply reply;
	int n;

	CHECK(!ds_chunk_file(&ds_procs[0], INO, 0, path, sizeof(path)),
	      "no chunk file");
	snprintf(meta, sizeof(meta), "%s.meta", path);
	ds_chunk_id(&req.id, INO, 0);
	n = aifs_encode_chunk_forward_req(msg, sizeof(msg), &req, &part);
	CHECK(n > 0, "encode: %d", n);
	log_reset();
	EXPECT(ds_request(&ds_procs[0], AIFS_OP_CHUNK_FORWARD, msg, n, &reply),
	       0);
	CHECK(reply.status == ESTALE, "a forward past a gap: status %u",
	      reply.status);
	aifs_reply_free(&reply);
	CHECK(log_has("fdatasync", meta), "the stale mark was not synced");
}

static void test_delete(void)
{
	struct aifs_chunk_delete_req req = {
		.flags = cpu_to_le32(AIFS_DELETE_INODE),
	};
	char path[512], dir[512];
	struct aifs_reply reply;

	CHECK(!ds_chunk_file(&ds_procs[0], INO, 0, path, sizeof(path)),
	      "no chunk file");
	dir_of(path, 0, dir, sizeof(dir));
	log_reset();
	ds_chunk_id(&req.id, INO, 0);
	EXPECT(ds_request(&ds_procs[0], AIFS_OP_CHUNK_DELETE, &req,
			  sizeof(req), &reply), 0);
	CHECK(!reply.status, "CHUNK_DELETE: status %u", reply.status);
	aifs_reply_free(&reply);
	CHECK(ds_chunk_file(&ds_procs[0], INO, 0, path, sizeof(path)),
	      "chunk still there after the delete");
	CHECK(log_has("fsync", dir), "%s not synced after the delete", dir);
}

int main(void)
{
	ds_fill(data, LEN, 29);
	preload();
	ds_setup(1, NULL);
	test_new_chunk();
	test_stale_mark();
	test_delete();
	return test_result();
}
