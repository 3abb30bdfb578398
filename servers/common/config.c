// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Config files through libinih, driven by the setting table (see
 * aifs/config.h).
 */
#include <errno.h>
#include <getopt.h>
#include <ini.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "aifs/config.h"
#include "aifs/log.h"

const char *const aifs_setting_bool_names[] = { "no", "yes", NULL };

/* The table's rows are counted in a 64-bit "already set" mask. */
#define CONFIG_MAX_SETTINGS	64

struct config_parse {
	const struct aifs_setting *table;
	void *cfg;
	const char *path;
	FILE *file;
	int line;		/* of the text libinih is looking at */
	bool at_line_start;
	int first_error;	/* line of our first complaint, 0 if none */
	uint64_t seen;
};

static const struct aifs_setting *config_find(const struct aifs_setting *table,
					      const char *name)
{
	const struct aifs_setting *s;

	for (s = table; s->name; s++)
		if (!strcmp(s->name, name))
			return s;
	return NULL;
}

static int config_set_int(const struct aifs_setting *s, void *field,
			  const char *value, char *why, size_t why_len)
{
	long long v;
	char *end;

	errno = 0;
	v = strtoll(value, &end, 0);
	if (errno || end == value || *end) {
		snprintf(why, why_len, "%s = '%s' is not an integer", s->name,
			 value);
		return -EINVAL;
	}
	if (v < s->min || v > s->max) {
		snprintf(why, why_len, "%s = %lld is out of range [%lld, %lld]",
			 s->name, v, s->min, s->max);
		return -EINVAL;
	}
	*(int *)field = v;
	return 0;
}

static int config_set_string(const struct aifs_setting *s, void *field,
			     const char *value, char *why, size_t why_len)
{
	size_t len = strlen(value);

	if (!len || len >= s->size) {
		snprintf(why, why_len, "%s must be 1 to %zu characters long",
			 s->name, s->size - 1);
		return -EINVAL;
	}
	memcpy(field, value, len + 1);
	return 0;
}

static int config_set_enum(const struct aifs_setting *s, void *field,
			   const char *value, char *why, size_t why_len)
{
	size_t n;
	int i;

	for (i = 0; s->names[i]; i++) {
		if (!strcmp(s->names[i], value)) {
			*(int *)field = i;
			return 0;
		}
	}
	n = snprintf(why, why_len, "%s = '%s': must be one of", s->name, value);
	for (i = 0; s->names[i] && n < why_len; i++)
		n += snprintf(why + n, why_len - n, " %s", s->names[i]);
	return -EINVAL;
}

static int config_set(const struct aifs_setting *s, void *cfg,
		      const char *value, char *why, size_t why_len)
{
	void *field = (char *)cfg + s->offset;

	switch (s->type) {
	case AIFS_SETTING_INT:
		return config_set_int(s, field, value, why, why_len);
	case AIFS_SETTING_STRING:
		return config_set_string(s, field, value, why, why_len);
	case AIFS_SETTING_ENUM:
		return config_set_enum(s, field, value, why, why_len);
	}
	return -EINVAL;
}

static void config_complain(struct config_parse *p, const char *why)
{
	aifs_err("%s:%d: %s", p->path, p->line, why);
	if (!p->first_error)
		p->first_error = p->line;
}

/* libinih's handler: one "name = value"; returns nonzero when accepted. */
static int config_handle(void *user, const char *section, const char *name,
			 const char *value)
{
	struct config_parse *p = user;
	const struct aifs_setting *s;
	uint64_t bit;
	char why[256];

	if (*section) {
		snprintf(why, sizeof(why), "no sections are used: [%s]", section);
		config_complain(p, why);
		return 0;
	}
	s = config_find(p->table, name);
	if (!s) {
		snprintf(why, sizeof(why), "unknown setting '%s'", name);
		config_complain(p, why);
		return 0;
	}
	bit = 1ULL << (s - p->table);
	if (p->seen & bit) {
		snprintf(why, sizeof(why), "%s is set twice", name);
		config_complain(p, why);
		return 0;
	}
	p->seen |= bit;
	if (config_set(s, p->cfg, value, why, sizeof(why))) {
		config_complain(p, why);
		return 0;
	}
	return 1;
}

