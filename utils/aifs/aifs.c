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

#include "aifs/libaifs.h"

struct aifs_cli {
	const char *secret_path;
	struct aifs_secret secret;
};

static void usage(FILE *out)
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
		"\n"
		"  -s SECRET_FILE        the cluster secret (default %s)\n",
		AIFS_SECRET_PATH);
}

/* "host:port" or "[v6]:port" into @host (of @size bytes) and *@port. */
static int split_server(const char *arg, char *host, size_t size,
			const char **port)
{
	const char *colon = strrchr(arg, ':');
	size_t len;

	if (!colon || !colon[1])
		return -EINVAL;
	len = colon - arg;
	if (len >= 2 && arg[0] == '[' && arg[len - 1] == ']') {
		arg++;
		len -= 2;
	}
	if (!len || len >= size)
		return -EINVAL;
	memcpy(host, arg, len);
	host[len] = '\0';
	*port = colon + 1;
	return 0;
}

static int cli_connect(struct aifs_cli *cli, const char *server,
		       struct aifs_conn **conn)
{
	char host[256], why[512];
	struct aifs_connect_opts opts = {
		.role = AIFS_ROLE_ADMIN,
		.secret = &cli->secret,
	};
	int err;

	if (split_server(server, host, sizeof(host), &opts.port)) {
		fprintf(stderr, "aifs: '%s' is not HOST:PORT\n", server);
		return -EINVAL;
	}
	opts.host = host;
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
		usage(stderr);
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
		usage(stderr);
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

static const struct {
	const char *name;
	int (*fn)(struct aifs_cli *cli, int argc, char **argv);
} commands[] = {
	{ "fail", cmd_fail },
	{ "scrub", cmd_scrub },
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
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, argv[optind]))
			return commands[i].fn(&cli, argc - optind,
					      argv + optind);
	fprintf(stderr, "aifs: no command '%s'\n", argv[optind]);
	usage(stderr);
	return 2;
}
