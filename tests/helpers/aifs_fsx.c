// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * aifs-fsx - an fsx-style data-integrity exerciser: random reads, writes,
 * truncates, fallocates, hole punches, syncs, reopens and size checks on
 * one file, every read checked byte for byte against a shadow copy kept in
 * memory.  Documentation/testing-tools.md is its manual.
 *
 *   aifs-fsx [-S seed] [-N ops] [-l maxlen] [-o maxop] [-m mode]
 *            [-P second_path] [-i op] [-q] [-v] FILE
 *
 * Modes: buffered, direct (O_DIRECT), mmap (a shared mapping), mixed
 * (each read and write picks one of the three) and two (buffered, switching
 * between FILE and -P, the same file through a second mount, at every
 * reopen, with fsync and close before the switch: close-to-open).
 *
 * Every op is drawn from one pseudo-random stream seeded by -S, so the same
 * seed and options replay the same ops.  Written data is a hash of the op
 * number and the file offset: found bytes name the op that wrote them.
 * Exit 0 when every check passed, 1 on a mismatch (with the log of the last
 * ops), 2 on a usage error or an unexpected system call failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <aifs/aifs_user.h>

#define __maybe_unused	__attribute__((unused))

#define FSX_LOG_TAIL	64	/* ops printed on a mismatch */
#define FSX_WINDOW	16	/* bytes shown around a mismatch */

enum fsx_kind {
	OP_READ, OP_WRITE, OP_TRUNCATE, OP_FALLOC, OP_PUNCH, OP_SYNC,
	OP_REOPEN, OP_STAT, OP_NR
};

enum fsx_way { WAY_BUFFERED, WAY_DIRECT, WAY_MMAP, WAY_NR };

enum fsx_mode { MODE_BUFFERED, MODE_DIRECT, MODE_MMAP, MODE_MIXED, MODE_TWO };

/* op flags */
#define FSX_SKIPPED	1	/* the file system refused the kind */
#define FSX_DATASYNC	2	/* OP_SYNC by fdatasync */

static const char *const fsx_kind_name[OP_NR] = {
	"read", "write", "truncate", "falloc", "punch", "sync", "reopen", "stat"
};

/* How often each kind is drawn, in parts of the sum. */
static const unsigned int fsx_weight[OP_NR] = {
	[OP_READ] = 30, [OP_WRITE] = 30, [OP_TRUNCATE] = 8, [OP_FALLOC] = 5,
	[OP_PUNCH] = 5, [OP_SYNC] = 4, [OP_REOPEN] = 3, [OP_STAT] = 5,
};

static const char *const fsx_way_name[WAY_NR] = {
	"buffered", "direct", "mmap"
};

static const char *const fsx_mode_name[] = {
	"buffered", "direct", "mmap", "mixed", "two"
};

/*
 * One entry of the log.  @len is the new size of a truncate; @size is the
 * shadow's size before the op, @path the path it ran through.
 */
struct fsx_op {
	u64 off;
	u64 len;
	u64 size;
	u8 kind;
	u8 way;
	u8 flags;
	u8 path;
};

struct fsx {
	/* options */
	u64 seed;
	u64 nops;
	u64 maxlen;
	u64 maxop;
	u64 inject;		/* op before which to damage the file */
	enum fsx_mode mode;
	const char *path[2];
	bool quiet;
	bool verbose;

	u64 rng;
	u64 nr;			/* number of the op running, from 1 */
	int cur;		/* which @path is open */
	int fd;			/* buffered; for truncate, sync, stat */
	int dfd;		/* O_DIRECT, in modes that use it */
	u8 *map;		/* shared mapping of @map_len bytes */
	size_t map_len;
	bool map_dirty;		/* written to since the last msync */
	u64 align;		/* of O_DIRECT offsets and lengths */
	u8 *buf;		/* for I/O: aligned for O_DIRECT */
	bool refused[OP_NR];	/* kinds turned off for EOPNOTSUPP */

