// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * One call per message of the protocol.  Every call is the same round
 * trip, ops_call(): encode the request by opcode with the codec, send it
 * with aifs_call(), turn a non-zero status into -errno, decode the reply by
 * opcode (-EBADMSG if it does not decode: replies are untrusted) and copy
 * its variable parts into the caller's buffers.  The functions below only
 * say which structs and buffers take part.
 */
#include <grp.h>
#include <stdlib.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "internal.h"

/* Requests up to this size are encoded on the stack. */
#define OPS_STACK_BUF	1024

/* Where a variable part of the reply goes: @size bytes at @buf. */
struct ops_out {
	void *buf;
	u32 size;
	u32 len;		/* out: bytes copied */
};

/**
 * struct ops_msg - one round trip
 * @op:       opcode
 * @req:      the fixed request struct
 * @req_size: its size
 * @parts:    the request's variable parts; a data part (CHUNK_WRITE,
 *            CHUNK_FORWARD) has a NULL pointer and is sent from @data
 * @data:     bulk data sent after the encoded request, without a copy
 * @rep:      out: the fixed reply struct (NULL for an empty reply)
 * @rep_size: its size
 * @out:      where the reply's variable parts are copied
 */
struct ops_msg {
	u16 op;
	const void *req;
	u32 req_size;
	struct aifs_span parts[AIFS_MSG_MAX_PARTS];
	const void *data;
	void *rep;
	u32 rep_size;
	struct ops_out out[AIFS_MSG_MAX_PARTS];
};

/* An ops_msg for @op whose fixed reply goes to @rep. */
#define OPS_REP(_op, _rep)						\
	{ .op = (_op), .rep = (_rep), .rep_size = sizeof(*(_rep)) }

/* Its request is @_req (a struct, not a pointer). */
#define OPS_REQ(m, _req) do {						\
	(m)->req = &(_req);						\
	(m)->req_size = sizeof(_req);					\
} while (0)

/* A caller's size_t as a u32 length that still fails the codec's limits. */
static u32 ops_room(size_t size)
{
	return size > AIFS_MAX_PAYLOAD ? AIFS_MAX_PAYLOAD : size;
}

/* A NUL-terminated string as a part (longer than any limit: still too long). */
static struct aifs_span ops_str(const char *s)
{
	return (struct aifs_span){ s, strnlen(s, AIFS_SYMLINK_MAX + 1) };
}

/* A caller's buffer for a variable part of the reply. */
static struct ops_out ops_into(void *buf, size_t size)
{
	return (struct ops_out){ .buf = buf, .size = ops_room(size) };
}

static struct aifs_timespec ops_time(const struct timespec *ts)
{
	return (struct aifs_timespec){
		.sec = cpu_to_le64(ts->tv_sec),
		.nsec = cpu_to_le32(ts->tv_nsec),
	};
}

/* Encode @m's request and send it; the reply is the caller's to free. */
static int ops_send(struct aifs_conn *conn, const struct ops_msg *m,
		    struct aifs_reply *reply)
{
	u8 stack[OPS_STACK_BUF];
	void *buf = stack;
	struct iovec iov[2];
	u32 head = m->req_size, i;
	int len;

	for (i = 0; i < AIFS_MSG_MAX_PARTS; i++)
		if (m->parts[i].data)
			head += m->parts[i].len;
	if (head > sizeof(stack)) {
		buf = malloc(head);
		if (!buf)
			return -ENOMEM;
	}
	len = aifs_msg_encode(m->op, false, buf, head, m->req, m->req_size,
			      m->parts);
	if (len >= 0) {
		iov[0] = (struct iovec){ buf, head };
		iov[1] = (struct iovec){ (void *)m->data, len - head };
		len = aifs_call(conn, m->op, iov, m->data ? 2 : 1, reply,
				conn->call_timeout_ms);
	}
	if (buf != stack)
		free(buf);
	return len;
}

