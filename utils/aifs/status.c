// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * What the cluster is doing: aifs status (the MDS's map, space, recovery,
 * and each data server's scrub), aifs df (each mount's statfs), and
 * the two parts status is made of that are commands of their own, aifs
 * scrub and aifs recovery.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>

#include "cli.h"

/* ---- scrub ---- */

/* The counters of a DS_SCRUB reply, by name. */
static const struct cli_field scrub_fields[] = {
#define SCRUB_FIELD(f) CLI_FIELD(struct aifs_ds_scrub_rep, f)
	SCRUB_FIELD(rate_mib), SCRUB_FIELD(passes), SCRUB_FIELD(started),
	SCRUB_FIELD(finished), SCRUB_FIELD(pass_chunks),
	SCRUB_FIELD(pass_total), SCRUB_FIELD(chunks), SCRUB_FIELD(bytes),
	SCRUB_FIELD(bad), SCRUB_FIELD(resynced), SCRUB_FIELD(resync_failed),
	SCRUB_FIELD(stripes), SCRUB_FIELD(stripes_bad),
#undef SCRUB_FIELD
};

static struct json_object *json_scrub(const struct aifs_ds_scrub_rep *r)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "running",
		json_object_new_boolean(le32_to_cpu(r->running)));
	cli_json_fields(o, scrub_fields, ARRAY_SIZE(scrub_fields), r);
	return o;
}

static void print_scrub(const struct aifs_ds_scrub_rep *r)
{
	size_t i;

	printf("running: %s\n", le32_to_cpu(r->running) ? "yes" : "no");
	for (i = 0; i < ARRAY_SIZE(scrub_fields); i++)
		printf("%s: %llu\n", scrub_fields[i].name,
		       (unsigned long long)cli_field_value(&scrub_fields[i],
							   r));
}

/*
 * A data server's DS_SCRUB (@start: begin a pass) into @rep: 0, or a
 * negative errno, -EOPNOTSUPP for a server that runs no scrub; @quiet:
 * failures not said.
 */
static int scrub_get(struct aifs_cli *cli, const char *server, bool start,
		     bool quiet, struct aifs_ds_scrub_rep *rep)
{
	struct aifs_ds_scrub_req req = { 0 };
	struct aifs_reply reply;
	int err;

	if (start)
		req.flags = cpu_to_le32(AIFS_SCRUB_START);
	err = quiet ? cli_call_quiet(cli, server, AIFS_OP_DS_SCRUB, &req,
				     sizeof(req), &reply) :
		      cli_call(cli, server, AIFS_OP_DS_SCRUB, &req,
			       sizeof(req), &reply);
	if (!err)
		err = aifs_decode_ds_scrub_rep(reply.payload, reply.len, rep,
					       NULL);
	aifs_reply_free(&reply);
	if (quiet)
		return err;
	if (err == -EOPNOTSUPP)
		fprintf(stderr, "aifs: %s runs no scrub (scrub_rate_mib = 0)\n",
			server);
	else if (err == -EINVAL || err == -EBADMSG)
		fprintf(stderr, "aifs: %s: bad DS_SCRUB reply\n", server);
	return err;
}

/* scrub HOST:PORT [start] */
int cmd_scrub(struct aifs_cli *cli, int argc, char **argv)
{
	struct aifs_ds_scrub_rep rep;
	bool start = argc == 3 && !strcmp(argv[2], "start");

	if (argc != 2 && !start) {
		cli_usage(stderr);
		return 2;
	}
	if (scrub_get(cli, argv[1], start, false, &rep))
		return 1;
	if (cli->json)
		return cli_json_put(json_scrub(&rep));
	print_scrub(&rep);
	return 0;
}

/* ---- recovery ---- */

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

static const char *const ds_states[AIFS_DS_LAST + 1] = {
	[AIFS_DS_UP] = "UP",
	[AIFS_DS_OFFLINE] = "OFFLINE",
	[AIFS_DS_DRAINING] = "DRAINING",
	[AIFS_DS_RETIRED] = "RETIRED",
	[AIFS_DS_SYNCING] = "SYNCING",
};

