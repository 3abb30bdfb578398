// SPDX-License-Identifier: GPL-2.0
/*
 * aifs - mount options: the parameter table, the source string, the rules
 * for remount and the text shown in /proc/mounts.
 */
#include <crypto/algapi.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inet.h>
#include <linux/kernel.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "internal.h"

#define AIFS_UINT_PARAM(_name, _min, _max, _def, _remount) {		\
	.name = #_name,							\
	.offset = offsetof(struct aifs_mount_options, _name),		\
	.min = _min,							\
	.max = _max,							\
	.def = _def,							\
	.remount = _remount,						\
}

/*
 * The one place where the limits of the unsigned options live: mount
 * parsing, remount and the sysfs attributes all check against this table.
 */
const struct aifs_uint_param aifs_uint_params[AIFS_NR_UINT_PARAMS] = {
	[AIFS_OPT_PORT]		 = AIFS_UINT_PARAM(port, 1, 65535,
						   AIFS_MDS_PORT, false),
	/* up to 1 GiB, default 8 MiB */
	[AIFS_OPT_READ_AHEAD_KB] = AIFS_UINT_PARAM(read_ahead_kb, 0, SZ_1M,
						   8192, true),
	/* outstanding requests per mount */
	[AIFS_OPT_MAX_INFLIGHT]	 = AIFS_UINT_PARAM(max_inflight, 1, 1024,
						   64, true),
	/* tenths of a second, as NFS */
	[AIFS_OPT_TIMEO]	 = AIFS_UINT_PARAM(timeo, 1, 6000, 600, true),
	[AIFS_OPT_RETRANS]	 = AIFS_UINT_PARAM(retrans, 0, 100, 2, true),
	/* seconds */
	[AIFS_OPT_ATTR_TIMEOUT]	 = AIFS_UINT_PARAM(attr_timeout, 0, 3600,
						   1, true),
	[AIFS_OPT_DENTRY_TIMEOUT] = AIFS_UINT_PARAM(dentry_timeout, 0, 3600,
						    1, true),
};

static const struct constant_table aifs_transports[] = {
	{ "auto",	AIFS_TRANSPORT_AUTO },
	{ "rdma",	AIFS_TRANSPORT_RDMA },
	{ "tcp",	AIFS_TRANSPORT_TCP },
	{}
};

const struct fs_parameter_spec aifs_fs_parameters[] = {
	fsparam_string("source",	AIFS_OPT_SOURCE),
	fsparam_enum("transport",	AIFS_OPT_TRANSPORT, aifs_transports),
	fsparam_u32("port",		AIFS_OPT_PORT),
	fsparam_u32("read_ahead_kb",	AIFS_OPT_READ_AHEAD_KB),
	fsparam_u32("max_inflight",	AIFS_OPT_MAX_INFLIGHT),
	fsparam_u32("timeo",		AIFS_OPT_TIMEO),
	fsparam_u32("retrans",		AIFS_OPT_RETRANS),
	fsparam_flag("hard",		AIFS_OPT_HARD),
	fsparam_flag("soft",		AIFS_OPT_SOFT),
	fsparam_u32("attr_timeout",	AIFS_OPT_ATTR_TIMEOUT),
	fsparam_u32("dentry_timeout",	AIFS_OPT_DENTRY_TIMEOUT),
	fsparam_string("secret",	AIFS_OPT_SECRET),
	fsparam_string("addr",		AIFS_OPT_ADDR),
	{}
};

const char *aifs_transport_name(enum aifs_transport transport)
{
	const struct constant_table *t;

	for (t = aifs_transports; t->name; t++)
		if (t->value == transport)
			break;
	return t->name;
}

void aifs_default_options(struct aifs_mount_options *opts)
{
	int i;

	for (i = 0; i < AIFS_NR_UINT_PARAMS; i++)
		*aifs_uint_ptr(opts, i) = aifs_uint_params[i].def;
	opts->transport = AIFS_TRANSPORT_TCP;
	opts->soft = false;
}

void aifs_free_options(struct aifs_mount_options *opts)
{
	kfree(opts->path);
	kfree_sensitive(opts->secret);
}

/*
 * Parse one "host[:port]" of the source: a dotted-quad IPv4 address or a
 * bracketed IPv6 one. Names are resolved by mount.aifs in user space, which
 * hands us numeric addresses. A missing port is left 0 here and filled in by
 * aifs_finish_options(), since "port=" may come after the source.
 */