/* Decode a reply into @m's fixed struct and output buffers. */
static int ops_decode(struct ops_msg *m, const struct aifs_reply *reply)
{
	struct aifs_span parts[AIFS_MSG_MAX_PARTS] = { 0 };
	struct ops_out *out;
	u32 i;

	if (aifs_msg_decode(m->op, true, reply->payload, reply->len, m->rep,
			    m->rep_size, parts))
		return -EBADMSG;
	for (i = 0; i < AIFS_MSG_MAX_PARTS; i++) {
		out = &m->out[i];
		if (parts[i].len > out->size)
			return -ERANGE;
		if (parts[i].len)
			memcpy(out->buf, parts[i].data, parts[i].len);
		out->len = parts[i].len;
	}
	return 0;
}

/* The round trip every call of this file makes. */
static int ops_call(struct aifs_conn *conn, struct ops_msg *m)
{
	struct aifs_reply reply;
	int err;

	err = ops_send(conn, m, &reply);
	if (err)
		return err;
	err = reply.status ? -(int)reply.status : ops_decode(m, &reply);
	aifs_reply_free(&reply);
	return err;
}

int aifs_cred_self(struct aifs_cred *cred)
{
	gid_t *groups;
	int n, i;

	memset(cred, 0, sizeof(*cred));
	cred->uid = cpu_to_le32(geteuid());
	cred->gid = cpu_to_le32(getegid());
	n = getgroups(0, NULL);
	if (n <= 0)
		return n < 0 ? -errno : 0;
	groups = calloc(n, sizeof(*groups));
	if (!groups)
		return -ENOMEM;
	n = getgroups(n, groups);
	if (n < 0) {
		free(groups);
		return -errno;
	}
	if (n > AIFS_CRED_MAX_GROUPS)
		n = AIFS_CRED_MAX_GROUPS;
	for (i = 0; i < n; i++)
		cred->groups[i] = cpu_to_le32(groups[i]);
	cred->ngroups = cpu_to_le32(n);
	free(groups);
	return 0;
}

/* ---- namespace ---- */

/* GETATTR, READLINK, STATFS, LAYOUT_GET: an inode. */
static int ops_ino(struct aifs_conn *conn, struct ops_msg *m,
		   const struct aifs_cred *cred, u64 ino)
{
	struct aifs_ino_req req = { .cred = *cred, .ino = cpu_to_le64(ino) };

	OPS_REQ(m, req);
	return ops_call(conn, m);
}

/* LOOKUP, UNLINK, RMDIR, REMOVEXATTR: an inode and a name. */
static int ops_name(struct aifs_conn *conn, struct ops_msg *m,
		    const struct aifs_cred *cred, u64 ino, const char *name)
{
	struct aifs_name_req req = { .cred = *cred, .ino = cpu_to_le64(ino) };

	OPS_REQ(m, req);
	m->parts[0] = ops_str(name);
	return ops_call(conn, m);
}

/* CREATE, MKDIR, MKNOD: a new name. */
static int ops_create(struct aifs_conn *conn, struct ops_msg *m,
		      const struct aifs_cred *cred, u64 dir, const char *name,
		      const struct aifs_create_req *args)
{
	struct aifs_create_req req = *args;

	req.cred = *cred;
	req.parent = cpu_to_le64(dir);
	OPS_REQ(m, req);
	m->parts[0] = ops_str(name);
	return ops_call(conn, m);
}

int aifs_lookup(struct aifs_conn *conn, const struct aifs_cred *cred,
		u64 dir, const char *name, struct aifs_entry_rep *entry)
{
	struct ops_msg m = OPS_REP(AIFS_OP_LOOKUP, entry);

	return ops_name(conn, &m, cred, dir, name);
}

int aifs_getattr(struct aifs_conn *conn, const struct aifs_cred *cred,
		 u64 ino, struct aifs_attr *attr)
{
	struct ops_msg m = OPS_REP(AIFS_OP_GETATTR, attr);

	return ops_ino(conn, &m, cred, ino);
}

