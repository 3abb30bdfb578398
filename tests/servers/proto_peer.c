// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * aifs-proto-peer: a protocol conformance peer for tests, NOT a file
 * system.  Built on the server runtime, it answers every opcode of the
 * protocol with a valid reply derived from the request (proto_peer.h says
 * how), so that a test can check every field that crosses the wire in
 * both directions.  The real MDS and data servers come in later issues.
 *
 * The little state it keeps sits in one table under one lock: symlink
 * targets, xattrs, registered data servers and chunk data, each an item
 * keyed by a kind byte and the request's identifying bytes.  Handlers
 * that touch the table run on the worker threads (AIFS_HANDLER_BLOCKING),
 * the others on the loop thread, so both paths of the runtime are used.
 */
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>

#include "aifs/server.h"
#include "proto_peer.h"

/* ---- the table ---- */

enum peer_kind {
	PEER_SYMLINK,		/* key: ino; value: target */
	PEER_XATTR,		/* key: ino, name; value: the value */
	PEER_DS,		/* key: uuid; value: struct aifs_ds_info */
	PEER_CHUNK,		/* key: struct aifs_chunk_id; value: data */
};

#define PEER_KEY_MAX	(1 + 8 + AIFS_XATTR_NAME_MAX)

struct peer_key {
	u8 bytes[PEER_KEY_MAX];
	u32 len;
};

struct peer_item {
	struct peer_item *next;
	struct peer_key key;
	u64 version;		/* chunks */
	u8 *value;
	u32 len;
};

struct peer {
	pthread_mutex_t lock;
	struct peer_item *items;	/* newest last */
	u32 next_ds_id;
	u64 epoch;			/* of the cluster map */
};

/* The key of @kind for @a (@alen bytes) followed by @b (@blen bytes). */
static struct peer_key peer_key(u8 kind, const void *a, u32 alen,
				const void *b, u32 blen)
{
	struct peer_key k = { .bytes = { kind }, .len = 1 + alen + blen };

	memcpy(k.bytes + 1, a, alen);
	if (blen)
		memcpy(k.bytes + 1 + alen, b, blen);
	return k;
}

static struct peer_key peer_ino_key(u8 kind, const __le64 *ino,
				    const struct aifs_span *name)
{
	return peer_key(kind, ino, sizeof(*ino), name->data, name->len);
}

static bool peer_key_prefix(const struct peer_item *it,
			    const struct peer_key *k, u32 len)
{
	return it->key.len >= len && !memcmp(it->key.bytes, k->bytes, len);
}

static struct peer_item **peer_find(struct peer *p, const struct peer_key *k)
{
	struct peer_item **pp;

	for (pp = &p->items; *pp; pp = &(*pp)->next)
		if ((*pp)->key.len == k->len && peer_key_prefix(*pp, k, k->len))
			break;
	return pp;
}

static struct peer_item *peer_get(struct peer *p, const struct peer_key *k)
{
	return *peer_find(p, k);
}

static void peer_item_free(struct peer_item *it)
{
	free(it->value);
	free(it);
}

static void peer_del(struct peer_item **pp)
{
	struct peer_item *it = *pp;

	*pp = it->next;
	peer_item_free(it);
}

/* Resize @it's value to @len bytes, zero-filling what grows. */
static int peer_resize(struct peer_item *it, u32 len)
{
	u8 *v = realloc(it->value, len ? len : 1);

	if (!v)
		return -ENOMEM;
	if (len > it->len)
		memset(v + it->len, 0, len - it->len);
	it->value = v;
	it->len = len;
	return 0;
}

/* The item of @k, created empty if there is none. */
static struct peer_item *peer_get_new(struct peer *p, const struct peer_key *k)
{
	struct peer_item **pp = peer_find(p, k);

	if (!*pp) {
		*pp = calloc(1, sizeof(**pp));
		if (*pp)
			(*pp)->key = *k;
	}
	return *pp;
}

/* Store a copy of @len bytes at @v under @k. */
static int peer_put(struct peer *p, const struct peer_key *k, const void *v,
		    u32 len)
{
	struct peer_item *it = peer_get_new(p, k);

	if (!it || peer_resize(it, len))
		return -ENOMEM;
	memcpy(it->value, v, len);
	return 0;
}

/* ---- one request ---- */

#define PEER_FIXED_MAX	AIFS_CREATE_REP_SIZE	/* largest fixed struct */

/* The result of a handler that wants its reply sent raw (undecodable). */
#define PEER_RAW	1

