// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The reply cache: the reply of every change a client made, by (client,
 * request id), written in the transaction of the change itself.  A
 * request that comes again (the client retried after a lost reply or a
 * reconnection) is answered from here and not applied a second time.
 *
 * The client is the node uuid of its HELLO, so that a retry on a new
 * connection finds its first run; a client without one is known by its
 * session only.  A client must keep its request ids unique across its
 * connections for as long as entries live (reply_cache_seconds).  As
 * Linux's nfsd does, an entry also holds a CRC of the request: a request
 * with a reused id but other content is a new request, not a retry.
 * Failed requests changed nothing and are not kept.
 *
 * "reply_age" indexes the entries by time so that the writer's chores
 * can drop the old ones in order.
 *
 * A change that wrote nothing to the database (an OPEN for reading, the
 * CLOSE of such an open: the opens live in memory only) keeps its reply
 * in memory instead, so that its batch commits nothing and costs no
 * fsync.  A retry within the server's life still gets the same handle;
 * after a restart the entry is gone with the opens it spoke of.  Memory
 * entries go at the same age as the others, and the oldest first once
 * they take more than reply_memory_mib.  Only the writer thread uses
 * them.
 */
#include <endian.h>
#include <search.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mds.h"

#define NSEC_PER_SEC		1000000000LL
#define REPLY_PRUNE_MAX		4096	/* entries dropped per chore */

struct reply_key {
	u8 client[MDS_CLIENT_KEY_SIZE];
	__be64 request_id;
};

struct reply_age_key {
	__be64 time;
	struct reply_key key;
};

struct reply_rec {
	s64 time;
	u32 request_crc;
	u16 opcode;
	u16 reserved;
	/* the reply's payload follows */
};

/* A reply kept in memory: the record of "replies", and its key. */
struct reply_mem {
	struct reply_key key;		/* first: the key of the tree */
	struct aifs_list link;		/* in struct mds_replies.age */
	size_t len;			/* of @payload */
	struct reply_rec rec;
	u8 payload[];
};

struct mds_replies {
	void *tree;			/* tsearch tree of struct reply_mem */
	struct aifs_list age;		/* oldest first */
	size_t bytes;
};

void mds_client_key(u64 session_id, const u8 client_uuid[16],
		    u8 key[MDS_CLIENT_KEY_SIZE])
{
	static const u8 none[16];

	memset(key, 0, MDS_CLIENT_KEY_SIZE);
	if (memcmp(client_uuid, none, sizeof(none)))
		memcpy(key, client_uuid, MDS_CLIENT_KEY_SIZE);
	else
		memcpy(key, &session_id, sizeof(session_id));
}

static void reply_key(const struct aifs_request *req, struct reply_key *key)
{
	memset(key, 0, sizeof(*key));
	mds_client_key(req->session_id, req->client_uuid, key->client);
	key->request_id = htobe64(req->request_id);
}

static u32 request_crc(const struct aifs_request *req)
{
	return aifs_crc32c(req->payload, req->payload_len);
}

static int reply_mem_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct reply_key));
}

int mds_replies_create(struct mds *mds)
{
	mds->replies = calloc(1, sizeof(*mds->replies));
	if (!mds->replies)
		return -ENOMEM;
	aifs_list_init(&mds->replies->age);
	return 0;
}

void mds_replies_destroy(struct mds *mds)
{
	if (!mds->replies)
		return;
	tdestroy(mds->replies->tree, free);
	free(mds->replies);
	mds->replies = NULL;
}

static struct reply_mem *reply_mem_find(struct mds_replies *r,
					const struct reply_key *key)
{
	void **node = tfind(key, &r->tree, reply_mem_cmp);

	return node ? *node : NULL;
}

static void reply_mem_drop(struct mds_replies *r, struct reply_mem *m)
{
	tdelete(m, &r->tree, reply_mem_cmp);
	aifs_list_del(&m->link);
	r->bytes -= sizeof(*m) + m->len;
	free(m);
}

/* Drop memory entries older than @limit, then beyond @max bytes. */
static void reply_mem_prune(struct mds_replies *r, s64 limit, size_t max)
{
	struct reply_mem *m;

	while (!aifs_list_empty(&r->age)) {
		m = aifs_list_first(&r->age, struct reply_mem, link);
		if (m->rec.time >= limit && r->bytes <= max)
			break;
		reply_mem_drop(r, m);
	}
}

/*
 * @req's reply from @rec, followed by @len bytes of payload, when @rec
 * was stored for this very request; else -ENOENT.
 */
static int reply_use(struct aifs_request *req, const struct reply_rec *rec,
		     const void *payload, size_t len)
{
	if (rec->opcode != req->opcode || rec->request_crc != request_crc(req))
		return -ENOENT;		/* an id reused: a new request */
	req->reply = len ? malloc(len) : NULL;
	if (len && !req->reply)
		return -ENOMEM;
	memcpy(req->reply, payload, len);
	req->reply_len = len;
	aifs_dbg("request %llu answered from the reply cache",
		 (unsigned long long)req->request_id);
	return 0;
}

