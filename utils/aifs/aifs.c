// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * aifs, the administration command. One function per subcommand; each
 * talks to the servers over the wire protocol (libaifs) as role ADMIN.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

void cli_usage(FILE *out)
{
	fprintf(out,
		"usage: aifs [-s SECRET_FILE] [--json] COMMAND ARGS...\n"
		"\n"
		"  status [HOST:PORT | MOUNTPOINT]\n"
		"                        the cluster as its MDS sees it: map epoch,\n"
		"                        space, every data server (state, capacity,\n"
		"                        scrub) and what recovery is doing\n"
		"  df [MOUNTPOINT...]    size, used, available and inodes of each\n"
		"                        aifs mount (all when none is named)\n"
		"  stats [-i SECONDS] [MOUNTPOINT...]\n"
		"                        a mount's client statistics from the\n"
		"                        module: bytes, requests, latency\n"
		"                        percentiles, page cache, readahead,\n"
		"                        retries; -i: what moved over SECONDS\n"
		"  fail HOST:PORT SPEC   arm or disarm fault injection points of a\n"
		"                        server started with fault_injection = yes\n"
		"                        (SPEC: Documentation/testing-tools.md)\n"
		"  scrub HOST:PORT [start]\n"
		"                        a data server's scrub as it stands; start:\n"
		"                        begin a pass now\n"
		"  recovery HOST:PORT    what the MDS at HOST:PORT has to recover:\n"
		"                        servers catching up (SYNCING), and those\n"
		"                        OFFLINE, before or during their rebuild\n"
		"  fsck HOST:PORT [--repair | --status]\n"
		"                        check the MDS's tables against the data\n"
		"                        servers (repair what is found); exit 0\n"
		"                        clean, 1 all repaired, 4 problems left,\n"
		"                        8 the check could not be done whole\n"
		"  getlayout PATH        the layout of a file or directory on a\n"
		"                        mounted aifs\n"
		"  setlayout PATH SETTING...\n"
		"                        change it (a directory: for what is made in\n"
		"                        it; a file: while it is empty): ec=K+M,\n"
		"                        replicas=N, chunk=SIZE (e.g. 256K), stripes=N\n"
		"  archive [--no-wait] ec=K+M [stripes=N] PATH...\n"
		"                        convert replicated files (a directory: every\n"
		"                        file under it) to ec=K+M on the servers, and\n"
		"                        wait until each is done; a file must not be\n"
		"                        open for writing meanwhile\n"
		"\n"
		"  -s SECRET_FILE        the cluster secret (default %s)\n"
		"  --json                (anywhere) status, df, stats, getlayout,\n"
		"                        scrub, recovery and fsck print one JSON\n"
		"                        object instead of text\n",
		AIFS_SECRET_PATH);
}

int cli_connect(struct aifs_cli *cli, const char *server,
		struct aifs_conn **conn)
{
	char host[256], port[16], why[512];
	struct aifs_connect_opts opts = {
		.role = AIFS_ROLE_ADMIN,
		.secret = &cli->secret,
	};
	int err;

	if (aifs_parse_hostport(server, host, sizeof(host), port,
				sizeof(port))) {
		fprintf(stderr, "aifs: '%s' is not HOST:PORT\n", server);
		return -EINVAL;
	}
	opts.host = host;
	opts.port = port;
	err = aifs_secret_load(&cli->secret, cli->secret_path, why,
			       sizeof(why));
	if (err) {
		fprintf(stderr, "aifs: %s\n", why);
		return err;
	}
	err = aifs_connect(&opts, conn);
	aifs_secret_wipe(&cli->secret);
	if (err)
		fprintf(stderr, "aifs: cannot connect to %s: %s\n", server,
			strerror(-err));
	return err;
}

/*
 * One request of @len bytes at @req to @server: 0 with the reply in
 * @reply, or a negative errno; a server's status is said on stderr
 * unless @quiet (a failure to connect always is).
 */