/* fgets for libinih that counts lines, so that complaints can cite them. */
static char *config_read_line(char *str, int num, void *stream)
{
	struct config_parse *p = stream;
	char *s = fgets(str, num, p->file);

	if (s && p->at_line_start)
		p->line++;
	p->at_line_start = s && strchr(s, '\n');
	return s;
}

static int config_defaults(const struct aifs_setting *table, void *cfg)
{
	const struct aifs_setting *s;
	char why[256];

	for (s = table; s->name; s++) {
		if (s - table >= CONFIG_MAX_SETTINGS ||
		    config_set(s, cfg, s->def, why, sizeof(why))) {
			aifs_err("built-in default of %s is broken", s->name);
			return -EINVAL;
		}
	}
	return 0;
}

int aifs_config_load(const struct aifs_setting *table, void *cfg,
		     const char *path)
{
	struct config_parse p = {
		.table = table, .cfg = cfg, .path = path, .at_line_start = true,
	};
	int ret;

	ret = config_defaults(table, cfg);
	if (ret)
		return ret;
	p.file = fopen(path, "re");
	if (!p.file) {
		ret = -errno;
		aifs_err("config file %s: %m", path);
		return ret;
	}
	ret = ini_parse_stream(config_read_line, &p, config_handle, &p);
	fclose(p.file);
	/* libinih reports the first bad line; ours are already logged. */
	if (ret > 0 && (!p.first_error || ret < p.first_error))
		aifs_err("%s:%d: expected 'name = value'", path, ret);
	return ret ? -EINVAL : 0;
}

static void config_print_one(const struct aifs_setting *s, const void *cfg,
			     FILE *out)
{
	const void *field = (const char *)cfg + s->offset;

	switch (s->type) {
	case AIFS_SETTING_INT:
		fprintf(out, "%s = %d\n", s->name, *(const int *)field);
		break;
	case AIFS_SETTING_STRING:
		fprintf(out, "%s = %s\n", s->name, (const char *)field);
		break;
	case AIFS_SETTING_ENUM:
		fprintf(out, "%s = %s\n", s->name,
			s->names[*(const int *)field]);
		break;
	}
}

void aifs_config_print(const struct aifs_setting *table, const void *cfg,
		       FILE *out)
{
	const struct aifs_setting *s;

	for (s = table; s->name; s++)
		config_print_one(s, cfg, out);
}

static void config_usage(const char *prog, const char *default_path, FILE *out)
{
	fprintf(out,
		"usage: %s [-c FILE] [--print-config]\n"
		"  -c, --config FILE  configuration (default %s)\n"
		"  --print-config     print the settings in effect and exit\n",
		prog, default_path);
}

int aifs_config_from_args(int argc, char **argv, const char *default_path,
			  const struct aifs_setting *table, void *cfg,
			  const char **pathp)
{
	static const struct option options[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "print-config", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *path = default_path;
	bool print = false;
	int opt;

	while ((opt = getopt_long(argc, argv, "c:h", options, NULL)) != -1) {
		switch (opt) {
		case 'c':
			path = optarg;
			break;
		case 'p':
			print = true;
			break;
		case 'h':
			config_usage(argv[0], default_path, stdout);
			return AIFS_CONFIG_DONE;
		default:
			config_usage(argv[0], default_path, stderr);
			return AIFS_CONFIG_FAILED;
		}
	}
	if (optind < argc) {
		config_usage(argv[0], default_path, stderr);
		return AIFS_CONFIG_FAILED;
	}
	*pathp = path;
	if (aifs_config_load(table, cfg, path))
		return AIFS_CONFIG_FAILED;
	if (!print)
		return AIFS_CONFIG_RUN;
	aifs_config_print(table, cfg, stdout);
	return AIFS_CONFIG_DONE;
}
