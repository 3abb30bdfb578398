// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * aifs-mdtest - metadata rates of a mounted file system with parallel
 * clients, in the manner of mdtest: the benchmark suite's own tool, plain
 * POSIX, for aifs, NFS or tmpfs alike.
 *
 *   aifs-mdtest [-n CLIENTS] [-f FILES_PER_CLIENT] [-s BYTES]
 *               [-p PHASES] [-d] [-t SECONDS] DIR
 *
 * CLIENTS processes each work in DIR/c<i>/ on files f0, f1, ...: the names
 * and contents are fixed, so a run can read what an earlier run created.
 * PHASES (a comma list of create, stat, read, unlink; run in that order)
 * are each timed from releasing every client at once until the last
 * reports.  -d drops the page cache before each phase after create (root
 * only); -t bounds each phase: clients start no new file once it passed,
 * and later phases touch only the files that exist.
 *
 * The result is one JSON object on stdout (MB are 10^6 bytes); progress
 * goes to stderr.  Exit 0 on success, 1 when a system call fails or a read
 * finds other data, 2 on a usage error.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "tool.h"

#define PROG		"aifs-mdtest"

enum phase { PHASE_CREATE, PHASE_STAT, PHASE_READ, PHASE_UNLINK, PHASE_NR };

static const char *const phase_name[PHASE_NR] = {
	"create", "stat", "read", "unlink"
};

#define DEFAULT_PHASES	(1U << PHASE_CREATE | 1U << PHASE_STAT | \
			 1U << PHASE_UNLINK)

/* What the parent tells every client to start a phase. */
struct go_msg {
	uint64_t deadline_ns;	/* CLOCK_MONOTONIC; 0: no limit */
};

/* What a client tells the parent when its phase is done. */
struct done_msg {
	uint64_t files;
};

/*
 * The parent releases all clients into a phase with one write of a go_msg
 * each to the phase's pipe: a write of up to PIPE_BUF bytes is atomic, so
 * every client finds its message at the same moment.  A pipe per phase,
 * as a client done early must not take a message of a slower one.
 */
#define MAX_CLIENTS	(PIPE_BUF / sizeof(struct go_msg))

struct options {
	unsigned int clients;
	unsigned long files;
	size_t bytes;
	unsigned int phases;	/* bit per enum phase */
	bool drop_caches;
	double limit_s;		/* 0: no limit */
	const char *dir;
};

/* One client, in its own process: its files and buffers. */
struct client {
	const struct options *opts;
	unsigned int index;
	unsigned long count;	/* files that exist (or will, for create) */
	unsigned long file;	/* the file at hand, named by path */
	unsigned char *pattern;	/* see file_data() */
	unsigned char *found;	/* what read found, one byte longer */
	char path[PATH_MAX];
};

struct phase_result {
	uint64_t files;
	uint64_t expected;
	double seconds;
};

/* The parent's view of the running clients. */
struct clients {
	unsigned int nr;
	pid_t *pids;
	int *done_fds;		/* read ends, one per client */
	unsigned long *counts;	/* files each client has */
	int go_fds[PHASE_NR];	/* write ends of the phases' go pipes */
};

static void print_usage(void)
{
	fprintf(stderr,
		"usage: " PROG " [-n CLIENTS] [-f FILES_PER_CLIENT] [-s BYTES]\n"
		"         [-p create,stat,read,unlink] [-d] [-t SECONDS] DIR\n");
	exit(2);
}