static int cli_call_as(struct aifs_cli *cli, const char *server, u16 opcode,
		       const void *req, size_t len, struct aifs_reply *reply,
		       bool quiet)
{
	struct iovec iov = { (void *)req, len };
	struct aifs_conn *conn;
	int err;

	*reply = (struct aifs_reply){ 0 };
	err = cli_connect(cli, server, &conn);
	if (err)
		return err;
	err = aifs_call(conn, opcode, &iov, 1, reply, AIFS_CALL_TIMEOUT_MS);
	aifs_close(conn);
	if (!err && reply->status) {
		err = -(int)reply->status;
		aifs_reply_free(reply);
	}
	if (err && !quiet && err != -EOPNOTSUPP && err != -EINVAL)
		fprintf(stderr, "aifs: %s: %s\n", server, strerror(-err));
	return err;
}

int cli_call(struct aifs_cli *cli, const char *server, u16 opcode,
	     const void *req, size_t len, struct aifs_reply *reply)
{
	return cli_call_as(cli, server, opcode, req, len, reply, false);
}

int cli_call_quiet(struct aifs_cli *cli, const char *server, u16 opcode,
		   const void *req, size_t len, struct aifs_reply *reply)
{
	return cli_call_as(cli, server, opcode, req, len, reply, true);
}

u64 cli_field_value(const struct cli_field *f, const void *base)
{
	return aifs_le_field((const char *)base + f->off, f->size);
}

void cli_json_fields(struct json_object *o, const struct cli_field *f,
		     size_t n, const void *base)
{
	size_t i;

	for (i = 0; i < n; i++)
		json_object_object_add(o, f[i].name, json_object_new_uint64(
			cli_field_value(&f[i], base)));
}

const char *cli_human(double v, const char *unit, char *buf, size_t size)
{
	static const char *const prefix[] = { "", "Ki", "Mi", "Gi", "Ti", "Pi" };
	unsigned int i = 0;

	while (v >= 1024 && i < ARRAY_SIZE(prefix) - 1) {
		v /= 1024;
		i++;
	}
	snprintf(buf, size, i ? "%.1f %s%s" : "%.0f %s%s", v, prefix[i], unit);
	return buf;
}