int aifs_setattr(struct aifs_conn *conn, const struct aifs_cred *cred,
		 const struct aifs_setattr *sa, struct aifs_attr *attr)
{
	struct aifs_setattr_req req = {
		.cred = *cred,
		.ino = cpu_to_le64(sa->ino),
		.handle = cpu_to_le64(sa->handle),
		.valid = cpu_to_le32(sa->valid),
		.mode = cpu_to_le32(sa->mode),
		.uid = cpu_to_le32(sa->uid),
		.gid = cpu_to_le32(sa->gid),
		.size = cpu_to_le64(sa->size),
		.atime = ops_time(&sa->atime),
		.mtime = ops_time(&sa->mtime),
	};
	struct ops_msg m = OPS_REP(AIFS_OP_SETATTR, attr);

	OPS_REQ(&m, req);
	return ops_call(conn, &m);
}

int aifs_create(struct aifs_conn *conn, const struct aifs_cred *cred,
		u64 dir, const char *name, u32 mode, u32 umask,
		u32 open_flags, struct aifs_create_rep *rep)
{
	struct aifs_create_req req = {
		.mode = cpu_to_le32(mode & S_IFMT ? mode : mode | S_IFREG),
		.umask = cpu_to_le32(umask),
		.open_flags = cpu_to_le32(open_flags),
	};
	struct ops_msg m = OPS_REP(AIFS_OP_CREATE, rep);

	return ops_create(conn, &m, cred, dir, name, &req);
}

int aifs_mkdir(struct aifs_conn *conn, const struct aifs_cred *cred,
	       u64 dir, const char *name, u32 mode, u32 umask,
	       struct aifs_entry_rep *entry)
{
	struct aifs_create_req req = {
		.mode = cpu_to_le32(mode),
		.umask = cpu_to_le32(umask),
	};
	struct ops_msg m = OPS_REP(AIFS_OP_MKDIR, entry);

	return ops_create(conn, &m, cred, dir, name, &req);
}

int aifs_mknod(struct aifs_conn *conn, const struct aifs_cred *cred,
	       u64 dir, const char *name, u32 mode, u32 umask, dev_t rdev,
	       struct aifs_entry_rep *entry)
{
	struct aifs_create_req req = {
		.mode = cpu_to_le32(mode),
		.umask = cpu_to_le32(umask),
		.rdev_major = cpu_to_le32(major(rdev)),
		.rdev_minor = cpu_to_le32(minor(rdev)),
	};
	struct ops_msg m = OPS_REP(AIFS_OP_MKNOD, entry);

	return ops_create(conn, &m, cred, dir, name, &req);
}

int aifs_unlink(struct aifs_conn *conn, const struct aifs_cred *cred,
		u64 dir, const char *name, struct aifs_entry_rep *entry)
{
	struct ops_msg m = OPS_REP(AIFS_OP_UNLINK, entry);

	return ops_name(conn, &m, cred, dir, name);
}

int aifs_rmdir(struct aifs_conn *conn, const struct aifs_cred *cred,
	       u64 dir, const char *name, struct aifs_entry_rep *entry)
{
	struct ops_msg m = OPS_REP(AIFS_OP_RMDIR, entry);

	return ops_name(conn, &m, cred, dir, name);
}

int aifs_rename(struct aifs_conn *conn, const struct aifs_cred *cred,
		u64 old_dir, const char *old_name, u64 new_dir,
		const char *new_name, u32 flags, struct aifs_rename_rep *rep)
{
	struct aifs_rename_req req = {
		.cred = *cred,
		.old_parent = cpu_to_le64(old_dir),
		.new_parent = cpu_to_le64(new_dir),
		.flags = cpu_to_le32(flags),
	};
	struct ops_msg m = OPS_REP(AIFS_OP_RENAME, rep);

	OPS_REQ(&m, req);
	m.parts[0] = ops_str(old_name);
	m.parts[1] = ops_str(new_name);
	return ops_call(conn, &m);
}

int aifs_link(struct aifs_conn *conn, const struct aifs_cred *cred,
	      u64 ino, u64 new_dir, const char *name,
	      struct aifs_entry_rep *entry)
{
	struct aifs_link_req req = {
		.cred = *cred,
		.ino = cpu_to_le64(ino),
		.new_parent = cpu_to_le64(new_dir),
	};
	struct ops_msg m = OPS_REP(AIFS_OP_LINK, entry);