/**
 * struct peer_call - a decoded request and the reply being built
 * @p:       the peer (its lock held)
 * @req:     the request's fixed struct
 * @in:      its variable parts
 * @rep:     the reply's fixed struct, zeroed
 * @out:     the reply's variable parts
 * @scratch: memory @out may point into, freed after encoding
 * @raw_len: with PEER_RAW: bytes of @rep to send, unchecked
 */
struct peer_call {
	struct peer *p;
	union {
		u8 req[PEER_FIXED_MAX];
		u64 req_align;
	};
	struct aifs_span in[AIFS_MSG_MAX_PARTS];
	union {
		u8 rep[PEER_FIXED_MAX];
		u64 rep_align;
	};
	struct aifs_span out[AIFS_MSG_MAX_PARTS];
	void *scratch;
	u32 raw_len;
};

typedef int peer_fn(struct peer_call *c);

/* Encode the reply of @c into a new buffer for the runtime. */
static int peer_reply(struct aifs_request *req, struct peer_call *c, int ret)
{
	int size = aifs_msg_fixed_size(req->opcode, true);
	u32 len = size + c->out[0].len + c->out[1].len;
	int n;

	req->reply = malloc(len ? len : 1);
	if (!req->reply)
		return -ENOMEM;
	if (ret == PEER_RAW) {
		memcpy(req->reply, c->rep, c->raw_len);
		req->reply_len = c->raw_len;
		return 0;
	}
	n = aifs_msg_encode(req->opcode, true, req->reply, len, c->rep, size,
			    c->out);
	if (n < 0) {
		aifs_err("%s: reply does not encode: %d",
			 aifs_opcode_name(req->opcode), n);
		return n;
	}
	req->reply_len = n;
	return 0;
}

static const struct peer_op {
	peer_fn *fn;
	unsigned int flags;
} peer_ops[];

/* Every opcode: decode, derive the reply under the lock, encode. */
static int peer_serve(struct aifs_request *req)
{
	struct peer_call *c;
	int ret;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->p = req->data;
	ret = aifs_msg_decode(req->opcode, false, req->payload,
			      req->payload_len, c->req,
			      aifs_msg_fixed_size(req->opcode, false), c->in);
	if (!ret) {
		c->raw_len = aifs_msg_fixed_size(req->opcode, true);
		pthread_mutex_lock(&c->p->lock);
		ret = peer_ops[req->opcode].fn(c);
		if (ret >= 0)
			ret = peer_reply(req, c, ret);
		pthread_mutex_unlock(&c->p->lock);
	}
	if (ret) {
		free(req->reply);
		req->reply = NULL;
	}
	free(c->scratch);
	free(c);
	return ret;
}

/* ---- namespace ---- */

/* Every namespace request starts with the credentials. */
static const struct aifs_cred *peer_cred(const struct peer_call *c)
{
	return (const struct aifs_cred *)c->req;
}

static void peer_dir(struct aifs_attr *a, const struct peer_call *c,
		     __le64 dir)
{
	peer_attr(a, le64_to_cpu(dir), PEER_DIR_MODE, peer_cred(c));
}

/* @a: the entry @name of @dir, of @mode. */
static u64 peer_entry(struct aifs_attr *a, const struct peer_call *c,
		      __le64 dir, const struct aifs_span *name, u32 mode)
{
	u64 ino = peer_ino(le64_to_cpu(dir), name->data, name->len);

	peer_attr(a, ino, mode, peer_cred(c));
	return ino;
}

static bool peer_is(const struct aifs_span *name, const char *s)
{
	return name->len == strlen(s) && !memcmp(name->data, s, name->len);
}

static int peer_lookup(struct peer_call *c)
{
	const struct aifs_name_req *r = (const void *)c->req;
	struct aifs_entry_rep *e = (void *)c->rep;

	if (peer_is(&c->in[0], PEER_ENOENT))
		return -ENOENT;
	peer_dir(&e->dir, c, r->ino);
	peer_entry(&e->attr, c, r->ino, &c->in[0], PEER_FILE_MODE);
	if (!peer_is(&c->in[0], PEER_BADREPLY))
		return 0;
	c->raw_len--;
	return PEER_RAW;
}

static int peer_getattr(struct peer_call *c)
{
	const struct aifs_ino_req *r = (const void *)c->req;
	struct aifs_attr *a = (void *)c->rep;
	u64 ino = le64_to_cpu(r->ino);

	if (ino == PEER_INO_STALE)
		return -ESTALE;
	peer_attr(a, ino, PEER_FILE_MODE, peer_cred(c));
	if (ino != PEER_INO_BAD)
		return 0;
	a->ino = 0;
	return PEER_RAW;
}

