// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * aifs archive: replicated files (a directory: every file under it)
 * converted to an EC layout by the servers, the data never passing
 * through this machine (Documentation/erasure-coding.md, "Archive").
 * Each file is handed to the MDS through the mounted client's
 * aifs.archive attribute; then the command waits until every file has
 * its new layout, unless told not to.  An archive interrupted (an MDS
 * stop, a server lost) goes on by itself: running the command again only
 * waits for it.
 *
 *	aifs archive ec=10+4 /mnt/aifs/checkpoints/step-100000
 */
#include <errno.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "cli.h"

#define ARCHIVE_POLL_MS		200
#define ARCHIVE_FDS		32	/* nftw's open directories */

/* One run of the command: what it asks, what it waits for. */
struct archive_run {
	struct aifs_layout want;
	char **pending;		/* files handed over, not yet EC */
	size_t nr, room;
	int failed;
};

/* nftw() takes no argument for its callback. */
static struct archive_run *archive_run;

static int archive_wait_for(struct archive_run *r, const char *path)
{
	char **grown;

	if (r->nr == r->room) {
		grown = realloc(r->pending, (r->room * 2 + 16) * sizeof(*grown));
		if (!grown)
			return -1;
		r->pending = grown;
		r->room = r->room * 2 + 16;
	}
	r->pending[r->nr] = strdup(path);
	if (!r->pending[r->nr])
		return -1;
	r->nr++;
	return 0;
}

/* Hand one file to the MDS; a failure is counted, and the rest go on. */
static void archive_file(struct archive_run *r, const char *path)
{
	struct aifs_layout l, want = r->want;

	if (cli_layout_read(path, &l)) {
		r->failed++;
		return;
	}
	if (l.type == AIFS_LAYOUT_EC) {
		printf("%s: ec=%u+%u already\n", path, l.ec_k, l.ec_m);
		return;
	}
	want.chunk_size = l.chunk_size;	/* an archive keeps it */
	if (setxattr(path, AIFS_ARCHIVE_XATTR, &want, sizeof(want), 0)) {
		fprintf(stderr, "aifs: archive %s: %s%s\n", path,
			strerror(errno),
			errno == EBUSY ? " (open for writing somewhere)" :
			errno == EINVAL ? " (no such EC layout: see aifs -h)" :
			errno == ENOSPC ? " (fewer data servers up than the layout needs)" : "");
		r->failed++;
		return;
	}
	if (archive_wait_for(r, path)) {
		perror("aifs: archive");
		r->failed++;
	}
}

static int archive_visit(const char *path, const struct stat *st, int type,
			 struct FTW *ftw)
{
	(void)ftw;
	if (type == FTW_F && S_ISREG(st->st_mode))
		archive_file(archive_run, path);
	else if (type == FTW_DNR || type == FTW_NS) {
		fprintf(stderr, "aifs: archive %s: cannot read it\n", path);
		archive_run->failed++;
	}
	return 0;
}

/* Until each file handed over has its EC layout. */
static void archive_wait(struct archive_run *r)
{
	struct aifs_layout l;
	size_t i;

	while (r->nr) {
		for (i = 0; i < r->nr;) {
			if (cli_layout_read(r->pending[i], &l)) {
				r->failed++;
			} else if (l.type != AIFS_LAYOUT_EC) {
				i++;
				continue;
			} else {
				printf("%s: archived, ec=%u+%u generation %u\n",
				       r->pending[i], l.ec_k, l.ec_m,
				       le32_to_cpu(l.generation));
			}
			free(r->pending[i]);
			r->pending[i] = r->pending[--r->nr];
		}
		if (r->nr)
			usleep(ARCHIVE_POLL_MS * 1000);
	}
}

/* archive [--no-wait] ec=K+M [stripes=N] PATH... */
int cmd_archive(struct aifs_cli *cli, int argc, char **argv)
{
	struct archive_run r = { .want.type = AIFS_LAYOUT_REPLICA };
	bool wait = true, chunk_set;
	int i = 1;

	(void)cli;
	if (i < argc && !strcmp(argv[i], "--no-wait")) {
		wait = false;
		i++;
	}
	r.want.stripe_count = cpu_to_le16(1);
	for (; i < argc && strchr(argv[i], '=') && argv[i][0] != '/'; i++)
		if (cli_layout_arg(&r.want, argv[i], &chunk_set))
			return 2;
	if (r.want.type != AIFS_LAYOUT_EC || i == argc) {
		cli_usage(stderr);
		return 2;
	}
	archive_run = &r;
	for (; i < argc; i++)
		if (nftw(argv[i], archive_visit, ARCHIVE_FDS, FTW_PHYS)) {
			fprintf(stderr, "aifs: archive %s: %s\n", argv[i],
				strerror(errno));
			r.failed++;
		}
	if (wait)
		archive_wait(&r);
	for (i = 0; i < (int)r.nr; i++)
		free(r.pending[i]);
	free(r.pending);
	return r.failed ? 1 : 0;
}
