// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The acknowledged-writes oracle with a nemesis (issue 29) against the
 * servers themselves: a real aifs-mds and three aifs-ds.  Two writer
 * threads write self-describing 4 KiB blocks (each names its file, its
 * block and its write; the rest follows from those) to files of
 * replicas=2 and replicas=3 the way the kernel's client does
 * (kmod/write.c: a synced CHUNK_WRITE to the group's first member, the
 * next member the primary when one cannot be reached or answers ESTALE,
 * all the others its replicas), cut them through the MDS (SETATTR of the
 * size with CUT) and read blocks back (the first member that serves),
 * while a nemesis thread kills (-9) and restarts, or stops (SIGSTOP),
 * one data server at a time, or kills and restarts the MDS, waiting
 * until every server is UP before the next fault.  Per block the model
 * keeps the last acknowledged write and those tried since (failed, or
 * not known to have landed), as tests/faults/nemesis/oracle.py does
 * through the kernel's client: every read during the run, and every
 * block of every copy at the end (each data server read on its own,
 * once recovery is over), holds one of those, never zeros in place of
 * an acknowledged write, never another file's or place's block.
 *
 * The seeds come from AIFS_NEMESIS_SEEDS ("3 5" by default: between them
 * data servers killed past the grace and back, catching up while they
 * are written to, stopped past it, and the MDS killed), each run for
 * AIFS_NEMESIS_SECONDS (20): the same seed makes the same choices, not
 * the same timing.  Each seed's operations and faults go to
 * nemesis-SEED.RUN.history in the test's directory (kept when it fails).
 * Seed 5 lost acknowledged writes on the servers of ee3816f, before a
 * catch-up kept the writes forwarded to it while it pulled (e51675d).
 */
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cluster-harness.h"

#define SERVERS		3
#define BLOCK		4096
#define CHUNKS		2
#define BLOCKS		(CHUNKS * DS_TEST_CHUNK / BLOCK)
#define WRITERS		2
#define FILES		2		/* per writer: replicas=2 and =3 */
#define TRIED_MAX	64		/* writes tried on a block since its ack */
#define IO_DEADLINE_MS	20000		/* a client's patience, as timeo */
#define SETTLE_MS	120000
#define MAGIC		0x314d454e53464941ULL	/* "AIFSNEM1" */

struct block_head {
	u64 magic;
	u32 file;
	u32 block;
	u64 wid;
};

/* What a block may hold: its last acknowledged write (0: zeros), and
 * the writes tried on it since (0: a cut).
 */
struct block_model {
	u64 acked;
	u32 nr_tried;
	bool any;		/* more tried than TRIED_MAX: any of its own */
	u64 tried[TRIED_MAX];
};

struct nem_file {
	u32 id;
	u64 ino;
	struct aifs_layout layout;
	struct block_model blocks[BLOCKS];
};

struct writer {
	pthread_t thread;
	u64 rng;
	u64 wid;
	struct nem_file *files[FILES];
	struct aifs_conn *mds;
	struct aifs_conn *ds[DS_TEST_MAX + 1];	/* by server id */
	u8 buf[64 * BLOCK];
	char problem[256];
};

static struct nem_file nem_files[WRITERS * FILES];
static struct writer writers[WRITERS];
static FILE *history;
static pthread_mutex_t history_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile bool running;
static u8 chunk_buf[DS_TEST_CHUNK];

