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
 */
#include <endian.h>
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

/* 0 and @req's reply set when it was answered before, else -ENOENT. */
int mds_reply_cached(struct mds_txn *t, struct aifs_request *req)
{
	struct reply_key key;
	struct reply_rec rec;
	size_t len;
	MDB_val v;
	int err;

	reply_key(req, &key);
	err = mds_db_get(t, MDS_DB_REPLIES, &key, sizeof(key), &v);
	if (err)
		return err;
	if (v.mv_size < sizeof(rec))
		return -EIO;
	memcpy(&rec, v.mv_data, sizeof(rec));
	if (rec.opcode != req->opcode || rec.request_crc != request_crc(req))
		return -ENOENT;		/* an id reused: a new request */
	len = v.mv_size - sizeof(rec);
	req->reply = len ? malloc(len) : NULL;
	if (len && !req->reply)
		return -ENOMEM;
	memcpy(req->reply, (u8 *)v.mv_data + sizeof(rec), len);
	req->reply_len = len;
	aifs_dbg("request %llu answered from the reply cache",
		 (unsigned long long)req->request_id);
	return 0;
}

int mds_reply_store(struct mds_txn *t, const struct aifs_request *req)
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
	*rec = (struct reply_rec){
		.time = t->now,
		.request_crc = request_crc(req),
		.opcode = req->opcode,
	};
	memcpy(rec + 1, req->reply, req->reply_len);
	return mds_db_put(t, MDS_DB_REPLY_AGE, &age, sizeof(age), NULL, 0, 0);
}

/* Drop entries older than reply_cache_seconds, oldest first. */
int mds_reply_prune(struct mds_txn *t)
{
	s64 limit = t->now - t->mds->cfg->reply_cache_seconds * NSEC_PER_SEC;
	struct reply_age_key age;
	MDB_cursor *cur;
	MDB_val k, v;
	int rc, err, n;

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
		if (!rc)
			rc = mdb_cursor_get(cur, &k, &v, MDB_GET_CURRENT);
	}
	mdb_cursor_close(cur);
	if (err)
		return err;
	return rc == MDB_NOTFOUND ? 0 : mds_db_errno(rc);
}