static int aifs_parse_server(struct fs_context *fc, char *host,
			     struct sockaddr_storage *ss)
{
	const struct aifs_uint_param *p = &aifs_uint_params[AIFS_OPT_PORT];
	const char *end;
	char *port;
	unsigned int val;

	memset(ss, 0, sizeof(*ss));

	if (*host == '[') {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
		char *close = strchr(host, ']');

		if (!close || (close[1] != ':' && close[1] != '\0'))
			goto bad_syntax;
		port = close[1] == ':' ? close + 2 : NULL;
		close[1] = '\0';

		sin6->sin6_family = AF_INET6;
		if (!in6_pton(host + 1, close - host - 1,
			      sin6->sin6_addr.s6_addr, -1, &end) || end != close)
			goto not_numeric;
	} else {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		port = strchr(host, ':');
		if (port)
			*port++ = '\0';
		if (!*host)
			goto bad_syntax;

		sin->sin_family = AF_INET;
		if (!in4_pton(host, strlen(host), (u8 *)&sin->sin_addr.s_addr,
			      -1, &end) || *end)
			goto not_numeric;
	}

	if (!port)
		return 0;
	if (kstrtouint(port, 10, &val) || val < p->min || val > p->max)
		return invalfc(fc, "invalid port '%s' in source (%u-%u)",
			       port, p->min, p->max);
	/* sin_port and sin6_port are at the same offset */
	((struct sockaddr_in *)ss)->sin_port = htons(val);
	return 0;

bad_syntax:
	return invalfc(fc, "source must be host[:port][,host...]:/[path]");
not_numeric:
	return invalfc(fc,
		       "server address '%s' is not numeric; mount through mount.aifs to resolve names",
		       host);
}

/*
 * Store @path (which starts with '/') with runs of '/' collapsed and without
 * a trailing '/', so that equal paths compare equal on remount and show the
 * same in sysfs. "." and ".." are left to the metadata server to resolve.
 */
static int aifs_parse_path(struct fs_context *fc,
			   struct aifs_mount_options *opts, const char *path)
{
	size_t len = strlen(path);
	char *norm, *out;

	if (len > AIFS_MAX_PATH)
		return invalfc(fc, "path in source is longer than %d bytes",
			       AIFS_MAX_PATH);

	norm = kmalloc(len + 1, GFP_KERNEL);
	if (!norm)
		return -ENOMEM;

	for (out = norm; *path; path++)
		if (*path != '/' || out == norm || out[-1] != '/')
			*out++ = *path;
	if (out - norm > 1 && out[-1] == '/')
		out--;
	*out = '\0';

	kfree(opts->path);
	opts->path = norm;
	return 0;
}

/*
 * The path starts at the first ":/" outside brackets: host parts never hold
 * a '/', and IPv6 addresses may hold "::" but only inside brackets.
 */
static const char *aifs_find_path(const char *source)
{
	bool in_brackets = false;
	const char *s;

	for (s = source; *s; s++) {
		if (*s == '[')
			in_brackets = true;
		else if (*s == ']')
			in_brackets = false;
		else if (!in_brackets && s[0] == ':' && s[1] == '/')
			return s + 1;
	}
	return NULL;
}

/* Add one numeric "host[:port]" to the servers of @opts. */
static int aifs_add_server(struct fs_context *fc,
			   struct aifs_mount_options *opts, char *host)
{
	int err;

	if (opts->nr_servers == AIFS_MAX_SERVERS)
		return invalfc(fc, "too many servers (max %d)", AIFS_MAX_SERVERS);
	err = aifs_parse_server(fc, host, &opts->servers[opts->nr_servers]);
	if (!err)
		opts->nr_servers++;
	return err;
}

/* Parse "host[:port][,host[:port]...]", numeric addresses, into @opts. */
static int aifs_parse_hosts(struct fs_context *fc,
			    struct aifs_mount_options *opts, const char *list)
{
	char *hosts, *cur, *host;
	int err = 0;

	hosts = kstrdup(list, GFP_KERNEL);
	if (!hosts)
		return -ENOMEM;
	cur = hosts;
	while (!err && (host = strsep(&cur, ",")) != NULL)
		err = aifs_add_server(fc, opts, host);
	kfree(hosts);
	return err;
}

/*
 * Split "hosts:/[path]": the path is stored now, the hosts kept for
 * aifs_resolve_servers(), since an addr= option may still come and name
 * the servers instead (mount.aifs does so for host names).
 */