	/* the shadow: @good beyond @size is always zero */
	u8 *good;
	u32 *writer;		/* op that wrote each byte, or 0 */
	u64 size;

	struct fsx_op *log;	/* op n is log[n - 1] */
	u64 log_cap;
};

static sigjmp_buf fsx_sigbus_env;

static void fsx_sigbus(int sig)
{
	(void)sig;
	siglongjmp(fsx_sigbus_env, 1);
}

static u64 min_u64(u64 a, u64 b)
{
	return a < b ? a : b;
}

static u64 round_up(u64 x, u64 a)
{
	return (x + a - 1) / a * a;
}

/* splitmix64: one 64-bit word of a stream from @state */
static u64 fsx_rand(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* What op @nr writes at file offset @off, @len bytes of it. */
static void fsx_pattern(u8 *buf, u64 nr, u64 off, size_t len)
{
	u64 word = 0, state;
	size_t i;

	for (i = 0; i < len; i++) {
		if (i == 0 || (off + i) % 8 == 0) {
			state = nr << 40 ^ (off + i) / 8;
			word = fsx_rand(&state);
		}
		buf[i] = word >> ((off + i) % 8 * 8);
	}
}

static void fsx_op_text(const struct fsx *f, const struct fsx_op *op,
			char *text, size_t size)
{
	const char *name = fsx_kind_name[op->kind];
	int n = 0;

	switch (op->kind) {
	case OP_READ:
	case OP_WRITE:
		n = snprintf(text, size, "%s 0x%llx +0x%llx %s", name,
			     (unsigned long long)op->off,
			     (unsigned long long)op->len,
			     fsx_way_name[op->way]);
		break;
	case OP_FALLOC:
	case OP_PUNCH:
		n = snprintf(text, size, "%s 0x%llx +0x%llx", name,
			     (unsigned long long)op->off,
			     (unsigned long long)op->len);
		break;
	case OP_TRUNCATE:
		n = snprintf(text, size, "%s 0x%llx", name,
			     (unsigned long long)op->len);
		break;
	case OP_SYNC:
		n = snprintf(text, size, "%s", op->flags & FSX_DATASYNC ?
			     "fdatasync" : "fsync");
		break;
	case OP_REOPEN:
		n = snprintf(text, size, "%s %s", name, f->path[op->path]);
		break;
	default:
		n = snprintf(text, size, "%s", name);
	}
	snprintf(text + n, size - n, " (size 0x%llx)%s",
		 (unsigned long long)op->size,
		 op->flags & FSX_SKIPPED ? " skipped" : "");
}

static void fsx_print_op(const struct fsx *f, FILE *out, u64 nr)
{
	char text[256];

	fsx_op_text(f, &f->log[nr - 1], text, sizeof(text));
	fprintf(out, "%10llu %s\n", (unsigned long long)nr, text);
}

static void fsx_print_replay(const struct fsx *f)
{
	fprintf(stderr, "aifs-fsx: replay: aifs-fsx -S %llu -N %llu -l %llu "
		"-o %llu -m %s", (unsigned long long)f->seed,
		(unsigned long long)f->nops, (unsigned long long)f->maxlen,
		(unsigned long long)f->maxop, fsx_mode_name[f->mode]);
	if (f->path[1])
		fprintf(stderr, " -P %s", f->path[1]);
	if (f->inject)
		fprintf(stderr, " --inject %llu",
			(unsigned long long)f->inject);
	fprintf(stderr, " %s\n", f->path[0]);
}

/* A mismatch: the last ops, how to replay, and exit 1. */
static void fsx_fail(const struct fsx *f)
{
	u64 nr = f->nr > FSX_LOG_TAIL ? f->nr - FSX_LOG_TAIL + 1 : 1;

	fprintf(stderr, "aifs-fsx: the last %llu ops:\n",
		(unsigned long long)(f->nr - nr + 1));
	for (; nr <= f->nr; nr++)
		fsx_print_op(f, stderr, nr);
	fsx_print_replay(f);
	exit(1);
}

/* An unexpected system call failure of the running op: exit 2. */
static void fsx_fail_sys(const struct fsx *f, const char *call)
{
	int err = errno;
	char text[256] = "setup";

	if (f->nr)
		fsx_op_text(f, &f->log[f->nr - 1], text, sizeof(text));
	fprintf(stderr, "aifs-fsx: op %llu (%s): %s: %s\n",
		(unsigned long long)f->nr, text, call, strerror(err));
	fsx_print_replay(f);
	exit(2);
}

/* The start of a mismatch report, naming the running op. */
static void __attribute__((format(printf, 2, 3)))
fsx_mismatch(const struct fsx *f, const char *fmt, ...)
{
	char text[256];
	va_list ap;

	fsx_op_text(f, &f->log[f->nr - 1], text, sizeof(text));
	fprintf(stderr, "aifs-fsx: seed %llu: op %llu (%s): ",
		(unsigned long long)f->seed, (unsigned long long)f->nr, text);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void fsx_hex(const char *what, u64 off, const u8 *p, u64 len)
{
	u64 i;

	fprintf(stderr, "  %-8s 0x%08llx:", what, (unsigned long long)off);
	for (i = 0; i < len; i++)
		fprintf(stderr, " %02x", p[i]);
	fputc('\n', stderr);
}

static bool fsx_is_zero(const u8 *p, u64 len)
{
	return !len || (!p[0] && !memcmp(p, p + 1, len - 1));
}

/*
 * The latest logged write whose pattern matches @found, the bytes of the
 * file in [@w0, @w1), where it covers @bad; 0 if none does.
 */
static u64 fsx_find_writer(const struct fsx *f, const u8 *found, u64 w0,
			   u64 w1, u64 bad)
{
	u8 want[FSX_WINDOW];
	const struct fsx_op *op;
	u64 nr, s, e;

	for (nr = f->nr; nr > 0; nr--) {
		op = &f->log[nr - 1];
		if (op->kind != OP_WRITE || op->flags & FSX_SKIPPED ||
		    bad < op->off || bad >= op->off + op->len)
			continue;
		s = op->off > w0 ? op->off : w0;
		e = min_u64(op->off + op->len, w1);
		fsx_pattern(want, nr, s, e - s);
		if (!memcmp(want, found + (s - w0), e - s))
			return nr;
	}
	return 0;
}

static void fsx_blame(const struct fsx *f, const char *what, u64 nr,
		      bool zero)
{
	char text[256];

	if (nr) {
		fsx_op_text(f, &f->log[nr - 1], text, sizeof(text));
		fprintf(stderr, "  %s bytes: written by op %llu (%s)\n", what,
			(unsigned long long)nr, text);
	} else {
		fprintf(stderr, "  %s bytes: %s\n", what, zero ?
			"zeros (a hole, or never written)" :
			"written by no op of this run");
	}
}

/* @got bytes at @off that differ from the shadow at @bad: report, exit. */
static void fsx_report_data(const struct fsx *f, const u8 *buf, u64 off,
			    u64 got, u64 bad)
{
	u64 w0 = bad - bad % FSX_WINDOW, w1, i, nbad = 0;
	const u8 *found;

	if (w0 < off)
		w0 = off;
	w1 = min_u64(w0 + FSX_WINDOW, off + got);
	for (i = 0; i < got; i++)
		nbad += buf[i] != f->good[off + i];
	fsx_mismatch(f, "data differs at 0x%llx, %llu bytes in all",
		     (unsigned long long)bad, (unsigned long long)nbad);
	found = buf + (w0 - off);
	fsx_hex("expected", w0, f->good + w0, w1 - w0);
	fsx_hex("found", w0, found, w1 - w0);
	fsx_blame(f, "expected", f->writer[bad],
		  fsx_is_zero(f->good + w0, w1 - w0));
	fsx_blame(f, "found", fsx_find_writer(f, found, w0, w1, bad),
		  fsx_is_zero(found, w1 - w0));
	fsx_fail(f);
}

/* @got bytes read at @off for a read of @len: check them with the shadow. */
static void fsx_check(const struct fsx *f, const u8 *buf, u64 off, u64 len,
		      u64 got)
{
	u64 want = off < f->size ? min_u64(len, f->size - off) : 0;
	u64 n = min_u64(got, want), i;

	if (memcmp(buf, f->good + off, n)) {
		for (i = 0; buf[i] == f->good[off + i]; i++)
			;
		fsx_report_data(f, buf, off, n, off + i);
	}
	if (got != want) {
		fsx_mismatch(f, "read 0x%llx bytes, the shadow has 0x%llx",
			     (unsigned long long)got, (unsigned long long)want);
		fsx_fail(f);
	}
}

/*
 * @op's pread or pwrite, buffered or direct, until all its bytes or for a
 * read the end of the file: an O_DIRECT read ends at a short read that
 * leaves the position unaligned.
 */
static u64 fsx_io(const struct fsx *f, bool write, const struct fsx_op *op)
{
	int fd = op->way == WAY_DIRECT ? f->dfd : f->fd;
	u64 align = op->way == WAY_DIRECT ? f->align : 1, done = 0;
	u8 *buf = f->buf;
	ssize_t n;

	while (done < op->len) {
		n = write ? pwrite(fd, buf + done, op->len - done,
				   op->off + done) :
			    pread(fd, buf + done, op->len - done,
				  op->off + done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || (!n && write))
			fsx_fail_sys(f, write ? "pwrite" : "pread");
		if (!n)
			break;
		done += n;
		if (done % align)
			break;
	}
	return done;
}

/* memcpy to or from the map; false if the file ended under it. */
static bool fsx_map_copy(void *dst, const void *src, size_t len)
{
	if (sigsetjmp(fsx_sigbus_env, 1))
		return false;
	memcpy(dst, src, len);
	return true;
}

/* Before I/O that bypasses the map sees the file. */
static void fsx_map_sync(struct fsx *f)
{
	if (!f->map_dirty)
		return;
	if (msync(f->map, f->map_len, MS_SYNC))
		fsx_fail_sys(f, "msync");
	f->map_dirty = false;
}

static void fsx_map_fault(const struct fsx *f)
{
	fsx_mismatch(f, "SIGBUS in the map: the file ended before 0x%llx",
		     (unsigned long long)f->size);
	fsx_fail(f);
}

static void fsx_read(struct fsx *f, struct fsx_op *op)
{
	u64 got;

	if (op->way == WAY_MMAP) {
		/* a map cannot see the end of the file: stat ops check it */
		got = op->off < f->size ?
		      min_u64(op->len, f->size - op->off) : 0;
		if (!fsx_map_copy(f->buf, f->map + op->off, got))
			fsx_map_fault(f);
	} else {
		fsx_map_sync(f);
		got = fsx_io(f, false, op);
	}
	fsx_check(f, f->buf, op->off, op->len, got);
}

/* The shadow's size becomes @size; it keeps zeros beyond the size. */
static void fsx_shadow_resize(struct fsx *f, u64 size)
{
	if (size < f->size) {
		memset(f->good + size, 0, f->size - size);
		memset(f->writer + size, 0, (f->size - size) * sizeof(u32));
	}
	f->size = size;
}

static void fsx_resize(struct fsx *f, u64 size)
{
	if (ftruncate(f->fd, size))
		fsx_fail_sys(f, "ftruncate");
	fsx_shadow_resize(f, size);
}

static void fsx_truncate(struct fsx *f, struct fsx_op *op)
{
	fsx_resize(f, op->len);
}

static void fsx_write(struct fsx *f, struct fsx_op *op)
{
	u64 i, end = op->off + op->len;

	fsx_pattern(f->buf, f->nr, op->off, op->len);
	if (op->way != WAY_MMAP) {
		fsx_io(f, true, op);
	} else {
		/* a map cannot extend the file */
		if (end > f->size)
			fsx_resize(f, end);
		if (!fsx_map_copy(f->map + op->off, f->buf, op->len))
			fsx_map_fault(f);
		f->map_dirty = true;
	}
	memcpy(f->good + op->off, f->buf, op->len);
	for (i = op->off; i < end; i++)
		f->writer[i] = f->nr;
	if (end > f->size)
		f->size = end;
}

/* fallocate; false if the file system does not support @mode. */
static bool fsx_fallocate(struct fsx *f, struct fsx_op *op, int mode)
{
	if (!fallocate(f->fd, mode, op->off, op->len))
		return true;
	if (errno != EOPNOTSUPP)
		fsx_fail_sys(f, "fallocate");
	/* the kind stays in the draw so that the ops that follow keep theirs */
	f->refused[op->kind] = true;
	op->flags |= FSX_SKIPPED;
	if (!f->quiet)
		printf("aifs-fsx: %s: not supported here, turned off\n",
		       fsx_kind_name[op->kind]);
	return false;
}

static void fsx_falloc(struct fsx *f, struct fsx_op *op)
{
	if (fsx_fallocate(f, op, 0) && op->off + op->len > f->size)
		f->size = op->off + op->len;
}

static void fsx_punch(struct fsx *f, struct fsx_op *op)
{
	u64 end = min_u64(op->off + op->len, f->size);

	if (!fsx_fallocate(f, op, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE) ||
	    op->off >= end)
		return;
	memset(f->good + op->off, 0, end - op->off);
	memset(f->writer + op->off, 0, (end - op->off) * sizeof(u32));
}

static void fsx_sync(struct fsx *f, struct fsx_op *op)
{
	fsx_map_sync(f);
	if (op->flags & FSX_DATASYNC ? fdatasync(f->fd) : fsync(f->fd))
		fsx_fail_sys(f, op->flags & FSX_DATASYNC ? "fdatasync" :
			     "fsync");
}

static void fsx_stat(struct fsx *f, struct fsx_op *op __maybe_unused)
{
	struct stat st;

	if (fstat(f->fd, &st))
		fsx_fail_sys(f, "fstat");
	if ((u64)st.st_size != f->size) {
		fsx_mismatch(f, "the file's size is 0x%llx, the shadow's "
			     "0x%llx",
			     (unsigned long long)st.st_size,
			     (unsigned long long)f->size);
		fsx_fail(f);
	}
}

static bool fsx_uses(const struct fsx *f, enum fsx_way way)
{
	switch (f->mode) {
	case MODE_MIXED:
		return true;
	case MODE_DIRECT:
		return way == WAY_DIRECT;
	case MODE_MMAP:
		return way != WAY_DIRECT;
	default:
		return way == WAY_BUFFERED;
	}
}

static void fsx_open(struct fsx *f)
{
	const char *path = f->path[f->cur];

	f->fd = open(path, O_RDWR);
	if (f->fd < 0)
		fsx_fail_sys(f, path);
	if (fsx_uses(f, WAY_DIRECT)) {
		f->dfd = open(path, O_RDWR | O_DIRECT);
		if (f->dfd < 0)
			fsx_fail_sys(f, "open O_DIRECT");
	}
	if (fsx_uses(f, WAY_MMAP)) {
		f->map = mmap(NULL, f->map_len, PROT_READ | PROT_WRITE,
			      MAP_SHARED, f->fd, 0);
		if (f->map == MAP_FAILED)
			fsx_fail_sys(f, "mmap");
	}
}

static void fsx_close(struct fsx *f)
{
	fsx_map_sync(f);
	if (f->map && munmap(f->map, f->map_len))
		fsx_fail_sys(f, "munmap");
	f->map = NULL;
	if (f->mode == MODE_TWO && fsync(f->fd))
		fsx_fail_sys(f, "fsync");
	if (close(f->fd) || (f->dfd >= 0 && close(f->dfd)))
		fsx_fail_sys(f, "close");
	f->fd = -1;
	f->dfd = -1;
}

/* Close, and open again: through the other path in mode two. */
static void fsx_reopen(struct fsx *f, struct fsx_op *op __maybe_unused)
{
	fsx_close(f);
	if (f->mode == MODE_TWO)
		f->cur ^= 1;
	fsx_open(f);
}

/*
 * Flip bytes of the file behind the exerciser's back, as a bug would; an
 * empty file gets bytes of 0xff.
 */
static void fsx_inject(const struct fsx *f)
{
	u64 state = f->seed ^ f->nr, off = 0, n = FSX_WINDOW, i;
	u8 bytes[FSX_WINDOW] = { 0 };
	struct stat st;
	int fd;

	fd = open(f->path[f->cur], O_RDWR);
	if (fd < 0 || fstat(fd, &st))
		fsx_fail_sys(f, "inject");
	if (st.st_size) {
		off = fsx_rand(&state) % st.st_size;
		n = min_u64(n, st.st_size - off);
	}
	if (pread(fd, bytes, n, off) < 0)
		fsx_fail_sys(f, "inject: pread");
	for (i = 0; i < n; i++)
		bytes[i] ^= 0xff;
	if (pwrite(fd, bytes, n, off) != (ssize_t)n)
		fsx_fail_sys(f, "inject: pwrite");
	printf("aifs-fsx: op %llu: injected 0x%llx flipped bytes at 0x%llx\n",
	       (unsigned long long)f->nr, (unsigned long long)n,
	       (unsigned long long)off);
	fflush(stdout);
	close(fd);
}

static void (*const fsx_do[OP_NR])(struct fsx *f, struct fsx_op *op) = {
	[OP_READ] = fsx_read, [OP_WRITE] = fsx_write,
	[OP_TRUNCATE] = fsx_truncate, [OP_FALLOC] = fsx_falloc,
	[OP_PUNCH] = fsx_punch, [OP_SYNC] = fsx_sync, [OP_REOPEN] = fsx_reopen,
	[OP_STAT] = fsx_stat,
};

/* Log @op as the next op and run it. */
static void fsx_run(struct fsx *f, const struct fsx_op *op)
{
	struct fsx_op *e;

	if (f->nr == f->log_cap) {
		f->log_cap = f->log_cap ? 2 * f->log_cap : 1024;
		e = realloc(f->log, f->log_cap * sizeof(*f->log));
		if (!e) {
			fprintf(stderr, "aifs-fsx: no memory for the log\n");
			exit(2);
		}
		f->log = e;
	}
	e = &f->log[f->nr++];
	*e = *op;
	e->size = f->size;
	e->path = f->cur;
	if (f->nr == f->inject)
		fsx_inject(f);
	if (f->verbose)
		fsx_print_op(f, stdout, f->nr);
	if (f->refused[e->kind]) {
		e->flags |= FSX_SKIPPED;
		return;
	}
	fsx_do[e->kind](f, e);
}

static enum fsx_kind fsx_pick_kind(u64 r)
{
	unsigned int sum = 0, k;

	for (k = 0; k < OP_NR; k++)
		sum += fsx_weight[k];
	r %= sum;
	for (k = 0; r >= fsx_weight[k]; k++)
		r -= fsx_weight[k];
	return k;
}

static enum fsx_way fsx_pick_way(const struct fsx *f, u64 r)
{
	switch (f->mode) {
	case MODE_MIXED:
		return r % WAY_NR;
	case MODE_DIRECT:
		return WAY_DIRECT;
	case MODE_MMAP:
		return WAY_MMAP;
	default:
		return WAY_BUFFERED;
	}
}

/*
 * The next random op.  It always takes five words of the stream, so that
 * the ops that follow do not depend on the kind drawn.
 */
static void fsx_gen(struct fsx *f, struct fsx_op *op)
{
	u64 r[5], i;

	for (i = 0; i < ARRAY_SIZE(r); i++)
		r[i] = fsx_rand(&f->rng);
	memset(op, 0, sizeof(*op));
	op->kind = fsx_pick_kind(r[0]);
	op->way = fsx_pick_way(f, r[1]);
	op->off = r[2] % f->maxlen;
	op->len = 1 + r[3] % f->maxop;
	switch (op->kind) {
	case OP_READ:
		/* mostly inside the file, sometimes across or past its end */
		if (f->size && r[4] % 8)
			op->off = r[2] % f->size;
		break;
	case OP_PUNCH:
		op->off = f->size ? r[2] % f->size : 0;
		break;
	case OP_TRUNCATE:
		op->off = 0;
		op->len = r[4] % (f->maxlen + 1);
		return;
	case OP_SYNC:
		op->flags = r[4] % 2 ? FSX_DATASYNC : 0;
		return;
	}
	if (op->way == WAY_DIRECT) {
		op->off -= op->off % f->align;
		op->len = round_up(op->len, f->align);
	}
	if (op->kind != OP_READ && op->off + op->len > f->maxlen)
		op->len = f->maxlen - op->off;
}

/*
 * The whole file, and its size, through every way of the mode; in mode two
 * through both paths.
 */
static void fsx_verify(struct fsx *f)
{
	u64 step = f->maxop - f->maxop % f->align, off;
	struct fsx_op op = { .kind = OP_STAT };
	int way, pass;

	for (pass = 0; pass < (f->mode == MODE_TWO ? 2 : 1); pass++) {
		if (pass) {
			op.kind = OP_REOPEN;
			fsx_run(f, &op);
		}
		op.kind = OP_STAT;
		fsx_run(f, &op);
		op.kind = OP_READ;
		op.len = step;
		for (way = 0; way < WAY_NR; way++) {
			op.way = way;
			for (off = 0; fsx_uses(f, way) && off <= f->size;
			     off += step) {
				op.off = off;
				fsx_run(f, &op);
			}
		}
	}
}

/* O_DIRECT offsets and lengths: the file system's alignment, or 4096. */
static void fsx_find_align(struct fsx *f, int fd)
{
	struct statx stx;

	f->align = 1;
	if (!fsx_uses(f, WAY_DIRECT))
		return;
	f->align = 4096;
	if (!statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) &&
	    stx.stx_mask & STATX_DIOALIGN && stx.stx_dio_offset_align)
		f->align = stx.stx_dio_offset_align;
}

static void *fsx_zalloc(const struct fsx *f, u64 size)
{
	void *p = calloc(1, size);

	if (!p)
		fsx_fail_sys(f, "calloc");
	return p;
}

/* An empty FILE, the buffers and the shadow; then FILE is opened. */
static void fsx_setup(struct fsx *f)
{
	long page = sysconf(_SC_PAGESIZE);
	struct sigaction sa = { .sa_handler = fsx_sigbus };
	int fd;

	f->dfd = -1;
	f->rng = f->seed;
	fd = open(f->path[0], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		fsx_fail_sys(f, f->path[0]);
	fsx_find_align(f, fd);
	close(fd);
	if (f->maxlen < f->align || f->maxop < f->align) {
		fprintf(stderr, "aifs-fsx: -l and -o must be at least the "
			"O_DIRECT alignment, %llu\n",
			(unsigned long long)f->align);
		exit(2);
	}
	f->maxlen -= f->maxlen % f->align;
	f->map_len = round_up(f->maxlen, page);
	errno = posix_memalign((void **)&f->buf, page,
			       round_up(f->maxop, f->align) + f->align);
	if (errno)
		fsx_fail_sys(f, "posix_memalign");
	f->good = fsx_zalloc(f, f->maxlen);
	f->writer = fsx_zalloc(f, f->maxlen * sizeof(u32));
	if (sigaction(SIGBUS, &sa, NULL))
		fsx_fail_sys(f, "sigaction");
	fsx_open(f);
}

/* A size or count: a number with an optional k, m or g suffix. */
static u64 fsx_number(const char *s, const char *what)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (*end == 'k' || *end == 'K')
		v <<= 10, end++;
	else if (*end == 'm' || *end == 'M')
		v <<= 20, end++;
	else if (*end == 'g' || *end == 'G')
		v <<= 30, end++;
	if (errno || end == s || *end) {
		fprintf(stderr, "aifs-fsx: %s: not a number: %s\n", what, s);
		exit(2);
	}
	return v;
}

static enum fsx_mode fsx_mode_of(const char *s)
{
	unsigned int m;

	for (m = 0; m < ARRAY_SIZE(fsx_mode_name); m++)
		if (!strcmp(s, fsx_mode_name[m]))
			return m;
	fprintf(stderr, "aifs-fsx: unknown mode %s\n", s);
	exit(2);
}

static void fsx_usage(void)
{
	fprintf(stderr, "usage: aifs-fsx [-S seed] [-N ops] [-l maxlen] "
		"[-o maxop] [-m buffered|direct|mmap|mixed|two]\n"
		"                [-P second_path] [-i|--inject op] [-q] [-v] "
		"FILE\n");
	exit(2);
}

static void fsx_options(struct fsx *f, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "inject", required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	f->seed = (u64)time(NULL) ^ (u64)getpid() << 32;
	f->nops = 10000;
	f->maxlen = 256 << 10;
	f->maxop = 64 << 10;
	while ((opt = getopt_long(argc, argv, "S:N:l:o:m:P:i:qv", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'S':
			f->seed = fsx_number(optarg, "-S");
			break;
		case 'N':
			f->nops = fsx_number(optarg, "-N");
			break;
		case 'l':
			f->maxlen = fsx_number(optarg, "-l");
			break;
		case 'o':
			f->maxop = fsx_number(optarg, "-o");
			break;
		case 'm':
			f->mode = fsx_mode_of(optarg);
			break;
		case 'P':
			f->path[1] = optarg;
			break;
		case 'i':
			f->inject = fsx_number(optarg, "--inject");
			break;
		case 'q':
			f->quiet = true;
			break;
		case 'v':
			f->verbose = true;
			break;
		default:
			fsx_usage();
		}
	}
	if (argc - optind != 1 || !f->maxop || f->maxop > f->maxlen ||
	    f->nops >= UINT32_MAX / 2)
		fsx_usage();
	if (f->mode == MODE_TWO ? !f->path[1] : !!f->path[1]) {
		fprintf(stderr, "aifs-fsx: -P goes with -m two, and only\n");
		exit(2);
	}
	f->path[0] = argv[optind];
}

int main(int argc, char **argv)
{
	static struct fsx f;
	struct fsx_op op;
	u64 i;

	fsx_options(&f, argc, argv);
	if (!f.quiet)
		printf("aifs-fsx: seed %llu\n", (unsigned long long)f.seed);
	fflush(stdout);
	fsx_setup(&f);
	for (i = 0; i < f.nops; i++) {
		fsx_gen(&f, &op);
		fsx_run(&f, &op);
	}
	fsx_verify(&f);
	fsx_close(&f);
	if (!f.quiet)
		printf("aifs-fsx: %llu ops, seed %llu, mode %s: ok\n",
		       (unsigned long long)f.nops, (unsigned long long)f.seed,
		       fsx_mode_name[f.mode]);
	return 0;
}
