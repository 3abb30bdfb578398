// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * aifs-loader - a data loader with emulated accelerators, in the manner of
 * DLIO and MLPerf Storage: how many accelerators can a mounted file system
 * keep busy?  The benchmark suite's own tool, plain POSIX and pthreads.
 *
 *   aifs-loader [-a LIST] [-b BATCH] [-c COMPUTE_MS] [-r READERS]
 *               [-q PREFETCH] [-d] [-t SECONDS] [-u MIN_AU] DIR
 *
 * The samples are the regular files under DIR, in the order of their
 * paths, shuffled with a fixed seed per trial.  A trial with A
 * accelerators splits them over A accelerator threads; each takes batches
 * of BATCH samples from its own queue of up to PREFETCH batches, which its
 * own READERS reader threads fill by reading whole sample files, and
 * "computes" a batch by sleeping COMPUTE_MS.  Its accelerator utilisation
 * (AU) is the time it computed over the trial's time; a trial's AU is that
 * of all its accelerators.  The trials run for each A of LIST in turn
 * (-d: each from a cold page cache, root only) and stop after the first
 * whose AU is below MIN_AU; -t bounds each trial: accelerators stop after
 * their batch once it passed.
 *
 * A trial's samples and bytes are what its readers read: for a trial cut
 * by -t that includes the batches read ahead and not computed, at most
 * PREFETCH + READERS per accelerator.
 *
 * The result is one JSON object on stdout (MB are 10^6 bytes); progress
 * goes to stderr.  Exit 0 on success, 1 when a system call fails, 2 on a
 * usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "tool.h"

#define PROG		"aifs-loader"
#define NSEC_PER_MSEC	1000000ULL

/*
 * A reader reads a sample through a buffer of its own of this size: the
 * whole file passes through memory as in a DataLoader's worker, but large
 * samples need not fit a small guest's memory A x READERS times.
 */
#define READ_CHUNK	(1U << 20)

#define MAX_TRIALS	64
#define MAX_ACCELS	1024
#define MAX_THREADS	256	/* readers per accelerator */
#define SHUFFLE_SEED	0x5eed

struct options {
	unsigned int accels[MAX_TRIALS];	/* per trial */
	unsigned int ntrials;
	unsigned int batch;
	unsigned int compute_ms;
	unsigned int readers;
	unsigned int prefetch;
	bool drop_caches;
	double limit_s;		/* 0: no limit */
	double min_au;
	const char *dir;
};

/* Every regular file under DIR (a global: nftw() passes no context). */
static struct {
	char **paths;
	size_t nr, cap;
} samples;

struct accel;
struct trial;

/* A reader thread: whole batches of its accelerator's share. */
struct reader {
	struct accel *accel;
	pthread_t thread;
	unsigned char *buf;	/* READ_CHUNK */
	uint64_t samples;
	uint64_t bytes;
};

/*
 * An accelerator thread with its readers and their queue.  @lock guards
 * the queue: @next_batch, @ready, @readers_left and @stop; @computed,
 * @compute_ns and @end_ns are the accelerator thread's alone, @started
 * and @readers_started the main thread's.
 */
struct accel {
	struct trial *trial;
	pthread_t thread;
	bool started;
	struct reader *readers;
	unsigned int readers_started;
	const size_t *share;	/* its samples, by index */
	size_t nsamples;
	size_t nbatches;

	pthread_mutex_t lock;
	pthread_cond_t filled;	/* a batch is ready, or no reader is left */
	pthread_cond_t drained;	/* room in the queue, or stop */
	size_t next_batch;
	unsigned int ready;	/* batches read, not yet computed */
	unsigned int readers_left;
	bool stop;

	size_t computed;
	uint64_t compute_ns;
	uint64_t end_ns;
};

/*
 * One trial.  Its threads wait at a gate until all are made, so that the
 * trial's time starts when they do; @lock guards @gate and @failed.
 */
struct trial {
	const struct options *opts;
	unsigned int naccels;
	struct accel *accels;
	size_t *order;		/* the shuffled samples */
	uint64_t start_ns;
	uint64_t deadline_ns;	/* 0: no limit */

