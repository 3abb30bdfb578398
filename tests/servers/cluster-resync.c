// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Repair never destroys first: a real aifs-mds and two aifs-ds
 * (replicas = 2).
 *
 * 1. A CHUNK_READ asking for a version no copy has (UINT64_MAX: any
 *    holder of the secret can send it) to the primary is ESTALE, and the
 *    pull it starts finds no newer copy: once it has ended, both copies
 *    still serve the bytes written, at the version written.
 * 2. A copy found damaged while its only peer is dead keeps its bytes
 *    (no source to take others from) and stays marked for repair: once
 *    the peer is back it is repaired from it, without another read.
 * 3. A swap of a pulled copy cut short by a crash after its commit (the
 *    data renamed into place, not the sidecar) is finished when the
 *    server starts again; a side copy of a pull cut short before it is
 *    removed, the copy left as it was.
 * 4. A primary whose own copy is stale (found damaged by a read), its
 *    pull under way, answers a
 *    write ESTALE (the client goes round again, for up to its timeo,
 *    while the copy catches up), not EAGAIN (tried ten times in half a
 *    second, then the write failed: issue 29's consistency review, G9);
 *    once the pull is over, the write goes.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster-harness.h"

#define WAIT_MS		60000
#define FLIP_AT		70000	/* in the second checksum block */

/* The resync tally of @p (DS_SCRUB): attempts ended, made whole or not. */
static u64 resync_ended(struct ds_proc *p)
{
	struct aifs_ds_scrub_rep rep;

	return ds_scrub(p, 0, &rep) ? 0 : le64_to_cpu(rep.resynced) +
			 le64_to_cpu(rep.resync_failed);
}

/* A server and the tally its next resync attempt must pass. */
struct attempt {
	struct ds_proc *p;
	u64 before;
};

static bool attempt_ended(void *arg)
{
	struct attempt *a = arg;

	return resync_ended(a->p) > a->before;
}

/* @p serves chunk 0 of @ino whole: @image at @version. */
static void check_serves(struct ds_proc *p, const char *what, u64 ino,
			 const char *image, u64 version, char *buf)
{
	u64 got_version = 0;
	int err;

	err = cluster_read_chunk(p, ino, 0, buf, &got_version);
	CHECK(!err, "%s (ds %s): read: %s", what, p->srv.port,
	      strerror(-err));
	CHECK(!err && !memcmp(buf, image, DS_TEST_CHUNK),
	      "%s (ds %s): not the bytes written", what, p->srv.port);
	CHECK(!err && got_version == version,
	      "%s (ds %s): version %llu, not %llu", what, p->srv.port,
	      (unsigned long long)got_version, (unsigned long long)version);
}

/*
 * A file of one chunk, whole on both copies at one version (a write the
 * harness retried may have reached the replica as a gap, which it then
 * pulls: waited for): its ino; its servers in @p.
 */
static u64 file_of_one_chunk(const char *name, struct ds_proc **p,
			     char *image, char *buf, u64 *version)
{
	struct aifs_layout l;
	u64 ino, replica_version = 0;

	ino = cluster_create(name, &l);
	CHECK(le16_to_cpu(l.target_count) == 2, "%u targets",
	      le16_to_cpu(l.target_count));
	CHECK(!cluster_write_chunks(&l, ino, 1), "write");
	p[0] = cluster_proc(le32_to_cpu(l.targets[0]));
	p[1] = cluster_proc(le32_to_cpu(l.targets[1]));
	ds_fill(image, DS_TEST_CHUNK, ino * 1000);
	CHECK(!cluster_read_chunk(p[0], ino, 0, buf, version), "read back");
	CHECK(!cluster_read_chunk(p[1], ino, 0, buf, &replica_version) &&
	      replica_version == *version,
	      "the replica is not at version %llu (%llu)",
	      (unsigned long long)*version,
	      (unsigned long long)replica_version);
	return ino;
}

/* A reader's claim of a version no copy has wipes nothing. */
static void check_claim(char *image, char *buf)
{
	struct ds_proc *p[2];
	struct attempt a;
	u64 ino, version;
	u32 len = 0;
	int err;

	ino = file_of_one_chunk("claimed", p, image, buf, &version);
	a = (struct attempt){ p[0], resync_ended(p[0]) };
	err = ds_read(p[0], ino, 0, 0, DS_TEST_CHUNK, UINT64_MAX, buf, &len,
		      NULL);
	CHECK(err == -ESTALE, "a read of version UINT64_MAX: %s, not ESTALE",
	      strerror(-err));
	CHECK(cluster_wait(attempt_ended, &a, WAIT_MS),
	      "the primary's pull never ended");
	check_serves(p[0], "after a claim: the primary", ino, image, version,
		     buf);
	check_serves(p[1], "after a claim: the replica", ino, image, version,
		     buf);
}

/* The bytes of @p's data file of chunk 0 of @ino that differ from @image. */
static u32 bytes_changed(struct ds_proc *p, u64 ino, const char *image,
			 char *buf)
{
	char path[512];
	ssize_t n = -1;
	u32 i, changed = 0;
	int fd;

	if (!ds_chunk_file(p, ino, 0, path, sizeof(path))) {
		fd = open(path, O_RDONLY);
		n = fd < 0 ? -1 : pread(fd, buf, DS_TEST_CHUNK, 0);
		if (fd >= 0)
			close(fd);
	}
	if (n < 0)
		return DS_TEST_CHUNK;
	for (i = 0; i < DS_TEST_CHUNK; i++)
		changed += i >= n || buf[i] != image[i];
	return changed;
}

/* A copy and what it must serve, for serves_whole(). */
struct whole {
	struct ds_proc *p;
	u64 ino;
	const char *image;
	char *buf;
};

/* Does @arg's server serve its chunk 0 whole?  A cluster_wait() cond. */
static bool serves_whole(void *arg)
{
	struct whole *w = arg;
	u32 len = 0;

	return !ds_read(w->p, w->ino, 0, 0, DS_TEST_CHUNK, 0, w->buf, &len,
			NULL) && len == DS_TEST_CHUNK &&
	       !memcmp(w->buf, w->image, len);
}

/*
 * The replica's copy damaged while the primary, its only source, is
 * dead: the repair finds no source and the copy keeps its bytes; the
 * primary back (before the MDS counts it out), the copy is repaired.
 */
static void check_no_source(char *image, char *buf)
{
	struct ds_proc *p[2];
	struct attempt a;
	struct whole w;
	u64 ino, version;
	u32 len = 0;
	int err;

	ino = file_of_one_chunk("damaged", p, image, buf, &version);
	ds_flip_byte(p[1], ino, 0, FLIP_AT);
	ds_stop(p[0], SIGKILL);
	a = (struct attempt){ p[1], resync_ended(p[1]) };
	err = ds_read(p[1], ino, 0, 0, DS_TEST_CHUNK, 0, buf, &len, NULL);
	CHECK(err == -EIO, "a read of the damaged copy: %s, not EIO",
	      strerror(-err));
	CHECK(cluster_wait(attempt_ended, &a, WAIT_MS),
	      "the replica's repair never ended");
	CHECK(bytes_changed(p[1], ino, image, buf) == 1,
	      "no source: the damaged copy lost %u bytes of its data file",
	      bytes_changed(p[1], ino, image, buf) - 1);
	ds_start(p[0]);
	w = (struct whole){ p[1], ino, image, buf };
	CHECK(cluster_wait(serves_whole, &w, WAIT_MS),
	      "the damaged copy is not repaired once its peer is back");
	check_serves(p[1], "repaired: the replica", ino, image, version, buf);
	check_serves(p[0], "repaired: the primary", ino, image, version, buf);
}

/* @len bytes of @buf as the file @path: 0 or -errno. */
static int file_put(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	close(fd);
	return n == (ssize_t)len ? 0 : -EIO;
}

/* The file @path into @buf of @size: its length, or -errno. */
static ssize_t file_get(const char *path, void *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size);
	close(fd);
	return n;
}