int cli_json_put(struct json_object *obj)
{
	const char *text = json_object_to_json_string_ext(obj,
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	int ret = text ? 0 : 1;

	if (text)
		printf("%s\n", text);
	else
		fprintf(stderr, "aifs: no memory for the JSON output\n");
	json_object_put(obj);
	return ret;
}

static int cmd_fail(struct aifs_cli *cli, int argc, char **argv)
{
	struct aifs_reply reply;
	int err;

	if (argc != 3) {
		cli_usage(stderr);
		return 2;
	}
	err = cli_call(cli, argv[1], AIFS_OP_FAIL_SET, argv[2],
		       strlen(argv[2]), &reply);
	aifs_reply_free(&reply);
	if (err == -EOPNOTSUPP)
		fprintf(stderr, "aifs: %s does not run with fault_injection = yes\n",
			argv[1]);
	else if (err == -EINVAL)
		fprintf(stderr, "aifs: %s refused '%s' (its log says why)\n",
			argv[1], argv[2]);
	return err ? 1 : 0;
}

/* The kinds of problem fsck counts: JSON key, and words. */
static const struct {
	const char *key;
	const char *text;
} fsck_kinds[AIFS_FSCK_KINDS] = {
	[AIFS_FSCK_DANGLING] = { "dangling", "dangling entries" },
	[AIFS_FSCK_DIRSEQ] = { "dirseq", "readdir sequence entries" },
	[AIFS_FSCK_LINKS] = { "links", "link counts and orphans" },
	[AIFS_FSCK_NAMELESS] = { "nameless", "inodes without a name" },
	[AIFS_FSCK_ORPHAN_CHUNKS] = { "orphan_chunks", "orphan chunks" },
	[AIFS_FSCK_MISSING_COPY] = { "missing_copy", "missing or old copies" },
	[AIFS_FSCK_PAST_SIZE] = { "past_size", "chunks past the size" },
	[AIFS_FSCK_OTHER] = { "other", "other" },
};

/* An MDS_FSCK call with @flags: 0 with the reply in @rep and @text. */
static int fsck_call(struct aifs_cli *cli, const char *server, u32 flags,
		     struct aifs_mds_fsck_rep *rep, char *text)
{
	struct aifs_mds_fsck_req req = { .flags = cpu_to_le32(flags) };
	struct aifs_span parts[AIFS_MSG_MAX_PARTS];
	struct aifs_reply reply;
	int err;

	err = cli_call(cli, server, AIFS_OP_MDS_FSCK, &req, sizeof(req),
		       &reply);
	if (!err)
		err = aifs_decode_mds_fsck_rep(reply.payload, reply.len, rep,
					       parts);
	if (!err) {
		memcpy(text, parts[0].data, parts[0].len);
		text[parts[0].len] = '\0';
	}
	aifs_reply_free(&reply);
	if (err == -EINVAL || err == -EBADMSG || err == -EOPNOTSUPP)
		fprintf(stderr, "aifs: %s: no MDS_FSCK here (%s)\n", server,
			strerror(-err));
	return err;
}

/* The fsck(8) exit code of a pass's report. */
static int fsck_code(const struct aifs_mds_fsck_rep *r)
{
	u64 found = 0, repaired = 0;
	int k, code;

	for (k = 0; k < AIFS_FSCK_KINDS; k++) {
		found += le64_to_cpu(r->found[k]);
		repaired += le64_to_cpu(r->repaired[k]);
	}
	code = !found ? 0 : repaired == found ? 1 : 4;
	if (r->error || r->skipped)
		code |= 8;
	return code;
}

static struct json_object *json_fsck_kinds(const __le64 *counts)
{
	struct json_object *o = json_object_new_object();
	int k;

	for (k = 0; k < AIFS_FSCK_KINDS; k++)
		json_object_object_add(o, fsck_kinds[k].key,
			json_object_new_uint64(le64_to_cpu(counts[k])));
	return o;
}

static const struct cli_field fsck_fields[] = {
	CLI_FIELD(struct aifs_mds_fsck_rep, started),
	CLI_FIELD(struct aifs_mds_fsck_rep, inodes),
	CLI_FIELD(struct aifs_mds_fsck_rep, entries),
	CLI_FIELD(struct aifs_mds_fsck_rep, files),
	CLI_FIELD(struct aifs_mds_fsck_rep, chunk_inodes),
	CLI_FIELD(struct aifs_mds_fsck_rep, servers),
	CLI_FIELD(struct aifs_mds_fsck_rep, skipped),
};

/* The pass's report as JSON; what is in the text, by name. */
static int json_fsck(const char *server, const struct aifs_mds_fsck_rep *r,
		     const char *text)
{
	struct json_object *o = json_object_new_object();
	u32 error = le32_to_cpu(r->error);

	json_object_object_add(o, "mds", json_object_new_string(server));
	json_object_object_add(o, "repair", json_object_new_boolean(
		le32_to_cpu(r->flags) & AIFS_FSCK_REPAIR));
	cli_json_fields(o, fsck_fields, ARRAY_SIZE(fsck_fields), r);
	json_object_object_add(o, "found", json_fsck_kinds(r->found));
	json_object_object_add(o, "repaired", json_fsck_kinds(r->repaired));
	json_object_object_add(o, "error", error ?
			       json_object_new_string(strerror(error)) : NULL);
	json_object_object_add(o, "report", json_object_new_string(text));
	json_object_object_add(o, "exit_code",
			       json_object_new_int(fsck_code(r)));
	return cli_json_put(o) ? 8 : fsck_code(r);
}

/* The pass's report; its fsck(8) exit code. */
static int print_fsck(const char *server, const struct aifs_mds_fsck_rep *r,
		      const char *text)
{
	u64 found = 0, repaired = 0, f, rp;
	int k;

	if (!le64_to_cpu(r->started)) {
		printf("%s: no fsck has run\n", server);
		return 0;
	}
	fputs(text, stdout);
	printf("%llu inodes, %llu entries, %llu files compared; %u data servers checked, %u not; %llu inodes with chunks on them\n",
	       (unsigned long long)le64_to_cpu(r->inodes),
	       (unsigned long long)le64_to_cpu(r->entries),
	       (unsigned long long)le64_to_cpu(r->files),
	       le32_to_cpu(r->servers), le32_to_cpu(r->skipped),
	       (unsigned long long)le64_to_cpu(r->chunk_inodes));
	for (k = 0; k < AIFS_FSCK_KINDS; k++) {
		f = le64_to_cpu(r->found[k]);
		rp = le64_to_cpu(r->repaired[k]);
		found += f;
		repaired += rp;
		if (f)
			printf("%s: %llu found, %llu repaired\n",
			       fsck_kinds[k].text,
			       (unsigned long long)f, (unsigned long long)rp);
	}
	printf("%llu problems, %llu repaired%s\n", (unsigned long long)found,
	       (unsigned long long)repaired,
	       le32_to_cpu(r->flags) & AIFS_FSCK_REPAIR ? "" :
	       " (no --repair)");
	if (r->error)
		printf("the pass ended early: %s\n",
		       strerror(le32_to_cpu(r->error)));
	return fsck_code(r);
}

/* fsck HOST:PORT [--repair | --status] */
static int cmd_fsck(struct aifs_cli *cli, int argc, char **argv)
{
	u32 flags = AIFS_FSCK_START;
	struct aifs_mds_fsck_rep rep;
	char *text;
	int err;

	if (argc == 3 && !strcmp(argv[2], "--repair"))
		flags |= AIFS_FSCK_REPAIR;
	else if (argc == 3 && !strcmp(argv[2], "--status"))
		flags = 0;
	else if (argc != 2) {
		cli_usage(stderr);
		return 16;
	}
	text = malloc(AIFS_FSCK_TEXT_MAX + 1);
	if (!text)
		return 8;
	err = fsck_call(cli, argv[1], flags, &rep, text);
	while (!err && flags && rep.running) {
		usleep(200 * 1000);
		err = fsck_call(cli, argv[1], 0, &rep, text);
	}
	if (!err && (flags & AIFS_FSCK_REPAIR) &&
	    !(le32_to_cpu(rep.flags) & AIFS_FSCK_REPAIR))
		fprintf(stderr, "aifs: a pass without repairs was running: its report\n");
	if (err)
		err = 8;
	else if (cli->json)
		err = json_fsck(argv[1], &rep, text);
	else
		err = print_fsck(argv[1], &rep, text);
	free(text);
	return err;
}

static const struct {
	const char *name;
	int (*fn)(struct aifs_cli *cli, int argc, char **argv);
} commands[] = {
	{ "status", cmd_status },
	{ "df", cmd_df },
	{ "stats", cmd_stats },
	{ "fail", cmd_fail },
	{ "scrub", cmd_scrub },
	{ "fsck", cmd_fsck },
	{ "recovery", cmd_recovery },
	{ "getlayout", cmd_getlayout },
	{ "setlayout", cmd_setlayout },
	{ "archive", cmd_archive },
};

/* Take every --json out of @argv (of *@argc): true if there was one. */
static bool take_json(int *argc, char **argv)
{
	bool json = false;
	int i, n = 0;

	for (i = 0; i < *argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else
			argv[n++] = argv[i];
	}
	argv[n] = NULL;
	*argc = n;
	return json;
}

int main(int argc, char **argv)
{
	struct aifs_cli cli = { .secret_path = AIFS_SECRET_PATH };
	size_t i;
	int opt;

	cli.json = take_json(&argc, argv);
	while ((opt = getopt(argc, argv, "+s:h")) != -1) {
		switch (opt) {
		case 's':
			cli.secret_path = optarg;
			break;
		case 'h':
			cli_usage(stdout);
			return 0;
		default:
			cli_usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		cli_usage(stderr);
		return 2;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, argv[optind]))
			return commands[i].fn(&cli, argc - optind,
					      argv + optind);
	fprintf(stderr, "aifs: no command '%s'\n", argv[optind]);
	cli_usage(stderr);
	return 2;
}