	OPS_REQ(&m, req);
	m.parts[0] = ops_str(name);
	return ops_call(conn, &m);
}

int aifs_symlink(struct aifs_conn *conn, const struct aifs_cred *cred,
		 u64 dir, const char *name, const char *target,
		 struct aifs_entry_rep *entry)
{
	struct aifs_symlink_req req = {
		.cred = *cred,
		.parent = cpu_to_le64(dir),
	};
	struct ops_msg m = OPS_REP(AIFS_OP_SYMLINK, entry);

	OPS_REQ(&m, req);
	m.parts[0] = ops_str(name);
	m.parts[1] = ops_str(target);
	return ops_call(conn, &m);
}

int aifs_readlink(struct aifs_conn *conn, const struct aifs_cred *cred,
		  u64 ino, char *buf, size_t size)
{
	struct aifs_readlink_rep rep;
	struct ops_msg m = OPS_REP(AIFS_OP_READLINK, &rep);
	int err;

	if (!size)
		return -ERANGE;
	m.out[0] = ops_into(buf, size - 1);
	err = ops_ino(conn, &m, cred, ino);
	if (err)
		return err;
	buf[m.out[0].len] = '\0';
	return m.out[0].len;
}

/* Cookie of the last entry a page holds, or @cookie if none. */
static u64 ops_last_cookie(struct aifs_dirent_iter it, u64 cookie)
{
	struct aifs_dirent ent;
	struct aifs_span name;

	while (aifs_dirent_next(&it, &ent, &name) > 0)
		cookie = le64_to_cpu(ent.cookie);
	return cookie;
}

int aifs_readdir(struct aifs_conn *conn, const struct aifs_cred *cred,
		 u64 dir, u64 cookie, void *buf, u32 size,
		 struct aifs_readdir_page *page)
{
	u32 room = size > AIFS_MAX_PAYLOAD - AIFS_READDIR_REP_SIZE ?
		   AIFS_MAX_PAYLOAD - AIFS_READDIR_REP_SIZE : size;
	struct aifs_readdir_req req = {
		.cred = *cred,
		.ino = cpu_to_le64(dir),
		.cookie = cpu_to_le64(cookie),
		.max_entries = cpu_to_le32(AIFS_READDIR_MAX_ENTRIES),
		.max_bytes = cpu_to_le32(AIFS_READDIR_REP_SIZE + room),
	};
	struct aifs_readdir_rep rep;
	struct ops_msg m = OPS_REP(AIFS_OP_READDIR, &rep);
	int err;

	if (size < AIFS_READDIR_BUF_MIN)
		return -EINVAL;
	OPS_REQ(&m, req);
	m.out[0] = ops_into(buf, room);
	err = ops_call(conn, &m);
	if (err)
		return err;
	page->count = le32_to_cpu(rep.count);
	page->eof = le32_to_cpu(rep.flags) & AIFS_READDIR_EOF;
	aifs_dirent_iter_init(&page->it,
			      &(struct aifs_span){ buf, m.out[0].len });
	page->cookie = ops_last_cookie(page->it, cookie);
	return 0;
}

int aifs_readdir_next(struct aifs_readdir_page *page, struct aifs_dirent *ent,
		      char name[AIFS_NAME_MAX + 1])
{
	struct aifs_span span;
	int ret;

	ret = aifs_dirent_next(&page->it, ent, &span);
	if (ret > 0) {
		memcpy(name, span.data, span.len);
		name[span.len] = '\0';
	}
	return ret;
}

int aifs_statfs(struct aifs_conn *conn, const struct aifs_cred *cred,
		u64 ino, struct aifs_statfs_rep *st)
{
	struct ops_msg m = OPS_REP(AIFS_OP_STATFS, st);

	return ops_ino(conn, &m, cred, ino);
}