	pthread_mutex_t lock;
	pthread_cond_t gate_moved;
	enum trial_gate { GATE_SHUT, GATE_OPEN, GATE_ABORT } gate;
	bool failed;
};

struct trial_result {
	unsigned int naccels;
	uint64_t samples;
	uint64_t bytes;
	double seconds;
	double au;
	double au_min;
	bool bounded;
};

static struct timespec timespec_of(uint64_t ns)
{
	return (struct timespec){ .tv_sec = ns / NSEC_PER_SEC,
				  .tv_nsec = ns % NSEC_PER_SEC };
}

static void print_usage(void)
{
	fprintf(stderr,
		"usage: " PROG " [-a LIST] [-b BATCH] [-c COMPUTE_MS]\n"
		"         [-r READERS] [-q PREFETCH] [-d] [-t SECONDS]\n"
		"         [-u MIN_AU] DIR\n");
	exit(2);
}

static void parse_accels(struct options *o, const char *arg)
{
	char *list = strdup(arg), *save = NULL, *item;

	if (!list) {
		perror(PROG);
		exit(1);
	}
	o->ntrials = 0;
	for (item = strtok_r(list, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		if (o->ntrials == MAX_TRIALS) {
			fprintf(stderr, PROG ": -a: more than %d trials\n",
				MAX_TRIALS);
			exit(2);
		}
		o->accels[o->ntrials++] = tool_parse_count(item, "-a", 1,
						      MAX_ACCELS);
	}
	free(list);
	if (!o->ntrials)
		print_usage();
}

static void parse_options(struct options *o, int argc, char **argv)
{
	int opt;

	*o = (struct options){ .accels = { 1, 2, 4, 8, 16 }, .ntrials = 5,
			       .batch = 4, .compute_ms = 20, .readers = 4,
			       .prefetch = 2, .min_au = 0.9 };
	while ((opt = getopt(argc, argv, "a:b:c:r:q:dt:u:")) != -1) {
		switch (opt) {
		case 'a':
			parse_accels(o, optarg);
			break;
		case 'b':
			o->batch = tool_parse_count(optarg, "-b", 1, 1U << 20);
			break;
		case 'c':
			o->compute_ms = tool_parse_count(optarg, "-c", 0, 3600000);
			break;
		case 'r':
			o->readers = tool_parse_count(optarg, "-r", 1, MAX_THREADS);
			break;
		case 'q':
			o->prefetch = tool_parse_count(optarg, "-q", 1, 1U << 20);
			break;
		case 'd':
			o->drop_caches = true;
			break;
		case 't':
			o->limit_s = tool_parse_real(optarg, "-t", 1e-3, 1e6);
			break;
		case 'u':
			o->min_au = tool_parse_real(optarg, "-u", 0, 1);
			break;
		default:
			print_usage();
		}
	}
	if (argc - optind != 1)
		print_usage();
	o->dir = argv[optind];
}

/* ---- the samples ---- */

/* nftw()'s callback: 1 stops the walk, told apart from its own -1. */
static int add_sample(const char *path, const struct stat *st, int type,
		      struct FTW *ftw)
{
	char **paths;

	(void)ftw;
	if (type == FTW_DNR || type == FTW_NS) {
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (type != FTW_F || !S_ISREG(st->st_mode))
		return 0;
	if (samples.nr == samples.cap) {
		samples.cap = samples.cap ? samples.cap * 2 : 1024;
		paths = realloc(samples.paths,
				samples.cap * sizeof(*samples.paths));
		if (!paths)
			goto nomem;
		samples.paths = paths;
	}
	samples.paths[samples.nr] = strdup(path);
	if (!samples.paths[samples.nr])
		goto nomem;
	samples.nr++;
	return 0;

nomem:
	fprintf(stderr, PROG ": out of memory at %s\n", path);
	return 1;
}

static int compare_paths(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file under @dir, sorted: the same order run after run. */
static int find_samples(const char *dir)
{
	int ret = nftw(dir, add_sample, 16, FTW_PHYS);

	if (ret < 0)
		fprintf(stderr, PROG ": %s: %s\n", dir, strerror(errno));
	if (ret)
		return -1;
	if (!samples.nr) {
		fprintf(stderr, PROG ": no regular file under %s\n", dir);
		return -1;
	}
	qsort(samples.paths, samples.nr, sizeof(*samples.paths),
	      compare_paths);
	return 0;
}

static void free_samples(void)
{
	while (samples.nr--)
		free(samples.paths[samples.nr]);
	free(samples.paths);
}

/* Fisher-Yates with splitmix64: the same order for the same @seed. */
static void shuffle(size_t *order, size_t n, uint64_t seed)
{
	size_t i, j, tmp;
	uint64_t z;

	for (i = 0; i < n; i++)
		order[i] = i;
	for (i = n; i > 1; i--) {
		seed += 0x9e3779b97f4a7c15ULL;
		z = seed;
		z = (z ^ z >> 30) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ z >> 27) * 0x94d049bb133111ebULL;
		z ^= z >> 31;
		j = z % i;
		tmp = order[i - 1];
		order[i - 1] = order[j];
		order[j] = tmp;
	}
}

/* ---- the threads of a trial ---- */

/* Waits for the gate; false when the trial was called off. */
static bool trial_wait_start(struct trial *t)
{
	bool open;

	pthread_mutex_lock(&t->lock);
	while (t->gate == GATE_SHUT)
		pthread_cond_wait(&t->gate_moved, &t->lock);
	open = t->gate == GATE_OPEN;
	pthread_mutex_unlock(&t->lock);
	return open;
}

/* No more batches: readers leave, and the accelerator after its batch. */
static void accel_stop(struct accel *a)
{
	pthread_mutex_lock(&a->lock);
	a->stop = true;
	pthread_cond_broadcast(&a->filled);
	pthread_cond_broadcast(&a->drained);
	pthread_mutex_unlock(&a->lock);
}

static bool accel_stopped(struct accel *a)
{
	bool stop;

	pthread_mutex_lock(&a->lock);
	stop = a->stop;
	pthread_mutex_unlock(&a->lock);
	return stop;
}

static void trial_fail(struct trial *t)
{
	unsigned int i;

	pthread_mutex_lock(&t->lock);
	t->failed = true;
	pthread_mutex_unlock(&t->lock);
	for (i = 0; i < t->naccels; i++)
		accel_stop(&t->accels[i]);
}

/* open, read the whole file, close: as a DataLoader's worker does. */
static int read_sample(struct reader *r, const char *path)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, PROG ": open %s: %s\n", path, strerror(errno));
		return -1;
	}
	while ((n = read(fd, r->buf, READ_CHUNK)) > 0)
		r->bytes += n;
	if (n < 0) {
		fprintf(stderr, PROG ": read %s: %s\n", path, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	r->samples++;
	return 0;
}

/* Batch @b of the accelerator's share, unless it stops meanwhile. */
static int read_batch(struct reader *r, size_t b)
{
	struct accel *a = r->accel;
	size_t batch = a->trial->opts->batch;
	size_t i, end = b * batch + batch;

	if (end > a->nsamples)
		end = a->nsamples;
	for (i = b * batch; i < end && !accel_stopped(a); i++)
		if (read_sample(r, samples.paths[a->share[i]]))
			return -1;
	return 0;
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	struct accel *a = r->accel;
	unsigned int prefetch = a->trial->opts->prefetch;
	size_t b;

	if (!trial_wait_start(a->trial))
		return NULL;
	pthread_mutex_lock(&a->lock);
	while (!a->stop && a->next_batch < a->nbatches) {
		b = a->next_batch++;
		pthread_mutex_unlock(&a->lock);
		if (read_batch(r, b)) {
			trial_fail(a->trial);
			pthread_mutex_lock(&a->lock);
			break;
		}
		pthread_mutex_lock(&a->lock);
		while (a->ready == prefetch && !a->stop)
			pthread_cond_wait(&a->drained, &a->lock);
		if (a->stop)
			break;
		a->ready++;
		pthread_cond_signal(&a->filled);
	}
	if (!--a->readers_left)
		pthread_cond_signal(&a->filled);
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

/*
 * The next batch from the queue; false when there is none to come, when
 * the accelerator was stopped, or when the trial's limit passed while it
 * waited (waiting is not a batch to finish).
 */
static bool accel_take_batch(struct accel *a)
{
	struct timespec deadline = timespec_of(a->trial->deadline_ns);
	bool got;

	pthread_mutex_lock(&a->lock);
	while (!a->ready && a->readers_left && !a->stop) {
		if (!a->trial->deadline_ns)
			pthread_cond_wait(&a->filled, &a->lock);
		else if (pthread_cond_timedwait(&a->filled, &a->lock,
						&deadline) == ETIMEDOUT)
			break;
	}
	got = a->ready && !a->stop;
	if (got) {
		a->ready--;
		pthread_cond_signal(&a->drained);
	}
	pthread_mutex_unlock(&a->lock);
	return got;
}

/* The emulated computation: a sleep, counted as long as it lasted. */
static void compute(struct accel *a)
{
	uint64_t start = tool_now_ns();
	struct timespec until;

	if (!a->trial->opts->compute_ms)
		return;
	until = timespec_of(start + a->trial->opts->compute_ms *
			    NSEC_PER_MSEC);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until,
			       NULL) == EINTR)
		;
	a->compute_ns += tool_now_ns() - start;
}