static unsigned int parse_phases(const char *arg)
{
	char *list = strdup(arg), *save = NULL, *name;
	unsigned int phases = 0, p;

	if (!list) {
		perror(PROG);
		exit(1);
	}
	for (name = strtok_r(list, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		for (p = 0; p < PHASE_NR; p++)
			if (!strcmp(name, phase_name[p]))
				break;
		if (p == PHASE_NR) {
			fprintf(stderr, PROG ": unknown phase '%s'\n", name);
			exit(2);
		}
		phases |= 1U << p;
	}
	free(list);
	if (!phases)
		print_usage();
	return phases;
}

static void parse_options(struct options *o, int argc, char **argv)
{
	int opt;

	*o = (struct options){ .clients = 1, .files = 1000,
			       .phases = DEFAULT_PHASES };
	while ((opt = getopt(argc, argv, "n:f:s:p:dt:")) != -1) {
		switch (opt) {
		case 'n':
			o->clients = tool_parse_count(optarg, "-n", 0, MAX_CLIENTS);
			break;
		case 'f':
			o->files = tool_parse_count(optarg, "-f", 0, UINT32_MAX);
			break;
		case 's':
			o->bytes = tool_parse_count(optarg, "-s", 0, 1UL << 30);
			break;
		case 'p':
			o->phases = parse_phases(optarg);
			break;
		case 'd':
			o->drop_caches = true;
			break;
		case 't':
			o->limit_s = tool_parse_real(optarg, "-t", 1e-3, 1e9);
			break;
		default:
			print_usage();
		}
	}
	if (argc - optind != 1 || !o->clients)
		print_usage();
	o->dir = argv[optind];
}

/* ---- a client ---- */

/*
 * A file's bytes are the client's pseudo-random stream from a word that
 * depends on the file: neighbours differ, and writing or checking a file
 * costs a write or a memcmp, not a fresh stream per file.  Its first
 * bytes are its stamp, so that files whose streams start alike (every
 * PATTERN_WORDS) differ too.
 */
#define PATTERN_WORDS	512

static const unsigned char *file_data(const struct client *c)
{
	return c->pattern + c->file % PATTERN_WORDS * sizeof(uint64_t);
}

static uint64_t file_stamp(const struct client *c)
{
	return htole64((uint64_t)c->index << 32 | c->file);
}

static size_t stamp_len(size_t len)
{
	return len < sizeof(uint64_t) ? len : sizeof(uint64_t);
}

/* The client's stream: splitmix64 seeded by its index. */
static unsigned char *make_pattern(unsigned int client, size_t len)
{
	unsigned char *buf = malloc(len);
	uint64_t state = client, z;
	size_t off;

	for (off = 0; buf && off < len; off += sizeof(z)) {
		state += 0x9e3779b97f4a7c15ULL;
		z = state;
		z = (z ^ z >> 30) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ z >> 27) * 0x94d049bb133111ebULL;
		z ^= z >> 31;
		memcpy(buf + off, &z, len - off < sizeof(z) ? len - off :
		       sizeof(z));
	}
	return buf;
}

static int client_error(struct client *c, const char *what)
{
	fprintf(stderr, PROG ": client %u: %s %s: %s\n", c->index, what,
		c->path, strerror(errno));
	return -1;
}

static int write_all(int fd, const unsigned char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		buf += n;
		len -= n;
	}
	return 0;
}

/* Reads until EOF or @len bytes; returns the bytes read or -1. */
static ssize_t read_full(int fd, unsigned char *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = read(fd, buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (!n)
			break;
		got += n;
	}
	return got;
}