static const char *ds_state_name(u32 state)
{
	return state <= AIFS_DS_LAST && ds_states[state] ? ds_states[state] :
							   "UNKNOWN";
}

static const struct cli_field recovery_fields[] = {
#define RECOVERY_FIELD(f) CLI_FIELD(struct aifs_recovery_entry, f)
	RECOVERY_FIELD(id), RECOVERY_FIELD(round), RECOVERY_FIELD(cursor),
	RECOVERY_FIELD(files), RECOVERY_FIELD(copied), RECOVERY_FIELD(deleted),
	RECOVERY_FIELD(left), RECOVERY_FIELD(since),
#undef RECOVERY_FIELD
};

static struct json_object *json_recovery_entry(
	const struct aifs_recovery_entry *e, u64 next_ino)
{
	struct json_object *o = json_object_new_object();
	u32 in = le32_to_cpu(e->rebuild_in);

	cli_json_fields(o, recovery_fields, ARRAY_SIZE(recovery_fields), e);
	json_object_object_add(o, "state", json_object_new_string(
		ds_state_name(le32_to_cpu(e->state))));
	json_object_object_add(o, "rebuild_in_s", in == AIFS_REBUILD_NEVER ?
			       NULL : json_object_new_int64(in));
	json_object_object_add(o, "next_ino", json_object_new_uint64(next_ino));
	return o;
}

/* RECOVERY_GET on @conn; the entries point into @reply. */
static int recovery_get(struct aifs_conn *conn, struct aifs_reply *reply,
			struct aifs_recovery_rep *rep,
			const struct aifs_recovery_entry **entries)
{
	struct aifs_span parts[AIFS_MSG_MAX_PARTS];
	int err;

	err = aifs_call(conn, AIFS_OP_RECOVERY_GET, NULL, 0, reply,
			AIFS_CALL_TIMEOUT_MS);
	if (!err && reply->status)
		err = -(int)reply->status;
	if (!err)
		err = aifs_decode_recovery_rep(reply->payload, reply->len, rep,
					       parts);
	*entries = err ? NULL : parts[0].data;
	return err;
}

static struct json_object *json_recovery(const struct aifs_recovery_rep *rep,
					 const struct aifs_recovery_entry *e)
{
	struct json_object *a = json_object_new_array();
	u32 i;

	for (i = 0; i < le32_to_cpu(rep->count); i++)
		json_object_array_add(a, json_recovery_entry(&e[i],
					le64_to_cpu(rep->next_ino)));
	return a;
}

/* recovery --json: the MDS, where the walks end, the servers, the repairs */
static struct json_object *json_recovery_report(const char *mds,
	const struct aifs_recovery_rep *rep,
	const struct aifs_recovery_entry *e, const struct cli_repairs *r)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "mds", json_object_new_string(mds));
	json_object_object_add(o, "next_ino", json_object_new_uint64(
		le64_to_cpu(rep->next_ino)));
	json_object_object_add(o, "servers", json_recovery(rep, e));
	json_object_object_add(o, "repairs", cli_repairs_json(r));
	return o;
}

static void print_recovery(const struct aifs_recovery_rep *rep,
			   const struct aifs_recovery_entry *e,
			   const struct cli_repairs *r)
{
	u32 i, n = le32_to_cpu(rep->count);

	for (i = 0; i < n; i++)
		print_recovery_entry(&e[i], le64_to_cpu(rep->next_ino));
	cli_repairs_print(r);
	if (!n && !r->rep.servers)
		printf("nothing to recover: every data server is UP, DRAINING or RETIRED, and none has a copy to repair\n");
}

/*
 * RECOVERY_GET and REPAIRS_GET on @conn (an MDS that does not know the
 * second has no repairs to tell).
 */
static int recovery_and_repairs(struct aifs_conn *conn,
				struct aifs_reply *reply,
				struct aifs_recovery_rep *rep,
				const struct aifs_recovery_entry **e,
				struct cli_repairs *r, const char **what)
{
	int err;