static void *accel_main(void *arg)
{
	struct accel *a = arg;
	struct trial *t = a->trial;

	if (!trial_wait_start(t))
		return NULL;
	while (accel_take_batch(a)) {
		compute(a);
		a->computed++;
		if (t->deadline_ns && tool_now_ns() >= t->deadline_ns)
			break;
	}
	a->end_ns = tool_now_ns();
	/* after a bounded trial, its readers must not read on */
	accel_stop(a);
	return NULL;
}

/* ---- a trial ---- */

static int init_cond(pthread_cond_t *cond)
{
	pthread_condattr_t attr;
	int err;

	pthread_condattr_init(&attr);
	/* the trial's deadline is on the monotonic clock */
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	err = pthread_cond_init(cond, &attr);
	pthread_condattr_destroy(&attr);
	return err;
}

static int init_accel(struct trial *t, unsigned int k)
{
	struct accel *a = &t->accels[k];
	size_t first = samples.nr * k / t->naccels;
	unsigned int i;

	a->trial = t;
	a->share = t->order + first;
	a->nsamples = samples.nr * (k + 1) / t->naccels - first;
	a->nbatches = (a->nsamples + t->opts->batch - 1) / t->opts->batch;
	a->readers_left = t->opts->readers;
	a->readers = calloc(t->opts->readers, sizeof(*a->readers));
	if (!a->readers)
		return -1;
	for (i = 0; i < t->opts->readers; i++) {
		a->readers[i].accel = a;
		a->readers[i].buf = malloc(READ_CHUNK);
		if (!a->readers[i].buf)
			goto free_readers;
	}
	if (pthread_mutex_init(&a->lock, NULL))
		goto free_readers;
	if (init_cond(&a->filled))
		goto destroy_lock;
	if (init_cond(&a->drained))
		goto destroy_filled;
	return 0;

destroy_filled:
	pthread_cond_destroy(&a->filled);
destroy_lock:
	pthread_mutex_destroy(&a->lock);
free_readers:
	for (i = 0; i < t->opts->readers; i++)
		free(a->readers[i].buf);
	free(a->readers);
	return -1;
}

