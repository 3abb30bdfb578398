// SPDX-License-Identifier: GPL-2.0
/*
 * aifs-try-mount: call mount(2) for an aifs mount and print the outcome as
 * "ok" or the errno's name (EINVAL, ...), so that tests can check the exact
 * error the module returns, which mount(8) hides behind its own messages.
 *
 * Usage: aifs-try-mount [-r] [-m] [-t TYPE] [-o OPTIONS] SOURCE TARGET
 *   -r  remount (MS_REMOUNT) an existing mount at TARGET
 *   -m  then a space and the milliseconds mount(2) itself took, by the
 *       monotonic clock: a test's time bound without the program's start
 * An empty SOURCE passes no source at all (NULL), as mount(2) allows.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>

static void usage(void)
{
	fprintf(stderr,
		"usage: aifs-try-mount [-r] [-m] [-t TYPE] [-o OPTIONS] SOURCE TARGET\n");
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	const char *type = "aifs", *options = NULL, *source;
	unsigned long flags = 0;
	int opt, err, timed = 0;
	long long start;

	while ((opt = getopt(argc, argv, "rmt:o:")) != -1) {
		switch (opt) {
		case 'r':
			flags |= MS_REMOUNT;
			break;
		case 'm':
			timed = 1;
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
	start = now_ms();
	err = mount(source, argv[optind + 1], type, flags, options) ? errno : 0;
	if (err) {
		const char *name = strerrorname_np(err);

		printf("%s", name ? name : "unknown-errno");
	} else {
		printf("ok");
	}
	if (timed)
		printf(" %lld", now_ms() - start);
	printf("\n");
	return !!err;
}