	*what = "RECOVERY_GET";
	err = recovery_get(conn, reply, rep, e);
	if (err)
		return err;
	*what = "REPAIRS_GET";
	err = cli_repairs_get(conn, r);
	if (err == -EOPNOTSUPP) {
		cli_repairs_free(r);
		memset(r, 0, sizeof(*r));
		err = 0;
	}
	return err;
}

/* recovery HOST:PORT */
int cmd_recovery(struct aifs_cli *cli, int argc, char **argv)
{
	const struct aifs_recovery_entry *e;
	struct aifs_recovery_rep rep;
	struct aifs_reply reply = { 0 };
	struct cli_repairs r = { 0 };
	struct aifs_conn *conn;
	const char *what;
	int err, ret = 0;

	if (argc != 2) {
		cli_usage(stderr);
		return 2;
	}
	if (cli_connect(cli, argv[1], &conn))
		return 1;
	err = recovery_and_repairs(conn, &reply, &rep, &e, &r, &what);
	aifs_close(conn);
	if (err) {
		fprintf(stderr, "aifs: %s: %s: %s\n", argv[1], what,
			strerror(-err));
		ret = 1;
	} else if (cli->json) {
		ret = cli_json_put(json_recovery_report(argv[1], &rep, e, &r));
	} else {
		print_recovery(&rep, e, &r);
	}
	cli_repairs_free(&r);
	aifs_reply_free(&reply);
	return ret;
}

/* ---- status ---- */

/* What status gathers from the MDS. */
struct cluster {
	char mds[300];
	struct aifs_map_rep map;
	struct aifs_ds_info *ds;
	struct aifs_statfs_rep fs;
	struct aifs_recovery_rep recovery;
	const struct aifs_recovery_entry *recovering;
	struct aifs_reply recovery_reply;
	struct cli_repairs repairs;
	/* per server of @ds: 0 with its scrub in @scrub, or why not */
	struct aifs_ds_scrub_rep *scrub;
	int *scrub_err;
};

/* "address:port" or "[address]:port" of a map entry. */
static void ds_address(const struct aifs_addr *a, char *buf, size_t size)
{
	char host[INET6_ADDRSTRLEN] = "?", port[8] = "?";

	aifs_wire_addr_host(a, host, sizeof(host), port, sizeof(port));
	snprintf(buf, size, strchr(host, ':') ? "[%s]:%s" : "%s:%s", host,
		 port);
}

/* The server the session of mount @m is with, from its sysfs directory. */
static int mount_server(const struct cli_mount *m, char *mds, size_t size)
{
	struct cli_mount_stats *st = malloc(sizeof(*st));
	char file[64];
	FILE *f = NULL;
	int err = -ENOMEM;

	if (st)
		err = cli_stats_get(m->dev, st);
	if (!err) {
		snprintf(file, sizeof(file), "/sys/fs/aifs/aifs-%u/server",
			 st->id);
		f = fopen(file, "r");
		err = f && fgets(mds, size, f) ? 0 : -EIO;
	}
	if (f)
		fclose(f);
	free(st);
	if (err)
		fprintf(stderr, "aifs: %s: its server is not known (%s)\n",
			m->dir, strerror(-err));
	mds[strcspn(mds, "\n")] = '\0';
	return err;
}

/* The MDS of the aifs mount @path is on; @path NULL: of the only one. */
static int mds_of_mount(const char *path, char *mds, size_t size)
{
	struct cli_mount *mounts;
	size_t nr;
	int err;

	err = cli_mounts(path ? 1 : 0, (char **)&path, &mounts, &nr);
	if (err)
		return err;
	if (nr > 1) {
		fprintf(stderr, "aifs: several aifs mounts: name one, or the MDS as HOST:PORT\n");
		err = -EINVAL;
	} else {
		err = mount_server(&mounts[0], mds, size);
	}
	cli_mounts_free(mounts, nr);
	return err;
}

