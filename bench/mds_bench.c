// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * aifs-mds-bench: create, stat, readdir, rename and unlink rates of
 * aifs-mds (durable: every reply follows an LMDB sync commit) with 1, 4
 * and 16 client threads, next to the same system calls on local
 * directories in the same run.  Prints a Markdown table.
 *
 *   aifs-mds-bench [INODES [LOCAL_DIR...]]    (default 10000 /dev/shm /var/tmp)
 *
 * AIFS_BENCH_THREADS="4 16" runs only those thread counts (a 10^6 run
 * takes hours on a small host).
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../tests/servers/mds_harness.h"

enum { OP_CREATE, OP_STAT, OP_READDIR, OP_RENAME, OP_UNLINK, NR_OPS };
static const char *const op_names[NR_OPS] = {
	"create", "stat", "readdir", "rename", "unlink"
};

/* One system under test: a phase of @op for thread @t over @n names. */
struct target {
	const char *name;
	int (*phase)(struct target *tg, int op, int t, int n);
	struct aifs_conn *conn;
	u64 dirs[16];
	char local[256];
};

struct worker {
	struct target *tg;
	int op, t, n, err;
	pthread_t thread;
};

static struct aifs_cred cred;

static int aifs_phase(struct target *tg, int op, int t, int n)
{
	static __thread char buf[65536];
	struct aifs_readdir_page page = { .eof = false };
	struct aifs_entry_rep e;
	struct aifs_rename_rep r;
	char a[32], b[32];
	u64 cookie = 0;
	int i, err = 0;

	for (i = 0; i < n && !err; i++) {
		snprintf(a, sizeof(a), "f%d", i);
		snprintf(b, sizeof(b), "g%d", i);
		switch (op) {
		case OP_CREATE:
			err = aifs_mknod(tg->conn, &cred, tg->dirs[t], a,
					 S_IFREG | 0644, 0, 0, &e);
			break;
		case OP_STAT:
			err = aifs_lookup(tg->conn, &cred, tg->dirs[t], a, &e);
			break;
		case OP_RENAME:
			err = aifs_rename(tg->conn, &cred, tg->dirs[t], a,
					  tg->dirs[t], b, 0, &r);
			break;
		case OP_UNLINK:
			err = aifs_unlink(tg->conn, &cred, tg->dirs[t], b, &e);
			break;
		}
	}
	/* readdir: count entries; the rate is entries per second. */
	while (op == OP_READDIR && !err && !page.eof) {
		err = aifs_readdir(tg->conn, &cred, tg->dirs[t], cookie, buf,
				   sizeof(buf), &page);
		cookie = page.cookie;
	}
	return err;
}