static int peer_setattr(struct peer_call *c)
{
	const struct aifs_setattr_req *r = (const void *)c->req;
	struct aifs_attr *a = (void *)c->rep;
	u32 valid = le32_to_cpu(r->valid);
	const struct aifs_timespec now = { .sec = cpu_to_le64(PEER_NOW) };

	peer_attr(a, le64_to_cpu(r->ino), PEER_FILE_MODE, peer_cred(c));
	if (valid & AIFS_SETATTR_MODE)
		a->mode = cpu_to_le32(S_IFREG | (le32_to_cpu(r->mode) & 07777));
	if (valid & AIFS_SETATTR_UID)
		a->uid = r->uid;
	if (valid & AIFS_SETATTR_GID)
		a->gid = r->gid;
	if (valid & AIFS_SETATTR_SIZE)
		a->size = r->size;
	if (valid & AIFS_SETATTR_ATIME)
		a->atime = r->atime;
	if (valid & AIFS_SETATTR_MTIME)
		a->mtime = r->mtime;
	if (valid & AIFS_SETATTR_ATIME_NOW)
		a->atime = now;
	if (valid & AIFS_SETATTR_MTIME_NOW)
		a->mtime = now;
	a->ctime = now;
	return 0;
}

/* CREATE, MKDIR, MKNOD: the new inode of the requested type. */
static u64 peer_new(struct aifs_attr *dir, struct aifs_attr *a,
		    const struct peer_call *c, u32 type)
{
	const struct aifs_create_req *r = (const void *)c->req;
	u32 perm = le32_to_cpu(r->mode) & ~le32_to_cpu(r->umask) & 07777;

	peer_dir(dir, c, r->parent);
	return peer_entry(a, c, r->parent, &c->in[0], type | perm);
}

static int peer_create(struct peer_call *c)
{
	const struct aifs_create_req *r = (const void *)c->req;
	struct aifs_create_rep *rep = (void *)c->rep;
	u64 ino;

	if ((le32_to_cpu(r->open_flags) & AIFS_OPEN_EXCL) &&
	    peer_is(&c->in[0], PEER_EXISTS))
		return -EEXIST;
	ino = peer_new(&rep->dir, &rep->open.attr, c, S_IFREG);
	peer_layout(&rep->open.layout, ino);
	rep->open.handle = cpu_to_le64(peer_handle(ino));
	return 0;
}

static int peer_mkdir(struct peer_call *c)
{
	struct aifs_entry_rep *e = (void *)c->rep;

	if (peer_is(&c->in[0], PEER_EXISTS))
		return -EEXIST;
	peer_new(&e->dir, &e->attr, c, S_IFDIR);
	return 0;
}

static int peer_mknod(struct peer_call *c)
{
	const struct aifs_create_req *r = (const void *)c->req;
	struct aifs_entry_rep *e = (void *)c->rep;
	u32 type = le32_to_cpu(r->mode) & S_IFMT;

	if (type == S_IFDIR)
		return -EINVAL;
	peer_new(&e->dir, &e->attr, c, type ? type : S_IFREG);
	e->attr.rdev_major = r->rdev_major;
	e->attr.rdev_minor = r->rdev_minor;
	return 0;
}

/* UNLINK, RMDIR: the entry, with no link left. */
static int peer_remove(struct peer_call *c, u32 mode)
{
	const struct aifs_name_req *r = (const void *)c->req;
	struct aifs_entry_rep *e = (void *)c->rep;

	if (peer_is(&c->in[0], PEER_ENOENT))
		return -ENOENT;
	peer_dir(&e->dir, c, r->ino);
	peer_entry(&e->attr, c, r->ino, &c->in[0], mode);
	e->attr.nlink = 0;
	return 0;
}

static int peer_unlink(struct peer_call *c)
{
	return peer_remove(c, PEER_FILE_MODE);
}

static int peer_rmdir(struct peer_call *c)
{
	if (peer_is(&c->in[0], PEER_NOTEMPTY))
		return -ENOTEMPTY;
	return peer_remove(c, PEER_DIR_MODE);
}