/* 0 and @req's reply set when it was answered before, else -ENOENT. */
int mds_reply_cached(struct mds_txn *t, struct aifs_request *req)
{
	struct reply_mem *m;
	struct reply_key key;
	struct reply_rec rec;
	MDB_val v;
	int err;

	reply_key(req, &key);
	m = reply_mem_find(t->mds->replies, &key);
	err = m ? reply_use(req, &m->rec, m->payload, m->len) : -ENOENT;
	if (err != -ENOENT)
		return err;
	err = mds_db_get(t, MDS_DB_REPLIES, &key, sizeof(key), &v);
	if (err)
		return err;
	if (v.mv_size < sizeof(rec))
		return -EIO;
	memcpy(&rec, v.mv_data, sizeof(rec));
	return reply_use(req, &rec, (u8 *)v.mv_data + sizeof(rec),
			 v.mv_size - sizeof(rec));
}

static struct reply_rec reply_rec(const struct mds_txn *t,
				  const struct aifs_request *req)
{
	return (struct reply_rec){
		.time = t->now,
		.request_crc = request_crc(req),
		.opcode = req->opcode,
	};
}

/* The reply of a change that wrote nothing: into memory. */
static int reply_store_mem(struct mds_txn *t, const struct aifs_request *req)
{
	struct mds_replies *r = t->mds->replies;
	struct reply_mem *m, *old;

	m = malloc(sizeof(*m) + req->reply_len);
	if (!m)
		return -ENOMEM;
	reply_key(req, &m->key);
	m->len = req->reply_len;
	m->rec = reply_rec(t, req);
	memcpy(m->payload, req->reply, req->reply_len);
	old = reply_mem_find(r, &m->key);
	if (old)
		reply_mem_drop(r, old);		/* an id reused */
	if (!tsearch(m, &r->tree, reply_mem_cmp)) {
		free(m);
		return -ENOMEM;
	}
	aifs_list_add_tail(&m->link, &r->age);
	r->bytes += sizeof(*m) + m->len;
	reply_mem_prune(r, INT64_MIN,
			(size_t)t->mds->cfg->reply_memory_mib << 20);
	return 0;
}

/* The reply of a change: with it in the database. */
static int reply_store_db(struct mds_txn *t, const struct aifs_request *req)
{
	struct reply_age_key age = { .time = htobe64(t->now) };
	size_t len = sizeof(struct reply_rec) + req->reply_len;
	struct reply_rec *rec;
	MDB_val k, v;
	int err;

	reply_key(req, &age.key);
	k = (MDB_val){ .mv_size = sizeof(age.key), .mv_data = &age.key };
	v = (MDB_val){ .mv_size = len };
	/* Reserve the room and build the record in place. */
	err = mds_db_errno(mdb_put(t->txn, t->mds->dbi[MDS_DB_REPLIES], &k,
				   &v, MDB_RESERVE));
	if (err)
		return err;
	rec = v.mv_data;
	*rec = reply_rec(t, req);
	memcpy(rec + 1, req->reply, req->reply_len);
	return mds_db_put(t, MDS_DB_REPLY_AGE, &age, sizeof(age), NULL, 0, 0);
}

/*
 * Keep the reply of the change @t carried, where the change is: in the
 * database when it wrote anything, else in memory.
 */
int mds_reply_store(struct mds_txn *t, const struct aifs_request *req)
{
	return t->changed ? reply_store_db(t, req) : reply_store_mem(t, req);
}

/* Drop entries older than reply_cache_seconds, oldest first. */
int mds_reply_prune(struct mds_txn *t)
{
	s64 limit = t->now - t->mds->cfg->reply_cache_seconds * NSEC_PER_SEC;
	struct reply_age_key age;
	MDB_cursor *cur;
	MDB_val k, v;
	int rc, err, n;

	reply_mem_prune(t->mds->replies, limit, SIZE_MAX);
	err = mds_db_cursor(t, MDS_DB_REPLY_AGE, &cur);
	if (err)
		return err;
	rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST);
	for (n = 0; !rc && n < REPLY_PRUNE_MAX; n++) {
		if (k.mv_size != sizeof(age)) {
			rc = MDB_CORRUPTED;
			break;
		}
		memcpy(&age, k.mv_data, sizeof(age));
		if ((s64)be64toh(age.time) >= limit)
			break;
		err = mds_db_del(t, MDS_DB_REPLIES, &age.key, sizeof(age.key));
		if (err && err != -ENOENT)
			break;
		err = 0;
		rc = mdb_cursor_del(cur, 0);
		t->changed |= !rc;
		if (!rc)
			rc = mdb_cursor_get(cur, &k, &v, MDB_GET_CURRENT);
	}
	mdb_cursor_close(cur);
	if (err)
		return err;
	return rc == MDB_NOTFOUND ? 0 : mds_db_errno(rc);
}
