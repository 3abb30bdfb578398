// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Open files.  OPEN and CREATE hand out a handle; the MDS counts the
 * opens of every inode so that an inode whose last name goes while it is
 * open stays (nlink 0, on the orphan table) until its last CLOSE.
 *
 * Opens belong to a client (mds_client_key()), not to a connection: a
 * client that reconnects keeps its handles, as its retried requests keep
 * their replies.  When the last session of a client with a uuid ends, its
 * opens wait open_grace_ms for a new one, then are released as if
 * closed; a client without a uuid cannot come back, so its opens go with
 * its session.
 *
 * The table of opens lives in memory and only the writer thread touches
 * it: every OPEN, CLOSE, session start and end is a change applied by the
 * writer, so an UNLINK sees exactly the opens committed before it.  After
 * a crash no open survives, and the orphans left in the database are
 * freed at start (mds_orphans_reap).
 */
#include <search.h>
#include <stdlib.h>
#include <string.h>

#include "mds.h"

struct mds_open {
	u64 handle;		/* first: the key of the tree */
	u64 ino;
	u8 client[MDS_CLIENT_KEY_SIZE];
	u32 flags;		/* AIFS_OPEN_* */
	u64 truncs;		/* its inode's, at open or its own truncate */
	u64 detached;		/* aifs_now_ms() its client went, or 0 */
};

/* The live sessions of a client with opens or sessions. */
struct mds_client {
	u8 key[MDS_CLIENT_KEY_SIZE];	/* first: the key of the tree */
	u32 sessions;
};

struct mds_open_count {
	u64 ino;		/* first: the key of the tree */
	u32 count;
	u32 writers;		/* opens for writing */
	u64 truncs;		/* truncations while open */
};

struct mds_opens {
	void *by_handle;	/* tsearch tree of struct mds_open */
	void *by_ino;		/* tsearch tree of struct mds_open_count */
	void *clients;		/* tsearch tree of struct mds_client */
	u64 next_handle;
	u64 detached;		/* opens waiting for their client */
};

/* Both trees are keyed by the u64 their records start with. */
static int opens_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static int clients_cmp(const void *a, const void *b)
{
	return memcmp(a, b, MDS_CLIENT_KEY_SIZE);
}

int mds_opens_create(struct mds *mds)
{
	mds->opens = calloc(1, sizeof(*mds->opens));
	if (!mds->opens)
		return -ENOMEM;
	mds->opens->next_handle = 1;
	return 0;
}

void mds_opens_destroy(struct mds *mds)
{
	if (!mds->opens)
		return;
	tdestroy(mds->opens->by_handle, free);
	tdestroy(mds->opens->by_ino, free);
	tdestroy(mds->opens->clients, free);
	free(mds->opens);
	mds->opens = NULL;
}

static struct mds_open_count *opens_count(struct mds_opens *o, u64 ino)
{
	void **node = tfind(&ino, &o->by_ino, opens_cmp);

	return node ? *node : NULL;
}

bool mds_opens_busy(struct mds *mds, u64 ino)
{
	return opens_count(mds->opens, ino) != NULL;
}

static bool open_flags_write(u32 flags)
{
	return (flags & AIFS_OPEN_ACCMODE) != AIFS_OPEN_RDONLY;
}

bool mds_opens_writing(struct mds *mds, u64 ino)
{
	struct mds_open_count *count = opens_count(mds->opens, ino);

	return count && count->writers;
}

static struct mds_open *opens_find(struct mds_opens *o, u64 handle, u64 ino)
{
	void **node = tfind(&handle, &o->by_handle, opens_cmp);
	struct mds_open *open = node ? *node : NULL;

	return open && open->ino == ino ? open : NULL;
}

bool mds_opens_writable(struct mds *mds, u64 handle, u64 ino)
{
	struct mds_open *open = opens_find(mds->opens, handle, ino);

	return open && open_flags_write(open->flags);
}

/*
 * @ino was cut (through @handle, or 0): a CLOSE of another open must not
 * grow it back to the size its client knew before.  Writer.
 */
void mds_opens_truncated(struct mds *mds, u64 handle, u64 ino)
{
	struct mds_open_count *count = opens_count(mds->opens, ino);
	struct mds_open *open;

	if (!count)
		return;
	count->truncs++;
	open = opens_find(mds->opens, handle, ino);
	if (open)
		open->truncs = count->truncs;
}

