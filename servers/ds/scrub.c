// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Scrub: a background pass over every chunk of this server that reads each
 * block and checks it against its CRC32C, so that a block gone bad on a
 * copy nobody reads is found while its peers still hold good ones. A
 * damaged chunk is repaired as a read's would be: queued for resync from
 * its group (resync.c), which marks it stale (its bytes kept), pulls a
 * good copy beside it, swaps it in and keeps the count.
 *
 * A pass reads at most scrub_rate_mib MiB/s, a piece (1 MiB) at a time
 * under the chunk's shared lock, so writers wait for one piece at most. It
 * begins scrub_interval_s after the last pass began (its time is kept in
 * data_dir/scrub.last, so restarts do not put it off for ever; a new data
 * directory waits one interval), or at once on DS_SCRUB with
 * AIFS_SCRUB_START.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "ds.h"

#define SCRUB_PIECE_BLOCKS	((1U << 20) / DS_BLOCK_SIZE)

struct ds_scrub {
	pthread_t thread;
	pthread_mutex_t lock;	/* protects what follows */
	pthread_cond_t wake;
	bool stop;
	bool start_now;
	bool running;
	u64 next;		/* Unix seconds: the next pass */
	u64 passes, started, finished, pass_chunks, pass_total;
	u64 chunks, bytes, bad;
	u64 stripes, stripes_bad;
	u64 pass_start_ms;	/* monotonic, for the rate */
	u64 pass_bytes;
	/* the scrub thread's own: the EC layout of the last inode asked */
	u64 layout_ino;
	bool layout_ec;
	struct aifs_layout layout;
};

static void scrub_last_path(struct ds *ds, char *path, size_t size)
{
	snprintf(path, size, "%s/scrub.last", ds->cfg.data_dir);
}

/* When the last pass began, 0 if none did here. */
static u64 scrub_last_load(struct ds *ds)
{
	char path[PATH_MAX];
	unsigned long long t = 0;
	FILE *f;

	scrub_last_path(ds, path, sizeof(path));
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &t) != 1)
		t = 0;
	fclose(f);
	return t;
}

static void scrub_last_store(struct ds *ds, u64 t)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	FILE *f;

	scrub_last_path(ds, path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	f = fopen(tmp, "we");
	if (!f)
		goto fail;
	fprintf(f, "%llu\n", (unsigned long long)t);
	if (fclose(f) || rename(tmp, path))
		goto fail;
	return;
fail:
	aifs_warn("%s: %m (the next start may scrub early)", path);
	unlink(tmp);
}

/*
 * Sleep until the pass is back under the rate, or the server stops:
 * false then.
 */
static bool scrub_throttle(struct ds *ds, u32 bytes)
{
	struct ds_scrub *s = ds->scrub;
	u64 rate = (u64)ds->cfg.scrub_rate_mib << 20;
	bool go_on;

	pthread_mutex_lock(&s->lock);
	s->pass_bytes += bytes;
	go_on = ds_sleep_until(&s->lock, &s->wake, &s->stop,
			       s->pass_start_ms + s->pass_bytes * 1000 / rate);
	pthread_mutex_unlock(&s->lock);
	return go_on;
}

/*
 * Verify the piece of @id from block @first: its blocks (0: the chunk is
 * done, or gone, or being resynced) and in *@bytes the bytes stored in
 * them; -EIO when it is damaged.
 */
