// SPDX-License-Identifier: GPL-2.0
/*
 * mount.aifs: the mount(8) helper of aifs.
 *
 *   mount.aifs SOURCE DIR [-fnsv] [-o OPTIONS]
 *   SOURCE = host[:port][,host[:port]...]:/[path]
 *
 * The kernel takes numeric addresses only, and a secret as a mount option.
 * This helper resolves host names (every address of a name becomes an
 * addr= option, a server the kernel may try, in order, while the source
 * stays as written, so that /proc/mounts matches fstab), reads the
 * cluster's secret from a file (/etc/aifs/secret, or secretfile=PATH) so
 * that fstab lines need not hold it, drops the options that only mount(8)
 * and systemd read (_netdev, nofail, x-*...), and mounts through the new
 * mount API so that the kernel's own error message reaches the user
 * instead of "wrong fs type".
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/mount.h>

#include "aifs/libaifs.h"

/* mount(8)'s exit codes */
#define EX_USAGE	1
#define EX_SYSERR	2
#define EX_FAIL		32

/* As the kernel's limit on the servers of one source (kmod/internal.h). */
#define MAX_SERVERS	8

static bool verbose;

static void __attribute__((format(printf, 1, 2))) say(const char *fmt, ...)
{
	va_list ap;

	fputs("mount.aifs: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* The numeric addresses of the source's servers, for addr= options. */
struct servers {
	char addr[MAX_SERVERS][INET6_ADDRSTRLEN + sizeof("[]:65535")];
	unsigned int count;
};

/*
 * Split "host[:port]" or "[v6]:port" into host and port (NULL when none).
 * Modifies @spec.
 */
static int split_host(char *spec, char **host, char **port)
{
	char *colon;

	if (spec[0] == '[') {
		char *close = strchr(spec, ']');

		if (!close || (close[1] && close[1] != ':'))
			return -1;
		*close = '\0';
		*host = spec + 1;
		*port = close[1] == ':' ? close + 2 : NULL;
		return 0;
	}
	colon = strchr(spec, ':');
	if (colon)
		*colon = '\0';
	*host = spec;
	*port = colon ? colon + 1 : NULL;
	return **host ? 0 : -1;
}

/* Add every address @host resolves to, each with @port if given. */
static int resolve_host(struct servers *servers, const char *host,
			const char *port)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
	};
	struct addrinfo *list, *ai;
	char addr[INET6_ADDRSTRLEN];
	int err, ret = 0;

	err = getaddrinfo(host, NULL, &hints, &list);
	if (err) {
		say("cannot resolve '%s': %s", host, gai_strerror(err));
		return -1;
	}
	for (ai = list; ai && !ret; ai = ai->ai_next) {
		bool v6 = ai->ai_family == AF_INET6;
		const void *in = v6 ?
			(const void *)&((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr :
			(const void *)&((struct sockaddr_in *)ai->ai_addr)->sin_addr;

		if (ai->ai_family != AF_INET && !v6)
			continue;
		if (servers->count == MAX_SERVERS) {
			say("more than %d server addresses in the source",
			    MAX_SERVERS);
			ret = -1;
			break;
		}
		inet_ntop(ai->ai_family, in, addr, sizeof(addr));
		snprintf(servers->addr[servers->count++],
			 sizeof(servers->addr[0]), "%s%s%s%s%s",
			 v6 ? "[" : "", addr, v6 ? "]" : "",
			 port ? ":" : "", port ? port : "");
	}
	freeaddrinfo(list);
	return ret;
}

/* Where the path begins: the first ":/" outside brackets, as the kernel. */
static char *find_path(char *source)
{
	bool in_brackets = false;
	char *s;

	for (s = source; *s; s++) {
		if (*s == '[')
			in_brackets = true;
		else if (*s == ']')
			in_brackets = false;
		else if (!in_brackets && s[0] == ':' && s[1] == '/')
			return s;
	}
	return NULL;
}

static int resolve_source(const char *given, struct servers *servers)
{
	char *copy, *path, *spec, *next, *host, *port;
	int ret = -1;

	copy = strdup(given);
	if (!copy)
		return -1;
	path = find_path(copy);
	if (!path || path == copy) {
		say("source must be host[:port][,host[:port]...]:/[path], not '%s'",
		    given);
		goto out;
	}
	*path = '\0';
	for (spec = copy; spec; spec = next) {
		next = strchr(spec, ',');
		if (next)
			*next++ = '\0';
		if (split_host(spec, &host, &port)) {
			say("bad server '%s' in the source", spec);
			goto out;
		}
		if (resolve_host(servers, host, port))
			goto out;
	}
	ret = 0;
out:
	free(copy);
	return ret;
}

/* Options that only mount(8), systemd or this helper read. */
static bool userspace_option(const char *opt)
{
	static const char *const names[] = {
		"_netdev", "nofail", "noauto", "auto", "defaults", "user",
		"nouser", "users", "owner", "group", "rw", "loud", "silent",
	};
	size_t i;

	if (!strncmp(opt, "x-", 2) || !strncmp(opt, "comment=", 8))
		return true;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(opt, names[i]))
			return true;
	return false;
}

/*
 * Per-mount flags, which the new API sets on the mount, not the sb.  The
 * atime policies are one field (MOUNT_ATTR__ATIME): a new one replaces the
 * old; the others are bits that an option sets or clears.
 */
static const struct {
	const char *name;
	unsigned int attr;
	enum { ATTR_SET, ATTR_CLEAR, ATTR_ATIME } how;
} mount_attrs[] = {
	{ "nosuid", MOUNT_ATTR_NOSUID, ATTR_SET },
	{ "suid", MOUNT_ATTR_NOSUID, ATTR_CLEAR },
	{ "nodev", MOUNT_ATTR_NODEV, ATTR_SET },
	{ "dev", MOUNT_ATTR_NODEV, ATTR_CLEAR },
	{ "noexec", MOUNT_ATTR_NOEXEC, ATTR_SET },
	{ "exec", MOUNT_ATTR_NOEXEC, ATTR_CLEAR },
	{ "nodiratime", MOUNT_ATTR_NODIRATIME, ATTR_SET },
	{ "diratime", MOUNT_ATTR_NODIRATIME, ATTR_CLEAR },
	{ "noatime", MOUNT_ATTR_NOATIME, ATTR_ATIME },
	{ "relatime", MOUNT_ATTR_RELATIME, ATTR_ATIME },
	{ "strictatime", MOUNT_ATTR_STRICTATIME, ATTR_ATIME },
	{ "atime", MOUNT_ATTR_RELATIME, ATTR_ATIME },	/* the default */
};

static bool mount_attr_option(const char *opt, unsigned int *attrs)
{
	size_t i;

	for (i = 0; i < sizeof(mount_attrs) / sizeof(mount_attrs[0]); i++) {
		if (strcmp(opt, mount_attrs[i].name))
			continue;
		switch (mount_attrs[i].how) {
		case ATTR_ATIME:
			*attrs &= ~MOUNT_ATTR__ATIME;
			/* fall through */
		case ATTR_SET:
			*attrs |= mount_attrs[i].attr;
			break;
		case ATTR_CLEAR:
			*attrs &= ~mount_attrs[i].attr;
			break;
		}
		return true;
	}
	return false;
}

/* What the options say, once sorted into their destinations. */
struct request {
	char *fs_options;	/* comma list for the kernel, no secret */
	const char *secret_file;
	bool secret_given;
	bool remount;
	unsigned int attrs;
};

static int sort_options(char *options, struct request *req)
{
	size_t cap = strlen(options) + 1, used = 0;
	char *opt, *save = NULL;

	req->fs_options = calloc(1, cap);
	if (!req->fs_options)
		return -1;
	for (opt = strtok_r(options, ",", &save); opt;
	     opt = strtok_r(NULL, ",", &save)) {
		if (!strncmp(opt, "secretfile=", 11)) {
			req->secret_file = opt + 11;
			continue;
		}
		if (!strcmp(opt, "remount")) {
			req->remount = true;
			continue;
		}
		if (userspace_option(opt) || mount_attr_option(opt, &req->attrs))
			continue;
		if (!strncmp(opt, "secret=", 7))
			req->secret_given = true;
		used += snprintf(req->fs_options + used, cap - used, "%s%s",
				 used ? "," : "", opt);
	}
	return 0;
}

/* Print what the kernel logged on the fs_context (lines "e aifs: ..."). */
static void print_kernel_messages(int fsfd)
{
	char line[1024];
	ssize_t n;

	while ((n = read(fsfd, line, sizeof(line) - 1)) > 0) {
		line[n] = '\0';
		if (n > 2 && line[1] == ' ')
			fprintf(stderr, "mount.aifs: %s\n", line + 2);
		else
			fprintf(stderr, "mount.aifs: %s\n", line);
	}
}

/* Hand every option to the fs_context: key=value as string, else flag. */
static int configure(int fsfd, const char *source,
		     const struct servers *servers, char *fs_options,
		     const struct aifs_secret *secret)
{
	char *opt, *save = NULL, *eq;
	unsigned int i;
	int ret;

	if (fsconfig(fsfd, FSCONFIG_SET_STRING, "source", source, 0))
		return -1;
	for (i = 0; i < servers->count; i++)
		if (fsconfig(fsfd, FSCONFIG_SET_STRING, "addr",
			     servers->addr[i], 0))
			return -1;
	for (opt = strtok_r(fs_options, ",", &save); opt;
	     opt = strtok_r(NULL, ",", &save)) {
		eq = strchr(opt, '=');
		if (eq) {
			*eq = '\0';
			ret = fsconfig(fsfd, FSCONFIG_SET_STRING, opt, eq + 1, 0);
			*eq = '=';
		} else {
			ret = fsconfig(fsfd, FSCONFIG_SET_FLAG, opt, NULL, 0);
		}
		if (ret)
			return -1;
	}
	if (secret &&
	    fsconfig(fsfd, FSCONFIG_SET_STRING, "secret",
		     (const char *)secret->key, 0))
		return -1;
	return fsconfig(fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0);
}

static int do_mount(const char *source, const struct servers *servers,
		    const char *dir, struct request *req,
		    const struct aifs_secret *secret)
{
	int fsfd, mntfd, ret = EX_FAIL;

	fsfd = fsopen("aifs", FSOPEN_CLOEXEC);
	if (fsfd < 0) {
		say("file system type aifs unknown (%s): is aifs.ko loaded?",
		    strerror(errno));
		return EX_FAIL;
	}
	if (configure(fsfd, source, servers, req->fs_options, secret)) {
		int err = errno;

		print_kernel_messages(fsfd);
		say("mounting %s on %s failed: %s", source, dir, strerror(err));
		goto out;
	}
	mntfd = fsmount(fsfd, FSMOUNT_CLOEXEC, req->attrs);
	if (mntfd < 0) {
		say("fsmount: %s", strerror(errno));
		goto out;
	}
	if (move_mount(mntfd, "", AT_FDCWD, dir, MOVE_MOUNT_F_EMPTY_PATH))
		say("cannot mount on %s: %s", dir, strerror(errno));
	else
		ret = 0;
	close(mntfd);
out:
	close(fsfd);
	return ret;
}

/*
 * A remount changes tunables of a mounted aifs; the source and the secret
 * stay as mounted, so neither is resolved nor read again.
 */
static int do_remount(const char *dir, struct request *req)
{
	if (mount(NULL, dir, NULL, MS_REMOUNT, req->fs_options)) {
		say("remounting %s failed: %s (see dmesg)", dir,
		    strerror(errno));
		return EX_FAIL;
	}
	return 0;
}

/* The secret as a string for fsconfig: it may not hold a NUL byte. */
static int load_secret(const char *path, struct aifs_secret *secret)
{
	char why[512];
	int err;

	err = aifs_secret_load(secret, path, why, sizeof(why));
	if (err) {
		say("%s", why);
		return -1;
	}
	if (memchr(secret->key, '\0', secret->len)) {
		say("the secret in %s holds a NUL byte; use text, e.g. base64",
		    path);
		aifs_secret_wipe(secret);
		return -1;
	}
	if (secret->len < sizeof(secret->key))
		secret->key[secret->len] = '\0';
	return 0;
}

static void print_servers(const char *source, const char *dir,
			  const struct servers *servers)
{
	unsigned int i;

	fprintf(stderr, "mount.aifs: %s on %s, servers", source, dir);
	for (i = 0; i < servers->count; i++)
		fprintf(stderr, " %s", servers->addr[i]);
	fputc('\n', stderr);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: mount.aifs host[:port][,host[:port]...]:/[path] DIR [-fnsv] [-o OPTIONS]\n"
		"  -o secretfile=PATH  read the secret from PATH (default %s)\n"
		"  -f  resolve and check everything, but do not mount\n"
		"  -v  say what is mounted\n"
		"See Documentation/mount-options.md for the options.\n",
		AIFS_SECRET_PATH);
}