static int opens_add(struct mds_opens *o, const struct aifs_request *req,
		     u64 ino, u32 flags, u64 *handle)
{
	struct mds_open_count *count = opens_count(o, ino);
	struct mds_open *open = malloc(sizeof(*open));

	if (!count) {
		count = calloc(1, sizeof(*count));
		if (count) {
			count->ino = ino;
			if (!tsearch(count, &o->by_ino, opens_cmp)) {
				free(count);
				count = NULL;
			}
		}
	}
	if (!open || !count) {
		free(open);
		return -ENOMEM;
	}
	*open = (struct mds_open){ .handle = o->next_handle++, .ino = ino,
				   .flags = flags, .truncs = count->truncs };
	mds_client_key(req->session_id, req->client_uuid, open->client);
	if (!tsearch(open, &o->by_handle, opens_cmp)) {
		free(open);
		return -ENOMEM;
	}
	count->count++;
	count->writers += open_flags_write(flags);
	*handle = open->handle;
	return 0;
}

/* Forget @open; true when it was the last open of its inode. */
static bool opens_del(struct mds_opens *o, struct mds_open *open)
{
	struct mds_open_count *count = opens_count(o, open->ino);

	tdelete(open, &o->by_handle, opens_cmp);
	if (open->detached)
		o->detached--;
	count->writers -= open_flags_write(open->flags);
	free(open);
	if (--count->count)
		return false;
	tdelete(count, &o->by_ino, opens_cmp);
	free(count);
	return true;
}

/* The last open of an inode is gone: free it if it has no name left. */
static int open_last_close(struct mds_txn *t, u64 ino)
{
	struct mds_inode inode;
	int err;

	err = mds_inode_get(t, ino, &inode);
	if (err || inode.nlink)
		return err;
	err = mds_db_del(t, MDS_DB_ORPHANS, &ino, sizeof(ino));
	return err ? err : mds_inode_free(t, &inode);
}

static int open_release(struct mds_txn *t, struct mds_open *open)
{
	u64 ino = open->ino;

	return opens_del(t->mds->opens, open) ? open_last_close(t, ino) : 0;
}

static int open_mask(u32 flags)
{
	static const int acc[] = {
		[AIFS_OPEN_RDONLY] = MDS_MAY_READ,
		[AIFS_OPEN_WRONLY] = MDS_MAY_WRITE,
		[AIFS_OPEN_RDWR] = MDS_MAY_READ | MDS_MAY_WRITE,
		[AIFS_OPEN_ACCMODE] = MDS_MAY_READ | MDS_MAY_WRITE,
	};

	return acc[flags & AIFS_OPEN_ACCMODE] |
		(flags & AIFS_OPEN_TRUNC ? MDS_MAY_WRITE : 0);
}

/*
 * Open @inode for the session of @req: permission (none checked with a
 * NULL @cred: the creator opening its new file), truncation, targets for
 * a file about to be written, then the handle.
 */
int mds_open_inode(struct mds_txn *t, const struct aifs_request *req,
		   const struct mds_cred *cred, struct mds_inode *inode,
		   u32 flags, struct aifs_open_rep *rep)
{
	int mask = open_mask(flags);
	u64 handle;
	int err;

	if (S_ISDIR(inode->mode))
		return -EISDIR;
	if (!S_ISREG(inode->mode))
		return -EINVAL;
	err = cred ? mds_permission(t, cred, inode, mask) : 0;
	/* an archive reads the chunks: they must hold still */
	if (!err && (mask & MDS_MAY_WRITE) && mds_archiving(t, inode->ino))
		err = -EBUSY;
	if (!err && (mask & MDS_MAY_WRITE))
		err = mds_layout_assign(t, &inode->layout);
	if (!err && (flags & AIFS_OPEN_TRUNC) && inode->size) {
		err = mds_chunks_cut(t, inode, 0);
		mds_opens_truncated(t->mds, 0, inode->ino);
		inode->size = 0;
		mds_inode_touch(t, inode, MDS_MTIME | MDS_CTIME);
	}
	if (!err && (mask & MDS_MAY_WRITE))
		err = mds_inode_put(t, inode);
	if (!err)
		err = opens_add(t->mds->opens, req, inode->ino, flags,
				&handle);
	if (err)
		return err;
	mds_inode_to_attr(inode, &rep->attr);
	rep->layout = inode->layout;
	rep->handle = cpu_to_le64(handle);
	return 0;
}

static int apply_open(struct mds_txn *t, struct mds_op *op)
{
	struct aifs_open_rep rep;
	struct aifs_open_req in;
	struct mds_inode inode;
	struct mds_cred cred;
	int err;

	err = mds_decode(op->req, &in, sizeof(in), NULL);
	if (!err)
		err = mds_inode_get(t, le64_to_cpu(in.ino), &inode);
	if (err)
		return err;
	if (le32_to_cpu(in.flags) & AIFS_OPEN_EXCL)
		return -EINVAL;
	mds_cred_from_wire(&cred, &in.cred);
	err = mds_open_inode(t, op->req, &cred, &inode, le32_to_cpu(in.flags),
			     &rep);
	return err ? err : mds_reply(op->req, &rep, sizeof(rep), NULL);
}