/* GETXATTR, LISTXATTR: the value or list into @m's out[0]; its size. */
static int ops_xattr(struct aifs_conn *conn, struct ops_msg *m)
{
	const struct aifs_xattr_rep *rep = m->rep;
	int err;

	err = ops_call(conn, m);
	if (err)
		return err;
	/* Asked with room for it, the reply must carry all of it. */
	if (m->out[0].size && m->out[0].len != le32_to_cpu(rep->size))
		return -EBADMSG;
	return le32_to_cpu(rep->size);
}

int aifs_getxattr(struct aifs_conn *conn, const struct aifs_cred *cred,
		  u64 ino, const char *name, void *value, size_t size)
{
	struct aifs_getxattr_req req = {
		.cred = *cred,
		.ino = cpu_to_le64(ino),
		.size = cpu_to_le32(ops_room(size)),
	};
	struct aifs_xattr_rep rep;
	struct ops_msg m = OPS_REP(AIFS_OP_GETXATTR, &rep);

	OPS_REQ(&m, req);
	m.parts[0] = ops_str(name);
	m.out[0] = ops_into(value, size);
	return ops_xattr(conn, &m);
}

int aifs_listxattr(struct aifs_conn *conn, const struct aifs_cred *cred,
		   u64 ino, char *list, size_t size)
{
	struct aifs_listxattr_req req = {
		.cred = *cred,
		.ino = cpu_to_le64(ino),
		.size = cpu_to_le32(ops_room(size)),
	};
	struct aifs_xattr_rep rep;
	struct ops_msg m = OPS_REP(AIFS_OP_LISTXATTR, &rep);

	OPS_REQ(&m, req);
	m.out[0] = ops_into(list, size);
	return ops_xattr(conn, &m);
}

int aifs_setxattr(struct aifs_conn *conn, const struct aifs_cred *cred,
		  u64 ino, const char *name, const void *value, size_t len,
		  u32 flags, struct aifs_attr *attr)
{
	struct aifs_setxattr_req req = {
		.cred = *cred,
		.ino = cpu_to_le64(ino),
		.flags = cpu_to_le32(flags),
	};
	struct ops_msg m = OPS_REP(AIFS_OP_SETXATTR, attr);

	OPS_REQ(&m, req);
	m.parts[0] = ops_str(name);
	m.parts[1] = (struct aifs_span){ value, ops_room(len) };
	return ops_call(conn, &m);
}

int aifs_removexattr(struct aifs_conn *conn, const struct aifs_cred *cred,
		     u64 ino, const char *name, struct aifs_attr *attr)
{
	struct ops_msg m = OPS_REP(AIFS_OP_REMOVEXATTR, attr);

	return ops_name(conn, &m, cred, ino, name);
}

int aifs_open(struct aifs_conn *conn, const struct aifs_cred *cred,
	      u64 ino, u32 flags, struct aifs_open_rep *rep)
{
	struct aifs_open_req req = {
		.cred = *cred,
		.ino = cpu_to_le64(ino),
		.flags = cpu_to_le32(flags),
	};
	struct ops_msg m = OPS_REP(AIFS_OP_OPEN, rep);

	OPS_REQ(&m, req);
	return ops_call(conn, &m);
}

int aifs_release(struct aifs_conn *conn, const struct aifs_cred *cred,
		 u64 ino, u64 handle, u64 size, const struct timespec *mtime,
		 struct aifs_attr *attr)
{
	struct aifs_close_req req = {
		.cred = *cred,
		.ino = cpu_to_le64(ino),
		.handle = cpu_to_le64(handle),
	};
	struct ops_msg m = OPS_REP(AIFS_OP_CLOSE, attr);

	if (mtime) {
		req.flags = cpu_to_le32(AIFS_CLOSE_SIZE);
		req.size = cpu_to_le64(size);
		req.mtime = ops_time(mtime);
	}
	OPS_REQ(&m, req);
	return ops_call(conn, &m);
}

int aifs_layout_get(struct aifs_conn *conn, const struct aifs_cred *cred,
		    u64 ino, struct aifs_layout *layout)
{
	struct ops_msg m = OPS_REP(AIFS_OP_LAYOUT_GET, layout);

	return ops_ino(conn, &m, cred, ino);
}