static int aifs_parse_source(struct fs_context *fc, const char *source)
{
	struct aifs_fs_context *ctx = fc->fs_private;
	const char *path = aifs_find_path(source);

	if (!path || path - 1 == source)
		return invalfc(fc, "source must be host[:port][,host...]:/[path]");

	ctx->source_hosts = kstrndup(source, path - 1 - source, GFP_KERNEL);
	if (!ctx->source_hosts)
		return -ENOMEM;
	return aifs_parse_path(fc, &ctx->opts, path);
}

/* The servers: those of addr= options if any, else those of the source. */
static int aifs_resolve_servers(struct fs_context *fc)
{
	struct aifs_fs_context *ctx = fc->fs_private;

	if (ctx->given & BIT(AIFS_OPT_ADDR))
		return 0;
	return aifs_parse_hosts(fc, &ctx->opts, ctx->source_hosts);
}

static int aifs_parse_source_param(struct fs_context *fc,
				   struct fs_parameter *param)
{
	int err;

	/*
	 * vfs_parse_fs_param_source() refuses a second source too, but only
	 * after we would have overwritten the path of the first one.
	 */
	if (fc->source)
		return invalfc(fc, "only one source may be given");

	err = aifs_parse_source(fc, param->string);
	if (err)
		return err;

	/* fc->source keeps the string as given, for /proc/mounts */
	return vfs_parse_fs_param_source(fc, param);
}

static int aifs_parse_secret(struct fs_context *fc, struct fs_parameter *param)
{
	struct aifs_fs_context *ctx = fc->fs_private;

	size_t len = strlen(param->string);

	/* the servers refuse shorter keys: say so here, not as EACCES later */
	if (len < AIFS_SECRET_MIN || len > AIFS_SECRET_MAX)
		return invalfc(fc, "secret must be %d-%d bytes", AIFS_SECRET_MIN,
			       AIFS_SECRET_MAX);

	kfree_sensitive(ctx->opts.secret);
	ctx->opts.secret = param->string;
	param->string = NULL;
	return 0;
}

/**
 * aifs_parse_param - &fs_context_operations.parse_param for aifs
 * @fc: mount or remount context
 * @param: one option
 *
 * Records the value in the context and marks the option as given; whether
 * the combination makes sense is decided later, by aifs_finish_options()
 * for a mount and by aifs_check_remount() for a remount.
 *
 * Return: 0, -ENOPARAM for an option that is not ours, or an error.
 */
int aifs_parse_param(struct fs_context *fc, struct fs_parameter *param)
{
	struct aifs_fs_context *ctx = fc->fs_private;
	const struct aifs_uint_param *p;
	struct fs_parse_result result;
	int opt, err;

	opt = fs_parse(fc, aifs_fs_parameters, param, &result);
	if (opt < 0)
		return opt;

	switch (opt) {
	case AIFS_OPT_SOURCE:
		err = aifs_parse_source_param(fc, param);
		if (err)
			return err;
		break;
	case AIFS_OPT_TRANSPORT:
		ctx->opts.transport = result.uint_32;
		break;
	case AIFS_OPT_HARD:
		ctx->opts.soft = false;
		break;
	case AIFS_OPT_SOFT:
		ctx->opts.soft = true;
		break;
	case AIFS_OPT_SECRET:
		err = aifs_parse_secret(fc, param);
		if (err)
			return err;
		break;
	case AIFS_OPT_ADDR:
		err = aifs_add_server(fc, &ctx->opts, param->string);
		if (err)
			return err;
		break;
	default:
		/* the unsigned options, whose values index the range table */
		p = &aifs_uint_params[opt];
		if (result.uint_32 < p->min || result.uint_32 > p->max)
			return invalfc(fc, "%s=%u is out of range (%u-%u)",
				       p->name, result.uint_32, p->min, p->max);
		*aifs_uint_ptr(&ctx->opts, opt) = result.uint_32;
		break;
	}
	ctx->given |= BIT(opt);
	return 0;
}

/* Give servers listed without a port the port= one. */
static void aifs_apply_port(struct aifs_mount_options *opts, unsigned int port)
{
	unsigned int i;

	for (i = 0; i < opts->nr_servers; i++) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&opts->servers[i];

		if (!sin->sin_port)
			sin->sin_port = htons(port);
	}
}

/**
 * aifs_finish_options - check a new mount's options as a whole
 * @fc: mount context whose options have all been parsed
 *
 * Return: 0, -EINVAL without a source or a secret, -EPROTONOSUPPORT for
 * transport=rdma in a build without RDMA.
 */