static int scrub_piece(struct ds *ds, const struct aifs_chunk_id *id,
		       u32 first, void *buf, u32 *bytes)
{
	struct ds_lock lock;
	struct ds_chunk c;
	u32 total, n;
	int err;

	ds_chunk_lock(ds, id, false, &lock);
	err = ds_chunk_open(ds, id, 0, &c);
	if (err) {
		ds_chunk_unlock(ds, &lock);
		/* deleted meanwhile, or a sidecar that does not read */
		return err == -ENOENT ? 0 : err;
	}
	total = DS_BLOCKS(c.meta.length);
	n = total > first ? total - first : 0;
	if (n > SCRUB_PIECE_BLOCKS)
		n = SCRUB_PIECE_BLOCKS;
	if (c.meta.flags & DS_META_STALE) {
		/* not verifiable: queued again (a restart forgot it) */
		if (!first)
			ds_resync_queue(ds, &c, DS_RESYNC_STALE);
		n = 0;
	}
	err = n ? ds_data_read(&c, first, n, buf) : 0;
	*bytes = n ? c.meta.length - first * DS_BLOCK_SIZE : 0;
	if (*bytes > n * DS_BLOCK_SIZE)
		*bytes = n * DS_BLOCK_SIZE;
	if (err == -EIO) {
		aifs_warn("scrub: chunk %llx.%x.%x: bad block in [%u, %u): repairing",
			  (unsigned long long)le64_to_cpu(id->ino),
			  le32_to_cpu(id->index), le16_to_cpu(id->fragment),
			  first, first + n);
		ds_resync_queue(ds, &c, DS_RESYNC_DAMAGED);
	}
	ds_chunk_close(&c, 0);
	ds_chunk_unlock(ds, &lock);
	return err ? err : (int)n;
}

static void scrub_count(struct ds_scrub *s, u64 bytes, bool bad)
{
	pthread_mutex_lock(&s->lock);
	s->pass_chunks++;
	s->chunks++;
	s->bytes += bytes;
	s->bad += bad;
	pthread_mutex_unlock(&s->lock);
}

/* The EC layout of @ino as the MDS has it, asked once per inode and pass. */
static const struct aifs_layout *scrub_layout(struct ds *ds, u64 ino)
{
	struct ds_scrub *s = ds->scrub;

	if (s->layout_ino != ino) {
		s->layout_ino = ino;
		s->layout_ec = !ds_mds_layout(ds, ino, &s->layout) &&
			       s->layout.type == AIFS_LAYOUT_EC &&
			       !aifs_layout_check(&s->layout) &&
			       s->layout.target_count;
	}
	return s->layout_ec ? &s->layout : NULL;
}

/*
 * The parity of the stripe of EC fragment @id compared with its data by
 * the stripe's leader, or the first member after it that answers
 * (EC_VERIFY, repairing: the fragments' CRCs vouch for the data), when
 * this server holds its first parity fragment: each stripe once a pass.
 */
static void scrub_stripe(struct ds *ds, const struct aifs_chunk_id *id)
{
	struct aifs_ec_verify_req r = {
		.id = *id,
		.flags = cpu_to_le32(AIFS_EC_VERIFY_REPAIR),
	};
	const struct aifs_layout *l = scrub_layout(ds, le64_to_cpu(id->ino));
	u32 width, g, i, member, self = ds_self_id(ds);
	struct ds_scrub *s = ds->scrub;
	struct aifs_ec_verify_rep rep;
	int err = -EAGAIN;

	if (!l || le16_to_cpu(id->fragment) != AIFS_EC_FRAGMENT(l->ec_k))
		return;
	width = l->ec_k + l->ec_m;
	g = le32_to_cpu(id->index) % le16_to_cpu(l->stripe_count);
	if (le32_to_cpu(l->targets[g * width + l->ec_k]) != self)
		return;
	r.id.fragment = 0;
	ds_ec_group_of(l, g, &r.group);
	for (i = 0; i < width && err; i++) {
		member = le32_to_cpu(r.group.members[i]);
		if (member == self)
			err = ds_ec_verify_run(ds, &r, &rep);
		else if (!ds_peer_out(ds, member))
			err = ds_ec_verify_peer(ds, member, &r, &rep);
	}
	if (err)
		return;	/* the next pass looks again */
	if (rep.mismatched)
		aifs_warn("scrub: stripe %llx.%x: %llu bytes of parity did not match its data: %llu rewritten",
			  (unsigned long long)le64_to_cpu(id->ino),
			  le32_to_cpu(id->index),
			  (unsigned long long)le64_to_cpu(rep.mismatched),
			  (unsigned long long)le64_to_cpu(rep.repaired));
	pthread_mutex_lock(&s->lock);
	s->stripes++;
	s->stripes_bad += !!rep.mismatched;
	pthread_mutex_unlock(&s->lock);
}