static int peer_rename(struct peer_call *c)
{
	const struct aifs_rename_req *r = (const void *)c->req;
	struct aifs_rename_rep *rep = (void *)c->rep;
	u32 flags = le32_to_cpu(r->flags);

	if ((flags & AIFS_RENAME_NOREPLACE) && peer_is(&c->in[1], PEER_EXISTS))
		return -EEXIST;
	peer_dir(&rep->old_dir, c, r->old_parent);
	peer_dir(&rep->new_dir, c, r->new_parent);
	peer_entry(&rep->attr, c, r->old_parent, &c->in[0], PEER_FILE_MODE);
	if (flags & AIFS_RENAME_EXCHANGE)
		peer_entry(&rep->target, c, r->new_parent, &c->in[1],
			   PEER_FILE_MODE);
	return 0;
}

static int peer_link(struct peer_call *c)
{
	const struct aifs_link_req *r = (const void *)c->req;
	struct aifs_entry_rep *e = (void *)c->rep;

	peer_dir(&e->dir, c, r->new_parent);
	peer_attr(&e->attr, le64_to_cpu(r->ino), PEER_FILE_MODE, peer_cred(c));
	e->attr.nlink = cpu_to_le32(2);
	return 0;
}

static int peer_symlink(struct peer_call *c)
{
	const struct aifs_symlink_req *r = (const void *)c->req;
	struct aifs_entry_rep *e = (void *)c->rep;
	struct peer_key k;
	__le64 ino;

	peer_dir(&e->dir, c, r->parent);
	ino = cpu_to_le64(peer_entry(&e->attr, c, r->parent, &c->in[0],
				     S_IFLNK | 0777));
	e->attr.size = cpu_to_le64(c->in[1].len);
	k = peer_key(PEER_SYMLINK, &ino, sizeof(ino), NULL, 0);
	return peer_put(c->p, &k, c->in[1].data, c->in[1].len);
}

static int peer_readlink(struct peer_call *c)
{
	const struct aifs_ino_req *r = (const void *)c->req;
	struct peer_key k = peer_key(PEER_SYMLINK, &r->ino, sizeof(r->ino),
				     NULL, 0);
	struct peer_item *it = peer_get(c->p, &k);

	if (!it)
		return -EINVAL;
	c->out[0] = (struct aifs_span){ it->value, it->len };
	return 0;
}

static int peer_readdir(struct peer_call *c)
{
	const struct aifs_readdir_req *r = (const void *)c->req;
	struct aifs_readdir_rep *rep = (void *)c->rep;
	u32 max = le32_to_cpu(r->max_entries);
	u64 i = le64_to_cpu(r->cookie);
	struct aifs_dirent_buf b;
	struct aifs_attr a;
	char name[16];
	int len;

	if (i > PEER_DIR_ENTRIES)
		return -EINVAL;
	c->scratch = malloc(AIFS_MAX_PAYLOAD);
	if (!c->scratch)
		return -ENOMEM;
	aifs_dirents_init(&b, c->scratch, le32_to_cpu(r->max_bytes) <
			  AIFS_MAX_PAYLOAD ? le32_to_cpu(r->max_bytes) :
			  AIFS_MAX_PAYLOAD);
	for (; i < PEER_DIR_ENTRIES && b.count < max; i++) {
		len = snprintf(name, sizeof(name), "f%05u", (unsigned int)i);
		peer_entry(&a, c, r->ino, &(struct aifs_span){ name, len },
			   PEER_FILE_MODE);
		if (aifs_dirents_add(&b, i + 1, &a, name, len))
			break;
	}
	rep->count = cpu_to_le32(b.count);
	rep->flags = cpu_to_le32(i == PEER_DIR_ENTRIES ? AIFS_READDIR_EOF : 0);
	c->out[0] = (struct aifs_span){ b.buf + AIFS_READDIR_REP_SIZE, b.used };
	return 0;
}

static int peer_statfs_op(struct peer_call *c)
{
	const struct aifs_ino_req *r = (const void *)c->req;

	peer_statfs((void *)c->rep, le64_to_cpu(r->ino), peer_cred(c));
	return 0;
}

/* The reply of GETXATTR and LISTXATTR: @len bytes at @v, room @size. */
static int peer_xattr_rep(struct peer_call *c, const void *v, u32 len,
			  __le32 size)
{
	struct aifs_xattr_rep *rep = (void *)c->rep;

	rep->size = cpu_to_le32(len);
	if (!size)
		return 0;
	if (len > le32_to_cpu(size))
		return -ERANGE;
	rep->len = cpu_to_le32(len);
	c->out[0] = (struct aifs_span){ v, len };
	return 0;
}