static int cluster_fetch(struct aifs_cli *cli, struct cluster *c)
{
	const char *what = "MAP_GET";
	struct aifs_conn *conn;
	struct aifs_cred cred;
	int err;

	c->ds = calloc(AIFS_MAP_MAX_DS, sizeof(*c->ds));
	if (!c->ds)
		return -ENOMEM;
	err = cli_connect(cli, c->mds, &conn);
	if (err)
		return err;
	err = aifs_map_get(conn, 0, &c->map, c->ds, AIFS_MAP_MAX_DS);
	if (!err) {
		what = "STATFS";
		err = aifs_cred_self(&cred) ?:
		      aifs_statfs(conn, &cred, AIFS_ROOT_INO, &c->fs);
	}
	if (!err)
		err = recovery_and_repairs(conn, &c->recovery_reply,
					   &c->recovery, &c->recovering,
					   &c->repairs, &what);
	aifs_close(conn);
	if (err)
		fprintf(stderr, "aifs: %s: %s: %s\n", c->mds, what,
			strerror(-err));
	return err;
}

/* The scrub of every server that serves (not those away or retired). */
static int cluster_scrubs(struct aifs_cli *cli, struct cluster *c)
{
	u32 i, n = le32_to_cpu(c->map.count);
	char addr[64];
	u32 state;

	c->scrub = calloc(n + 1, sizeof(*c->scrub));
	c->scrub_err = calloc(n + 1, sizeof(*c->scrub_err));
	if (!c->scrub || !c->scrub_err)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		state = le32_to_cpu(c->ds[i].state);
		c->scrub_err[i] = -EHOSTDOWN;
		if (state != AIFS_DS_UP && state != AIFS_DS_DRAINING)
			continue;
		ds_address(&c->ds[i].addr, addr, sizeof(addr));
		c->scrub_err[i] = scrub_get(cli, addr, false, true,
					    &c->scrub[i]);
	}
	return 0;
}

static void cluster_free(struct cluster *c)
{
	aifs_reply_free(&c->recovery_reply);
	cli_repairs_free(&c->repairs);
	free(c->ds);
	free(c->scrub);
	free(c->scrub_err);
}

static void scrub_summary(const struct aifs_ds_scrub_rep *r, int err,
			  char *buf, size_t size)
{
	u64 done = le64_to_cpu(r->pass_chunks);
	u64 total = le64_to_cpu(r->pass_total);

	if (err == -EOPNOTSUPP)
		snprintf(buf, size, "off");
	else if (err)
		snprintf(buf, size, "-");
	else if (le32_to_cpu(r->running))
		snprintf(buf, size, "running, %llu %% of pass %llu",
			 (unsigned long long)(total ? 100 * done / total : 0),
			 (unsigned long long)le64_to_cpu(r->passes) + 1);
	else
		snprintf(buf, size, "idle, %llu passes, %llu bad, %llu repaired",
			 (unsigned long long)le64_to_cpu(r->passes),
			 (unsigned long long)le64_to_cpu(r->bad),
			 (unsigned long long)le64_to_cpu(r->resynced));
}

static void print_server(const struct cluster *c, u32 i)
{
	const struct aifs_ds_info *d = &c->ds[i];
	u64 cap = le64_to_cpu(d->capacity), free = le64_to_cpu(d->free);
	char addr[64], a[24], b[24], f[24], scrub[96];

	ds_address(&d->addr, addr, sizeof(addr));
	scrub_summary(&c->scrub[i], c->scrub_err[i], scrub, sizeof(scrub));
	printf("%4u  %-22s %-9s %-4s %10s %10s %10s  %s\n",
	       le32_to_cpu(d->id), addr, ds_state_name(le32_to_cpu(d->state)),
	       le32_to_cpu(d->flags) & AIFS_DS_RDMA ? "yes" : "no",
	       cli_human(cap, "B", a, sizeof(a)),
	       cli_human(cap > free ? cap - free : 0, "B", b, sizeof(b)),
	       cli_human(free, "B", f, sizeof(f)), scrub);
}