static int local_phase(struct target *tg, int op, int t, int n)
{
	char a[512], b[512], dir[400];
	struct dirent *de;
	struct stat st;
	DIR *d;
	int i, fd, err = 0;

	snprintf(dir, sizeof(dir), "%s/t%d", tg->local, t);
	if (op == OP_READDIR) {
		d = opendir(dir);
		if (!d)
			return -errno;
		while ((de = readdir(d)))
			if (stat(dir, &st))
				err = -errno;
		closedir(d);
		return err;
	}
	for (i = 0; i < n && !err; i++) {
		snprintf(a, sizeof(a), "%s/f%d", dir, i);
		snprintf(b, sizeof(b), "%s/g%d", dir, i);
		switch (op) {
		case OP_CREATE:
			fd = open(a, O_CREAT | O_EXCL | O_WRONLY, 0644);
			err = fd < 0 ? -errno : close(fd);
			break;
		case OP_STAT:
			err = stat(a, &st) ? -errno : 0;
			break;
		case OP_RENAME:
			err = rename(a, b) ? -errno : 0;
			break;
		case OP_UNLINK:
			err = unlink(b) ? -errno : 0;
			break;
		}
	}
	return err;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	w->err = w->tg->phase(w->tg, w->op, w->t, w->n);
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Run every op with @threads threads over @inodes names: rates. */
static int run_ops(struct target *tg, int threads, int inodes,
		   double rate[NR_OPS])
{
	struct worker w[16];
	int op, t, err = 0;
	double start;

	for (op = 0; op < NR_OPS; op++) {
		start = now_s();
		for (t = 0; t < threads; t++) {
			w[t] = (struct worker){ .tg = tg, .op = op, .t = t,
						.n = inodes / threads };
			pthread_create(&w[t].thread, NULL, worker_main, &w[t]);
		}
		for (t = 0; t < threads; t++) {
			pthread_join(w[t].thread, NULL);
			err = err ? err : w[t].err;
		}
		rate[op] = inodes / (now_s() - start);
	}
	return err;
}

static int aifs_dirs(struct target *tg, int threads, int round)
{
	struct aifs_entry_rep e;
	char name[32];
	int t, err = 0;

	for (t = 0; t < threads && !err; t++) {
		snprintf(name, sizeof(name), "r%dt%d", round, t);
		err = aifs_mkdir(tg->conn, &cred, AIFS_ROOT_INO, name, 0755, 0,
				 &e);
		tg->dirs[t] = le64_to_cpu(e.attr.ino);
	}
	return err;
}

static int local_dirs(struct target *tg, const char *base, int threads,
		      int round)
{
	char path[512];
	int t;

	snprintf(tg->local, sizeof(tg->local), "%s/aifs-mds-bench.%d.%d", base,
		 (int)getpid(), round);
	if (mkdir(tg->local, 0755))
		return -errno;
	for (t = 0; t < threads; t++) {
		snprintf(path, sizeof(path), "%s/t%d", tg->local, t);
		if (mkdir(path, 0755))
			return -errno;
	}
	return 0;
}

static void print_row(const char *who, int threads, const double *rate)
{
	int op;

	printf("| %s | %d |", who, threads);
	for (op = 0; op < NR_OPS; op++)
		printf(" %.0f |", rate[op]);
	printf("\n");
	fflush(stdout);
}

/* The thread counts to run: AIFS_BENCH_THREADS or 1, 4 and 16. */
static int parse_thread_counts(int counts[3])
{
	const char *list = getenv("AIFS_BENCH_THREADS");
	int n = 0, v, used;

	if (!list) {
		counts[0] = 1, counts[1] = 4, counts[2] = 16;
		return 3;
	}
	while (n < 3 && sscanf(list, "%d%n", &v, &used) == 1) {
		if (v < 1 || v > 16)
			return -1;
		counts[n++] = v;
		list += used;
	}
	return n ? n : -1;
}

int main(int argc, char **argv)
{
	int thread_counts[3];
	int nr_counts = parse_thread_counts(thread_counts);
	int inodes = argc > 1 ? atoi(argv[1]) : 10000;
	const char *defaults[] = { "/dev/shm", "/var/tmp" };
	const char **locals = argc > 2 ? (const char **)argv + 2 : defaults;
	int nr_locals = argc > 2 ? argc - 2 : 2;
	struct target tg = { .name = "aifs-mds", .phase = aifs_phase };
	struct target local = { .phase = local_phase };
	struct mds_harness h;
	double rate[NR_OPS];
	char cmd[600];
	int i, l, op;

	/* at least one name for each thread */
	if (nr_counts < 0 || inodes < 16) {
		fprintf(stderr,
			"usage: [AIFS_BENCH_THREADS=\"1 4 16\"] aifs-mds-bench [INODES [LOCAL_DIR...]]  (INODES >= 16, 1..16 threads)\n");
		return 2;
	}
	/*
	 * The tests' 1 GiB map is full before 10^6 inodes and the reply
	 * cache of the last reply_cache_seconds; the default is 64 GiB.
	 */
	if (mds_harness_init(&h, "worker_threads = 16\nmax_inflight = 256\n"
				 "map_size_mib = 65536\n") ||
	    mds_harness_start(&h) || mds_harness_connect(&h, &tg.conn)) {
		fprintf(stderr, "cannot start aifs-mds (%s)\n", h.srv.dir);
		return 1;
	}
	printf("| system | threads |");
	for (op = 0; op < NR_OPS; op++)
		printf(" %s/s |", op_names[op]);
	printf("\n|---|---|---|---|---|---|---|\n");
	for (i = 0; i < nr_counts; i++) {
		int threads = thread_counts[i];

		if (aifs_dirs(&tg, threads, i) ||
		    run_ops(&tg, threads, inodes, rate))
			fprintf(stderr, "aifs-mds: an operation failed\n");
		print_row("aifs-mds (TCP loopback, durable)", threads, rate);
		for (l = 0; l < nr_locals; l++) {
			if (local_dirs(&local, locals[l], threads, i) ||
			    run_ops(&local, threads, inodes, rate))
				fprintf(stderr, "%s: an operation failed\n",
					locals[l]);
			snprintf(cmd, sizeof(cmd), "local %s (no fsync)",
				 locals[l]);
			print_row(cmd, threads, rate);
			snprintf(cmd, sizeof(cmd), "rm -rf %s", local.local);
			if (system(cmd))
				fprintf(stderr, "cannot remove %s\n", local.local);
		}
	}
	aifs_close(tg.conn);
	mds_harness_stop(&h, SIGTERM);
	return 0;
}