static int peer_getxattr(struct peer_call *c)
{
	const struct aifs_getxattr_req *r = (const void *)c->req;
	struct peer_key k = peer_ino_key(PEER_XATTR, &r->ino, &c->in[0]);
	struct peer_item *it = peer_get(c->p, &k);

	if (!it)
		return -ENODATA;
	return peer_xattr_rep(c, it->value, it->len, r->size);
}

static int peer_listxattr(struct peer_call *c)
{
	const struct aifs_listxattr_req *r = (const void *)c->req;
	struct peer_key k = peer_key(PEER_XATTR, &r->ino, sizeof(r->ino),
				     NULL, 0);
	struct peer_item *it;
	u8 *list;
	u32 len = 0, n;

	list = c->scratch = malloc(AIFS_XATTR_SIZE_MAX);
	if (!list)
		return -ENOMEM;
	for (it = c->p->items; it; it = it->next) {
		if (!peer_key_prefix(it, &k, k.len))
			continue;
		n = it->key.len - k.len;
		if (len + n + 1 > AIFS_XATTR_SIZE_MAX)
			return -E2BIG;
		memcpy(list + len, it->key.bytes + k.len, n);
		list[len + n] = '\0';
		len += n + 1;
	}
	return peer_xattr_rep(c, list, len, r->size);
}

/* SETXATTR, REMOVEXATTR: the inode's attributes. */
static void peer_xattr_attr(struct peer_call *c, __le64 ino)
{
	peer_attr((void *)c->rep, le64_to_cpu(ino), PEER_FILE_MODE,
		  peer_cred(c));
}

static int peer_setxattr(struct peer_call *c)
{
	const struct aifs_setxattr_req *r = (const void *)c->req;
	struct peer_key k = peer_ino_key(PEER_XATTR, &r->ino, &c->in[0]);
	u32 flags = le32_to_cpu(r->flags);
	bool exists = peer_get(c->p, &k);

	if ((flags & AIFS_XATTR_CREATE) && exists)
		return -EEXIST;
	if ((flags & AIFS_XATTR_REPLACE) && !exists)
		return -ENODATA;
	peer_xattr_attr(c, r->ino);
	return peer_put(c->p, &k, c->in[1].data, c->in[1].len);
}

static int peer_removexattr(struct peer_call *c)
{
	const struct aifs_name_req *r = (const void *)c->req;
	struct peer_key k = peer_ino_key(PEER_XATTR, &r->ino, &c->in[0]);
	struct peer_item **pp = peer_find(c->p, &k);

	if (!*pp)
		return -ENODATA;
	peer_del(pp);
	peer_xattr_attr(c, r->ino);
	return 0;
}

static int peer_open(struct peer_call *c)
{
	const struct aifs_open_req *r = (const void *)c->req;
	struct aifs_open_rep *rep = (void *)c->rep;
	u64 ino = le64_to_cpu(r->ino);

	peer_attr(&rep->attr, ino, PEER_FILE_MODE, peer_cred(c));
	peer_layout(&rep->layout, ino);
	rep->handle = cpu_to_le64(peer_handle(ino));
	return 0;
}

static int peer_close(struct peer_call *c)
{
	const struct aifs_close_req *r = (const void *)c->req;
	struct aifs_attr *a = (void *)c->rep;
	u64 ino = le64_to_cpu(r->ino);

	if (le64_to_cpu(r->handle) != peer_handle(ino))
		return -EBADF;
	peer_attr(a, ino, PEER_FILE_MODE, peer_cred(c));
	if (le32_to_cpu(r->flags) & AIFS_CLOSE_SIZE) {
		a->size = r->size;
		a->mtime = r->mtime;
	}
	return 0;
}

static int peer_layout_get(struct peer_call *c)
{
	const struct aifs_ino_req *r = (const void *)c->req;

	peer_layout((void *)c->rep, le64_to_cpu(r->ino));
	return 0;
}

/* The layout asked for, one generation on, targets 1.. if left open. */
static int peer_layout_set(struct peer_call *c)
{
	const struct aifs_layout_set_req *r = (const void *)c->req;
	struct aifs_layout *l = (void *)c->rep;
	u32 width, i;

	*l = r->layout;
	l->generation = cpu_to_le32(le32_to_cpu(l->generation) + 1);
	if (l->target_count || l->type == AIFS_LAYOUT_INLINE)
		return 0;
	width = l->type == AIFS_LAYOUT_EC ? l->ec_k + l->ec_m : l->replicas;
	l->target_count = cpu_to_le16(le16_to_cpu(l->stripe_count) * width);
	for (i = 0; i < le16_to_cpu(l->target_count); i++)
		l->targets[i] = cpu_to_le32(i + 1);
	return 0;
}