static void free_accel(struct accel *a)
{
	unsigned int i;

	pthread_cond_destroy(&a->drained);
	pthread_cond_destroy(&a->filled);
	pthread_mutex_destroy(&a->lock);
	for (i = 0; i < a->trial->opts->readers; i++)
		free(a->readers[i].buf);
	free(a->readers);
}

static int init_trial(struct trial *t, const struct options *o,
		      unsigned int naccels, unsigned int index)
{
	unsigned int k = 0;

	*t = (struct trial){ .opts = o, .naccels = naccels };
	t->order = malloc(samples.nr * sizeof(*t->order));
	t->accels = calloc(naccels, sizeof(*t->accels));
	if (!t->order || !t->accels)
		goto free_arrays;
	shuffle(t->order, samples.nr, SHUFFLE_SEED + index);
	if (pthread_mutex_init(&t->lock, NULL))
		goto free_arrays;
	if (pthread_cond_init(&t->gate_moved, NULL))
		goto destroy_lock;
	for (k = 0; k < naccels; k++)
		if (init_accel(t, k))
			goto free_accels;
	return 0;

free_accels:
	while (k--)
		free_accel(&t->accels[k]);
	pthread_cond_destroy(&t->gate_moved);
destroy_lock:
	pthread_mutex_destroy(&t->lock);
free_arrays:
	free(t->accels);
	free(t->order);
	fprintf(stderr, PROG ": no memory for %u accelerators\n", naccels);
	return -1;
}

