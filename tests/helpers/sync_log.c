// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * aifs-sync-log.so, an LD_PRELOAD library for the data server tests: each
 * fsync(2) and fdatasync(2) of the process that succeeded is appended to
 * the file $AIFS_SYNC_LOG as "fsync PATH" (PATH: the descriptor's, from
 * /proc/self/fd) before the call returns.  A test reads there what a
 * server had made durable by the time it answered: the directories a new
 * chunk's names are in, say, which no reply shows.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void sync_log(const char *call, int fd)
{
	const char *log = getenv("AIFS_SYNC_LOG");
	char link[64], path[PATH_MAX], line[PATH_MAX + 32];
	ssize_t n;
	int lfd, len;

	if (!log)
		return;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n < 0)
		return;
	path[n] = '\0';
	len = snprintf(line, sizeof(line), "%s %s\n", call, path);
	lfd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (lfd < 0)
		return;
	/* one write of O_APPEND: the lines of threads do not mix */
	if (write(lfd, line, len) != len)
		perror(log);
	close(lfd);
}

/* The call @name of the next library (libc), logged when it succeeded. */
static int sync_call(const char *name, int (**next)(int), int fd)
{
	int ret;

	if (!*next)
		*next = (int (*)(int))dlsym(RTLD_NEXT, name);
	ret = (*next)(fd);
	if (!ret)
		sync_log(name, fd);
	return ret;
}

int fsync(int fd)
{
	static int (*next)(int);

	return sync_call("fsync", &next, fd);
}

int fdatasync(int fd)
{
	static int (*next)(int);

	return sync_call("fdatasync", &next, fd);
}