int mds_handle_open(struct aifs_request *req)
{
	return mds_write(req, apply_open);
}

/*
 * Close-to-open: the size and mtime the client's writes produced.  The
 * size only grows, and not at all when another opener truncated the file
 * since this open: the client's size then predates the truncation (a
 * write after it that extended the file is committed by fsync's SETATTR).
 */
static int close_commit_size(struct mds_txn *t, struct mds_inode *inode,
			     const struct aifs_close_req *in,
			     const struct mds_open *open)
{
	const struct mds_open_count *count = opens_count(t->mds->opens,
							 inode->ino);

	if (le64_to_cpu(in->size) > inode->size &&
	    open->truncs == count->truncs)
		inode->size = le64_to_cpu(in->size);
	inode->mtime = mds_time_from_wire(&in->mtime);
	mds_inode_touch(t, inode, MDS_CTIME);
	return mds_inode_put(t, inode);
}

static int apply_close(struct mds_txn *t, struct mds_op *op)
{
	u8 client[MDS_CLIENT_KEY_SIZE];
	struct aifs_close_req in;
	struct mds_inode inode;
	struct mds_open *open;
	int err;

	err = mds_decode(op->req, &in, sizeof(in), NULL);
	if (err)
		return err;
	open = opens_find(t->mds->opens, le64_to_cpu(in.handle),
			  le64_to_cpu(in.ino));
	mds_client_key(op->req->session_id, op->req->client_uuid, client);
	if (!open || memcmp(open->client, client, sizeof(client)))
		return -EBADF;
	err = mds_inode_get(t, open->ino, &inode);
	if (!err && (le32_to_cpu(in.flags) & AIFS_CLOSE_SIZE))
		err = close_commit_size(t, &inode, &in, open);
	if (!err)
		err = open_release(t, open);
	if (err)
		return err;
	return mds_reply_attr(op->req, &inode);
}

int mds_handle_close(struct aifs_request *req)
{
	return mds_write(req, apply_close);
}

/* Opens picked by a predicate, collected by twalk_r(). */
struct opens_walk {
	bool (*match)(const struct mds_open *open, const struct opens_walk *w);
	const u8 *client;
	u64 before;		/* detached before this aifs_now_ms() */
	struct mds_open **opens;
	size_t nr, room;
};

static void opens_collect(const void *nodep, VISIT which, void *arg)
{
	struct mds_open *open = *(struct mds_open * const *)nodep;
	struct opens_walk *w = arg;
	struct mds_open **grown;

	if ((which != postorder && which != leaf) || !w->match(open, w))
		return;
	if (w->nr == w->room) {
		w->room = w->room ? 2 * w->room : 16;
		grown = realloc(w->opens, w->room * sizeof(*grown));
		if (!grown)
			return;		/* the rest waits for a later walk */
		w->opens = grown;
	}
	w->opens[w->nr++] = open;
}

static bool open_of_client(const struct mds_open *open,
			   const struct opens_walk *w)
{
	return !memcmp(open->client, w->client, MDS_CLIENT_KEY_SIZE);
}

static bool open_expired(const struct mds_open *open,
			 const struct opens_walk *w)
{
	return open->detached && open->detached < w->before;
}

static void opens_walk(struct mds_opens *o, struct opens_walk *w)
{
	twalk_r(o->by_handle, opens_collect, w);
}

static int opens_release(struct mds_txn *t, struct opens_walk *w)
{
	int err = 0;
	size_t i;

	for (i = 0; i < w->nr && !err; i++)
		err = open_release(t, w->opens[i]);
	return err;
}

static struct mds_client *client_find(struct mds_opens *o, const u8 *key)
{
	void **node = tfind(key, &o->clients, clients_cmp);

	return node ? *node : NULL;
}

static struct mds_client *client_get(struct mds_opens *o, const u8 *key)
{
	struct mds_client *c = client_find(o, key);

	if (c)
		return c;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	memcpy(c->key, key, sizeof(c->key));
	if (!tsearch(c, &o->clients, clients_cmp)) {
		free(c);
		return NULL;
	}
	return c;
}

struct session_event {
	u64 session;
	u8 client[MDS_CLIENT_KEY_SIZE];
	bool has_uuid;
};

