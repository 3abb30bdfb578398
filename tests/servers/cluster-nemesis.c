// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The acknowledged-writes oracle with a nemesis (issue 29) against the
 * servers themselves: a real aifs-mds and three aifs-ds.  Two writer
 * threads write self-describing 4 KiB blocks (each names its file, its
 * block and its write; the rest follows from those) to a file of
 * replicas=2, one of replicas=3 and one of ec=2+1 (two stripes) each,
 * the way the kernel's client does (kmod/write.c: a synced CHUNK_WRITE to
 * the group's first member, or an EC_WRITE of the stripe to it as its
 * leader; the next member the primary or leader when one cannot be
 * reached or answers ESTALE), cut them through the MDS (SETATTR of the
 * size with CUT; an EC file's bytes past the size in the stripe it ends
 * in zeroed through the leader first, as aifs_ec_cut_tail() does) and
 * read blocks back (the first member that serves; an EC data fragment
 * from its own server, else decoded by a member, EC_READ), while a
 * nemesis thread kills (-9) and restarts, or stops (SIGSTOP), one data
 * server at a time, or kills and restarts the MDS, waiting until every
 * server is UP before the next fault.  Per block the model keeps the
 * last acknowledged write and those tried since (failed, or not known to
 * have landed), as tests/faults/nemesis/oracle.py does through the
 * kernel's client: every read during the run, and every block of every
 * copy at the end (each data server read on its own, once recovery is
 * over: every replica, every EC data fragment), holds one of those,
 * never zeros in place of an acknowledged write, never another file's or
 * place's block.  And each EC stripe's parity is then the code of its
 * data (EC_VERIFY without repair), so that any degraded read decodes
 * what the data fragments hold.
 *
 * The seeds come from AIFS_NEMESIS_SEEDS ("3 5" by default: between them
 * data servers killed past the grace and back, catching up while they
 * are written to, stopped past it, and the MDS killed), each run for
 * AIFS_NEMESIS_SECONDS (20): the same seed makes the same choices, not
 * the same timing.  Each seed's operations and faults go to
 * nemesis-SEED.RUN.history in the test's directory (kept when it fails).
 * Seed 5 lost acknowledged writes on the servers of ee3816f, before a
 * catch-up kept the writes forwarded to it while it pulled (e51675d);
 * its faults are the same since the EC files came, its writes not.
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
#define CHUNK_BLOCKS	(DS_TEST_CHUNK / BLOCK)
#define CHUNKS		2		/* of a replicated file */
#define EC_K		2
#define EC_M		1
#define STRIPES		2		/* of the EC file: cuts in and between */
#define MAX_BLOCKS	(STRIPES * EC_K * CHUNK_BLOCKS)
#define WRITERS		2
#define FILES		3		/* per writer: replicas=2, =3, ec=2+1 */
#define EC_FILE		2		/* which of them */
#define WRITE_MAX	(1U << 20)	/* the client's writes (AIFS_DATA_MAX_IO) */
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
	bool ec;
	u32 nr_blocks;
	u32 known;		/* blocks the client knows of, its i_size */
	struct block_model blocks[MAX_BLOCKS];
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

/* Blocks a write stays in: a chunk's, or an EC stripe's data (K chunks). */
static u32 unit_blocks(const struct nem_file *f)
{
	return f->ec ? f->layout.ec_k * CHUNK_BLOCKS : CHUNK_BLOCKS;
}

/*
 * The servers of EC stripe @stripe as EC_WRITE and EC_READ name them,
 * @ahead members skipped by the client (kmod's aifs_ec_group_fill()).
 */
static void ec_group(const struct nem_file *f, u32 stripe, u32 ahead,
		     struct aifs_ec_group *g)
{
	u32 r;