static void print_cluster(const struct cluster *c)
{
	u64 total = le64_to_cpu(c->fs.total_bytes);
	u64 free = le64_to_cpu(c->fs.free_bytes);
	u32 i, n = le32_to_cpu(c->map.count);
	char a[24], b[24];

	printf("metadata server %s, cluster map epoch %llu\n", c->mds,
	       (unsigned long long)le64_to_cpu(c->map.epoch));
	printf("space: %s free of %s (%llu %% used); %llu files, room for %llu more\n",
	       cli_human(free, "B", a, sizeof(a)),
	       cli_human(total, "B", b, sizeof(b)),
	       (unsigned long long)(total ? 100 * (total - free) / total : 0),
	       (unsigned long long)le64_to_cpu(c->fs.files),
	       (unsigned long long)le64_to_cpu(c->fs.files_free));
	printf("data servers: %u\n%4s  %-22s %-9s %-4s %10s %10s %10s  %s\n", n,
	       "ID", "ADDRESS", "STATE", "RDMA", "CAPACITY", "USED", "FREE",
	       "SCRUB");
	for (i = 0; i < n; i++)
		print_server(c, i);
	print_recovery(&c->recovery, c->recovering, &c->repairs);
}

static struct json_object *json_server(const struct cluster *c, u32 i)
{
	const struct aifs_ds_info *d = &c->ds[i];
	struct json_object *o = json_object_new_object();
	u64 cap = le64_to_cpu(d->capacity), free = le64_to_cpu(d->free);
	char addr[64];

	ds_address(&d->addr, addr, sizeof(addr));
	json_object_object_add(o, "id",
			       json_object_new_int64(le32_to_cpu(d->id)));
	json_object_object_add(o, "address", json_object_new_string(addr));
	json_object_object_add(o, "state", json_object_new_string(
		ds_state_name(le32_to_cpu(d->state))));
	json_object_object_add(o, "rdma", json_object_new_boolean(
		le32_to_cpu(d->flags) & AIFS_DS_RDMA));
	json_object_object_add(o, "capacity_bytes",
			       json_object_new_uint64(cap));
	json_object_object_add(o, "used_bytes", json_object_new_uint64(
		cap > free ? cap - free : 0));
	json_object_object_add(o, "free_bytes", json_object_new_uint64(free));
	json_object_object_add(o, "epoch",
			       json_object_new_uint64(le64_to_cpu(d->epoch)));
	json_object_object_add(o, "scrub", c->scrub_err[i] ? NULL :
			       json_scrub(&c->scrub[i]));
	return o;
}

/* The file system's space and inodes, as STATFS gives them. */
static const struct cli_field space_fields[] = {
	CLI_FIELD(struct aifs_statfs_rep, total_bytes),
	CLI_FIELD(struct aifs_statfs_rep, free_bytes),
	CLI_FIELD(struct aifs_statfs_rep, avail_bytes),
	CLI_FIELD(struct aifs_statfs_rep, files),
	CLI_FIELD(struct aifs_statfs_rep, files_free),
};

static struct json_object *json_cluster(const struct cluster *c)
{
	struct json_object *o = json_object_new_object(), *fs, *servers;
	u32 i;

	json_object_object_add(o, "mds", json_object_new_string(c->mds));
	json_object_object_add(o, "epoch", json_object_new_uint64(
		le64_to_cpu(c->map.epoch)));
	fs = json_object_new_object();
	cli_json_fields(fs, space_fields, ARRAY_SIZE(space_fields), &c->fs);
	json_object_object_add(o, "space", fs);
	servers = json_object_new_array();
	for (i = 0; i < le32_to_cpu(c->map.count); i++)
		json_object_array_add(servers, json_server(c, i));
	json_object_object_add(o, "servers", servers);
	json_object_object_add(o, "recovery",
			       json_recovery(&c->recovery, c->recovering));
	json_object_object_add(o, "repairs", cli_repairs_json(&c->repairs));
	return o;
}