static int apply_session_start(struct mds_txn *t, struct mds_op *op)
{
	struct session_event *ev = op->arg;
	struct mds_opens *o = t->mds->opens;
	struct opens_walk w = { .match = open_of_client, .client = ev->client };
	struct mds_client *c = client_get(o, ev->client);
	size_t i, back = 0;

	if (!c) {
		aifs_err("session %llx: out of memory, its client's opens may expire",
			 (unsigned long long)ev->session);
	} else if (!c->sessions++ && o->detached) {
		opens_walk(o, &w);
		for (i = 0; i < w.nr; i++) {
			if (!w.opens[i]->detached)
				continue;
			w.opens[i]->detached = 0;
			o->detached--;
			back++;
		}
		if (back)
			aifs_info("session %llx: its client is back, %zu open files kept",
				  (unsigned long long)ev->session, back);
	}
	free(w.opens);
	free(ev);
	return 0;
}

static int apply_session_end(struct mds_txn *t, struct mds_op *op)
{
	struct session_event *ev = op->arg;
	struct mds_opens *o = t->mds->opens;
	struct opens_walk w = { .match = open_of_client, .client = ev->client };
	struct mds_client *c = client_find(o, ev->client);
	u64 now = aifs_now_ms();
	int err = 0;
	size_t i;

	if (c && --c->sessions) {
		free(ev);
		return 0;
	}
	if (c) {
		tdelete(c, &o->clients, clients_cmp);
		free(c);
	}
	opens_walk(o, &w);
	if (ev->has_uuid && t->mds->cfg->open_grace_ms) {
		for (i = 0; i < w.nr; i++) {
			w.opens[i]->detached = now;
			o->detached++;
		}
	} else {
		err = opens_release(t, &w);
	}
	free(w.opens);
	free(ev);
	return err;
}

static void session_event(struct mds *mds, u64 session_id,
			  const u8 client_uuid[16], mds_apply_fn *apply)
{
	static const u8 none[16];
	struct session_event *ev = malloc(sizeof(*ev));

	if (!ev) {
		aifs_err("session %llx: out of memory, its opens stay until restart",
			 (unsigned long long)session_id);
		return;
	}
	ev->session = session_id;
	mds_client_key(session_id, client_uuid, ev->client);
	ev->has_uuid = memcmp(client_uuid, none, sizeof(none)) != 0;
	mds_write_async(mds, apply, ev);
}

/* The runtime's word that a client has one more session. */
void mds_session_start(void *data, u64 session_id, const u8 client_uuid[16])
{
	session_event(data, session_id, client_uuid, apply_session_start);
}

/* The runtime's word that a session is over: its client may be gone. */
void mds_session_end(void *data, u64 session_id, const u8 client_uuid[16])
{
	session_event(data, session_id, client_uuid, apply_session_end);
}

/* Opens whose client stayed away past open_grace_ms are closed.  Writer. */
int mds_opens_expire(struct mds_txn *t)
{
	struct mds_opens *o = t->mds->opens;
	u64 grace = t->mds->cfg->open_grace_ms, now = aifs_now_ms();
	struct opens_walk w = { .match = open_expired, .before = now - grace };
	int err;

	if (!o->detached || now <= grace)
		return 0;
	opens_walk(o, &w);
	err = opens_release(t, &w);
	if (w.nr)
		aifs_info("%zu open files released: their clients did not come back within %d ms",
			  w.nr, t->mds->cfg->open_grace_ms);
	free(w.opens);
	return err;
}

/* At start, before serving: nothing is open, every orphan goes. */
int mds_orphans_reap(struct mds *mds)
{
	struct mds_txn t = { .mds = mds, .now = mds_now() };
	struct mds_inode inode;
	MDB_cursor *cur;
	MDB_val k, v;
	int rc, err, reaped = 0;

	err = mds_db_errno(mdb_txn_begin(mds->env, NULL, 0, &t.txn));
	if (err)
		return err;
	err = mds_db_cursor(&t, MDS_DB_ORPHANS, &cur);
	if (err) {
		mdb_txn_abort(t.txn);
		return err;
	}
	while (!(rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST))) {
		err = mds_inode_get(&t, *(u64 *)k.mv_data, &inode);
		if (!err && !inode.nlink)
			err = mds_inode_free(&t, &inode);
		if (!err || err == -ESTALE)
			err = mds_db_errno(mdb_cursor_del(cur, 0));
		if (err)
			break;
		reaped++;
	}
	mdb_cursor_close(cur);
	if (!err)
		err = mds_db_errno(mdb_txn_commit(t.txn));
	else
		mdb_txn_abort(t.txn);
	if (reaped && !err)
		aifs_info("freed %d orphaned inodes", reaped);
	return err;
}