/* ---- cluster map ---- */

static int peer_map_get(struct peer_call *c)
{
	const struct aifs_map_get_req *r = (const void *)c->req;
	struct aifs_map_rep *rep = (void *)c->rep;
	struct aifs_ds_info *ds;
	struct peer_item *it;
	u32 n = 0;

	rep->epoch = cpu_to_le64(c->p->epoch);
	if (le64_to_cpu(r->epoch) == c->p->epoch) {
		rep->flags = cpu_to_le32(AIFS_MAP_UNCHANGED);
		return 0;
	}
	ds = c->scratch = calloc(c->p->next_ds_id + 1, sizeof(*ds));
	if (!ds)
		return -ENOMEM;
	for (it = c->p->items; it; it = it->next)
		if (it->key.bytes[0] == PEER_DS)
			memcpy(&ds[n++], it->value, sizeof(*ds));
	c->out[0] = (struct aifs_span){ ds, n * sizeof(*ds) };
	return 0;
}

/* The registered data server @id. */
static struct aifs_ds_info *peer_ds(struct peer *p, __le32 id)
{
	struct aifs_ds_info *ds;
	struct peer_item *it;

	for (it = p->items; it; it = it->next) {
		ds = (void *)it->value;
		if (it->key.bytes[0] == PEER_DS && ds->id == id)
			return ds;
	}
	return NULL;
}

static int peer_ds_register(struct peer_call *c)
{
	const struct aifs_ds_register_req *r = (const void *)c->req;
	struct aifs_ds_register_rep *rep = (void *)c->rep;
	struct peer_key k = peer_key(PEER_DS, r->uuid, sizeof(r->uuid),
				     NULL, 0);
	struct peer_item *it = peer_get(c->p, &k);
	struct aifs_ds_info ds = {
		.state = cpu_to_le32(AIFS_DS_UP),
		.capacity = r->capacity,
		.free = r->free,
		.addr = r->addr,
		.flags = r->flags,
	};

	if (it) {
		ds.id = ((struct aifs_ds_info *)it->value)->id;
		if (r->id && r->id != ds.id)
			return -EEXIST;
	} else {
		ds.id = cpu_to_le32(++c->p->next_ds_id);
	}
	ds.epoch = cpu_to_le64(++c->p->epoch);
	memcpy(ds.uuid, r->uuid, sizeof(ds.uuid));
	rep->id = ds.id;
	rep->heartbeat_ms = cpu_to_le32(peer_heartbeat_ms(le32_to_cpu(ds.id)));
	rep->epoch = ds.epoch;
	return peer_put(c->p, &k, &ds, sizeof(ds));
}

/* A server with no free space drains. */
static int peer_ds_heartbeat(struct peer_call *c)
{
	const struct aifs_ds_heartbeat_req *r = (const void *)c->req;
	struct aifs_ds_heartbeat_rep *rep = (void *)c->rep;
	struct aifs_ds_info *ds = peer_ds(c->p, r->id);

	if (!ds)
		return -ENOENT;
	ds->capacity = r->capacity;
	ds->free = r->free;
	ds->state = cpu_to_le32(r->free ? AIFS_DS_UP : AIFS_DS_DRAINING);
	rep->state = ds->state;
	rep->epoch = cpu_to_le64(c->p->epoch);
	return 0;
}

/* ---- data ---- */

static struct peer_key peer_chunk_key(const struct aifs_chunk_id *id)
{
	return peer_key(PEER_CHUNK, id, sizeof(*id), NULL, 0);
}

static int peer_chunk_read(struct peer_call *c)
{
	const struct aifs_chunk_read_req *r = (const void *)c->req;
	struct aifs_chunk_read_rep *rep = (void *)c->rep;
	struct peer_key k = peer_chunk_key(&r->id);
	struct peer_item *it = peer_get(c->p, &k);
	u32 off = le32_to_cpu(r->offset), n = 0;

	if (!it)
		return -ENOENT;
	if (it->version < le64_to_cpu(r->version))
		return -ESTALE;
	if (off < it->len)
		n = it->len - off;
	if (n > le32_to_cpu(r->length))
		n = le32_to_cpu(r->length);
	rep->version = cpu_to_le64(it->version);
	rep->chunk_len = cpu_to_le32(it->len);
	c->out[0] = (struct aifs_span){ n ? it->value + off : NULL, n };
	return 0;
}

