// SPDX-License-Identifier: GPL-2.0
/*
 * aifs-try-mount: call mount(2) for an aifs mount and print the outcome as
 * "ok" or the errno's name (EINVAL, ...), so that tests can check the exact
 * error the module returns, which mount(8) hides behind its own messages.
 *
 * Usage: aifs-try-mount [-r] [-t TYPE] [-o OPTIONS] SOURCE TARGET
 *   -r  remount (MS_REMOUNT) an existing mount at TARGET
 * An empty SOURCE passes no source at all (NULL), as mount(2) allows.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>

static void usage(void)
{
	fprintf(stderr,
		"usage: aifs-try-mount [-r] [-t TYPE] [-o OPTIONS] SOURCE TARGET\n");
}

int main(int argc, char **argv)
{
	const char *type = "aifs", *options = NULL, *source;
	unsigned long flags = 0;
	int opt;

	while ((opt = getopt(argc, argv, "rt:o:")) != -1) {
		switch (opt) {
		case 'r':
			flags |= MS_REMOUNT;
			break;
		case 't':
			type = optarg;
			break;
		case 'o':
			options = optarg;
			break;
		default:
			usage();
			return 2;
		}
	}
	if (argc - optind != 2) {
		usage();
		return 2;
	}
	source = argv[optind][0] ? argv[optind] : NULL;
	if (mount(source, argv[optind + 1], type, flags, options)) {
		const char *name = strerrorname_np(errno);

		printf("%s\n", name ? name : "unknown-errno");
		return 1;
	}
	printf("ok\n");
	return 0;
}
