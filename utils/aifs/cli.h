/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The aifs command's parts: one file per group of subcommands. */
#ifndef AIFS_CLI_H
#define AIFS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include <json-c/json.h>

#include "aifs/libaifs.h"
#include "aifs/aifs_genl.h"

/*
 * @json: --json was given: a command prints one JSON object (cli_json_put())
 *	instead of its text
 */
struct aifs_cli {
	const char *secret_path;
	struct aifs_secret secret;
	bool json;
};

void cli_usage(FILE *out);
/*
 * One request of @len bytes at @req to the server at HOST:PORT @server:
 * 0 with the reply in @reply, or a negative errno (the server's status
 * too), said on stderr; _quiet: a server's status is not said.
 */
int cli_call(struct aifs_cli *cli, const char *server, u16 opcode,
	     const void *req, size_t len, struct aifs_reply *reply);
int cli_call_quiet(struct aifs_cli *cli, const char *server, u16 opcode,
		   const void *req, size_t len, struct aifs_reply *reply);
int cli_connect(struct aifs_cli *cli, const char *server,
		struct aifs_conn **conn);
/*
 * A little-endian __le32 or __le64 field of a wire struct, by name: the
 * JSON of a reply is made from a table of these, not a line per field.
 */
struct cli_field {
	const char *name;
	size_t off, size;
};

#define CLI_FIELD(T, f) { #f, offsetof(T, f), sizeof(((T *)0)->f) }

/* @f's field of the struct at @base, in host order. */
u64 cli_field_value(const struct cli_field *f, const void *base);
/* Each of the @n fields @f of the struct at @base into the object @o. */
void cli_json_fields(struct json_object *o, const struct cli_field *f,
		     size_t n, const void *base);

/* @v of @unit with a binary prefix ("1.5 MiB"), in @buf of @size. */
const char *cli_human(double v, const char *unit, char *buf, size_t size);
/* Print @obj on stdout, and put it: 0, or 1 when it could not be made. */
int cli_json_put(struct json_object *obj);

/* A mount's statistics, as the module's STATS_GET gives them (genl.c). */
struct cli_mount_stats {
	unsigned int id;
	u64 age_ms;
	char transport[8];
	u64 count[AIFS_NR_COUNTERS];
	u64 mds_ops[AIFS_STATS_NR_OPS];
	u64 lat[AIFS_LAT_CLASSES][AIFS_LAT_BUCKETS];
};

int cli_stats_get(dev_t dev, struct cli_mount_stats *st);

/* mounts.c: the aifs mounts of this process's mount namespace */
struct cli_mount {
	char *dir;
	dev_t dev;
};

int cli_mounts(int argc, char **argv, struct cli_mount **mounts,
	       size_t *nr);
void cli_mounts_free(struct cli_mount *mounts, size_t nr);

/* stats.c */
int cmd_stats(struct aifs_cli *cli, int argc, char **argv);

/* status.c */
int cmd_status(struct aifs_cli *cli, int argc, char **argv);
int cmd_df(struct aifs_cli *cli, int argc, char **argv);
int cmd_scrub(struct aifs_cli *cli, int argc, char **argv);
int cmd_recovery(struct aifs_cli *cli, int argc, char **argv);

/* repairs.c: REPAIRS_GET, for aifs recovery */
struct cli_repairs {
	struct aifs_reply reply;
	struct aifs_repairs_rep rep;
	const struct aifs_repair_server *servers;	/* in @reply */
	const struct aifs_repair_entry *list;		/* in @reply */
};

int cli_repairs_get(struct aifs_conn *conn, struct cli_repairs *r);
void cli_repairs_free(struct cli_repairs *r);
void cli_repairs_print(const struct cli_repairs *r);
struct json_object *cli_repairs_json(const struct cli_repairs *r);

/* layout.c */
int cmd_getlayout(struct aifs_cli *cli, int argc, char **argv);
int cmd_setlayout(struct aifs_cli *cli, int argc, char **argv);
int cli_layout_read(const char *path, struct aifs_layout *l);
int cli_layout_arg(struct aifs_layout *l, const char *arg, bool *chunk_set);

/* archive.c */
int cmd_archive(struct aifs_cli *cli, int argc, char **argv);

#endif /* AIFS_CLI_H */