static int ops_layout_set(struct aifs_conn *conn, const struct aifs_cred *cred,
			  u64 ino, const struct aifs_layout *want, u32 flags,
			  struct aifs_layout *layout)
{
	struct aifs_layout_set_req req = {
		.cred = *cred,
		.ino = cpu_to_le64(ino),
		.layout = *want,
		.flags = cpu_to_le32(flags),
	};
	struct ops_msg m = OPS_REP(AIFS_OP_LAYOUT_SET, layout);

	OPS_REQ(&m, req);
	return ops_call(conn, &m);
}

int aifs_layout_set(struct aifs_conn *conn, const struct aifs_cred *cred,
		    u64 ino, const struct aifs_layout *want,
		    struct aifs_layout *layout)
{
	return ops_layout_set(conn, cred, ino, want, 0, layout);
}

int aifs_layout_archive(struct aifs_conn *conn, const struct aifs_cred *cred,
			u64 ino, const struct aifs_layout *want,
			struct aifs_layout *layout)
{
	return ops_layout_set(conn, cred, ino, want, AIFS_LAYOUT_SET_ARCHIVE,
			      layout);
}

/* ---- cluster map ---- */

int aifs_map_get(struct aifs_conn *conn, u64 epoch, struct aifs_map_rep *map,
		 struct aifs_ds_info *ds, u32 max_ds)
{
	struct aifs_map_get_req req = { .epoch = cpu_to_le64(epoch) };
	struct ops_msg m = OPS_REP(AIFS_OP_MAP_GET, map);

	if (max_ds > AIFS_MAP_MAX_DS)
		max_ds = AIFS_MAP_MAX_DS;
	OPS_REQ(&m, req);
	m.out[0] = ops_into(ds, max_ds * sizeof(*ds));
	return ops_call(conn, &m);
}

int aifs_ds_register(struct aifs_conn *conn, const u8 uuid[16], u32 id,
		     u32 flags, const struct aifs_ds_space *space,
		     const struct aifs_addr *addr,
		     struct aifs_ds_register_rep *rep)
{
	struct aifs_ds_register_req req = {
		.id = cpu_to_le32(id),
		.flags = cpu_to_le32(flags),
		.capacity = cpu_to_le64(space->capacity),
		.free = cpu_to_le64(space->free),
		.addr = *addr,
	};
	struct ops_msg m = OPS_REP(AIFS_OP_DS_REGISTER, rep);

	memcpy(req.uuid, uuid, sizeof(req.uuid));
	OPS_REQ(&m, req);
	return ops_call(conn, &m);
}

int aifs_ds_heartbeat(struct aifs_conn *conn, u32 id, u32 flags,
		      const struct aifs_ds_space *space, u64 epoch,
		      struct aifs_ds_heartbeat_rep *rep)
{
	struct aifs_ds_heartbeat_req req = {
		.id = cpu_to_le32(id),
		.flags = cpu_to_le32(flags),
		.capacity = cpu_to_le64(space->capacity),
		.free = cpu_to_le64(space->free),
		.chunks = cpu_to_le64(space->chunks),
		.epoch = cpu_to_le64(epoch),
	};
	struct ops_msg m = OPS_REP(AIFS_OP_DS_HEARTBEAT, rep);

	OPS_REQ(&m, req);
	return ops_call(conn, &m);
}

/* ---- data ---- */

int aifs_chunk_read(struct aifs_conn *conn, const struct aifs_chunk_id *id,
		    u64 version, u32 offset, void *buf, u32 len,
		    struct aifs_chunk_read_rep *rep)
{
	struct aifs_chunk_read_req req = {
		.id = *id,
		.version = cpu_to_le64(version),
		.offset = cpu_to_le32(offset),
		.length = cpu_to_le32(len),
	};
	struct ops_msg m = OPS_REP(AIFS_OP_CHUNK_READ, rep);
	int err;

	OPS_REQ(&m, req);
	m.out[0] = ops_into(buf, len);
	err = ops_call(conn, &m);
	return err ? err : (int)m.out[0].len;
}

