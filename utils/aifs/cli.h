/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The aifs command's parts: one file per group of subcommands. */
#ifndef AIFS_CLI_H
#define AIFS_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "aifs/libaifs.h"

struct aifs_cli {
	const char *secret_path;
	struct aifs_secret secret;
};

void cli_usage(FILE *out);

/* layout.c */
int cmd_getlayout(struct aifs_cli *cli, int argc, char **argv);
int cmd_setlayout(struct aifs_cli *cli, int argc, char **argv);
int cli_layout_read(const char *path, struct aifs_layout *l);
int cli_layout_arg(struct aifs_layout *l, const char *arg, bool *chunk_set);

/* archive.c */
int cmd_archive(struct aifs_cli *cli, int argc, char **argv);

#endif /* AIFS_CLI_H */