/* status [HOST:PORT | MOUNTPOINT] */
int cmd_status(struct aifs_cli *cli, int argc, char **argv)
{
	struct cluster c = { 0 };
	struct stat st;
	int err, ret;

	if (argc > 2) {
		cli_usage(stderr);
		return 2;
	}
	/* a path that exists is a mount; anything else, HOST:PORT */
	if (argc == 2 && stat(argv[1], &st))
		snprintf(c.mds, sizeof(c.mds), "%s", argv[1]);
	else if (mds_of_mount(argc == 2 ? argv[1] : NULL, c.mds,
			      sizeof(c.mds)))
		return 1;
	err = cluster_fetch(cli, &c);
	if (!err)
		err = cluster_scrubs(cli, &c);
	ret = err ? 1 : 0;
	if (!err && cli->json)
		ret = cli_json_put(json_cluster(&c));
	else if (!err)
		print_cluster(&c);
	cluster_free(&c);
	return ret;
}

/* ---- df ---- */

static struct json_object *json_df(const struct cli_mount *m,
				   const struct statvfs *s)
{
	struct json_object *o = json_object_new_object();
	u64 size = (u64)s->f_blocks * s->f_frsize;
	u64 free = (u64)s->f_bfree * s->f_frsize;

	json_object_object_add(o, "mount_point", json_object_new_string(m->dir));
	json_object_object_add(o, "size_bytes", json_object_new_uint64(size));
	json_object_object_add(o, "used_bytes",
			       json_object_new_uint64(size - free));
	json_object_object_add(o, "avail_bytes", json_object_new_uint64(
		(u64)s->f_bavail * s->f_frsize));
	json_object_object_add(o, "inodes", json_object_new_uint64(s->f_files));
	json_object_object_add(o, "inodes_used",
			       json_object_new_uint64(s->f_files - s->f_ffree));
	json_object_object_add(o, "inodes_free",
			       json_object_new_uint64(s->f_ffree));
	return o;
}

static void print_df(const struct cli_mount *m, const struct statvfs *s)
{
	u64 size = (u64)s->f_blocks * s->f_frsize;
	u64 used = size - (u64)s->f_bfree * s->f_frsize;
	u64 avail = (u64)s->f_bavail * s->f_frsize;
	char a[24], b[24], c[24];

	/* as df(1): used / (used + available), rounded up */
	printf("%-24s %10s %10s %10s %4llu%% %12llu %12llu\n", m->dir,
	       cli_human(size, "B", a, sizeof(a)),
	       cli_human(used, "B", b, sizeof(b)),
	       cli_human(avail, "B", c, sizeof(c)),
	       (unsigned long long)(used + avail ?
				    (100 * used + used + avail - 1) /
				    (used + avail) : 0),
	       (unsigned long long)(s->f_files - s->f_ffree),
	       (unsigned long long)s->f_ffree);
}

/* df [MOUNTPOINT...] */
int cmd_df(struct aifs_cli *cli, int argc, char **argv)
{
	struct json_object *all = NULL, *top;
	struct cli_mount *mounts;
	struct statvfs s;
	size_t i, nr;
	int ret = 0;

	if (cli_mounts(argc - 1, argv + 1, &mounts, &nr))
		return 1;
	if (cli->json)
		all = json_object_new_array();
	else
		printf("%-24s %10s %10s %10s %5s %12s %12s\n", "MOUNT", "SIZE",
		       "USED", "AVAIL", "USE%", "INODES USED", "INODES FREE");
	for (i = 0; i < nr; i++) {
		if (statvfs(mounts[i].dir, &s)) {
			fprintf(stderr, "aifs: %s: %s\n", mounts[i].dir,
				strerror(errno));
			ret = 1;
		} else if (all) {
			json_object_array_add(all, json_df(&mounts[i], &s));
		} else {
			print_df(&mounts[i], &s);
		}
	}
	if (all) {
		top = json_object_new_object();
		json_object_object_add(top, "mounts", all);
		ret |= cli_json_put(top);
	}
	cli_mounts_free(mounts, nr);
	return ret;
}
