// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * What the data servers must repair, as the MDS last heard it
 * (REPAIRS_GET): part of aifs recovery.  An MDS older than the message
 * answers EOPNOTSUPP, and then this part is left out.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"

/* REPAIRS_GET on @conn into @r (cli_repairs_free() frees it). */
int cli_repairs_get(struct aifs_conn *conn, struct cli_repairs *r)
{
	struct aifs_span parts[AIFS_MSG_MAX_PARTS];
	int err;

	memset(r, 0, sizeof(*r));
	err = aifs_call(conn, AIFS_OP_REPAIRS_GET, NULL, 0, &r->reply,
			AIFS_CALL_TIMEOUT_MS);
	if (!err && r->reply.status)
		err = -(int)r->reply.status;
	if (!err)
		err = aifs_decode_repairs_rep(r->reply.payload, r->reply.len,
					      &r->rep, parts);
	if (!err) {
		r->servers = parts[0].data;
		r->list = parts[1].data;
	}
	return err;
}

void cli_repairs_free(struct cli_repairs *r)
{
	aifs_reply_free(&r->reply);
}

static void print_repair_entry(const struct aifs_repair_entry *e)
{
	u16 fragment = le16_to_cpu(e->fragment);

	printf("  inode %llu chunk %u",
	       (unsigned long long)le64_to_cpu(e->ino), le32_to_cpu(e->index));
	if (fragment)
		printf(" fragment %u", fragment);
	printf("%s\n", le16_to_cpu(e->flags) & AIFS_REPAIR_NO_SOURCE ?
	       ": no copy to take it from yet" : "");
}

/* The servers, each followed by the copies it named (what the MDS kept). */
void cli_repairs_print(const struct cli_repairs *r)
{
	u32 s, i, count = le32_to_cpu(r->rep.count);
	u64 marked, listed;
	char when[32];
	time_t t;

	for (s = 0; s < le32_to_cpu(r->rep.servers); s++) {
		const struct aifs_repair_server *srv = &r->servers[s];

		t = le64_to_cpu(srv->reported);
		strftime(when, sizeof(when), "%F %T", localtime(&t));
		marked = le64_to_cpu(srv->marked);
		printf("data server %u: chunk copies to repair: %llu, with no source: %llu (said at %s)\n",
		       le32_to_cpu(srv->id), (unsigned long long)marked,
		       (unsigned long long)le64_to_cpu(srv->no_source), when);
		for (i = 0, listed = 0; i < count; i++) {
			if (r->list[i].server != srv->id)
				continue;
			print_repair_entry(&r->list[i]);
			listed++;
		}
		if (marked > listed)
			printf("  and %llu more (data_dir/repair on the server)\n",
			       (unsigned long long)(marked - listed));
	}
}

static const struct cli_field repair_server_fields[] = {
#define SERVER_FIELD(f) CLI_FIELD(struct aifs_repair_server, f)
	SERVER_FIELD(id), SERVER_FIELD(marked), SERVER_FIELD(no_source),
	SERVER_FIELD(reported),
#undef SERVER_FIELD
};

static const struct cli_field repair_entry_fields[] = {
#define ENTRY_FIELD(f) CLI_FIELD(struct aifs_repair_entry, f)
	ENTRY_FIELD(ino), ENTRY_FIELD(index), ENTRY_FIELD(fragment),
#undef ENTRY_FIELD
};

static struct json_object *json_repair_server(const struct cli_repairs *r,
					      const struct aifs_repair_server *srv)
{
	struct json_object *o = json_object_new_object();
	struct json_object *a = json_object_new_array();
	struct json_object *e;
	u32 i;

	cli_json_fields(o, repair_server_fields,
			ARRAY_SIZE(repair_server_fields), srv);
	for (i = 0; i < le32_to_cpu(r->rep.count); i++) {
		if (r->list[i].server != srv->id)
			continue;
		e = json_object_new_object();
		cli_json_fields(e, repair_entry_fields,
				ARRAY_SIZE(repair_entry_fields), &r->list[i]);
		json_object_object_add(e, "no_source", json_object_new_boolean(
			le16_to_cpu(r->list[i].flags) & AIFS_REPAIR_NO_SOURCE));
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "chunks", a);
	return o;
}

/* "repairs": one object per server, with the copies it named. */
struct json_object *cli_repairs_json(const struct cli_repairs *r)
{
	struct json_object *a = json_object_new_array();
	u32 s;

	for (s = 0; s < le32_to_cpu(r->rep.servers); s++)
		json_object_array_add(a, json_repair_server(r, &r->servers[s]));
	return a;
}