int main(int argc, char **argv)
{
	struct request req = { .secret_file = AIFS_SECRET_PATH };
	struct servers servers = { .count = 0 };
	struct aifs_secret secret;
	char *options = NULL;
	bool fake = false;
	int opt, ret;

	while ((opt = getopt(argc, argv, "fnsvo:t:h")) != -1) {
		switch (opt) {
		case 'f':
			fake = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'o':
			options = optarg;
			break;
		case 'n':	/* no mtab to write: /proc/mounts is it */
		case 's':	/* sloppy: every option is known or passed on */
		case 't':
			break;
		default:
			usage();
			return EX_USAGE;
		}
	}
	if (argc - optind != 2) {
		usage();
		return EX_USAGE;
	}
	if (sort_options(options ? options : (char[]){ "" }, &req))
		return EX_SYSERR;
	if (req.remount) {
		ret = fake ? 0 : do_remount(argv[optind + 1], &req);
		goto out;
	}
	ret = EX_FAIL;
	if (resolve_source(argv[optind], &servers))
		goto out;
	if (!req.secret_given && load_secret(req.secret_file, &secret))
		goto out;
	if (verbose)
		print_servers(argv[optind], argv[optind + 1], &servers);
	ret = fake ? 0 : do_mount(argv[optind], &servers, argv[optind + 1],
				  &req, req.secret_given ? NULL : &secret);
	if (!req.secret_given)
		aifs_secret_wipe(&secret);
out:
	free(req.fs_options);
	return ret;
}