/* Frees what init_trial() made, once the threads are joined. */
static void free_trial(struct trial *t)
{
	unsigned int k;

	for (k = 0; k < t->naccels; k++)
		free_accel(&t->accels[k]);
	pthread_cond_destroy(&t->gate_moved);
	pthread_mutex_destroy(&t->lock);
	free(t->accels);
	free(t->order);
}

static int start_accel(struct accel *a)
{
	unsigned int i;

	for (i = 0; i < a->trial->opts->readers; i++) {
		if (pthread_create(&a->readers[i].thread, NULL, reader_main,
				   &a->readers[i]))
			return -1;
		a->readers_started++;
	}
	if (pthread_create(&a->thread, NULL, accel_main, a))
		return -1;
	a->started = true;
	return 0;
}

static void move_gate(struct trial *t, enum trial_gate gate)
{
	pthread_mutex_lock(&t->lock);
	t->gate = gate;
	pthread_cond_broadcast(&t->gate_moved);
	pthread_mutex_unlock(&t->lock);
}

static void join_threads(struct trial *t)
{
	struct accel *a;
	unsigned int k, i;

	for (k = 0; k < t->naccels; k++) {
		a = &t->accels[k];
		for (i = 0; i < a->readers_started; i++)
			pthread_join(a->readers[i].thread, NULL);
		if (a->started)
			pthread_join(a->thread, NULL);
	}
}

/* Makes every thread, then lets them all go at the trial's start. */
static int run_threads(struct trial *t)
{
	uint64_t limit_ns = t->opts->limit_s * NSEC_PER_SEC;
	unsigned int k;

	for (k = 0; k < t->naccels; k++) {
		if (start_accel(&t->accels[k])) {
			fprintf(stderr, PROG ": %u accelerators: no threads\n",
				t->naccels);
			move_gate(t, GATE_ABORT);
			join_threads(t);
			return -1;
		}
	}
	t->start_ns = tool_now_ns();
	t->deadline_ns = limit_ns ? t->start_ns + limit_ns : 0;
	move_gate(t, GATE_OPEN);
	join_threads(t);
	return t->failed ? -1 : 0;
}

/*
 * An accelerator's AU is the time it computed over the trial's time, from
 * its start to the end of its last accelerator; the trial's AU is the mean.
 */