/* The stamp and the data in one write(2) as a writer of one buffer. */
static int write_file(int fd, const struct client *c, size_t len)
{
	uint64_t stamp = file_stamp(c);
	size_t head = stamp_len(len);
	struct iovec iov[2] = {
		{ .iov_base = &stamp, .iov_len = head },
		{ .iov_base = (void *)(file_data(c) + head),
		  .iov_len = len - head },
	};
	ssize_t n;

	do {
		n = writev(fd, iov, 2);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	if ((size_t)n < head) {
		if (write_all(fd, (unsigned char *)&stamp + n, head - n))
			return -1;
		n = head;
	}
	return write_all(fd, file_data(c) + n, len - n);
}

static int create_file(struct client *c)
{
	size_t len = c->opts->bytes;
	int fd;

	fd = open(c->path, O_CREAT | O_EXCL | O_WRONLY, 0644);
	if (fd < 0)
		return client_error(c, "create");
	if (write_file(fd, c, len)) {
		client_error(c, "write");
		close(fd);
		return -1;
	}
	/* NFS reports write-back errors at close */
	if (close(fd))
		return client_error(c, "close");
	return 0;
}

static int stat_file(struct client *c)
{
	struct stat st;

	if (stat(c->path, &st))
		return client_error(c, "stat");
	return 0;
}

/* The whole file, one byte more to see a file that grew. */
static int read_file(struct client *c)
{
	size_t len = c->opts->bytes, head;
	uint64_t stamp;
	ssize_t got;
	int fd;

	fd = open(c->path, O_RDONLY);
	if (fd < 0)
		return client_error(c, "open");
	got = read_full(fd, c->found, len + 1);
	if (got < 0) {
		client_error(c, "read");
		close(fd);
		return -1;
	}
	close(fd);
	if ((size_t)got != len) {
		fprintf(stderr, PROG ": client %u: %s: %s%zu bytes, not %zu\n",
			c->index, c->path, (size_t)got > len ? "more than " : "",
			(size_t)got > len ? len : (size_t)got, len);
		return -1;
	}
	stamp = file_stamp(c);
	head = stamp_len(len);
	if (memcmp(c->found, &stamp, head) ||
	    memcmp(c->found + head, file_data(c) + head, len - head)) {
		fprintf(stderr, PROG ": client %u: %s: not the data written\n",
			c->index, c->path);
		return -1;
	}
	return 0;
}

static int unlink_file(struct client *c)
{
	if (unlink(c->path))
		return client_error(c, "unlink");
	return 0;
}

static int (*const phase_op[PHASE_NR])(struct client *c) = {
	create_file, stat_file, read_file, unlink_file
};

/* Returns the files done before @deadline_ns, or -1 on an error. */
static long client_phase(struct client *c, enum phase p, uint64_t deadline_ns)
{
	for (c->file = 0; c->file < c->count; c->file++) {
		if (deadline_ns && tool_now_ns() >= deadline_ns)
			break;
		snprintf(c->path, sizeof(c->path), "%s/c%u/f%lu", c->opts->dir,
			 c->index, c->file);
		if (phase_op[p](c))
			return -1;
	}
	return c->file;
}

/* A client process: each phase on the parent's word; never returns. */
static void client_main(struct client *c, const int *go_fds, int done_fd)
{
	struct done_msg done;
	struct go_msg go;
	long files;
	int p;

	c->pattern = make_pattern(c->index, c->opts->bytes +
				  PATTERN_WORDS * sizeof(uint64_t));
	c->found = malloc(c->opts->bytes + 1);
	if (!c->pattern || !c->found) {
		fprintf(stderr, PROG ": client %u: out of memory\n", c->index);
		_exit(1);
	}
	for (p = 0; p < PHASE_NR; p++) {
		if (!(c->opts->phases & 1U << p))
			continue;
		/* EOF: the parent gave up; it told why */
		if (read(go_fds[p], &go, sizeof(go)) != sizeof(go))
			_exit(1);
		files = client_phase(c, p, go.deadline_ns);
		if (files < 0)
			_exit(1);
		/* the files that exist, for the phases after a bounded create */
		if (p == PHASE_CREATE)
			c->count = files;
		done.files = files;
		if (write(done_fd, &done, sizeof(done)) != sizeof(done))
			_exit(1);
	}
	_exit(0);
}

/* ---- the parent ---- */

static int make_client_dirs(const struct options *o)
{
	char path[PATH_MAX];
	unsigned int i;

	for (i = 0; i < o->clients; i++) {
		/* room for the longest file name too */
		if (snprintf(path, sizeof(path), "%s/c%u/f%lu", o->dir, i,
			     o->files) >= (int)sizeof(path)) {
			fprintf(stderr, PROG ": %s: name too long\n", o->dir);
			return -1;
		}
		snprintf(path, sizeof(path), "%s/c%u", o->dir, i);
		/* an earlier run's directory holds the files to read */
		if (mkdir(path, 0755) && errno != EEXIST) {
			fprintf(stderr, PROG ": mkdir %s: %s\n", path,
				strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* rmdir DIR/c<i> of every client. */
static int remove_client_dirs(const struct options *o)
{
	char path[PATH_MAX];
	unsigned int i;

	for (i = 0; i < o->clients; i++) {
		snprintf(path, sizeof(path), "%s/c%u", o->dir, i);
		if (rmdir(path)) {
			fprintf(stderr, PROG ": rmdir %s: %s\n", path,
				strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* Kills the clients still running and reaps every one: no orphans. */
static void kill_clients(struct clients *cl)
{
	unsigned int i;

	for (i = 0; i < cl->nr; i++)
		kill(cl->pids[i], SIGKILL);
	for (i = 0; i < cl->nr; i++)
		waitpid(cl->pids[i], NULL, 0);
}

/* Reaps the clients after their last phase; -1 if one did not exit 0. */
static int reap_clients(struct clients *cl)
{
	unsigned int i;
	int status, ret = 0;

	for (i = 0; i < cl->nr; i++) {
		if (waitpid(cl->pids[i], &status, 0) < 0 ||
		    !WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, PROG ": client %u did not end well\n",
				i);
			ret = -1;
		}
	}
	return ret;
}

static void close_fds(int *fds, int nr)
{
	while (nr--) {
		if (fds[nr] >= 0)
			close(fds[nr]);
		fds[nr] = -1;
	}
}

/*
 * The pipes that release the clients into each phase they run; the
 * caller closes both ends, in @cl and in @go_read, even on failure.
 */
static int open_go_pipes(struct clients *cl, const struct options *o,
			 int *go_read)
{
	int p, fds[2];

	for (p = 0; p < PHASE_NR; p++) {
		go_read[p] = -1;
		cl->go_fds[p] = -1;
	}
	for (p = 0; p < PHASE_NR; p++) {
		if (!(o->phases & 1U << p))
			continue;
		if (pipe(fds)) {
			perror(PROG ": pipe");
			return -1;
		}
		go_read[p] = fds[0];
		cl->go_fds[p] = fds[1];
	}
	return 0;
}

static int fork_client(struct clients *cl, struct client *c,
		       const int *go_read)
{
	pid_t parent = getpid(), pid;
	int done[2];

	if (pipe(done))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(done[0]);
		close(done[1]);
		return -1;
	}
	if (!pid) {
		/* die with the parent, wherever it is killed */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		close_fds(cl->go_fds, PHASE_NR);
		close(done[0]);
		client_main(c, go_read, done[1]);
	}
	close(done[1]);
	cl->pids[cl->nr] = pid;
	cl->done_fds[cl->nr] = done[0];
	cl->counts[cl->nr] = c->count;
	cl->nr++;
	return 0;
}

static int start_clients(struct clients *cl, const struct options *o)
{
	struct client c = { .opts = o, .count = o->files };
	int go_read[PHASE_NR], ret = 0;

	if (open_go_pipes(cl, o, go_read)) {
		close_fds(go_read, PHASE_NR);
		return -1;
	}
	for (c.index = 0; c.index < o->clients; c.index++) {
		if (fork_client(cl, &c, go_read)) {
			perror(PROG ": starting the clients");
			ret = -1;
			break;
		}
	}
	close_fds(go_read, PHASE_NR);
	return ret;
}

/* Waits for every client's report of the phase; -1 if one failed. */
static int collect_reports(struct clients *cl, enum phase p,
			   uint64_t *files)
{
	struct pollfd *fds = calloc(cl->nr, sizeof(*fds));
	unsigned int i, left = cl->nr;
	struct done_msg done;
	int ret = -1;

	if (!fds) {
		perror(PROG);
		return -1;
	}
	for (i = 0; i < cl->nr; i++)
		fds[i] = (struct pollfd){ .fd = cl->done_fds[i],
					  .events = POLLIN };
	*files = 0;
	while (left) {
		if (poll(fds, cl->nr, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror(PROG ": poll");
			goto out;
		}
		for (i = 0; i < cl->nr; i++) {
			if (!fds[i].revents)
				continue;
			/* a client that failed told why, then exited */
			if (read(fds[i].fd, &done, sizeof(done)) !=
			    sizeof(done)) {
				fprintf(stderr, PROG ": %s: client %u failed\n",
					phase_name[p], i);
				goto out;
			}
			if (p == PHASE_CREATE)
				cl->counts[i] = done.files;
			*files += done.files;
			fds[i].fd = -1;
			left--;
		}
	}
	ret = 0;
out:
	free(fds);
	return ret;
}

static int run_phase(struct clients *cl, const struct options *o,
		     enum phase p, struct phase_result *r)
{
	uint64_t limit_ns = o->limit_s * NSEC_PER_SEC, start;
	ssize_t len = cl->nr * sizeof(struct go_msg);
	struct go_msg go[MAX_CLIENTS];
	unsigned int i;

	if (o->drop_caches && p != PHASE_CREATE && tool_drop_page_cache())
		return -1;
	r->expected = 0;
	for (i = 0; i < cl->nr; i++)
		r->expected += p == PHASE_CREATE ? o->files : cl->counts[i];
	start = tool_now_ns();
	for (i = 0; i < cl->nr; i++)
		go[i].deadline_ns = limit_ns ? start + limit_ns : 0;
	if (write(cl->go_fds[p], go, len) != len) {
		perror(PROG ": releasing the clients");
		return -1;
	}
	if (collect_reports(cl, p, &r->files))
		return -1;
	r->seconds = (tool_now_ns() - start) / 1e9;
	return 0;
}

static bool has_mb(const struct options *o, enum phase p)
{
	return o->bytes && (p == PHASE_CREATE || p == PHASE_READ);
}

static void report_phase(const struct options *o, enum phase p,
			 const struct phase_result *r)
{
	fprintf(stderr, PROG ": %s: %llu files in %.3f s, %.1f files/s",
		phase_name[p], (unsigned long long)r->files, r->seconds,
		tool_rate(r->files, r->seconds));
	if (has_mb(o, p))
		fprintf(stderr, ", %.1f MB/s",
			tool_rate(r->files * o->bytes / 1e6, r->seconds));
	fprintf(stderr, "%s\n", r->files < r->expected ?
		" (bounded by -t)" : "");
}

static void print_json(const struct options *o,
		       const struct phase_result *results)
{
	const struct phase_result *r;
	const char *sep = "";
	int p;

	printf("{\"tool\":\"" PROG "\",\"dir\":");
	tool_print_json_string(o->dir);
	printf(",\"clients\":%u,\"files_per_client\":%lu", o->clients,
	       o->files);
	printf(",\"bytes\":%zu,\"phases\":{", o->bytes);
	for (p = 0; p < PHASE_NR; p++) {
		if (!(o->phases & 1U << p))
			continue;
		r = &results[p];
		printf("%s\"%s\":{\"files\":%llu", sep, phase_name[p],
		       (unsigned long long)r->files);
		printf(",\"seconds\":%.6f,\"files_per_s\":%.1f", r->seconds,
		       tool_rate(r->files, r->seconds));
		if (has_mb(o, p))
			printf(",\"mb_per_s\":%.3f",
			       tool_rate(r->files * o->bytes / 1e6, r->seconds));
		printf(",\"bounded\":%s}",
		       r->files < r->expected ? "true" : "false");
		sep = ",";
	}
	printf("}}\n");
}

static int run_phases(struct clients *cl, const struct options *o,
		      struct phase_result *results)
{
	int p;

	for (p = 0; p < PHASE_NR; p++) {
		if (!(o->phases & 1U << p))
			continue;
		if (run_phase(cl, o, p, &results[p]))
			return -1;
		report_phase(o, p, &results[p]);
	}
	return 0;
}

/* The client directories go once their files are all gone. */
static int tidy_up(const struct options *o, const struct phase_result *unlinked)
{
	if (!(o->phases & 1U << PHASE_UNLINK))
		return 0;
	if (unlinked->files < unlinked->expected) {
		fprintf(stderr, PROG ": unlink was bounded: %s/c* stay\n",
			o->dir);
		return 0;
	}
	return remove_client_dirs(o);
}

int main(int argc, char **argv)
{
	struct phase_result results[PHASE_NR] = { 0 };
	struct clients cl = { 0 };
	struct options o;
	int ret = 1;

	parse_options(&o, argc, argv);
	/* find out now that -d cannot work, not after the create phase */
	if (o.drop_caches && tool_drop_page_cache())
		return 1;
	/* a client's death shows as EOF, not as SIGPIPE */
	signal(SIGPIPE, SIG_IGN);
	if (make_client_dirs(&o))
		return 1;
	cl.pids = calloc(o.clients, sizeof(*cl.pids));
	cl.done_fds = calloc(o.clients, sizeof(*cl.done_fds));
	cl.counts = calloc(o.clients, sizeof(*cl.counts));
	if (!cl.pids || !cl.done_fds || !cl.counts) {
		perror(PROG);
		goto out_free;
	}
	if (start_clients(&cl, &o) || run_phases(&cl, &o, results)) {
		kill_clients(&cl);
		goto out_close;
	}
	/* the clients exit after their last phase */
	if (reap_clients(&cl) || tidy_up(&o, &results[PHASE_UNLINK]))
		goto out_close;
	print_json(&o, results);
	ret = 0;
out_close:
	close_fds(cl.go_fds, PHASE_NR);
	while (cl.nr--)
		close(cl.done_fds[cl.nr]);
out_free:
	free(cl.pids);
	free(cl.done_fds);
	free(cl.counts);
	return ret;
}
