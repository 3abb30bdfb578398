/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Server configuration, as Valkey's config table: every setting is one row
 * (name, type, default, range, where it lives in the config struct), and
 * defaults, parsing, range checks and --print-config all come from the
 * rows.  A server's table is the common rows (AIFS_SERVER_SETTINGS in
 * aifs/server.h) followed by its own, ended by an empty row.
 *
 * Files are INI (libinih) without sections: "name = value", '#' or ';'
 * comments.
 */
#ifndef AIFS_CONFIG_H
#define AIFS_CONFIG_H

#include <stddef.h>
#include <stdio.h>

enum aifs_setting_type {
	AIFS_SETTING_INT,	/* int, in [min, max] */
	AIFS_SETTING_STRING,	/* char array, NUL-terminated, not empty */
	AIFS_SETTING_ENUM,	/* int: index of the value in names[] */
};

/**
 * struct aifs_setting - one row of a config table
 * @name:   the key in the file
 * @type:   enum aifs_setting_type
 * @offset: of the value in the config struct
 * @size:   of a string's array (with its NUL)
 * @def:    default, written as in a file and parsed like one
 * @min:    smallest value of an integer
 * @max:    largest value of an integer
 * @names:  values of an enum, NULL-terminated
 */
struct aifs_setting {
	const char *name;
	enum aifs_setting_type type;
	size_t offset;
	size_t size;
	const char *def;
	long long min, max;
	const char *const *names;
};

/* Zero at compile time, or a compile error when @e is true. */
#define AIFS_BUILD_BUG_ON_ZERO(e)	((int)sizeof(struct { int:(-!!(e)); }))
#define AIFS_FIELD_IS(T, field, ftype) \
	AIFS_BUILD_BUG_ON_ZERO(!__builtin_types_compatible_p( \
		typeof(((T *)0)->field), ftype))
#define AIFS_FIELD_SIZE(T, field)	sizeof(((T *)0)->field)

#define AIFS_SETTING_INT(_name, T, field, _def, _min, _max) {	\
	.name = _name, .type = AIFS_SETTING_INT,			\
	.offset = offsetof(T, field) + AIFS_FIELD_IS(T, field, int), \
	.def = _def, .min = _min, .max = _max }

#define AIFS_SETTING_STRING(_name, T, field, _def) {		\
	.name = _name, .type = AIFS_SETTING_STRING,			\
	.offset = offsetof(T, field) +				\
		AIFS_BUILD_BUG_ON_ZERO(AIFS_FIELD_SIZE(T, field) < 2), \
	.size = AIFS_FIELD_SIZE(T, field), .def = _def }

#define AIFS_SETTING_ENUM(_name, T, field, _def, _names) {		\
	.name = _name, .type = AIFS_SETTING_ENUM,			\
	.offset = offsetof(T, field) + AIFS_FIELD_IS(T, field, int), \
	.def = _def, .names = _names }

/* "no", "yes": an enum whose values are false and true. */
extern const char *const aifs_setting_bool_names[];

/*
 * Fill @cfg with the defaults of @table, then the settings of the file at
 * @path.  Every problem is logged as "path:line: ..."; returns 0 or -EINVAL
 * (-errno when the file cannot be read).
 */
int aifs_config_load(const struct aifs_setting *table, void *cfg,
		     const char *path);

/* Write every setting as "name = value": a valid config file. */
void aifs_config_print(const struct aifs_setting *table, const void *cfg,
		       FILE *out);

/*
 * The command line every server shares: [-c FILE] [--print-config] [-h].
 * Loads the config (@default_path without -c) and points @path at the
 * file's name (it lives as long as argv).  Returns AIFS_CONFIG_RUN,
 * AIFS_CONFIG_DONE (printed help or config: exit 0) or AIFS_CONFIG_FAILED
 * (exit 1, the reason is logged).
 */
enum {
	AIFS_CONFIG_RUN,
	AIFS_CONFIG_DONE,
	AIFS_CONFIG_FAILED,
};
int aifs_config_from_args(int argc, char **argv, const char *default_path,
			  const struct aifs_setting *table, void *cfg,
			  const char **path);

#endif /* AIFS_CONFIG_H */