/*
 * Chunk 0 of @ino through @p[0] as @image, retried while it says EAGAIN,
 * until both copies serve it: its version.
 */
static u64 rewrite(struct ds_proc **p, u64 ino, const char *image, char *buf)
{
	u32 replica = p[1]->id;
	u64 version = 0;
	int err, tries = 0;

	while ((err = ds_write(p[0], ino, 0, 0, image, DS_TEST_CHUNK,
			       &replica, 1, &version)) == -EAGAIN &&
	       ++tries < 100)
		test_sleep_ms(50);
	CHECK(!err, "rewrite: %s", strerror(-err));
	check_serves(p[1], "rewritten: the replica", ino, image, version, buf);
	return version;
}

static void check_swap_recovery(char *image, char *buf)
{
	char data[512], meta[520], side[520], mside[530], old[4096];
	struct ds_proc *p[2];
	u64 ino, version;
	ssize_t len;

	ino = file_of_one_chunk("swapped", p, image, buf, &version);
	CHECK(!ds_chunk_file(p[1], ino, 0, data, sizeof(data)),
	      "no chunk file");
	snprintf(meta, sizeof(meta), "%s.meta", data);
	snprintf(side, sizeof(side), "%s.pull", data);
	snprintf(mside, sizeof(mside), "%s.pull.meta", data);
	len = file_get(meta, old, sizeof(old));
	CHECK(len > 0, "sidecar of %s", data);
	ds_fill(image, DS_TEST_CHUNK, 777);
	version = rewrite(p, ino, image, buf);

	/* the new data in place, the old sidecar, the new one beside it */
	ds_stop(p[1], SIGTERM);
	CHECK(!rename(meta, mside) && !file_put(meta, old, len),
	      "a swap cut short");
	ds_start(p[1]);
	check_serves(p[1], "a swap finished at start", ino, image, version,
		     buf);
	CHECK(access(mside, F_OK), "the side sidecar is still there");

	/* a pull that never got to its swap */
	ds_stop(p[1], SIGTERM);
	CHECK(!file_put(side, image, DS_TEST_CHUNK / 2) &&
	      !file_put(mside, old, len), "a pull cut short");
	ds_start(p[1]);
	check_serves(p[1], "a pull cut short", ino, image, version, buf);
	CHECK(access(side, F_OK) && access(mside, F_OK),
	      "the side copy of a pull cut short is still there");
}