/* ds_chunk_fn: one chunk, piece by piece; non-zero stops the pass. */
static int scrub_chunk(struct ds *ds, const struct aifs_chunk_id *id,
		       void *buf)
{
	u32 first = 0, piece;
	u64 bytes = 0;
	int n;

	while ((n = scrub_piece(ds, id, first, buf, &piece)) > 0) {
		first += n;
		bytes += piece;
		if (!scrub_throttle(ds, n * DS_BLOCK_SIZE))
			return 1;
	}
	if (n < 0 && n != -EIO)
		aifs_warn("scrub: chunk %llx.%x.%x: %s",
			  (unsigned long long)le64_to_cpu(id->ino),
			  le32_to_cpu(id->index), le16_to_cpu(id->fragment),
			  strerror(-n));
	scrub_count(ds->scrub, bytes, n == -EIO);
	if (!n && id->fragment)
		scrub_stripe(ds, id);
	return 0;
}

/* Chunks of @ino held here and gone from under the store: damaged too. */
static int scrub_held(struct ds *ds, u64 ino, void *buf)
{
	u32 lost;
	int err;

	(void)buf;
	err = ds_held_missing(ds, ino, &lost);
	if (err)
		aifs_warn("scrub: inode %llu: its record of chunks held: %s",
			  (unsigned long long)ino, strerror(-err));
	pthread_mutex_lock(&ds->scrub->lock);
	ds->scrub->bad += lost;
	pthread_mutex_unlock(&ds->scrub->lock);
	return 0;
}

static void scrub_pass(struct ds *ds, void *buf)
{
	struct ds_scrub *s = ds->scrub;
	u64 bad_before, now = time(NULL);
	int stopped;

	pthread_mutex_lock(&s->lock);
	s->running = true;
	s->started = now;
	s->pass_chunks = 0;
	s->pass_total = atomic_load(&ds->nr_chunks);
	s->pass_start_ms = aifs_now_ms();
	s->pass_bytes = 0;
	bad_before = s->bad;
	s->layout_ino = 0;	/* layouts change between passes */
	pthread_mutex_unlock(&s->lock);
	scrub_last_store(ds, now);
	aifs_info("scrub: pass begins over %llu chunks at %d MiB/s",
		  (unsigned long long)s->pass_total, ds->cfg.scrub_rate_mib);

	stopped = ds_store_walk_held(ds, scrub_chunk, scrub_held, buf);

	pthread_mutex_lock(&s->lock);
	s->running = false;
	if (!stopped) {
		s->passes++;
		s->finished = time(NULL);
	}
	s->next = now + ds->cfg.scrub_interval_s;
	aifs_info("scrub: pass %s: %llu chunks, %llu MiB verified, %llu damaged, in %llu s",
		  stopped ? "stopped" : "done",
		  (unsigned long long)s->pass_chunks,
		  (unsigned long long)(s->pass_bytes >> 20),
		  (unsigned long long)(s->bad - bad_before),
		  (unsigned long long)(time(NULL) - now));
	pthread_mutex_unlock(&s->lock);
}

/* Wait for the next pass: false when the server stops first. */
static bool scrub_wait(struct ds_scrub *s)
{
	struct timespec until = { 0 };
	bool go;

	pthread_mutex_lock(&s->lock);
	while (!s->stop && !s->start_now && (u64)time(NULL) < s->next) {
		until.tv_sec = s->next;
		pthread_cond_timedwait(&s->wake, &s->lock, &until);
	}
	s->start_now = false;
	go = !s->stop;
	pthread_mutex_unlock(&s->lock);
	return go;
}