	memset(g, 0, sizeof(*g));
	g->chunk_size = f->layout.chunk_size;
	g->k = f->layout.ec_k;
	g->m = f->layout.ec_m;
	g->ahead = cpu_to_le16(ahead);
	for (r = 0; r < group_width(f); r++)
		g->members[r] = cpu_to_le32(member(f, stripe, r));
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

/* CHUNK_WRITE of @len bytes at @off of chunk @index, member @k primary. */
static int chunk_write(struct aifs_conn *c, struct nem_file *f, u32 index,
		       u32 k, u32 off, const void *data, u32 len)
{
	struct aifs_chunk_write cw = {
		.offset = off, .flags = AIFS_IO_SYNC,
		.chunk_size = DS_TEST_CHUNK,
		.layout_gen = le32_to_cpu(f->layout.generation),
	};
	struct aifs_chunk_rep rep;
	struct aifs_chunk_id cid;
	u32 r;

	for (r = 1; r < group_width(f); r++)
		cw.replicas[cw.nr_replicas++] = member(f, index, k + r);
	ds_chunk_id(&cid, f->ino, index);
	return aifs_chunk_write(c, &cid, &cw, data, len, &rep);
}

/*
 * EC_WRITE of @len bytes at @off of stripe @index's data, member @k the
 * leader (the client's aifs_write_req_fill()); zeros without @data.
 */
static int ec_write(struct aifs_conn *c, struct nem_file *f, u32 index,
		    u32 k, u32 off, const void *data, u32 len)
{
	struct aifs_ec_write_req req = {
		.offset = cpu_to_le32(off),
		.flags = cpu_to_le32(AIFS_IO_SYNC | (data ? 0 : AIFS_IO_ZERO)),
		.layout_gen = f->layout.generation,
		.rdma.len = cpu_to_le32(data ? 0 : len),
	};

	ec_group(f, index, k, &req.group);
	return ds_ec_write_on(c, IO_DEADLINE_MS / 2, &req, f->ino, index,
			      data, data ? len : 0);
}

/*
 * @len bytes at @off of unit @index of @f (a chunk, or an EC stripe's
 * data) through member @k as primary or leader, EAGAIN retried: 0 or
 * -errno.
 */
static int write_through(struct writer *w, struct nem_file *f, u32 index,
			 u32 k, u32 off, const void *data, u32 len)
{
	u32 id = member(f, index, k);
	struct aifs_conn *c;
	int err, tries = 0;

	do {
		if (tries)
			test_sleep_ms(50);
		c = ds_conn(w, id);
		if (!c)
			return -ECONNREFUSED;
		err = f->ec ? ec_write(c, f, index, k, off, data, len) :
			      chunk_write(c, f, index, k, off, data, len);
		if (conn_error(err))
			ds_drop(w, id);
	} while (err == -EAGAIN && ++tries < 10);
	return err;
}

/*
 * The client's write of @n blocks from @first, within one unit (zeros
 * without @data: an EC file's): each member as primary in turn, a while.
 */
static int client_write(struct writer *w, struct nem_file *f, u32 first,
			u32 n, const void *data)
{
	u32 index = first / unit_blocks(f);
	u32 off = first % unit_blocks(f) * BLOCK, k;
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
 * @n blocks from @first of @f (within a chunk, or an EC data fragment)
 * from server @id into @out (holes: zeros): with CHUNK_READ what it
 * holds, with EC_READ (an EC file's) decoded from the others; -ENOENT:
 * it has no such chunk, or the stripe no fragment.
 */
static int read_from(struct writer *w, struct nem_file *f, u32 id, u16 op,
		     u32 first, u32 n, u8 *out)
{
	u32 index = first / CHUNK_BLOCKS, off = first % CHUNK_BLOCKS * BLOCK;
	u32 k = f->layout.ec_k;
	struct aifs_chunk_read_rep rep;
	struct aifs_ec_group g;
	struct aifs_chunk_id cid;
	struct aifs_conn *c = ds_conn(w, id);
	int got;

	if (!c)
		return -ECONNREFUSED;
	if (f->ec) {
		ec_group(f, index / k, 0, &g);
		got = ds_frag_read_on(c, IO_DEADLINE_MS / 2, op, f->ino,
				      index / k, index % k, &g, off,
				      n * BLOCK, out);
	} else {
		ds_chunk_id(&cid, f->ino, index);
		got = aifs_chunk_read(c, &cid, 0, off, out, n * BLOCK, &rep);
		if (got >= 0)
			memset(out + got, 0, n * BLOCK - got);
	}
	if (conn_error(got))
		ds_drop(w, id);
	return got < 0 ? got : 0;
}

/*
 * As the client reads a data fragment (kmod's aifs_read_sub_ec()): from
 * its own server; failing that, or when that server has none (it may
 * have lost it), decoded by each member of the stripe in turn (the one
 * that tried last in *@by, 0 for none).
 */
static int ec_read(struct writer *w, struct nem_file *f, u32 first, u32 n,
		   u8 *out, u32 *by)
{
	u32 index = first / CHUNK_BLOCKS, k = f->layout.ec_k, r;
	int err;

	*by = 0;
	err = read_from(w, f, member(f, index / k, index % k),
			AIFS_OP_CHUNK_READ, first, n, out);
	for (r = 0; err && r < group_width(f); r++) {
		*by = member(f, index / k, r);
		err = read_from(w, f, *by, AIFS_OP_EC_READ, first, n, out);
		if (err == -ENOENT)
			break;		/* a hole */
	}
	return err;
}

/*
 * The client's read of @n blocks from @first, within a chunk (or a data
 * fragment); *@by: the server that decoded it last, or 0.
 */
static int client_read(struct writer *w, struct nem_file *f, u32 first,
		       u32 n, u8 *out, u32 *by)
{
	u32 index = first / CHUNK_BLOCKS, k;
	int err = -EIO;

	if (f->ec)
		return ec_read(w, f, first, n, out, by);
	*by = 0;
	/* as the kernel's client: a copy without the chunk sends it on */
	for (k = 0; k < group_width(f) && err; k++)
		err = read_from(w, f, member(f, index, k), AIFS_OP_CHUNK_READ,
				first, n, out);
	return err;
}

static void op_write(struct writer *w, struct nem_file *f)
{
	static const u32 sizes[] = { 1, 1, 2, 4, 16, 64 };
	u32 first = next_rand(&w->rng) % f->nr_blocks, n, b;
	u32 unit = unit_blocks(f);
	int err;

	n = sizes[next_rand(&w->rng) % ARRAY_SIZE(sizes)];
	if (first % unit + n > unit)
		n = unit - first % unit;
	if (f->known < first + n)
		f->known = first + n;	/* its size grew, written back or not */
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

/*
 * Before an EC file is cut to @blocks (kmod's aifs_ec_cut_tail()): the
 * MDS deletes the stripes wholly past the size but cannot cut the
 * fragments of the one the size ends in (the parity covers them), so the
 * client zeroes the bytes of that stripe past the size that it knows of,
 * through the stripe's leader, a write's worth at a time.
 */
static int ec_cut_tail(struct writer *w, struct nem_file *f, u32 blocks)
{
	u32 unit = unit_blocks(f), end = blocks - blocks % unit + unit, b, n;
	int err = 0;

	if (!(blocks % unit) || f->known <= blocks)
		return 0;
	if (end > f->known)
		end = f->known;
	for (b = blocks; b < end && !err; b += n) {
		n = end - b < WRITE_MAX / BLOCK ? end - b : WRITE_MAX / BLOCK;
		err = client_write(w, f, b, n, NULL);
	}
	log_line("cut file %u at block %u: zeros to block %u: %s", f->id,
		 blocks, end, strerror(-err));
	return err;
}

static void op_cut(struct writer *w, struct nem_file *f)
{
	struct aifs_setattr sa = { .valid = AIFS_SETATTR_SIZE |
					    AIFS_SETATTR_CUT, .ino = f->ino };
	u32 blocks = next_rand(&w->rng) % 4 ?
		     next_rand(&w->rng) % f->nr_blocks : 0;
	u64 end = aifs_now_ms() + SETTLE_MS;
	struct aifs_attr attr;
	u32 b;
	int err = -ENOTCONN;

	sa.size = (u64)blocks * BLOCK;
	for (b = blocks; b < f->nr_blocks; b++)
		model_try(&f->blocks[b], 0);
	/* the client's setattr fails with the zeros it could not write */
	if (f->ec && ec_cut_tail(w, f, blocks))
		return;
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
	if (!err) {
		for (b = blocks; b < f->nr_blocks; b++)
			model_ack(&f->blocks[b], 0);
		f->known = blocks;
	}
	log_line("cut file %u at block %u: %s", f->id, blocks, strerror(-err));
}

static void op_read(struct writer *w, struct nem_file *f)
{
	u32 first = next_rand(&w->rng) % f->nr_blocks, n = 16, b, by;
	char how[32] = "";
	int err;

	if (first % CHUNK_BLOCKS + n > CHUNK_BLOCKS)
		n = CHUNK_BLOCKS - first % CHUNK_BLOCKS;
	err = client_read(w, f, first, n, w->buf, &by);
	if (by)
		snprintf(how, sizeof(how), " (decoding by ds %u)", by);
	if (err == -ENOENT) {
		memset(w->buf, 0, n * BLOCK);
		err = 0;
	}
	for (b = 0; !err && b < n && !w->problem[0]; b++)
		if (block_wrong(f, first + b, w->buf + b * BLOCK, w->problem,
				sizeof(w->problem)))
			log_line("read during the run: %s", w->problem);
	log_line("read file %u blocks %u+%u%s: %s", f->id, first, n, how,
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

	while ((err = read_from(w, f, id, AIFS_OP_CHUNK_READ, first, n,
				out)) &&
	       (err == -ESTALE || err == -EAGAIN || conn_error(err)) &&
	       aifs_now_ms() < end)
		test_sleep_ms(100);
	if (err == -ENOENT) {
		memset(out, 0, n * BLOCK);	/* checked as zeros */
		err = 0;
	}
	return err;
}

/*
 * The servers that hold data chunk @index of @f, in @ids: a replicated
 * chunk's group, an EC data fragment's own server; their count.
 */
static u32 holders(const struct nem_file *f, u32 index, u32 *ids)
{
	u32 k = f->layout.ec_k, r;

	if (f->ec) {
		ids[0] = member(f, index / k, index % k);
		return 1;
	}
	for (r = 0; r < group_width(f); r++)
		ids[r] = member(f, index, r);
	return group_width(f);
}

/* The stamp of each fragment of @stripe, as its server says, in @out. */
static void stamps(struct writer *w, struct nem_file *f, u32 stripe,
		   char *out, size_t size)
{
	struct aifs_conn *c;
	u64 stamp;
	u32 r, id;
	int n = 0, err;

	for (r = 0; r < group_width(f); r++) {
		id = member(f, stripe, r);
		c = ds_conn(w, id);
		err = c ? ds_frag_stamp_on(c, IO_DEADLINE_MS / 2, f->ino,
					   stripe, r, &stamp) : -ECONNREFUSED;
		if (err)
			n += snprintf(out + n, size - n, " ds %u %s", id,
				      strerror(-err));
		else
			n += snprintf(out + n, size - n, " ds %u %llx", id,
				      (unsigned long long)stamp);
	}
}

/*
 * Whether the parity of stripe @stripe of @f is the code of its data,
 * which check_copies() read from each fragment's own server: then every
 * degraded read decodes those bytes.  EC_VERIFY without its repair,
 * from the stripe's leader once it serves and reads every fragment
 * (ESTALE while one is still rebuilt).  Problems found: 0 or 1.
 */
static int check_parity(struct writer *w, struct nem_file *f, u32 stripe)
{
	u32 id = member(f, stripe, 0);
	u64 end = aifs_now_ms() + SETTLE_MS;
	struct aifs_ec_verify_rep rep;
	struct aifs_ec_group g;
	struct aifs_conn *c;
	char what[512], st[160];
	u64 wrong = 0, skipped = 0;
	int err;

	ec_group(f, stripe, 0, &g);
	for (;;) {
		c = ds_conn(w, id);
		err = c ? ds_ec_verify_on(c, IO_DEADLINE_MS / 2, f->ino,
					  stripe, &g, 0, &rep) : -ECONNREFUSED;
		if (conn_error(err))
			ds_drop(w, id);
		if (!err) {
			wrong = le64_to_cpu(rep.mismatched);
			skipped = le64_to_cpu(rep.skipped);
		}
		if (!(err == -ESTALE || err == -EAGAIN || conn_error(err) ||
		      (!err && skipped)) || aifs_now_ms() >= end)
			break;
		test_sleep_ms(100);
	}
	CHECK(!err, "file %u stripe %u: EC_VERIFY on ds %u: %s", f->id,
	      stripe, id, strerror(-err));
	if (!err)
		log_line("parity of file %u stripe %u: %llu bytes compared",
			 f->id, stripe,
			 (unsigned long long)le64_to_cpu(rep.checked));
	if (err || (!wrong && !skipped))
		return 0;
	stamps(w, f, stripe, st, sizeof(st));
	snprintf(what, sizeof(what),
		 "file %u stripe %u: %llu bytes of parity not its data's code, %llu not compared; stamps:%s",
		 f->id, stripe, (unsigned long long)wrong,
		 (unsigned long long)skipped, st);
	CHECK(false, "after the run: %s", what);
	log_line("after the run: %s", what);
	return 1;
}

/*
 * Every block of every copy of @f against its model (an EC file's data
 * fragments, and its parity against them): problems found.
 */
static int check_copies(struct writer *w, struct nem_file *f)
{
	u32 index, k, b, n, ids[SERVERS];
	char what[256];
	int err, bad = 0;

	for (index = 0; index < f->nr_blocks / CHUNK_BLOCKS; index++) {
		n = holders(f, index, ids);
		for (k = 0; k < n; k++) {
			err = read_settled(w, f, ids[k], index * CHUNK_BLOCKS,
					   CHUNK_BLOCKS, chunk_buf);
			CHECK(!err, "file %u chunk %u on ds %u: %s", f->id,
			      index, ids[k], strerror(-err));
			for (b = 0; !err && b < CHUNK_BLOCKS && bad < 10; b++) {
				if (!block_wrong(f, index * CHUNK_BLOCKS + b,
						 chunk_buf + b * BLOCK, what,
						 sizeof(what)))
					continue;
				CHECK(false, "after the run, ds %u: %s",
				      ids[k], what);
				log_line("after the run, ds %u: %s", ids[k],
					 what);
				bad++;
			}
		}
	}
	for (index = 0; f->ec && index < f->nr_blocks / unit_blocks(f); index++)
		bad += check_parity(w, f, index);
	return bad;
}

/* Which file is which, in the history. */
static void log_file(const struct nem_file *f)
{
	char kind[32], servers[64];
	u32 r;
	int n = 0;

	if (f->ec)
		snprintf(kind, sizeof(kind), "ec=%u+%u", f->layout.ec_k,
			 f->layout.ec_m);
	else
		snprintf(kind, sizeof(kind), "replicas=%u", group_width(f));
	for (r = 0; r < group_width(f); r++)
		n += snprintf(servers + n, sizeof(servers) - n, " %u",
			      member(f, 0, r));
	log_line("file %u: %s, ino %llu, servers%s", f->id, kind,
		 (unsigned long long)f->ino, servers);
}

/* The layout of file @kind: replicas=2, replicas=3 or ec=2+1. */
static void layout_want(int kind, struct aifs_layout *want)
{
	*want = (struct aifs_layout){
		.chunk_size = cpu_to_le32(DS_TEST_CHUNK),
		.stripe_count = cpu_to_le16(1),
	};
	if (kind == EC_FILE) {
		want->type = AIFS_LAYOUT_EC;
		want->ec_k = EC_K;
		want->ec_m = EC_M;
	} else {
		want->type = AIFS_LAYOUT_REPLICA;
		want->replicas = 2 + kind;
	}
}

/* Files of their own for each run (a seed may run twice). */
static void new_files(u32 seed, int run)
{
	struct aifs_layout want;
	struct nem_file *f;
	char name[64];
	int i;

	memset(nem_files, 0, sizeof(nem_files));
	for (i = 0; i < WRITERS * FILES; i++) {
		f = &nem_files[i];
		f->id = seed * 100 + i + 1;
		snprintf(name, sizeof(name), "run%d-seed%u-f%d", run, seed, i);
		f->ino = cluster_create(name, &f->layout);
		layout_want(i % FILES, &want);
		CHECK(!aifs_layout_set(cluster_conn, &cluster_cred, f->ino,
				       &want, &f->layout),
		      "layout of %s", name);
		f->ec = f->layout.type == AIFS_LAYOUT_EC;
		f->nr_blocks = f->ec ? STRIPES * unit_blocks(f) :
				       CHUNKS * CHUNK_BLOCKS;
		log_file(f);
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
