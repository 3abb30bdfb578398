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
 *    (no source to take others from) and stays marked for repair, across
 *    a restart of its server too: once the peer is back it is repaired
 *    from it, without another read.  The MDS knows of it meanwhile, and
 *    again after its own restart: aifs recovery names the copy, with no
 *    source, and its metrics count it (G6); once repaired, it is gone
 *    from both.
 * 3. A swap of a pulled copy cut short by a crash after its commit (the
 *    data renamed into place, not the sidecar) is finished when the
 *    server starts again; a side copy of a pull cut short before it is
 *    removed, the copy left as it was.
 * 4. A replica UP but behind (a forward two versions ahead marked it
 *    stale: a crashed or hostile primary's) does not hold the next write:
 *    that write is not acknowledged, and the one that is, once the
 *    replica pulled the chunk from the primary, the replica serves
 *    (issue 29, defect 2).  Its pulls are slower than the client's
 *    rounds, and no copy has the version it wants: it takes the group's
 *    newest, and the primary numbers nothing meanwhile (G1).
 * 5. A rebuild's fence landing while the primary applies a write (held
 *    there by ds.write.pause): the write is refused (EREMCHG), but not
 *    left on the primary alone: the replica holds the version too, and
 *    the write made again with the new layout reaches it.
 * 6. A primary whose own copy is stale (found damaged by a read), its
 *    pull under way, answers a
 *    write ESTALE (the client goes round again, for up to its timeo,
 *    while the copy catches up), not EAGAIN (tried ten times in half a
 *    second, then the write failed: issue 29's consistency review, G9);
 *    once the pull is over, the write goes.
 * 7. A forward of the version a replica holds with other bytes (two
 *    primaries numbered it alike) is not taken for a retry (issue 29,
 *    defect 3), and not taken at all: the replica's copy may have been
 *    acknowledged, the forward's has not, and its sender takes the
 *    replica's copy (EEXIST).  Unless the replica serves nothing: then
 *    it yields (the nemesis found it: a replica back from a fault refused
 *    the new primary's write as the newer copy).
 * 8. A primary whose lease runs out while it forwards a write does not
 *    acknowledge it (defect 3: the lease was looked at before the
 *    forwards, not after).
 * 9. A primary that lost its copy of a chunk (its files gone) and takes
 *    a write of part of it creates the chunk again: the replica, which
 *    holds it at that version with other bytes or at a later one, does
 *    not take the forward for a retry (acknowledged with the primary
 *    holding the new bytes alone, and zeros where the old ones were) nor
 *    give its copy up for the primary's: the primary takes the
 *    replica's, and the write acknowledged is on both over the old bytes
 *    (issue 29, defect 6: a lost chunk).
 * 10. A catch-up (CHUNK_SYNC) takes its group's copy of a chunk even if
 *    older than its own (which may hold a write never acknowledged), but
 *    only over its copy as it compared it: forwards the copy took while
 *    the pull ran are acknowledged writes, not undone by what was pulled
 *    before them (the nemesis found it: replicas seed 5 read writes
 *    acknowledged during a server's catch-up back as zeros).  Nor does
 *    it take a peer's copy the peer had before a truncation this server
 *    made since it listed the peer (cluster-nemesis found it).
 * 11. A resync queue full loses no marked copy (check_queue_full).
 * 12. A copy stale for a version no copy has (a forward's, never
 *    acknowledged) whose pull a catch-up joins before it runs takes the
 *    group's newest copy or keeps its own, and the catch-up ends: the
 *    older copy the catch-up lists is no reason to wait for ever (the
 *    nemesis found it: a server SYNCING for good, replicas seed 28).
 * 13. A catch-up pass over an inode that its group cuts between two of
 *    its ranges does not take the group's count of truncations for the
 *    chunks it compared before the cut: the cut queued for it still
 *    removes them (the nemesis found it: replicas seed 949858 read bytes
 *    an O_TRUNC had cut).
 * 14. A copy that lost a chunk (its files removed) while its source is
 *    dead answers a read ESTALE, never as a hole (zeros), is named in
 *    aifs recovery, and is pulled again once the source is back; one
 *    lost and not read is found by scrub (issue 29, G4); one lost is
 *    listed to a peer catching up, stale, which keeps its own copy even
 *    when it missed a cut (check_lost_listed).
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster-harness.h"

#define WAIT_MS		60000
#define FLIP_AT		70000	/* in the second checksum block */
#define GAP_BYTES	4096	/* of a forward straight to a replica */
#define PAUSE_MS	3000	/* ds.write.pause: a write held once applied */
/* the first version of a chunk created under its inode's first cut */
#define REBORN		((1ULL << 32) + 1)

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

/* Chunks @p made whole by resync since it started (0 if it cannot say). */
static u64 resynced(struct ds_proc *p)
{
	struct aifs_ds_scrub_rep rep;

	return ds_scrub(p, 0, &rep) ? 0 : le64_to_cpu(rep.resynced);
}

/* Has @arg's server made a chunk whole by resync since it started? */
static bool resynced_one(void *arg)
{
	return resynced(arg) > 0;
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

/* Does @w's server serve the first @size bytes of @w->image as chunk @index? */
static bool serves_bytes(const struct whole *w, u32 index, u32 size)
{
	u32 len = 0;

	return !ds_read(w->p, w->ino, index, 0, DS_TEST_CHUNK, 0, w->buf, &len,
			NULL) && len == size && !memcmp(w->buf, w->image, len);
}

/* Does @arg's server serve its chunk 0 whole?  A cluster_wait() cond. */
static bool serves_whole(void *arg)
{
	return serves_bytes(arg, 0, DS_TEST_CHUNK);
}

struct repair_told {
	u32 id;
	u64 ino;
	bool told;	/* named with no source, or not at all */
};

/* aifs recovery names (or not) chunk 0 of @ino on @id, with no source. */
static bool recovery_told(void *arg)
{
	const struct repair_told *t = arg;
	char out[4096], server[128], chunk[128];
	bool named;

	snprintf(server, sizeof(server),
		 "data server %u: chunk copies to repair: 1, with no source: 1",
		 t->id);
	snprintf(chunk, sizeof(chunk),
		 "  inode %llu chunk 0: no copy to take it from yet\n",
		 (unsigned long long)t->ino);
	if (cluster_recovery(out, sizeof(out)))
		return false;
	named = strstr(out, server) && strstr(out, chunk);
	return t->told ? named : !strstr(out, "chunk copies to repair:");
}

/* The MDS's metric @name of server @id is @want. */
static void check_ds_metric(const char *name, u32 id, u64 want)
{
	char labelled[128];
	u64 v = UINT64_MAX;

	snprintf(labelled, sizeof(labelled), "%s{ds=\"%u\"}", name, id);
	CHECK(!cluster_mds_metric(labelled, &v) && v == want,
	      "%s is %llu, not %llu", labelled, (unsigned long long)v,
	      (unsigned long long)want);
}

/*
 * The replica's copy damaged while the primary, its only source, is
 * dead: the repair finds no source and the copy keeps its bytes; the
 * primary back (before the MDS counts it out), the copy is repaired.
 */
static void check_no_source(char *image, char *buf)
{
	struct repair_told told;
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
	told = (struct repair_told){ p[1]->id, ino, true };
	CHECK(cluster_wait(recovery_told, &told, WAIT_MS),
	      "aifs recovery does not name the copy with no source");
	check_ds_metric("aifs_mds_chunks_to_repair", p[1]->id, 1);
	check_ds_metric("aifs_mds_chunks_without_source", p[1]->id, 1);
	cluster_mds_restart();
	CHECK(cluster_wait(recovery_told, &told, WAIT_MS),
	      "a restarted MDS does not hear of the copy with no source");
	/* a restart forgets the queue, not the repair (its mark) */
	ds_stop(p[1], SIGTERM);
	ds_start(p[1]);
	CHECK(cluster_wait(recovery_told, &told, WAIT_MS),
	      "the MDS does not hear of the copy again after its server's restart");
	ds_start(p[0]);
	CHECK(cluster_wait(resynced_one, p[1], WAIT_MS),
	      "the damaged copy is not repaired, unread, after a restart");
	w = (struct whole){ p[1], ino, image, buf };
	CHECK(cluster_wait(serves_whole, &w, WAIT_MS),
	      "the damaged copy is not repaired once its peer is back");
	check_serves(p[1], "repaired: the replica", ino, image, version, buf);
	check_serves(p[0], "repaired: the primary", ino, image, version, buf);
	told.told = false;
	CHECK(cluster_wait(recovery_told, &told, WAIT_MS),
	      "aifs recovery still names a copy to repair once it is whole");
}

/* Has @arg's server made @arg->want chunks whole by resync? */
struct whole_count {
	struct ds_proc *p;
	u64 want;
};

static bool resynced_count(void *arg)
{
	const struct whole_count *w = arg;

	return resynced(w->p) >= w->want;
}

/* @line appended to the configuration of @p: 0 or -errno. */
static int conf_append(struct ds_proc *p, const char *line)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/server.conf", p->srv.dir);
	f = fopen(path, "a");
	if (!f)
		return -errno;
	fputs(line, f);
	return fclose(f) ? -errno : 0;
}

/*
 * A resync queue of one chunk (resync_queue = 1) and three damaged
 * copies whose only source is dead: each read queues one, which goes
 * held for a source, and the next takes its place.  Once the source is
 * back, all three are repaired without another read: those the queue
 * had no room for come back from their repair marks (G6: they waited
 * for a read, forward, sync or scrub of them before).
 */
static void check_queue_full(char *image, char *buf)
{
	static const char *const names[] = { "full-1", "full-2", "full-3" };
	struct ds_proc *p[2], *r = cluster_proc(2), *s = cluster_proc(1);
	u64 ino[3], version[3];
	struct whole_count w;
	struct attempt a;
	u32 len;
	int i, err;

	for (i = 0; i < 3; i++)
		ino[i] = file_of_one_chunk(names[i], p, image, buf, &version[i]);
	CHECK(!conf_append(r, "resync_queue = 1\n"), "resync_queue");
	ds_stop(r, SIGTERM);
	ds_start(r);
	for (i = 0; i < 3; i++) {
		ds_fill(image, DS_TEST_CHUNK, ino[i] * 1000);
		check_serves(r, "restarted", ino[i], image, version[i], buf);
		ds_flip_byte(r, ino[i], 0, FLIP_AT);
	}
	ds_stop(s, SIGKILL);
	for (i = 0; i < 3; i++) {
		a = (struct attempt){ r, resync_ended(r) };
		len = 0;
		err = ds_read(r, ino[i], 0, 0, DS_TEST_CHUNK, 0, buf, &len,
			      NULL);
		CHECK(err == -EIO, "a read of damaged copy %d: %s, not EIO",
		      i, strerror(-err));
		CHECK(cluster_wait(attempt_ended, &a, WAIT_MS),
		      "the repair of copy %d never ended", i);
	}
	w = (struct whole_count){ r, resynced(r) + 3 };
	ds_start(s);
	CHECK(cluster_wait(resynced_count, &w, WAIT_MS),
	      "not every damaged copy is repaired, unread, once its source is back");
	for (i = 0; i < 3; i++) {
		ds_fill(image, DS_TEST_CHUNK, ino[i] * 1000);
		check_serves(r, "repaired from its mark", ino[i], image,
			     version[i], buf);
	}
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
 * Chunk 0 of @ino through @p[0] as @image, retried while it refuses
 * (EAGAIN; ESTALE, the replica behind), until both copies serve it: its
 * version.
 */
static u64 rewrite(struct ds_proc **p, u64 ino, const char *image, char *buf)
{
	u32 replica = p[1]->id;
	u64 version = 0;
	int err, tries = 0;

	while (((err = ds_write(p[0], ino, 0, 0, image, DS_TEST_CHUNK,
				&replica, 1, &version)) == -EAGAIN ||
		err == -ESTALE) && ++tries < 100)
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

/*
 * A CHUNK_FORWARD of @version of chunk @index of @ino straight to @replica,
 * naming @primary as its group, as a primary that crashed mid-stream (or
 * a hostile one) would leave it: GAP_BYTES of @data (NULL: zeros) at
 * offset 0.  Its status.
 */
static int forward_raw(struct ds_proc *replica, u64 ino, u32 index,
		       u64 version, u32 primary, const char *data)
{
	static u8 msg[AIFS_CHUNK_WRITE_REQ_SIZE + GAP_BYTES];
	struct aifs_chunk_write_req req = {
		.version = cpu_to_le64(version),
		.flags = cpu_to_le32(AIFS_IO_SYNC),
		.chunk_size = cpu_to_le32(DS_TEST_CHUNK),
		.nr_replicas = cpu_to_le16(1),
		.replicas = { cpu_to_le32(primary) },
	};
	struct aifs_span part = { msg + AIFS_CHUNK_WRITE_REQ_SIZE, GAP_BYTES };
	struct aifs_reply reply;
	int n, err;

	ds_chunk_id(&req.id, ino, index);
	if (data)
		memcpy(msg + AIFS_CHUNK_WRITE_REQ_SIZE, data, GAP_BYTES);
	else
		memset(msg + AIFS_CHUNK_WRITE_REQ_SIZE, 0, GAP_BYTES);
	n = aifs_encode_chunk_forward_req(msg, sizeof(msg), &req, &part);
	if (n < 0)
		return n;
	err = ds_request(replica, AIFS_OP_CHUNK_FORWARD, msg, n, &reply);
	if (!err && reply.status)
		err = -(int)reply.status;
	aifs_reply_free(&reply);
	return err;
}

/*
 * Chunk @index of @ino through @primary as @image with a layout of
 * generation @gen, tried again while refused as the kernel's client does
 * (EAGAIN; ESTALE: it goes round again), for up to WAIT_MS: 0 or the
 * last error.
 */
static int write_until_taken(struct ds_proc *primary, u64 ino, u32 index,
			     u32 replica, const char *image, u32 gen)
{
	u64 until = aifs_now_ms() + WAIT_MS;
	int err, refused = 0;

	while (((err = ds_write_gen(primary, ino, index, image, DS_TEST_CHUNK,
				    &replica, 1, gen)) == -EAGAIN ||
		err == -ESTALE) && aifs_now_ms() < until) {
		refused++;
		test_sleep_ms(50);
	}
	printf("write of inode %llu: %s after %d refusals\n",
	       (unsigned long long)ino, err ? strerror(-err) : "taken",
	       refused);
	return err;
}

/*
 * Chunk 0 of @ino as @p[0] serves it, which @p[1] serves too, at once
 * (no waiting for a pull): a write answered is on every copy.
 */
static void check_same(struct ds_proc **p, const char *what, u64 ino,
		       const char *image, char *buf)
{
	u64 version = 0, got = 0;
	u32 len = 0;
	int err;

	err = cluster_read_chunk(p[0], ino, 0, buf, &version);
	CHECK(!err && !memcmp(buf, image, DS_TEST_CHUNK),
	      "%s: the primary: %s%s", what, strerror(-err),
	      !err ? ", not the bytes written" : "");
	err = ds_read(p[1], ino, 0, 0, DS_TEST_CHUNK, 0, buf, &len, &got);
	CHECK(!err && got == version && len == DS_TEST_CHUNK &&
	      !memcmp(buf, image, len),
	      "%s: the replica: %s, version %llu of %llu, %u bytes%s", what,
	      strerror(-err), (unsigned long long)got,
	      (unsigned long long)version, len,
	      !err && memcmp(buf, image, len) ? ", not those written" : "");
}

/* @p restarted with the fail points of @spec (NULL: none), UP again. */
static void restart_failing(struct ds_proc *p, const char *spec)
{
	struct cluster_state up = { p, AIFS_DS_UP };

	ds_stop(p, SIGTERM);
	if (spec)
		ds_start_failing(p, spec);
	else
		ds_start(p);
	CHECK(cluster_wait(cluster_in_state, &up, WAIT_MS),
	      "ds %s is not UP again", p->srv.port);
}

/*
 * A replica UP but behind: no write is acknowledged without it.  Its
 * pulls are slow (each pauses two seconds once its bytes are in, forty
 * of the client's rounds): the primary numbers no version while it is
 * behind (before 2026-12-04 each refused round did, and each pull ended
 * behind again, for ever: G1).  The version it wants, which a hostile
 * forward brought, no copy has: the pull takes the group's newest, the
 * primary's (it waited for ever).
 */
static void check_behind_replica(char *image, char *buf)
{
	struct ds_proc *p[2];
	u64 ino, version, acked = 0;
	u32 replica;
	int err;

	ino = file_of_one_chunk("behind", p, image, buf, &version);
	replica = p[1]->id;
	restart_failing(p[1], "ds.resync.pause:value=2000:times=0");
	/* the primary a version ahead: a write that names no replica */
	ds_fill(image, DS_TEST_CHUNK, 4141);
	CHECK(!ds_write(p[0], ino, 0, 0, image, DS_TEST_CHUNK, NULL, 0, NULL),
	      "a write to the primary alone");
	/* the replica needs version + 3, which no copy has */
	err = forward_raw(p[1], ino, 0, version + 3, p[0]->id, NULL);
	CHECK(err == -ESTALE, "a forward past a gap: %s, not ESTALE",
	      strerror(-err));
	ds_fill(image, DS_TEST_CHUNK, 4242);
	err = ds_write(p[0], ino, 0, 0, image, DS_TEST_CHUNK, &replica, 1,
		       &acked);
	CHECK(err, "a write acknowledged (version %llu) while the replica is behind, pulling",
	      (unsigned long long)acked);
	err = write_until_taken(p[0], ino, 0, replica, image, 0);
	CHECK(!err, "a write once the replica can catch up: %s",
	      strerror(-err));
	check_same(p, "acknowledged after a gap", ino, image, buf);
	restart_failing(p[1], NULL);
}

/* A write through a primary, on a thread, for check_fenced_write(). */
struct held_write {
	struct ds_proc *primary;
	u64 ino;
	u32 replica;
	u32 gen;
	const char *image;
	pthread_t thread;
	int err;
};

static void *held_write(void *arg)
{
	struct held_write *w = arg;

	w->err = ds_write_gen(w->primary, w->ino, 0, w->image, DS_TEST_CHUNK,
			      &w->replica, 1, w->gen);
	return NULL;
}

/*
 * File @name of one chunk (file_of_one_chunk()), its layout into @l, and
 * member @which of its group started again with fail point @point armed
 * for @opcode: a request held PAUSE_MS.
 */
static u64 file_held(const char *name, struct ds_proc **p, char *image,
		     char *buf, struct aifs_layout *l, int which,
		     const char *point, u16 opcode)
{
	char spec[64];
	u64 ino, version;

	ino = file_of_one_chunk(name, p, image, buf, &version);
	CHECK(!aifs_layout_get(cluster_conn, &cluster_cred, ino, l),
	      "layout");
	ds_stop(p[which], SIGTERM);
	snprintf(spec, sizeof(spec), "%s:value=%d:opcode=%u", point, PAUSE_MS,
		 opcode);
	ds_start_failing(p[which], spec);
	return ino;
}

/* A fence between the primary's local write and its forward. */
static void check_fenced_write(char *image, char *buf)
{
	struct held_write w;
	struct aifs_layout l;
	struct ds_proc *p[2];
	u64 ino;
	int err;

	ino = file_held("fenced", p, image, buf, &l, 0, "ds.write.pause",
			AIFS_OP_CHUNK_WRITE);
	CHECK(cluster_wait(serves_whole,
			   &(struct whole){ p[0], ino, image, buf }, WAIT_MS),
	      "the restarted primary does not serve the file");
	ds_fill(image, DS_TEST_CHUNK, 5353);
	w = (struct held_write){
		.primary = p[0], .ino = ino, .replica = p[1]->id,
		.gen = le32_to_cpu(l.generation), .image = image,
	};
	CHECK(!pthread_create(&w.thread, NULL, held_write, &w), "thread");
	CHECK(cluster_wait(cluster_fired,
			   &(struct cluster_fail){ p[0], "ds.write.pause" },
			   WAIT_MS),
	      "the write never reached the pause");
	err = cluster_sync(p[0], ino, AIFS_CHUNK_SYNC_FENCE, w.gen + 1);
	CHECK(!err, "the fence: %s", strerror(-err));
	pthread_join(w.thread, NULL);
	CHECK(w.err == -EREMCHG, "a write fenced once applied: %s, not EREMCHG",
	      strerror(-w.err));
	check_same(p, "fenced once applied", ino, image, buf);
	err = write_until_taken(p[0], ino, 0, w.replica, image,
				w.gen + 1);
	CHECK(!err, "the write again with the new layout: %s",
	      strerror(-err));
	check_same(p, "written again with the new layout", ino, image, buf);
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
	ds_start_failing(p[0], "ds.resync.pause:value=20000:times=0");
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

/*
 * A forward of the version a replica holds: the same bytes are a retry,
 * acknowledged; other bytes (a second primary numbered the version too)
 * are refused (EEXIST), the replica's copy kept and served as it was.
 * A replica that serves nothing (the MDS stopped: its lease ran out) was
 * left out of what was acknowledged meanwhile: it yields (ESTALE, its
 * copy stale), and serves its group's copy once back.
 */
static void check_other_bytes(char *image, char *buf)
{
	struct ds_proc *p[2];
	u64 ino, version, got = 0;
	u32 len = 0;
	int err;

	ino = file_of_one_chunk("other-bytes", p, image, buf, &version);
	err = forward_raw(p[1], ino, 0, version, p[0]->id, image);
	CHECK(!err, "a retry of the version held: %s", strerror(-err));
	err = forward_raw(p[1], ino, 0, version, p[0]->id, NULL);
	CHECK(err == -EEXIST,
	      "other bytes at the version held: %s, not EEXIST",
	      strerror(-err));
	err = ds_read(p[1], ino, 0, 0, DS_TEST_CHUNK, 0, buf, &len, &got);
	CHECK(!err && got == version && len == DS_TEST_CHUNK &&
	      !memcmp(buf, image, len),
	      "the replica after forwards it refused: %s, version %llu of %llu",
	      strerror(-err), (unsigned long long)got,
	      (unsigned long long)version);

	kill(cluster_mds.srv.pid, SIGSTOP);
	CHECK(cluster_wait(copy_stale, &(struct whole){ p[1], ino, image, buf },
			   WAIT_MS), "the replica serves with the MDS stopped");
	err = forward_raw(p[1], ino, 0, version, p[0]->id, NULL);
	kill(cluster_mds.srv.pid, SIGCONT);
	CHECK(err == -ESTALE,
	      "other bytes at the version held, the replica serving nothing: %s, not ESTALE",
	      strerror(-err));
	CHECK(cluster_wait(serves_whole,
			   &(struct whole){ p[1], ino, image, buf }, WAIT_MS),
	      "the replica does not serve its group's copy again");
}

/* Has @arg's server held a request (request.delay)?  A cluster_wait() cond. */
/*
 * A primary whose lease runs out while it forwards a write (the replica
 * holds the forward, request.delay; the primary is stopped until the MDS
 * counts it out) does not acknowledge it: the next member may lead by
 * then, and number the same version.
 */
static void check_lease_lost(char *image, char *buf)
{
	struct ds_proc *p[2], patient;
	struct cluster_state state;
	struct held_write w;
	struct aifs_layout l;
	u64 ino;

	ino = file_held("lease-lost", p, image, buf, &l, 1, "request.delay",
			AIFS_OP_CHUNK_FORWARD);
	state = (struct cluster_state){ p[1], AIFS_DS_UP };
	CHECK(cluster_wait(cluster_in_state, &state, WAIT_MS),
	      "the restarted replica is not UP");
	ds_fill(image, DS_TEST_CHUNK, 6464);
	/* a client that waits for the answer, however late */
	patient = *p[0];
	patient.conn = NULL;
	ds_connect_timeout(&patient, -1);
	w = (struct held_write){
		.primary = &patient, .ino = ino, .replica = p[1]->id,
		.gen = le32_to_cpu(l.generation), .image = image,
	};
	CHECK(!pthread_create(&w.thread, NULL, held_write, &w), "thread");
	CHECK(cluster_wait(cluster_fired,
			   &(struct cluster_fail){ p[1], "request.delay" },
			   WAIT_MS),
	      "the forward never reached the replica");
	kill(p[0]->srv.pid, SIGSTOP);
	state = (struct cluster_state){ p[0], AIFS_DS_OFFLINE };
	CHECK(cluster_wait(cluster_in_state, &state, WAIT_MS),
	      "the stopped primary is not counted out");
	kill(p[0]->srv.pid, SIGCONT);
	pthread_join(w.thread, NULL);
	aifs_close(patient.conn);
	CHECK(w.err == -ESTALE,
	      "a write whose primary lost its lease: %s, not ESTALE",
	      strerror(-w.err));
	state = (struct cluster_state){ p[0], AIFS_DS_UP };
	CHECK(cluster_wait(cluster_in_state, &state, WAIT_MS),
	      "the primary is not UP again");
}

/* @p loses its copy of chunk 0 of @ino: its files are removed. */
static void lose_chunk(struct ds_proc *p, u64 ino, const char *what)
{
	char data[512], meta[520];

	CHECK(!ds_chunk_file(p, ino, 0, data, sizeof(data)),
	      "%s: no chunk file", what);
	snprintf(meta, sizeof(meta), "%s.meta", data);
	CHECK(!unlink(data) && !unlink(meta), "%s: unlink %s: %m", what, data);
}

/*
 * @p[0] loses its copy of chunk 0 of @ino (@image on both), then
 * GAP_BYTES of new bytes are written at its start through it, as the
 * kernel's client would (again while EAGAIN or ESTALE): once
 * acknowledged, both copies hold them over the rest of @image.
 */
static void check_write_after_loss(struct ds_proc **p, const char *what,
				   u64 ino, char *image, char *buf)
{
	u64 until = aifs_now_ms() + WAIT_MS, version = 0;
	u32 replica = p[1]->id;
	int err;

	lose_chunk(p[0], ino, what);
	ds_fill(image, GAP_BYTES, ino + 4343);
	while (((err = ds_write(p[0], ino, 0, 0, image, GAP_BYTES, &replica, 1,
				&version)) == -EAGAIN || err == -ESTALE) &&
	       aifs_now_ms() < until)
		test_sleep_ms(50);
	CHECK(!err, "%s: write: %s", what, strerror(-err));
	check_same(p, what, ino, image, buf);
}

/* A primary that lost a chunk takes its replica's copy, never the reverse. */
static void check_lost_primary(char *image, char *buf)
{
	struct ds_proc *p[2];
	u64 ino, version;

	ino = file_of_one_chunk("lost-primary", p, image, buf, &version);
	check_write_after_loss(p, "lost at the replica's version", ino, image,
			       buf);
	check_write_after_loss(p, "lost behind the replica's version", ino,
			       image, buf);
}

/*
 * The replica loses its copy of chunk 0 (its files removed) while the
 * primary, its only source, is dead: a read of it is ESTALE (the client
 * goes to another copy, or fails), never the answer of a chunk never
 * written (ENOENT, which the client reads as a hole: zeros); aifs
 * recovery names it with no source; once the primary is back, the copy
 * is pulled again, unread.
 */
static void check_lost_copy(char *image, char *buf)
{
	struct repair_told told;
	struct whole_count pulled;
	struct ds_proc *p[2];
	u64 ino, version;
	u32 len = 0;
	int err;

	ino = file_of_one_chunk("lost-copy", p, image, buf, &version);
	ds_stop(p[0], SIGKILL);
	lose_chunk(p[1], ino, "lost while its source is dead");
	pulled = (struct whole_count){ p[1], resynced(p[1]) + 1 };
	err = ds_read(p[1], ino, 0, 0, DS_TEST_CHUNK, 0, buf, &len, NULL);
	CHECK(err == -ESTALE, "a read of the lost copy: %s, not ESTALE",
	      strerror(-err));
	told = (struct repair_told){ p[1]->id, ino, true };
	CHECK(cluster_wait(recovery_told, &told, WAIT_MS),
	      "aifs recovery does not name the lost copy with no source");
	ds_start(p[0]);
	CHECK(cluster_wait(resynced_count, &pulled, WAIT_MS),
	      "the lost copy is not pulled again, unread, once its source is back");
	check_serves(p[1], "lost, pulled again: the replica", ino, image,
		     version, buf);
	check_serves(p[0], "lost, pulled again: the primary", ino, image,
		     version, buf);
}

/* A copy lost and not read is found by scrub, and pulled again. */
static void check_lost_scrubbed(char *image, char *buf)
{
	struct aifs_ds_scrub_rep rep;
	struct whole_count pulled;
	struct ds_proc *p[2];
	u64 ino, version;

	ino = file_of_one_chunk("lost-unread", p, image, buf, &version);
	pulled = (struct whole_count){ p[1], resynced(p[1]) + 1 };
	lose_chunk(p[1], ino, "lost, unread");
	CHECK(!ds_scrub(p[1], AIFS_SCRUB_START, &rep), "scrub start");
	CHECK(cluster_wait(resynced_count, &pulled, WAIT_MS),
	      "scrub does not find the lost copy");
	check_serves(p[1], "lost, scrubbed: the replica", ino, image, version,
		     buf);
}

/* A catch-up of a server's copies of an inode (CHUNK_SYNC), on a thread. */
struct catch_up {
	struct ds_proc *p;
	u64 ino;
	pthread_t thread;
	int err;
};

static void *catch_up(void *arg)
{
	struct catch_up *c = arg;

	c->err = cluster_sync(c->p, c->ino, 0, 0);
	return NULL;
}

/* The fail point that holds @p's pulls once the peer's bytes are in. */
static struct cluster_fail pull_held(struct ds_proc *p)
{
	return (struct cluster_fail){ p, "ds.resync.pause" };
}

/* @replica again, its every pull held 3 s once the peer's bytes are in. */
static void replica_pulls_slowly(struct ds_proc *replica)
{
	struct cluster_state up = { replica, AIFS_DS_UP };
	struct cluster_fail held = pull_held(replica);

	ds_stop(replica, SIGTERM);
	ds_start_failing(replica, "ds.resync.pause:value=3000:times=0");
	CHECK(cluster_wait(cluster_in_state, &up, WAIT_MS),
	      "the restarted replica is not UP");
	/* its catch-up asks its peer, which it knows from the map */
	cluster_wait_map_known(replica, WAIT_MS);
	CHECK(!cluster_fired(&held), "the replica pulled on its return");
}

/* A catch-up of @ino on @p (c), once its first pull is held. */
static void catch_up_held(struct catch_up *c, struct ds_proc *p, u64 ino)
{
	struct cluster_fail held = pull_held(p);

	*c = (struct catch_up){ .p = p, .ino = ino };
	CHECK(!pthread_create(&c->thread, NULL, catch_up, c), "thread");
	CHECK(cluster_wait(cluster_fired, &held, WAIT_MS),
	      "the catch-up pulled nothing");
}

static void catch_up_end(struct catch_up *c)
{
	pthread_join(c->thread, NULL);
	CHECK(!c->err, "the catch-up: %s", strerror(-c->err));
}

/*
 * The first truncation of @ino made on @p alone (as the MDS's queue
 * reaches one copy before the other): chunk @index, and those after it
 * with AIFS_DELETE_FROM in @flags.
 */
static void cut_on(struct ds_proc *p, u64 ino, u32 index, u32 flags)
{
	struct aifs_chunk_delete_req cut = {
		.fence = cpu_to_le32(1),
		.flags = cpu_to_le32(flags),
	};
	struct aifs_reply reply = { 0 };
	int err;

	ds_chunk_id(&cut.id, ino, index);
	err = ds_request(p, AIFS_OP_CHUNK_DELETE, &cut, sizeof(cut), &reply);
	CHECK(!err && !reply.status, "the cut of chunk %u on ds %d: %d, status %u",
	      index, p->id, err, reply.status);
	aifs_reply_free(&reply);
}

/* Does @arg's server serve GAP_BYTES of its image as chunk 1?  A cond. */
static bool serves_gap_bytes(void *arg)
{
	return serves_bytes(arg, 1, GAP_BYTES);
}

/*
 * A cut the replica missed (chunk 1 deleted on the primary only, as the
 * first truncation of the file), and chunk 1 written again during the
 * replica's catch-up, after it listed the primary's chunks and before it
 * deleted those the primary had cut (held in between by the pull of
 * chunk 0, ds.resync.pause): the write reaches the replica as a gap (its
 * old copy stale, wanting the new incarnation), and that copy stays, to
 * be pulled, not deleted with the cut incarnation's bytes.
 */
static void check_cut_overtaken(char *image, char *buf)
{
	struct ds_proc *p[2];
	struct catch_up c;
	u64 ino, version;
	int err;

	ino = file_of_one_chunk("cut-overtaken", p, image, buf, &version);
	CHECK(!write_until_taken(p[0], ino, 1, p[1]->id, image, 0), "chunk 1");
	replica_pulls_slowly(p[1]);
	/* the primary a version ahead on chunk 0, and chunk 1 cut there */
	ds_fill(image, GAP_BYTES, 9191);
	err = forward_raw(p[0], ino, 0, version + 1, p[1]->id, image);
	CHECK(!err, "the primary's next version: %s", strerror(-err));
	cut_on(p[0], ino, 1, 0);
	catch_up_held(&c, p[1], ino);
	/* chunk 1 again, under the cut: created on the primary, a gap here */
	ds_fill(image, GAP_BYTES, 9292);
	err = forward_raw(p[0], ino, 1, REBORN, p[1]->id, image);
	CHECK(!err, "chunk 1 created again: %s", strerror(-err));
	err = forward_raw(p[1], ino, 1, REBORN, p[0]->id, image);
	CHECK(err == -ESTALE, "the replica's old chunk 1 took the new: %s",
	      strerror(-err));
	catch_up_end(&c);
	CHECK(cluster_wait(serves_gap_bytes,
			   &(struct whole){ p[1], ino, image, buf }, WAIT_MS),
	      "the replica does not serve chunk 1 written in its catch-up");
}

/*
 * A cut made on the replica after its catch-up listed the primary's
 * chunks (held there by ds.sync.pause) and before it pulled: the
 * primary's copy, which the cut has not reached yet, is not taken, and
 * the chunk stays cut (the cluster nemesis found it: a truncation
 * acknowledged, and the bytes it cut back on a copy, pulled from a peer
 * the MDS reached after it).
 */
static void check_cut_before_pull(char *image, char *buf)
{
	struct cluster_state up;
	struct cluster_fail held;
	struct ds_proc *p[2];
	struct catch_up c;
	u64 ino, version;
	int err;

	ino = file_of_one_chunk("cut-before-pull", p, image, buf, &version);
	up = (struct cluster_state){ p[1], AIFS_DS_UP };
	held = (struct cluster_fail){ p[1], "ds.sync.pause" };
	/* the primary a version ahead: the replica's catch-up pulls it */
	ds_fill(image, GAP_BYTES, 6161);
	err = forward_raw(p[0], ino, 0, version + 1, p[1]->id, image);
	CHECK(!err, "the primary's next version: %s", strerror(-err));
	ds_stop(p[1], SIGTERM);
	ds_start_failing(p[1], "ds.sync.pause:value=3000");
	CHECK(cluster_wait(cluster_in_state, &up, WAIT_MS),
	      "the restarted replica is not UP");
	cluster_wait_map_known(p[1], WAIT_MS);
	c = (struct catch_up){ .p = p[1], .ino = ino };
	CHECK(!pthread_create(&c.thread, NULL, catch_up, &c), "thread");
	CHECK(cluster_wait(cluster_fired, &held, WAIT_MS),
	      "the catch-up listed nothing");
	cut_on(p[1], ino, 0, 0);
	pthread_join(c.thread, NULL);
	CHECK(cluster_chunk_gone(&(struct chunk_at){ p[1], ino, 0 }),
	      "the catch-up brought back chunk 0, cut on the replica");
}

/*
 * Forwards applied while a catch-up pulls the chunk (held once the
 * peer's bytes are in, ds.resync.pause) are not undone by the older
 * copy it pulled before them.
 */
static void check_sync_overtaken(char *image, char *buf)
{
	struct ds_proc *p[2];
	struct catch_up c;
	u64 ino, version;
	int err;

	ino = file_of_one_chunk("sync-overtaken", p, image, buf, &version);
	replica_pulls_slowly(p[1]);
	/* the primary a version ahead: the catch-up pulls that version */
	ds_fill(image, GAP_BYTES, 7171);
	err = forward_raw(p[0], ino, 0, version + 1, p[1]->id, image);
	CHECK(!err, "the primary's next version: %s", strerror(-err));
	catch_up_held(&c, p[1], ino);
	/* meanwhile that version and the next reach the replica */
	err = forward_raw(p[1], ino, 0, version + 1, p[0]->id, image);
	CHECK(!err, "the forward of the version pulled: %s", strerror(-err));
	ds_fill(image, GAP_BYTES, 7272);
	err = forward_raw(p[0], ino, 0, version + 2, p[1]->id, image) ?:
	      forward_raw(p[1], ino, 0, version + 2, p[0]->id, image);
	CHECK(!err, "the version after it: %s", strerror(-err));
	catch_up_end(&c);
	check_serves(p[1], "caught up while forwards came", ino, image,
		     version + 2, buf);
	check_serves(p[0], "the primary, forwards in a catch-up", ino, image,
		     version + 2, buf);
}

/*
 * Does @arg's server serve chunk 0 whole after a catch-up of the inode,
 * as the MDS sends them until one makes progress?  A cluster_wait() cond.
 */
static bool caught_up(void *arg)
{
	const struct whole *w = arg;
	u32 len = 0;

	cluster_sync(w->p, w->ino, 0, 0);
	return !ds_read(w->p, w->ino, 0, 0, DS_TEST_CHUNK, 0, w->buf, &len,
			NULL);
}

/*
 * Chunk 0 of the replica stale for a version no copy has, its pull
 * queued behind another (the catch-up's of chunk 1, held by
 * ds.resync.pause), when a second catch-up lists the primary's copy,
 * older than that version, and joins the pull: the copy is whole again,
 * at the newest version of the group (its own), and the catch-up ends.
 * The file was truncated once on both copies: the pull that the
 * catch-up joined takes the fence it listed, which the truncation made
 * here does not exceed.
 */
static void check_stale_catch_up(char *image, char *buf)
{
	struct cluster_fail held;
	struct ds_proc *p[2];
	struct catch_up c;
	u64 ino, version, version1 = 0;
	int err;

	ino = file_of_one_chunk("stale-catch-up", p, image, buf, &version);
	CHECK(!write_until_taken(p[0], ino, 1, p[1]->id, image, 0), "chunk 1");
	CHECK(!cluster_read_chunk(p[0], ino, 1, buf, &version1), "chunk 1");
	/* a truncation made on both copies: the inode's fence is 1 */
	cut_on(p[0], ino, 2, 0);
	cut_on(p[1], ino, 2, 0);
	restart_failing(p[1], "ds.resync.pause:value=3000:times=1");
	cluster_wait_map_known(p[1], WAIT_MS);
	held = pull_held(p[1]);
	/* the primary a version ahead on chunk 1: a catch-up pulls it */
	err = forward_raw(p[0], ino, 1, version1 + 1, p[1]->id, NULL);
	CHECK(!err, "the primary's next version of chunk 1: %s",
	      strerror(-err));
	c = (struct catch_up){ .p = p[1], .ino = ino };
	CHECK(!pthread_create(&c.thread, NULL, catch_up, &c), "thread");
	CHECK(cluster_wait(cluster_fired, &held, WAIT_MS),
	      "the catch-up pulled nothing");
	/* meanwhile a forward no copy will have makes chunk 0 stale here */
	err = forward_raw(p[1], ino, 0, version + 5, p[0]->id, NULL);
	CHECK(err == -ESTALE, "a forward with a gap: %s, not ESTALE",
	      strerror(-err));
	CHECK(cluster_wait(caught_up, &(struct whole){ p[1], ino, image, buf },
			   WAIT_MS),
	      "catch-ups of the stale copy never end");
	catch_up_end(&c);
	check_serves(p[1], "stale for a version never acknowledged", ino,
		     image, version, buf);
	check_serves(p[0], "the primary of a copy stale for nothing", ino,
		     image, version, buf);
}

/*
 * A catch-up pass over a file of two chunks, a range of one chunk at a
 * time, with the file cut to 0 on the peer between the first range and
 * the second (the cut still queued for this server at the MDS): the
 * pass does not take the peer's count of truncations for chunk 0, which
 * it compared before the cut, and the queued cut, sent once the pass is
 * over, removes it.  Before, the pass took the count, the cut was taken
 * for done, and chunk 0 stayed with the bytes cut (the replicated
 * nemesis, seed 949858, read them after an O_TRUNC).
 */
static void check_cut_between_ranges(void)
{
	struct aifs_chunk_sync_rep rep = { 0 };
	struct aifs_layout l;
	struct ds_proc *p[2];
	u32 from, ranges = 0;
	u64 ino;
	int err;

	ino = cluster_create("cut-between-ranges", &l);
	CHECK(!cluster_write_chunks(&l, ino, 2), "write");
	p[0] = cluster_proc(le32_to_cpu(l.targets[0]));
	p[1] = cluster_proc(le32_to_cpu(l.targets[1]));
	err = cluster_sync_range(p[1], ino, 0, 1, &rep);
	CHECK(!err && le32_to_cpu(rep.next) == 1,
	      "the first range: %s, next %u", strerror(-err),
	      le32_to_cpu(rep.next));
	cut_on(p[0], ino, 0, AIFS_DELETE_FROM);
	/* the rest of the pass, as the MDS goes on with it */
	for (from = 1; !err && from != AIFS_CHUNK_SYNC_DONE && ranges++ < 8;
	     from = le32_to_cpu(rep.next)) {
		err = cluster_sync_range(p[1], ino, from, 1, &rep);
		CHECK(!err, "the range from %u: %s", from, strerror(-err));
	}
	CHECK(from == AIFS_CHUNK_SYNC_DONE, "the pass never ended");
	cut_on(p[1], ino, 0, AIFS_DELETE_FROM);
	CHECK(cluster_chunk_gone(&(struct chunk_at){ p[1], ino, 0 }),
	      "chunk 0, compared before the cut, stays on the replica after it");
	CHECK(cluster_chunk_gone(&(struct chunk_at){ p[1], ino, 1 }),
	      "chunk 1 stays on the replica after the cut");
}

/*
 * A catch-up from a peer that lost chunk 0 (its files removed) and made
 * a cut this server missed (from chunk 1 on): the lost chunk is listed,
 * stale, so the catch-up keeps its own copy of it rather than take it
 * for cut, and the peer pulls it back.  Before, the catch-up deleted the
 * last good copy.
 */
static void check_lost_listed(char *image, char *buf)
{
	struct aifs_layout l;
	struct ds_proc *p[2];
	struct whole w;
	u64 ino, version;
	int err;

	ino = cluster_create("lost-listed", &l);
	CHECK(!cluster_write_chunks(&l, ino, 2), "write");
	p[0] = cluster_proc(le32_to_cpu(l.targets[0]));
	p[1] = cluster_proc(le32_to_cpu(l.targets[1]));
	ds_fill(image, DS_TEST_CHUNK, ino * 1000);
	CHECK(!cluster_read_chunk(p[1], ino, 0, buf, &version) &&
	      !memcmp(buf, image, DS_TEST_CHUNK), "chunk 0 on the replica");
	cut_on(p[0], ino, 1, AIFS_DELETE_FROM);
	lose_chunk(p[0], ino, "lost on the peer");
	err = cluster_sync(p[1], ino, 0, 0);
	CHECK(!err, "the catch-up: %s", strerror(-err));
	check_serves(p[1], "a catch-up from a peer that lost the chunk", ino,
		     image, version, buf);
	w = (struct whole){ p[0], ino, image, buf };
	CHECK(cluster_wait(serves_whole, &w, WAIT_MS),
	      "the peer does not take its lost chunk back");
}

int main(void)
{
	static char image[DS_TEST_CHUNK], buf[DS_TEST_CHUNK];

	setvbuf(stdout, NULL, _IONBF, 0);
	cluster_setup(2, CLUSTER_GRACE_MS, "default_replicas = 2\n");
	check_claim(image, buf);
	check_no_source(image, buf);
	check_swap_recovery(image, buf);
	check_behind_replica(image, buf);
	check_fenced_write(image, buf);
	check_stale_primary(image, buf);
	check_other_bytes(image, buf);
	check_lease_lost(image, buf);
	check_lost_primary(image, buf);
	check_cut_overtaken(image, buf);
	check_sync_overtaken(image, buf);
	check_stale_catch_up(image, buf);
	check_cut_before_pull(image, buf);
	check_queue_full(image, buf);
	check_lost_copy(image, buf);
	check_lost_scrubbed(image, buf);
	check_cut_between_ranges();
	check_lost_listed(image, buf);
	return test_result();
}
