// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The aifs mounts a command is about: those named (any path on one), or
 * every aifs mount of the caller's mount namespace (getmntent(3) of
 * /proc/self/mounts). A mount is known by its st_dev, which names it to
 * the module too.
 */
#include <errno.h>
#include <mntent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

static bool mounts_have(const struct cli_mount *mounts, size_t nr,
			dev_t dev)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (mounts[i].dev == dev)
			return true;
	return false;
}

static int mounts_add(struct cli_mount **mounts, size_t *nr,
		      const char *dir, dev_t dev)
{
	struct cli_mount *grown;

	if (mounts_have(*mounts, *nr, dev))
		return 0;	/* mounted twice, or named twice */
	grown = realloc(*mounts, (*nr + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	*mounts = grown;
	grown[*nr].dir = strdup(dir);
	if (!grown[*nr].dir)
		return -ENOMEM;
	grown[*nr].dev = dev;
	(*nr)++;
	return 0;
}

/* Every aifs mount; @want: only the one with that st_dev (0: all). */
static int mounts_scan(struct cli_mount **mounts, size_t *nr, dev_t want)
{
	FILE *f = setmntent("/proc/self/mounts", "r");
	struct mntent *m;
	struct stat st;
	int err = 0;

	if (!f)
		return -errno;
	while (!err && (m = getmntent(f))) {
		if (strcmp(m->mnt_type, "aifs") || stat(m->mnt_dir, &st))
			continue;
		if (!want || st.st_dev == want)
			err = mounts_add(mounts, nr, m->mnt_dir, st.st_dev);
	}
	endmntent(f);
	return err;
}

/* The aifs mount @path is on, added to @mounts: 0 or -ENODEV (said). */
static int mounts_of_path(const char *path, struct cli_mount **mounts,
			  size_t *nr)
{
	struct stat st;
	int err;

	if (stat(path, &st)) {
		err = -errno;
		fprintf(stderr, "aifs: %s: %s\n", path, strerror(-err));
		return err;
	}
	if (mounts_have(*mounts, *nr, st.st_dev))
		return 0;	/* named twice */
	err = mounts_scan(mounts, nr, st.st_dev);
	if (!err && !mounts_have(*mounts, *nr, st.st_dev)) {
		fprintf(stderr, "aifs: %s is not on an aifs mount\n", path);
		err = -ENODEV;
	}
	return err;
}

/*
 * The mounts of the @argc paths at @argv, or all when @argc is 0, into a
 * new array @mounts of @nr (freed with cli_mounts_free()): 0, -ENODEV
 * when there is none, or another negative errno.
 */
int cli_mounts(int argc, char **argv, struct cli_mount **mounts, size_t *nr)
{
	int i, err = 0;

	*mounts = NULL;
	*nr = 0;
	if (!argc)
		err = mounts_scan(mounts, nr, 0);
	for (i = 0; i < argc && !err; i++)
		err = mounts_of_path(argv[i], mounts, nr);
	if (!err && !*nr) {
		fprintf(stderr, "aifs: no aifs mount here\n");
		err = -ENODEV;
	}
	if (err) {
		cli_mounts_free(*mounts, *nr);
		*mounts = NULL;
		*nr = 0;
	}
	return err;
}

void cli_mounts_free(struct cli_mount *mounts, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		free(mounts[i].dir);
	free(mounts);
}