static u64 next_rand(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A line of the seed's history, after the time. */
static void __attribute__((format(printf, 1, 2)))
log_line(const char *fmt, ...)
{
	struct timespec ts;
	va_list ap;

	clock_gettime(CLOCK_REALTIME, &ts);
	pthread_mutex_lock(&history_lock);
	fprintf(history, "%ld.%03ld ", (long)ts.tv_sec, ts.tv_nsec / 1000000);
	va_start(ap, fmt);
	vfprintf(history, fmt, ap);
	va_end(ap);
	fputc('\n', history);
	fflush(history);
	pthread_mutex_unlock(&history_lock);
}

/* The 4 KiB write @wid puts at @block of file @file. */
static void block_fill(u8 *out, u32 file, u32 block, u64 wid)
{
	struct block_head h = { MAGIC, file, block, wid };
	u64 s = (wid * 0x9e3779b97f4a7c15ULL) ^ ((u64)file << 32 | block) ^ 1;
	u32 i;

	memcpy(out, &h, sizeof(h));
	for (i = sizeof(h); i < BLOCK; i += sizeof(s)) {
		next_rand(&s);
		memcpy(out + i, &s, sizeof(s));
	}
}

/* The write a block read says it is (0: zeros), or false: garbage. */
static bool block_says(const u8 *data, struct block_head *h)
{
	static __thread u8 want[BLOCK];
	u32 i;

	for (i = 0; i < BLOCK && !data[i]; i++)
		;
	if (i == BLOCK) {
		*h = (struct block_head){ 0 };
		return true;
	}
	memcpy(h, data, sizeof(*h));
	if (h->magic != MAGIC)
		return false;
	block_fill(want, h->file, h->block, h->wid);
	return !memcmp(want, data, BLOCK);
}

static bool may_hold(const struct block_model *m, u64 wid)
{
	u32 i;

	if (m->acked == wid || m->any)
		return true;
	for (i = 0; i < m->nr_tried; i++)
		if (m->tried[i] == wid)
			return true;
	return false;
}

static void model_try(struct block_model *m, u64 wid)
{
	if (m->nr_tried < TRIED_MAX)
		m->tried[m->nr_tried++] = wid;
	else
		m->any = true;
}

static void model_ack(struct block_model *m, u64 wid)
{
	m->acked = wid;
	m->nr_tried = 0;
	m->any = false;
}

/* A problem with @data read at @block of @f, said in @out; false: none. */
static bool block_wrong(const struct nem_file *f, u32 block, const u8 *data,
			char *out, size_t size)
{
	const struct block_model *m = &f->blocks[block];
	struct block_head h;

	if (!block_says(data, &h))
		snprintf(out, size, "file %u block %u: garbage", f->id, block);
	else if (!h.wid && !may_hold(m, 0))
		snprintf(out, size,
			 "file %u block %u: zeros, acknowledged write %llu lost",
			 f->id, block, (unsigned long long)m->acked);
	else if (h.wid && (h.file != f->id || h.block != block))
		snprintf(out, size,
			 "file %u block %u: holds block %u of file %u (write %llu)",
			 f->id, block, h.block, h.file,
			 (unsigned long long)h.wid);
	else if (h.wid && !may_hold(m, h.wid))
		snprintf(out, size,
			 "file %u block %u: write %llu, not acknowledged %llu or tried since",
			 f->id, block, (unsigned long long)h.wid,
			 (unsigned long long)m->acked);
	else
		return false;
	return true;
}

/* Server @id, without asking the MDS (which may be down): cluster_setup()
 * gave ds_procs[] the ids of the map.
 */
static struct ds_proc *server(u32 id)
{
	int i;

	for (i = 0; i < SERVERS; i++)
		if (ds_procs[i].id == (int)id)
			return &ds_procs[i];
	return NULL;
}

static struct aifs_conn *ds_conn(struct writer *w, u32 id)
{
	struct aifs_secret secret = { .len = strlen(TEST_SECRET) };
	struct aifs_connect_opts opts = {
		.host = "127.0.0.1", .secret = &secret,
		.role = AIFS_ROLE_CLIENT, .timeout_ms = 2000,
		.call_timeout_ms = IO_DEADLINE_MS / 2,
	};
	struct ds_proc *p = server(id);

	if (!p || id > DS_TEST_MAX)
		return NULL;
	if (w->ds[id])
		return w->ds[id];
	memcpy(secret.key, TEST_SECRET, secret.len);
	opts.port = p->srv.port;
	test_transport(&opts);
	if (aifs_connect(&opts, &w->ds[id]))
		w->ds[id] = NULL;
	return w->ds[id];
}

static void ds_drop(struct writer *w, u32 id)
{
	if (w->ds[id])
		aifs_close(w->ds[id]);
	w->ds[id] = NULL;
}

static u32 group_width(const struct nem_file *f)
{
	return le16_to_cpu(f->layout.target_count) /
	       le16_to_cpu(f->layout.stripe_count);
}

static u32 member(const struct nem_file *f, u32 index, u32 k)
{
	u32 width = group_width(f);
	u32 g = index % le16_to_cpu(f->layout.stripe_count) * width;

	return le32_to_cpu(f->layout.targets[g + k % width]);
}

/* The connection failed, not the request: a new one for the next. */
static bool conn_error(int err)
{
	return err == -ECONNREFUSED || err == -ECONNRESET || err == -EPIPE ||
	       err == -ETIMEDOUT || err == -ENOTCONN || err == -ECONNABORTED ||
	       err == -ESHUTDOWN;
}

/*
 * Whether the client goes on to the next member (kmod/write.c): the
 * server cannot be reached, does not serve now, or its copy is stale.
 */
static bool failover(int err)
{
	return err == -ESTALE || err == -EHOSTDOWN || conn_error(err);
}

/*
 * @len bytes at @off of chunk @index of @f through member @k as primary,
 * EAGAIN retried: 0 or -errno.
 */
static int write_through(struct writer *w, struct nem_file *f, u32 index,
			 u32 k, u32 off, const void *data, u32 len)
{
	struct aifs_chunk_write cw = {
		.offset = off, .flags = AIFS_IO_SYNC,
		.chunk_size = DS_TEST_CHUNK,
		.layout_gen = le32_to_cpu(f->layout.generation),
	};
	u32 width = group_width(f), r, id = member(f, index, k);
	struct aifs_chunk_rep rep;
	struct aifs_chunk_id cid;
	struct aifs_conn *c;
	int err, tries = 0;

	for (r = 1; r < width; r++)
		cw.replicas[cw.nr_replicas++] = member(f, index, k + r);
	ds_chunk_id(&cid, f->ino, index);
	do {
		if (tries)
			test_sleep_ms(50);
		c = ds_conn(w, id);
		if (!c)
			return -ECONNREFUSED;
		err = aifs_chunk_write(c, &cid, &cw, data, len, &rep);
		if (conn_error(err))
			ds_drop(w, id);
	} while (err == -EAGAIN && ++tries < 10);
	return err;
}

/* The client's write: each member as primary in turn, for a while. */
static int client_write(struct writer *w, struct nem_file *f, u32 first,
			u32 n, const void *data)
{
	u32 index = first * BLOCK / DS_TEST_CHUNK;
	u32 off = first * BLOCK % DS_TEST_CHUNK, k;
	u64 end = aifs_now_ms() + IO_DEADLINE_MS;
	int err = -EIO;

	do {
		for (k = 0; k < group_width(f); k++) {
			err = write_through(w, f, index, k, off, data,
					    n * BLOCK);
			if (!err || !failover(err))
				return err;
		}
		test_sleep_ms(100);
	} while (aifs_now_ms() < end);
	return err;
}

/*
 * @n blocks from @first of @f from server @id into @out (holes: zeros);
 * -ENOENT: it has no such chunk.
 */
static int read_from(struct writer *w, struct nem_file *f, u32 id,
		     u32 first, u32 n, u8 *out)
{
	u32 index = first * BLOCK / DS_TEST_CHUNK;
	struct aifs_chunk_read_rep rep;
	struct aifs_chunk_id cid;
	struct aifs_conn *c = ds_conn(w, id);
	int got;

	if (!c)
		return -ECONNREFUSED;
	ds_chunk_id(&cid, f->ino, index);
	got = aifs_chunk_read(c, &cid, 0, first * BLOCK % DS_TEST_CHUNK, out,
			      n * BLOCK, &rep);
	if (got < 0) {
		if (conn_error(got))
			ds_drop(w, id);
		return got;
	}
	memset(out + got, 0, n * BLOCK - got);
	return 0;
}

static void op_write(struct writer *w, struct nem_file *f)
{
	static const u32 sizes[] = { 1, 1, 2, 4, 16, 64 };
	u32 first = next_rand(&w->rng) % BLOCKS, n, b;
	u32 per_chunk = DS_TEST_CHUNK / BLOCK;
	int err;

	n = sizes[next_rand(&w->rng) % ARRAY_SIZE(sizes)];
	if (first % per_chunk + n > per_chunk)
		n = per_chunk - first % per_chunk;
	w->wid++;
	for (b = 0; b < n; b++) {
		block_fill(w->buf + b * BLOCK, f->id, first + b, w->wid);
		model_try(&f->blocks[first + b], w->wid);
	}
	err = client_write(w, f, first, n, w->buf);
	if (!err)
		for (b = 0; b < n; b++)
			model_ack(&f->blocks[first + b], w->wid);
	log_line("write file %u blocks %u+%u write %llu: %s", f->id, first, n,
		 (unsigned long long)w->wid, strerror(-err));
}

static void op_cut(struct writer *w, struct nem_file *f)
{
	struct aifs_setattr sa = { .valid = AIFS_SETATTR_SIZE |
					    AIFS_SETATTR_CUT, .ino = f->ino };
	u32 blocks = next_rand(&w->rng) % 4 ? next_rand(&w->rng) % BLOCKS : 0;
	u64 end = aifs_now_ms() + SETTLE_MS;
	struct aifs_attr attr;
	u32 b;
	int err = -ENOTCONN;

	sa.size = (u64)blocks * BLOCK;
	for (b = blocks; b < BLOCKS; b++)
		model_try(&f->blocks[b], 0);
	/*
	 * the kernel's client (a hard mount) asks again until the MDS
	 * answers: a cut it made and did not answer is in its chunk queue,
	 * and is made, after its restart, before the cut asked again
	 */
	do {
		if (err != -ENOTCONN)
			test_sleep_ms(100);
		if (!w->mds && mds_harness_connect(&cluster_mds, &w->mds))
			w->mds = NULL;
		if (w->mds)
			err = aifs_setattr(w->mds, &cluster_cred, &sa, &attr);
		if (conn_error(err) && w->mds) {
			aifs_close(w->mds);
			w->mds = NULL;
		}
	} while (conn_error(err) && aifs_now_ms() < end);
	CHECK(!conn_error(err), "file %u: the MDS never answered a cut",
	      f->id);
	if (!err)
		for (b = blocks; b < BLOCKS; b++)
			model_ack(&f->blocks[b], 0);
	log_line("cut file %u at block %u: %s", f->id, blocks, strerror(-err));
}

static void op_read(struct writer *w, struct nem_file *f)
{
	u32 first = next_rand(&w->rng) % BLOCKS, n = 16, b, k;
	u32 per_chunk = DS_TEST_CHUNK / BLOCK, index;
	int err = -EIO;

	if (first % per_chunk + n > per_chunk)
		n = per_chunk - first % per_chunk;
	index = first / per_chunk;
	/* as the kernel's client: a copy without the chunk sends it on */
	for (k = 0; k < group_width(f) && err; k++)
		err = read_from(w, f, member(f, index, k), first, n, w->buf);
	if (err == -ENOENT) {
		memset(w->buf, 0, n * BLOCK);
		err = 0;
	}
	for (b = 0; !err && b < n && !w->problem[0]; b++)
		if (block_wrong(f, first + b, w->buf + b * BLOCK, w->problem,
				sizeof(w->problem)))
			log_line("read during the run: %s", w->problem);
	log_line("read file %u blocks %u+%u: %s", f->id, first, n,
		 strerror(-err));
}

static void *writer_run(void *arg)
{
	struct writer *w = arg;
	struct nem_file *f;
	u64 r;

	while (running && !w->problem[0]) {
		f = w->files[next_rand(&w->rng) % FILES];
		r = next_rand(&w->rng) % 100;
		if (r < 70)
			op_write(w, f);
		else if (r < 80)
			op_cut(w, f);
		else
			op_read(w, f);
	}
	return NULL;
}

static int nr_servers = SERVERS;

/* One fault at random, then every server UP again. */
static void fault(u64 *rng)
{
	struct ds_proc *p = &ds_procs[next_rand(rng) % SERVERS];
	/* up to past the grace: counted out, then catching up */
	u32 ms = 1000 + next_rand(rng) % (CLUSTER_GRACE_MS + 3000);

	switch (next_rand(rng) % 4) {
	case 0:
		log_line("fault: kill -9 the MDS, restarted");
		cluster_mds_revive(0);
		break;
	case 1:
		log_line("fault: kill -9 ds %d, restarted after %u ms", p->id,
			 ms);
		ds_stop(p, SIGKILL);
		test_sleep_ms(ms);
		ds_start(p);
		break;
	default:
		log_line("fault: SIGSTOP ds %d for %u ms", p->id, ms);
		kill(p->srv.pid, SIGSTOP);
		test_sleep_ms(ms);
		kill(p->srv.pid, SIGCONT);
		break;
	}
	CHECK(cluster_wait(cluster_up_count, &nr_servers, SETTLE_MS),
	      "not every data server UP after the fault");
	log_line("all UP");
}

/* @arg servers UP, nothing to recover, no copy to repair. */
static bool settled(void *arg)
{
	char out[4096];

	return cluster_up_count(arg) && !cluster_recovery(out, sizeof(out)) &&
	       strstr(out, "nothing to recover");
}

/*
 * read_from() once the copy serves: a stale one (a forward it took late,
 * after it was counted out, marked it) is being pulled, and a server
 * restarted has to be reached again.  No chunk there reads as zeros,
 * which the model then must allow.
 */
static int read_settled(struct writer *w, struct nem_file *f, u32 id,
			u32 first, u32 n, u8 *out)
{
	u64 end = aifs_now_ms() + SETTLE_MS;
	int err;

	while ((err = read_from(w, f, id, first, n, out)) &&
	       (err == -ESTALE || err == -EAGAIN || conn_error(err)) &&
	       aifs_now_ms() < end)
		test_sleep_ms(100);
	if (err == -ENOENT) {
		memset(out, 0, n * BLOCK);	/* checked as zeros */
		err = 0;
	}
	return err;
}

/* Every block of every copy of @f against its model: problems found. */
static int check_copies(struct writer *w, struct nem_file *f)
{
	u32 index, k, b, per_chunk = DS_TEST_CHUNK / BLOCK, id;
	char what[256];
	int err, bad = 0;

	for (index = 0; index < CHUNKS; index++) {
		for (k = 0; k < group_width(f); k++) {
			id = member(f, index, k);
			err = read_settled(w, f, id, index * per_chunk,
					   per_chunk, chunk_buf);
			CHECK(!err, "file %u chunk %u on ds %u: %s", f->id,
			      index, id, strerror(-err));
			for (b = 0; !err && b < per_chunk && bad < 10; b++) {
				if (!block_wrong(f, index * per_chunk + b,
						 chunk_buf + b * BLOCK, what,
						 sizeof(what)))
					continue;
				CHECK(false, "after the run, ds %u: %s", id,
				      what);
				log_line("after the run, ds %u: %s", id, what);
				bad++;
			}
		}
	}
	return bad;
}

/* Files of their own for each run (a seed may run twice). */
static void new_files(u32 seed, int run)
{
	struct aifs_layout want = { .type = AIFS_LAYOUT_REPLICA,
				    .chunk_size = cpu_to_le32(DS_TEST_CHUNK),
				    .stripe_count = cpu_to_le16(1) };
	struct nem_file *f;
	char name[64];
	int i;

	memset(nem_files, 0, sizeof(nem_files));
	for (i = 0; i < WRITERS * FILES; i++) {
		f = &nem_files[i];
		f->id = seed * 100 + i + 1;
		snprintf(name, sizeof(name), "run%d-seed%u-f%d", run, seed, i);
		f->ino = cluster_create(name, &f->layout);
		want.replicas = 2 + i % 2;
		CHECK(!aifs_layout_set(cluster_conn, &cluster_cred, f->ino,
				       &want, &f->layout),
		      "layout of %s", name);
		writers[i / FILES].files[i % FILES] = f;
	}
}

static int run_seed(u32 seed, int seconds)
{
	static int run;
	char path[128];
	u64 rng = seed * 7919ULL + 1, end;
	int i, bad = 0;

	snprintf(path, sizeof(path), "%s/nemesis-%u.%d.history", test_dir,
		 seed, run);
	history = fopen(path, "w");
	if (!history)
		return 1;
	new_files(seed, run++);
	running = true;
	for (i = 0; i < WRITERS; i++) {
		memset(&writers[i].problem, 0, sizeof(writers[i].problem));
		writers[i].rng = seed * 1000003ULL + i + 1;
		writers[i].wid = ((u64)seed * WRITERS + i) << 32;
		pthread_create(&writers[i].thread, NULL, writer_run,
			       &writers[i]);
	}
	end = aifs_now_ms() + seconds * 1000ULL;
	while (aifs_now_ms() < end) {
		test_sleep_ms(1000 + next_rand(&rng) % 2000);
		fault(&rng);
	}
	running = false;
	for (i = 0; i < WRITERS; i++) {
		pthread_join(writers[i].thread, NULL);
		CHECK(!writers[i].problem[0], "seed %u: read during the run: %s",
		      seed, writers[i].problem);
		bad += !!writers[i].problem[0];
	}
	CHECK(cluster_wait(settled, &nr_servers, SETTLE_MS),
	      "seed %u: recovery not over", seed);
	for (i = 0; i < WRITERS * FILES; i++)
		bad += check_copies(&writers[0], &nem_files[i]);
	fclose(history);
	if (bad)
		printf("seed %u failed: its history is %s (replay: AIFS_NEMESIS_SEEDS=%u)\n",
		       seed, path, seed);
	return bad;
}

int main(void)
{
	const char *seeds = getenv("AIFS_NEMESIS_SEEDS");
	const char *secs = getenv("AIFS_NEMESIS_SECONDS");
	char *list, *tok, *save;
	int seconds = secs ? atoi(secs) : 20, i, id;

	cluster_setup(SERVERS, CLUSTER_GRACE_MS, "default_replicas = 2\n");
	list = strdup(seeds ? seeds : "3 5");
	for (tok = strtok_r(list, " ,", &save); tok;
	     tok = strtok_r(NULL, " ,", &save))
		if (run_seed(strtoul(tok, NULL, 10), seconds))
			printf("FAIL: seed %s\n", tok);
	free(list);
	for (i = 0; i < WRITERS; i++) {
		for (id = 0; id <= DS_TEST_MAX; id++)
			ds_drop(&writers[i], id);
		if (writers[i].mds)
			aifs_close(writers[i].mds);
	}
	return test_result();
}
