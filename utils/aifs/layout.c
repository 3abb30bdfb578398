// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * aifs getlayout and setlayout: a file's or directory's layout through the
 * mounted client's aifs.layout attribute (a struct aifs_layout; the MDS
 * checks a new one and the caller's right to set it).
 *
 *	aifs setlayout /mnt/aifs/archive ec=10+4
 *	aifs getlayout /mnt/aifs/archive
 *	ec=10+4 chunk=64K stripes=1 generation=2
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>

#include "cli.h"

/* Fragments of at most a client's write (1 MiB) per stripe, when not said. */
#define EC_STRIPE_TARGET	(1U << 20)

int cli_layout_read(const char *path, struct aifs_layout *l)
{
	ssize_t n = getxattr(path, AIFS_LAYOUT_XATTR, l, sizeof(*l));

	if (n == sizeof(*l))
		return 0;
	if (n >= 0)
		errno = EPROTO;
	fprintf(stderr, "aifs: %s: %s%s\n", path, strerror(errno),
		errno == ENOTSUP || errno == ENODATA ? " (not on aifs?)" : "");
	return -1;
}

/* "4M", "256K", "65536": bytes, or 0 when it is none of those. */
static u32 parse_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (end == s)
		return 0;
	if (*end == 'K' || *end == 'k')
		v <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		v <<= 20, end++;
	else if (*end == 'G' || *end == 'g')
		v <<= 30, end++;
	return *end || v > UINT32_MAX ? 0 : (u32)v;
}

static void print_size(u32 bytes)
{
	if (bytes && !(bytes % (1U << 30)))
		printf("%uG", bytes >> 30);
	else if (bytes && !(bytes % (1U << 20)))
		printf("%uM", bytes >> 20);
	else if (bytes && !(bytes % (1U << 10)))
		printf("%uK", bytes >> 10);
	else
		printf("%u", bytes);
}

static unsigned int layout_targets(const struct aifs_layout *l)
{
	unsigned int n = le16_to_cpu(l->target_count);

	return n > AIFS_LAYOUT_MAX_TARGETS ? AIFS_LAYOUT_MAX_TARGETS : n;
}

static int json_layout(const char *path, const struct aifs_layout *l)
{
	struct json_object *o = json_object_new_object(), *t;
	unsigned int i, n = layout_targets(l);
	bool ec = l->type == AIFS_LAYOUT_EC;

	json_object_object_add(o, "path", json_object_new_string(path));
	json_object_object_add(o, "type",
			       json_object_new_string(ec ? "ec" : "replicas"));
	json_object_object_add(o, "replicas", ec ? NULL :
			       json_object_new_int(l->replicas));
	json_object_object_add(o, "ec_k", ec ? json_object_new_int(l->ec_k) :
					       NULL);
	json_object_object_add(o, "ec_m", ec ? json_object_new_int(l->ec_m) :
					       NULL);
	json_object_object_add(o, "chunk_size", json_object_new_int64(
		le32_to_cpu(l->chunk_size)));
	json_object_object_add(o, "stripes", json_object_new_int(
		le16_to_cpu(l->stripe_count)));
	json_object_object_add(o, "generation", json_object_new_int64(
		le32_to_cpu(l->generation)));
	t = json_object_new_array();
	for (i = 0; i < n; i++)
		json_object_array_add(t, json_object_new_int64(
			le32_to_cpu(l->targets[i])));
	json_object_object_add(o, "targets", t);
	return cli_json_put(o);
}

