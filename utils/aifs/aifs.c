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
		"usage: aifs [-s SECRET_FILE] COMMAND ARGS...\n"
		"\n"
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
		"  -s SECRET_FILE        the cluster secret (default %s)\n",
		AIFS_SECRET_PATH);
}

static int cli_connect(struct aifs_cli *cli, const char *server,
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
 * @reply, or a negative errno (the server's status too), said on stderr.
 */
static int cli_call(struct aifs_cli *cli, const char *server, u16 opcode,
		    const void *req, size_t len, struct aifs_reply *reply)
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
	if (err && err != -EOPNOTSUPP && err != -EINVAL)
		fprintf(stderr, "aifs: %s: %s\n", server, strerror(-err));
	return err;
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

static void print_scrub(const struct aifs_ds_scrub_rep *r)
{
	printf("running: %s\n", le32_to_cpu(r->running) ? "yes" : "no");
	printf("rate_mib: %u\n", le32_to_cpu(r->rate_mib));
	printf("passes: %llu\n", (unsigned long long)le64_to_cpu(r->passes));
	printf("started: %llu\n", (unsigned long long)le64_to_cpu(r->started));
	printf("finished: %llu\n",
	       (unsigned long long)le64_to_cpu(r->finished));
	printf("pass_chunks: %llu\n",
	       (unsigned long long)le64_to_cpu(r->pass_chunks));
	printf("pass_total: %llu\n",
	       (unsigned long long)le64_to_cpu(r->pass_total));
	printf("chunks: %llu\n", (unsigned long long)le64_to_cpu(r->chunks));
	printf("bytes: %llu\n", (unsigned long long)le64_to_cpu(r->bytes));
	printf("bad: %llu\n", (unsigned long long)le64_to_cpu(r->bad));
	printf("resynced: %llu\n",
	       (unsigned long long)le64_to_cpu(r->resynced));
	printf("resync_failed: %llu\n",
	       (unsigned long long)le64_to_cpu(r->resync_failed));
	printf("stripes: %llu\n", (unsigned long long)le64_to_cpu(r->stripes));
	printf("stripes_bad: %llu\n",
	       (unsigned long long)le64_to_cpu(r->stripes_bad));
}

/* scrub HOST:PORT [start] */
static int cmd_scrub(struct aifs_cli *cli, int argc, char **argv)
{
	struct aifs_ds_scrub_req req = { 0 };
	struct aifs_ds_scrub_rep rep;
	struct aifs_reply reply;
	int err;

	if (argc == 3 && !strcmp(argv[2], "start"))
		req.flags = cpu_to_le32(AIFS_SCRUB_START);
	else if (argc != 2) {
		cli_usage(stderr);
		return 2;
	}
	err = cli_call(cli, argv[1], AIFS_OP_DS_SCRUB, &req, sizeof(req),
		       &reply);
	if (!err)
		err = aifs_decode_ds_scrub_rep(reply.payload, reply.len, &rep,
					       NULL);
	aifs_reply_free(&reply);
	if (err == -EOPNOTSUPP)
		fprintf(stderr, "aifs: %s runs no scrub (scrub_rate_mib = 0)\n",
			argv[1]);
	else if (err == -EINVAL || err == -EBADMSG)
		fprintf(stderr, "aifs: %s: bad DS_SCRUB reply\n", argv[1]);
	if (err)
		return 1;
	print_scrub(&rep);
	return 0;
}

static const char *const fsck_kinds[AIFS_FSCK_KINDS] = {
	[AIFS_FSCK_DANGLING] = "dangling entries",
	[AIFS_FSCK_DIRSEQ] = "readdir sequence entries",
	[AIFS_FSCK_LINKS] = "link counts and orphans",
	[AIFS_FSCK_NAMELESS] = "inodes without a name",
	[AIFS_FSCK_ORPHAN_CHUNKS] = "orphan chunks",
	[AIFS_FSCK_MISSING_COPY] = "missing or old copies",
	[AIFS_FSCK_PAST_SIZE] = "chunks past the size",
	[AIFS_FSCK_OTHER] = "other",
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

/* The pass's report; its fsck(8) exit code. */
static int print_fsck(const char *server, const struct aifs_mds_fsck_rep *r,
		      const char *text)
{
	u64 found = 0, repaired = 0, f, rp;
	int k, code;

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
			printf("%s: %llu found, %llu repaired\n", fsck_kinds[k],
			       (unsigned long long)f, (unsigned long long)rp);
	}
	printf("%llu problems, %llu repaired%s\n", (unsigned long long)found,
	       (unsigned long long)repaired,
	       le32_to_cpu(r->flags) & AIFS_FSCK_REPAIR ? "" :
	       " (no --repair)");
	code = !found ? 0 : repaired == found ? 1 : 4;
	if (r->error)
		printf("the pass ended early: %s\n",
		       strerror(le32_to_cpu(r->error)));
	if (r->error || r->skipped)
		code |= 8;
	return code;
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
	if (!err)
		err = print_fsck(argv[1], &rep, text);
	else
		err = 8;
	free(text);
	return err;
}

static void print_recovery_entry(const struct aifs_recovery_entry *e,
				 u64 next_ino)
{
	u32 state = le32_to_cpu(e->state), in = le32_to_cpu(e->rebuild_in);
	u64 cursor = le64_to_cpu(e->cursor);
	char since[32];
	time_t t = le64_to_cpu(e->since);

	printf("data server %u: %s", le32_to_cpu(e->id),
	       state == AIFS_DS_SYNCING ? "SYNCING, catching up" :
	       "OFFLINE");
	if (state == AIFS_DS_OFFLINE && in == AIFS_REBUILD_NEVER) {
		printf(", never rebuilt around (rebuild_delay_s = 0)\n");
		return;
	}
	if (state == AIFS_DS_OFFLINE && in) {
		printf(", rebuilt around in %u s\n", in);
		return;
	}
	if (state == AIFS_DS_OFFLINE)
		printf(", being rebuilt around");
	strftime(since, sizeof(since), "%F %T", localtime(&t));
	printf(" (round %u since %s): inode %llu of %llu (%llu %%), %llu files, %llu chunks copied, %llu deleted, %llu left for another pass\n",
	       le32_to_cpu(e->round), since, (unsigned long long)cursor,
	       (unsigned long long)next_ino,
	       (unsigned long long)(next_ino ? 100 * cursor / next_ino : 0),
	       (unsigned long long)le64_to_cpu(e->files),
	       (unsigned long long)le64_to_cpu(e->copied),
	       (unsigned long long)le64_to_cpu(e->deleted),
	       (unsigned long long)le64_to_cpu(e->left));
}

/* recovery HOST:PORT */
static int cmd_recovery(struct aifs_cli *cli, int argc, char **argv)
{
	struct aifs_span parts[AIFS_MSG_MAX_PARTS];
	const struct aifs_recovery_entry *e;
	struct aifs_recovery_rep rep;
	struct aifs_reply reply;
	u32 i, n;
	int err;

	if (argc != 2) {
		cli_usage(stderr);
		return 2;
	}
	err = cli_call(cli, argv[1], AIFS_OP_RECOVERY_GET, NULL, 0, &reply);
	if (!err)
		err = aifs_decode_recovery_rep(reply.payload, reply.len, &rep,
					       parts);
	if (err) {
		if (err == -EINVAL || err == -EBADMSG || err == -EOPNOTSUPP)
			fprintf(stderr, "aifs: %s: no RECOVERY_GET here\n",
				argv[1]);
		aifs_reply_free(&reply);
		return 1;
	}
	n = le32_to_cpu(rep.count);
	e = parts[0].data;
	for (i = 0; i < n; i++)
		print_recovery_entry(&e[i], le64_to_cpu(rep.next_ino));
	if (!n)
		printf("nothing to recover: every data server is UP, DRAINING or RETIRED\n");
	aifs_reply_free(&reply);
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(struct aifs_cli *cli, int argc, char **argv);
} commands[] = {
	{ "fail", cmd_fail },
	{ "scrub", cmd_scrub },
	{ "fsck", cmd_fsck },
	{ "recovery", cmd_recovery },
	{ "getlayout", cmd_getlayout },
	{ "setlayout", cmd_setlayout },
	{ "archive", cmd_archive },
};

int main(int argc, char **argv)
{
	struct aifs_cli cli = { .secret_path = AIFS_SECRET_PATH };
	size_t i;
	int opt;

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