/* CHUNK_WRITE (a new version) and CHUNK_FORWARD (the primary's). */
static int peer_chunk_write(struct peer_call *c)
{
	const struct aifs_chunk_write_req *r = (const void *)c->req;
	struct aifs_chunk_rep *rep = (void *)c->rep;
	struct peer_key k = peer_chunk_key(&r->id);
	struct peer_item *it = peer_get_new(c->p, &k);
	u32 off = le32_to_cpu(r->offset), len = c->in[0].len;

	if (!it || (off + len > it->len && peer_resize(it, off + len)))
		return -ENOMEM;
	memcpy(it->value + off, c->in[0].data, len);
	it->version = r->version ? le64_to_cpu(r->version) : it->version + 1;
	rep->version = cpu_to_le64(it->version);
	rep->length = cpu_to_le32(len);
	return 0;
}

static int peer_chunk_truncate(struct peer_call *c)
{
	const struct aifs_chunk_truncate_req *r = (const void *)c->req;
	struct aifs_chunk_rep *rep = (void *)c->rep;
	struct peer_key k = peer_chunk_key(&r->id);
	struct peer_item *it = peer_get_new(c->p, &k);

	if (!it || peer_resize(it, le32_to_cpu(r->length)))
		return -ENOMEM;
	rep->version = cpu_to_le64(++it->version);
	rep->length = r->length;
	return 0;
}

/* Whether CHUNK_DELETE of @r takes the chunk of @it. */
static bool peer_chunk_doomed(const struct aifs_chunk_delete_req *r,
			      const struct peer_item *it)
{
	const u32 ino_len = 1 + offsetof(struct aifs_chunk_id, index);
	struct peer_key k = peer_chunk_key(&r->id);
	struct aifs_chunk_id id;

	if (!peer_key_prefix(it, &k, ino_len))
		return false;
	memcpy(&id, it->key.bytes + 1, sizeof(id));
	switch (le32_to_cpu(r->flags)) {
	case AIFS_DELETE_INODE:
		return true;
	case AIFS_DELETE_FROM:
		return le32_to_cpu(id.index) >= le32_to_cpu(r->id.index);
	default:
		return it->key.len == k.len && peer_key_prefix(it, &k, k.len);
	}
}

static int peer_chunk_delete(struct peer_call *c)
{
	const struct aifs_chunk_delete_req *r = (const void *)c->req;
	struct peer_item **pp = &c->p->items;

	while (*pp) {
		if (peer_chunk_doomed(r, *pp))
			peer_del(pp);
		else
			pp = &(*pp)->next;
	}
	return 0;
}

static int peer_chunk_checksum(struct peer_call *c)
{
	const struct aifs_chunk_checksum_req *r = (const void *)c->req;
	struct aifs_chunk_checksum_rep *rep = (void *)c->rep;
	struct peer_key k = peer_chunk_key(&r->id);
	struct peer_item *it = peer_get(c->p, &k);
	u32 first = le32_to_cpu(r->first_block), n = 0, i, off;
	u32 blocks;
	__le32 *crcs;

	if (!it)
		return -ENOENT;
	blocks = (it->len + AIFS_BLOCK_SIZE - 1) / AIFS_BLOCK_SIZE;
	if (first < blocks)
		n = blocks - first;
	if (n > le32_to_cpu(r->nr_blocks))
		n = le32_to_cpu(r->nr_blocks);
	crcs = c->scratch = calloc(n + 1, sizeof(*crcs));
	if (!crcs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		off = (first + i) * AIFS_BLOCK_SIZE;
		crcs[i] = cpu_to_le32(aifs_crc32c(it->value + off,
				      it->len - off < AIFS_BLOCK_SIZE ?
				      it->len - off : AIFS_BLOCK_SIZE));
	}
	rep->version = cpu_to_le64(it->version);
	rep->block_size = cpu_to_le32(AIFS_BLOCK_SIZE);
	rep->chunk_len = cpu_to_le32(it->len);
	rep->first_block = r->first_block;
	c->out[0] = (struct aifs_span){ crcs, n * sizeof(*crcs) };
	return 0;
}

static int peer_ds_statfs(struct peer_call *c)
{
	struct aifs_statfs_rep *st = (void *)c->rep;
	struct peer_item *it;
	u64 chunks = 0, bytes = 0;

	for (it = c->p->items; it; it = it->next) {
		if (it->key.bytes[0] == PEER_CHUNK) {
			chunks++;
			bytes += it->len;
		}
	}
	st->total_bytes = cpu_to_le64(PEER_DS_CAPACITY);
	st->free_bytes = cpu_to_le64(PEER_DS_CAPACITY - bytes);
	st->avail_bytes = st->free_bytes;
	st->files = cpu_to_le64(chunks);
	st->bsize = cpu_to_le32(AIFS_BLOCK_SIZE);
	return 0;
}