/* Does @arg's server answer ESTALE for its chunk 0?  A cluster_wait() cond. */
static bool copy_stale(void *arg)
{
	struct whole *w = arg;
	u32 len = 0;

	return ds_read(w->p, w->ino, 0, 0, DS_TEST_CHUNK, 0, w->buf, &len,
		       NULL) == -ESTALE;
}

/* A stale primary is no primary until it has caught up. */
static void check_stale_primary(char *image, char *buf)
{
	struct cluster_state up;
	struct ds_proc *p[2];
	u64 ino, version;
	u32 len = 0, replica;
	int err;

	ino = file_of_one_chunk("stale-primary", p, image, buf, &version);
	replica = p[1]->id;
	ds_stop(p[0], SIGTERM);
	/* every pull pauses 20 s once its bytes are in (times=0: no end) */
	setenv("AIFS_FAIL", "ds.resync.pause:value=20000:times=0", 1);
	ds_start(p[0]);
	unsetenv("AIFS_FAIL");
	up = (struct cluster_state){ p[0], AIFS_DS_UP };
	CHECK(cluster_wait(cluster_in_state, &up, WAIT_MS),
	      "the primary is not UP again");
	/* and serves the file again (a restart may catch its inode up) */
	CHECK(cluster_wait(serves_whole,
			   &(struct whole){ p[0], ino, image, buf }, WAIT_MS),
	      "the restarted primary does not serve the file");
	/* a read finds the primary's copy damaged: stale, pulled, paused */
	ds_flip_byte(p[0], ino, 0, FLIP_AT);
	err = ds_read(p[0], ino, 0, 0, DS_TEST_CHUNK, 0, buf, &len, NULL);
	CHECK(err == -EIO, "a read of the damaged copy: %s, not EIO",
	      strerror(-err));
	CHECK(cluster_wait(copy_stale, &(struct whole){ p[0], ino, image, buf },
			   WAIT_MS), "the damaged copy was not marked stale");
	err = ds_write(p[0], ino, 0, 0, image, DS_TEST_CHUNK, &replica, 1,
		       NULL);
	CHECK(err == -ESTALE, "a write to a stale primary: %s, not ESTALE",
	      strerror(-err));
	CHECK(cluster_wait(serves_whole,
			   &(struct whole){ p[0], ino, image, buf }, WAIT_MS),
	      "the primary does not serve again after its pull");
	CHECK(!ds_write(p[0], ino, 0, 0, image, DS_TEST_CHUNK, &replica, 1,
			NULL), "a write once the primary caught up");
}

int main(void)
{
	static char image[DS_TEST_CHUNK], buf[DS_TEST_CHUNK];

	setvbuf(stdout, NULL, _IONBF, 0);
	cluster_setup(2, CLUSTER_GRACE_MS, "default_replicas = 2\n");
	check_claim(image, buf);
	check_no_source(image, buf);
	check_swap_recovery(image, buf);
	check_stale_primary(image, buf);
	return test_result();
}