int aifs_finish_options(struct fs_context *fc)
{
	struct aifs_fs_context *ctx = fc->fs_private;
	int err;

	if (!ctx->opts.path)
		return invalfc(fc, "no source given");
	err = aifs_resolve_servers(fc);
	if (err)
		return err;

	/* connections always authenticate: without a secret none would */
	if (!ctx->opts.secret)
		return invalfc(fc, "no secret given (mount.aifs reads /etc/aifs/secret)");

	if (ctx->opts.transport == AIFS_TRANSPORT_RDMA &&
	    !aifs_transport_get(AIFS_TRANSPORT_RDMA)) {
		errorfc(fc, "transport=rdma is not available in this build");
		return -EPROTONOSUPPORT;
	}

	aifs_apply_port(&ctx->opts, ctx->opts.port);
	return 0;
}

static bool aifs_same_secret(const char *a, const char *b)
{
	size_t len;

	if (!a || !b)
		return a == b;
	len = strlen(a);
	return len == strlen(b) && !crypto_memneq(a, b, len);
}

static bool aifs_same_servers(const struct aifs_mount_options *a,
			      const struct aifs_mount_options *b)
{
	unsigned int i;

	if (a->nr_servers != b->nr_servers)
		return false;
	/* entries are zero-filled before parsing, padding included */
	for (i = 0; i < a->nr_servers; i++)
		if (memcmp(&a->servers[i], &b->servers[i], sizeof(a->servers[i])))
			return false;
	return true;
}

/**
 * aifs_check_remount - refuse a remount that changes a fixed option
 * @fc: remount context
 * @cur: options of the mounted file system
 *
 * mount(8) passes the whole option string again on remount, so an option
 * that cannot change is refused only when its value differs. The source
 * reaches us on remount only through fsconfig(2).
 *
 * Return: 0 or -EINVAL.
 */
int aifs_check_remount(struct fs_context *fc,
		       const struct aifs_mount_options *cur)
{
	struct aifs_fs_context *ctx = fc->fs_private;
	struct aifs_mount_options *new = &ctx->opts;
	const char *what;
	int i, err;

	for (i = 0; i < AIFS_NR_UINT_PARAMS; i++) {
		what = aifs_uint_params[i].name;
		if ((ctx->given & BIT(i)) && !aifs_uint_params[i].remount &&
		    aifs_get_uint(new, i) != aifs_get_uint(cur, i))
			goto changed;
	}

	what = "transport";
	if ((ctx->given & BIT(AIFS_OPT_TRANSPORT)) &&
	    new->transport != cur->transport)
		goto changed;

	what = "secret";
	if ((ctx->given & BIT(AIFS_OPT_SECRET)) &&
	    !aifs_same_secret(new->secret, cur->secret))
		goto changed;

	what = "source";
	if ((ctx->given & BIT(AIFS_OPT_SOURCE)) && strcmp(new->path, cur->path))
		goto changed;
	if (ctx->given & (BIT(AIFS_OPT_SOURCE) | BIT(AIFS_OPT_ADDR))) {
		err = aifs_resolve_servers(fc);
		if (err)
			return err;
		/* port cannot change, so the mounted one fills the gaps */
		aifs_apply_port(new, cur->port);
		if (!aifs_same_servers(new, cur))
			goto changed;
	}
	return 0;

changed:
	return invalfc(fc, "%s cannot be changed on remount", what);
}

static void aifs_show_uint_params(struct seq_file *m,
				  const struct aifs_mount_options *opts,
				  enum aifs_param first, enum aifs_param last)
{
	enum aifs_param i;
	unsigned int val;

	for (i = first; i <= last; i++) {
		val = aifs_get_uint(opts, i);
		if (val != aifs_uint_params[i].def)
			seq_printf(m, ",%s=%u", aifs_uint_params[i].name, val);
	}
}

/**
 * aifs_show_mount_options - options for /proc/mounts in mount(8) syntax
 * @m: seq_file to print to
 * @opts: options of a mounted file system
 *
 * The transport always, then the options that differ from their defaults,
 * "soft" next to the timeouts it qualifies as NFS prints it. Never the
 * secret.
 */
void aifs_show_mount_options(struct seq_file *m,
			     const struct aifs_mount_options *opts)
{
	seq_printf(m, ",transport=%s", aifs_transport_name(opts->transport));
	aifs_show_uint_params(m, opts, AIFS_OPT_PORT, AIFS_OPT_MAX_INFLIGHT);
	if (READ_ONCE(opts->soft))
		seq_puts(m, ",soft");
	aifs_show_uint_params(m, opts, AIFS_OPT_TIMEO, AIFS_OPT_DENTRY_TIMEOUT);
}