static void *scrub_thread(void *arg)
{
	struct ds *ds = arg;
	void *buf;

	buf = ds_blocks_alloc(SCRUB_PIECE_BLOCKS);
	if (!buf) {
		aifs_err("scrub: out of memory: no scrub");
		return NULL;
	}
	while (scrub_wait(ds->scrub))
		scrub_pass(ds, buf);
	free(buf);
	return NULL;
}

int ds_scrub_start(struct ds *ds)
{
	struct ds_scrub *s;
	u64 last;
	int err;

	if (!ds->cfg.scrub_rate_mib)
		return 0;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->wake, NULL);
	last = scrub_last_load(ds);
	s->next = (last ? last : (u64)time(NULL)) + ds->cfg.scrub_interval_s;
	ds->scrub = s;
	err = -pthread_create(&s->thread, NULL, scrub_thread, ds);
	if (err) {
		ds->scrub = NULL;
		free(s);
	}
	return err;
}

void ds_scrub_stop(struct ds *ds)
{
	struct ds_scrub *s = ds->scrub;

	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	s->stop = true;
	pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->thread, NULL);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->wake);
	free(s);
	ds->scrub = NULL;
}

/*
 * How the scrub stands (and resync, which repairs what it finds), into
 * @rep; with @start, a pass begins now unless one is running.  -EOPNOTSUPP
 * when scrub_rate_mib is 0.
 */
int ds_scrub_report(struct ds *ds, bool start, struct aifs_ds_scrub_rep *rep)
{
	struct ds_scrub *s = ds->scrub;
	u64 resynced, failed;

	if (!s)
		return -EOPNOTSUPP;
	ds_resync_counts(ds, &resynced, &failed);
	pthread_mutex_lock(&s->lock);
	if (start && !s->running) {
		s->start_now = true;
		/* shown as running from now, not from when the thread wakes */
		s->running = true;
		s->pass_chunks = 0;
		pthread_cond_signal(&s->wake);
	}
	*rep = (struct aifs_ds_scrub_rep){
		.running = cpu_to_le32(s->running),
		.rate_mib = cpu_to_le32(ds->cfg.scrub_rate_mib),
		.passes = cpu_to_le64(s->passes),
		.started = cpu_to_le64(s->started),
		.finished = cpu_to_le64(s->finished),
		.pass_chunks = cpu_to_le64(s->pass_chunks),
		.pass_total = cpu_to_le64(s->pass_total),
		.chunks = cpu_to_le64(s->chunks),
		.bytes = cpu_to_le64(s->bytes),
		.bad = cpu_to_le64(s->bad),
		.resynced = cpu_to_le64(resynced),
		.resync_failed = cpu_to_le64(failed),
		.stripes = cpu_to_le64(s->stripes),
		.stripes_bad = cpu_to_le64(s->stripes_bad),
	};
	pthread_mutex_unlock(&s->lock);
	return 0;
}

/* DS_SCRUB: start a pass if asked, and tell how the scrub stands. */
static int ds_scrub_handler(struct aifs_request *req)
{
	struct aifs_ds_scrub_rep rep;
	struct aifs_ds_scrub_req r;
	int err;

	err = aifs_decode_ds_scrub_req(req->payload, req->payload_len, &r,
				       NULL);
	if (!err)
		err = ds_scrub_report(req->data,
				      le32_to_cpu(r.flags) & AIFS_SCRUB_START,
				      &rep);
	if (err)
		return err;
	return ds_reply_fixed(req, &rep, sizeof(rep));
}

int ds_scrub_register(struct aifs_server *srv)
{
	return aifs_server_register(srv, AIFS_OP_DS_SCRUB, ds_scrub_handler, 0);
}