static void sum_up(const struct trial *t, struct trial_result *res)
{
	uint64_t end_ns = t->start_ns, compute_ns = 0;
	const struct accel *a;
	double seconds, au;
	unsigned int k, i;

	*res = (struct trial_result){ .naccels = t->naccels, .au_min = 1 };
	for (k = 0; k < t->naccels; k++) {
		a = &t->accels[k];
		if (a->end_ns > end_ns)
			end_ns = a->end_ns;
		compute_ns += a->compute_ns;
		res->bounded |= a->computed < a->nbatches;
		for (i = 0; i < t->opts->readers; i++) {
			res->samples += a->readers[i].samples;
			res->bytes += a->readers[i].bytes;
		}
	}
	seconds = (end_ns - t->start_ns) / 1e9;
	res->seconds = seconds;
	if (!seconds) {
		res->au_min = 0;
		return;
	}
	res->au = compute_ns / 1e9 / (seconds * t->naccels);
	for (k = 0; k < t->naccels; k++) {
		au = t->accels[k].compute_ns / 1e9 / seconds;
		if (au < res->au_min)
			res->au_min = au;
	}
}

static int run_trial(const struct options *o, unsigned int index,
		     struct trial_result *res)
{
	struct trial t;
	int ret = -1;

	if (o->drop_caches && tool_drop_page_cache())
		return -1;
	if (init_trial(&t, o, o->accels[index], index))
		return -1;
	if (run_threads(&t))
		goto out;
	sum_up(&t, res);
	fprintf(stderr, PROG ": %u accelerator%s: %llu samples, %.1f MB",
		res->naccels, res->naccels == 1 ? "" : "s",
		(unsigned long long)res->samples, res->bytes / 1e6);
	fprintf(stderr, " in %.3f s, AU %.3f (lowest %.3f)%s\n",
		res->seconds, res->au, res->au_min,
		res->bounded ? " (bounded by -t)" : "");
	ret = 0;
out:
	free_trial(&t);
	return ret;
}

static void print_trial(const struct trial_result *r)
{
	printf("{\"accelerators\":%u,\"samples\":%llu,\"bytes\":%llu",
	       r->naccels, (unsigned long long)r->samples,
	       (unsigned long long)r->bytes);
	printf(",\"seconds\":%.6f,\"samples_per_s\":%.1f,\"mb_per_s\":%.3f",
	       r->seconds, tool_rate(r->samples, r->seconds),
	       tool_rate(r->bytes / 1e6, r->seconds));
	printf(",\"au\":%.4f,\"au_min\":%.4f,\"bounded\":%s}", r->au,
	       r->au_min, r->bounded ? "true" : "false");
}

static void print_json(const struct options *o,
		       const struct trial_result *results, unsigned int nr)
{
	unsigned int i, max_accels = 0;

	printf("{\"tool\":\"" PROG "\",\"dir\":");
	tool_print_json_string(o->dir);
	printf(",\"samples\":%zu,\"batch\":%u,\"compute_ms\":%u",
	       samples.nr, o->batch, o->compute_ms);
	printf(",\"readers\":%u,\"prefetch\":%u,\"min_au\":%g,\"trials\":[",
	       o->readers, o->prefetch, o->min_au);
	for (i = 0; i < nr; i++) {
		printf("%s", i ? "," : "");
		print_trial(&results[i]);
		if (results[i].au >= o->min_au &&
		    results[i].naccels > max_accels)
			max_accels = results[i].naccels;
	}
	printf("],\"max_accelerators\":%u}\n", max_accels);
}

/* The trials in turn, up to the first below MIN_AU; how many ran or -1. */
static int run_trials(const struct options *o, struct trial_result *results)
{
	unsigned int i;

	for (i = 0; i < o->ntrials; i++) {
		if (run_trial(o, i, &results[i]))
			return -1;
		/* more accelerators would be kept busy less still */
		if (results[i].au < o->min_au)
			return i + 1;
	}
	return i;
}

int main(int argc, char **argv)
{
	struct trial_result results[MAX_TRIALS];
	struct options o;
	int ret = 1, nr;

	parse_options(&o, argc, argv);
	/* find out now that -d cannot work, not after a trial */
	if (o.drop_caches && tool_drop_page_cache())
		return 1;
	if (find_samples(o.dir))
		goto out;
	fprintf(stderr, PROG ": %zu samples under %s\n", samples.nr, o.dir);
	nr = run_trials(&o, results);
	if (nr < 0)
		goto out;
	print_json(&o, results, nr);
	ret = 0;
out:
	free_samples();
	return ret;
}