/* getlayout PATH */
int cmd_getlayout(struct aifs_cli *cli, int argc, char **argv)
{
	struct aifs_layout l;
	unsigned int i, n;

	if (argc != 2) {
		cli_usage(stderr);
		return 2;
	}
	if (cli_layout_read(argv[1], &l))
		return 1;
	if (cli->json)
		return json_layout(argv[1], &l);
	if (l.type == AIFS_LAYOUT_EC)
		printf("ec=%u+%u", l.ec_k, l.ec_m);
	else
		printf("replicas=%u", l.replicas);
	printf(" chunk=");
	print_size(le32_to_cpu(l.chunk_size));
	printf(" stripes=%u generation=%u\n", le16_to_cpu(l.stripe_count),
	       le32_to_cpu(l.generation));
	n = layout_targets(&l);
	printf("targets:");
	for (i = 0; i < n; i++)
		printf(" %u", le32_to_cpu(l.targets[i]));
	printf("%s\n", n ? "" : " (chosen at the first write)");
	return 0;
}

/* The largest power of two chunk that keeps a stripe within a write. */
static u32 ec_default_chunk(unsigned int k)
{
	u32 chunk = AIFS_CHUNK_SIZE_MIN;

	while (chunk * 2 * k <= EC_STRIPE_TARGET)
		chunk *= 2;
	return chunk;
}

/* One KEY=VALUE of setlayout into @l; -1 on what it cannot take. */
int cli_layout_arg(struct aifs_layout *l, const char *arg, bool *chunk_set)
{
	unsigned int k, m, n;
	char end;

	if (sscanf(arg, "ec=%u+%u%c", &k, &m, &end) == 2) {
		l->type = AIFS_LAYOUT_EC;
		l->replicas = 0;
		l->ec_k = k > 255 ? 0 : k;
		l->ec_m = m > 255 ? 0 : m;
		return 0;
	}
	if (sscanf(arg, "replicas=%u%c", &n, &end) == 1) {
		l->type = AIFS_LAYOUT_REPLICA;
		l->replicas = n > 255 ? 0 : n;
		l->ec_k = l->ec_m = 0;
		return 0;
	}
	if (sscanf(arg, "stripes=%u%c", &n, &end) == 1) {
		l->stripe_count = cpu_to_le16(n > 65535 ? 0 : n);
		return 0;
	}
	if (!strncmp(arg, "chunk=", 6)) {
		l->chunk_size = cpu_to_le32(parse_size(arg + 6));
		*chunk_set = true;
		return 0;
	}
	fprintf(stderr, "aifs: '%s' is none of ec=K+M, replicas=N, chunk=SIZE, stripes=N\n",
		arg);
	return -1;
}

/*
 * setlayout PATH SETTING...: the layout in force with SETTINGs changed;
 * the MDS picks the servers.  A change to EC without chunk= or stripes=
 * takes fragments of ec_default_chunk() and one stripe group.
 */
int cmd_setlayout(struct aifs_cli *cli, int argc, char **argv)
{
	bool was_ec, chunk_set = false;
	struct aifs_layout l;
	int i;

	(void)cli;
	if (argc < 3) {
		cli_usage(stderr);
		return 2;
	}
	if (cli_layout_read(argv[1], &l))
		return 1;
	was_ec = l.type == AIFS_LAYOUT_EC;
	for (i = 2; i < argc; i++)
		if (cli_layout_arg(&l, argv[i], &chunk_set))
			return 2;
	if (l.type == AIFS_LAYOUT_EC && !was_ec) {
		if (!chunk_set && l.ec_k)
			l.chunk_size = cpu_to_le32(ec_default_chunk(l.ec_k));
		for (i = 2; i < argc; i++)
			if (!strncmp(argv[i], "stripes=", 8))
				break;
		if (i == argc)
			l.stripe_count = cpu_to_le16(1);
	}
	l.target_count = 0;
	memset(l.targets, 0, sizeof(l.targets));
	if (setxattr(argv[1], AIFS_LAYOUT_XATTR, &l, sizeof(l), 0)) {
		fprintf(stderr, "aifs: setlayout %s: %s%s\n", argv[1],
			strerror(errno),
			errno == ENOTEMPTY ? " (a file's layout is set while it is empty)" :
			errno == EINVAL ? " (no such layout: see aifs -h)" :
			errno == ENOSPC ? " (fewer data servers up than the layout needs)" : "");
		return 1;
	}
	return cmd_getlayout(cli, 2, argv);
}