#define B	AIFS_HANDLER_BLOCKING
static const struct peer_op peer_ops[] = {
	[AIFS_OP_LOOKUP]	= { peer_lookup, 0 },
	[AIFS_OP_GETATTR]	= { peer_getattr, 0 },
	[AIFS_OP_SETATTR]	= { peer_setattr, 0 },
	[AIFS_OP_CREATE]	= { peer_create, 0 },
	[AIFS_OP_MKDIR]		= { peer_mkdir, 0 },
	[AIFS_OP_MKNOD]		= { peer_mknod, 0 },
	[AIFS_OP_UNLINK]	= { peer_unlink, 0 },
	[AIFS_OP_RMDIR]		= { peer_rmdir, 0 },
	[AIFS_OP_RENAME]	= { peer_rename, 0 },
	[AIFS_OP_LINK]		= { peer_link, 0 },
	[AIFS_OP_SYMLINK]	= { peer_symlink, B },
	[AIFS_OP_READLINK]	= { peer_readlink, B },
	[AIFS_OP_READDIR]	= { peer_readdir, 0 },
	[AIFS_OP_STATFS]	= { peer_statfs_op, 0 },
	[AIFS_OP_GETXATTR]	= { peer_getxattr, B },
	[AIFS_OP_SETXATTR]	= { peer_setxattr, B },
	[AIFS_OP_LISTXATTR]	= { peer_listxattr, B },
	[AIFS_OP_REMOVEXATTR]	= { peer_removexattr, B },
	[AIFS_OP_OPEN]		= { peer_open, 0 },
	[AIFS_OP_CLOSE]		= { peer_close, 0 },
	[AIFS_OP_LAYOUT_GET]	= { peer_layout_get, 0 },
	[AIFS_OP_LAYOUT_SET]	= { peer_layout_set, 0 },
	[AIFS_OP_MAP_GET]	= { peer_map_get, B },
	[AIFS_OP_DS_REGISTER]	= { peer_ds_register, B },
	[AIFS_OP_DS_HEARTBEAT]	= { peer_ds_heartbeat, B },
	[AIFS_OP_CHUNK_READ]	= { peer_chunk_read, B },
	[AIFS_OP_CHUNK_WRITE]	= { peer_chunk_write, B },
	[AIFS_OP_CHUNK_TRUNCATE] = { peer_chunk_truncate, B },
	[AIFS_OP_CHUNK_DELETE]	= { peer_chunk_delete, B },
	[AIFS_OP_CHUNK_CHECKSUM] = { peer_chunk_checksum, B },
	[AIFS_OP_CHUNK_FORWARD]	= { peer_chunk_write, B },
	[AIFS_OP_DS_STATFS]	= { peer_ds_statfs, B },
};
#undef B

static int peer_register_all(struct aifs_server *srv, void *data)
{
	u16 op;
	int err;

	(void)data;
	for (op = 0; op < ARRAY_SIZE(peer_ops); op++) {
		if (!peer_ops[op].fn)
			continue;
		err = aifs_server_register(srv, op, peer_serve,
					   peer_ops[op].flags);
		if (err)
			return err;
	}
	return 0;
}

struct peer_config {
	struct aifs_server_config server;
};

static const struct aifs_setting peer_settings[] = {
	AIFS_SERVER_SETTINGS(struct peer_config, server, "7498"),
	{ 0 }
};

static int peer_main(void *data)
{
	struct peer_config *cfg = data;
	struct peer peer = { .lock = PTHREAD_MUTEX_INITIALIZER };
	int err;

	err = aifs_server_serve(&cfg->server, &peer, peer_register_all);
	while (peer.items)
		peer_del(&peer.items);
	return err ? EXIT_FAILURE : EXIT_SUCCESS;
}

int main(int argc, char **argv)
{
	struct peer_config cfg;
	const struct aifs_server_program peer = {
		.name = "aifs-proto-peer",
		.config_path = "/etc/aifs/proto-peer.conf",
		.settings = peer_settings,
		.config = &cfg,
		.server = &cfg.server,
		.main = peer_main,
		.data = &cfg,
	};

	return aifs_server_main(argc, argv, &peer);
}