/* CHUNK_WRITE, CHUNK_FORWARD: @data follows the request as it is. */
static int ops_write(struct aifs_conn *conn, u16 op,
		     const struct aifs_chunk_id *id,
		     const struct aifs_chunk_write *w, const void *data,
		     u32 len, struct aifs_chunk_rep *rep)
{
	struct aifs_chunk_write_req req = {
		.id = *id,
		.version = cpu_to_le64(w->version),
		.offset = cpu_to_le32(w->offset),
		.flags = cpu_to_le32(w->flags),
		.chunk_size = cpu_to_le32(w->chunk_size),
		.nr_replicas = cpu_to_le16(w->nr_replicas),
		.layout_gen = cpu_to_le32(w->layout_gen),
	};
	struct ops_msg m = OPS_REP(op, rep);
	u32 i;

	for (i = 0; i < w->nr_replicas && i < ARRAY_SIZE(w->replicas); i++)
		req.replicas[i] = cpu_to_le32(w->replicas[i]);
	OPS_REQ(&m, req);
	m.parts[0] = (struct aifs_span){ NULL, len };
	m.data = data;
	return ops_call(conn, &m);
}

int aifs_chunk_write(struct aifs_conn *conn, const struct aifs_chunk_id *id,
		     const struct aifs_chunk_write *w, const void *data,
		     u32 len, struct aifs_chunk_rep *rep)
{
	return ops_write(conn, AIFS_OP_CHUNK_WRITE, id, w, data, len, rep);
}

int aifs_chunk_forward(struct aifs_conn *conn, const struct aifs_chunk_id *id,
		       const struct aifs_chunk_write *w, const void *data,
		       u32 len, struct aifs_chunk_rep *rep)
{
	return ops_write(conn, AIFS_OP_CHUNK_FORWARD, id, w, data, len, rep);
}

int aifs_chunk_truncate(struct aifs_conn *conn,
			const struct aifs_chunk_id *id, u32 length, u32 fence,
			struct aifs_chunk_rep *rep)
{
	struct aifs_chunk_truncate_req req = {
		.id = *id,
		.length = cpu_to_le32(length),
		.fence = cpu_to_le32(fence),
	};
	struct ops_msg m = OPS_REP(AIFS_OP_CHUNK_TRUNCATE, rep);

	OPS_REQ(&m, req);
	return ops_call(conn, &m);
}

int aifs_chunk_delete(struct aifs_conn *conn, const struct aifs_chunk_id *id,
		      u32 flags, u32 fence)
{
	struct aifs_chunk_delete_req req = {
		.id = *id,
		.flags = cpu_to_le32(flags),
		.fence = cpu_to_le32(fence),
	};
	struct ops_msg m = { .op = AIFS_OP_CHUNK_DELETE };

	OPS_REQ(&m, req);
	return ops_call(conn, &m);
}

int aifs_chunk_checksum(struct aifs_conn *conn,
			const struct aifs_chunk_id *id, u32 first_block,
			u32 nr_blocks, u32 *crcs,
			struct aifs_chunk_checksum_rep *rep)
{
	struct aifs_chunk_checksum_req req = {
		.id = *id,
		.first_block = cpu_to_le32(first_block),
		.nr_blocks = cpu_to_le32(nr_blocks),
	};
	struct ops_msg m = OPS_REP(AIFS_OP_CHUNK_CHECKSUM, rep);
	struct aifs_span list = { crcs, 0 };
	u32 i;
	int err;

	if (nr_blocks > AIFS_MAX_BLOCKS)
		return -EINVAL;
	OPS_REQ(&m, req);
	m.out[0] = ops_into(crcs, nr_blocks * sizeof(*crcs));
	err = ops_call(conn, &m);
	if (err)
		return err;
	list.len = m.out[0].len;
	for (i = 0; i < le32_to_cpu(rep->count); i++)
		crcs[i] = aifs_span_le32(&list, i);
	return 0;
}

int aifs_ds_statfs(struct aifs_conn *conn, struct aifs_statfs_rep *st)
{
	struct ops_msg m = OPS_REP(AIFS_OP_DS_STATFS, st);

	return ops_call(conn, &m);
}
