/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * libaifs: the userspace client of the aifs wire protocol, used by the
 * tools, the tests, the benchmarks and by servers talking to each other.
 *
 * Functions return 0 or a negative errno.  A connection is safe to share
 * between threads: aifs_call() may run concurrently from any number of
 * threads, replies are matched to callers by request id.
 */
#ifndef AIFS_LIBAIFS_H
#define AIFS_LIBAIFS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>

#include "aifs/aifs_codec.h"

/* Largest errno a reply may carry (as the kernel's MAX_ERRNO). */
#define AIFS_MAX_STATUS		4095

/* Milliseconds on the monotonic clock (frame.c). */
u64 aifs_now_ms(void);
/* @ms from now on @clock, for pthread_cond_timedwait() (frame.c). */
void aifs_time_after_ms(clockid_t clock, u64 ms, struct timespec *ts);

struct sockaddr;

/* "[address]:port" or "address:port" of @sa, numeric, in @size bytes (addr.c). */
void aifs_addr_name(const struct sockaddr *sa, unsigned int len, char *name,
		    size_t size);

/* The port of an IPv4 or IPv6 @sa, host order. */
int aifs_addr_port(const struct sockaddr *sa);
/*
 * "host:port" or "[v6 address]:port" into @host and @port (of their
 * sizes): 0, or -EINVAL (addr.c).
 */
int aifs_parse_hostport(const char *s, char *host, size_t host_size,
			char *port, size_t port_size);
/*
 * A wire address (a cluster map's) as numeric @host and @port strings, of
 * their sizes, for aifs_connect(): 0, or -EINVAL (addr.c).
 */
int aifs_wire_addr_host(const struct aifs_addr *a, char *host,
			size_t host_size, char *port, size_t port_size);

/* ---- shared secret (secret.c) ---- */

#define AIFS_SECRET_PATH	"/etc/aifs/secret"

struct aifs_secret {
	size_t len;
	u8 key[AIFS_SECRET_MAX];
};

/*
 * Load the cluster's shared secret: the file's bytes, minus one trailing
 * newline, AIFS_SECRET_MIN..AIFS_SECRET_MAX bytes long.  A file readable by
 * others is refused.  On error, a sentence naming @path and the problem is
 * left in @why (which may be NULL).
 */
int aifs_secret_load(struct aifs_secret *secret, const char *path,
		     char *why, size_t why_len);

/* Erase a secret from memory. */
void aifs_secret_wipe(struct aifs_secret *secret);

/* ---- handshake proofs (auth.c), shared with the server runtime ---- */

enum aifs_auth_side {
	AIFS_AUTH_CLIENT,	/* proof_c: the requester's */
	AIFS_AUTH_SERVER,	/* proof_s: the server's */
};

/* Fill @buf with random bytes from the kernel (getrandom). */
int aifs_random(void *buf, size_t len);

/*
 * The HMAC-SHA256 proof of @side over the transcript that aifs_proto.h
 * defines for the handshake of @version with nonces @nonce_c and @nonce_s.
 */
int aifs_auth_proof(const struct aifs_secret *secret, enum aifs_auth_side side,
		    const u8 *nonce_c, const u8 *nonce_s, u16 version,
		    u8 proof[AIFS_HMAC_SIZE]);

/* Whether @proof is @side's proof, compared in constant time. */
bool aifs_auth_proof_ok(const struct aifs_secret *secret,
			enum aifs_auth_side side, const u8 *nonce_c,
			const u8 *nonce_s, u16 version,
			const u8 proof[AIFS_HMAC_SIZE]);

/* ---- connections (conn.c, handshake.c) ---- */

#define AIFS_CONNECT_TIMEOUT_MS	10000
#define AIFS_CALL_TIMEOUT_MS	30000

/**
 * struct aifs_connect_opts - where and who to connect as
 * @host:       server name or numeric IPv4/IPv6 address
 * @port:       service name or port number, e.g. "7400"
 * @secret:     the cluster's shared secret
 * @role:       enum aifs_role announced in HELLO
 * @client_uuid: stable id of this node (zero if it has none)
 * @timeout_ms: bound on connect plus handshake; 0 means
 *              AIFS_CONNECT_TIMEOUT_MS
 * @call_timeout_ms: bound on each call of the per-message API (ops.c);
 *              0 means AIFS_CALL_TIMEOUT_MS, negative waits forever
 * @transport:  enum aifs_transport (0: TCP)
 */
enum aifs_transport {
	AIFS_TRANSPORT_TCP,
	AIFS_TRANSPORT_RDMA,
};

struct aifs_connect_opts {
	const char *host;
	const char *port;
	const struct aifs_secret *secret;
	enum aifs_role role;
	u8 client_uuid[16];
	int timeout_ms;
	int call_timeout_ms;
	enum aifs_transport transport;
};

struct aifs_conn;

/**
 * struct aifs_reply - what came back for one aifs_call()
 * @status:    0 or the positive errno the server answered with
 * @map_epoch: the server's cluster map epoch
 * @payload:   @len bytes (malloc'ed, NULL when empty): aifs_reply_free()
 * @len:       payload length
 */
struct aifs_reply {
	u32 status;
	u64 map_epoch;
	void *payload;
	u32 len;
};

/*
 * Connect over TCP or RDMA and authenticate.  -EACCES: the server refused our
 * secret, or it could not prove that it holds it; -EPROTONOSUPPORT: no
 * protocol version in common; -ETIMEDOUT: past @opts->timeout_ms.
 */
int aifs_connect(const struct aifs_connect_opts *opts, struct aifs_conn **connp);

/*
 * Send request @opcode whose payload is the concatenation of @iov[0..iovcnt)
 * and wait up to @timeout_ms (negative: forever) for its reply.  Returns 0
 * when a reply arrived (its status in @reply->status), or a negative errno
 * when none did: -ETIMEDOUT, or the error that broke the connection (which
 * then fails every later call; reconnect).  @reply is emptied first, so
 * that aifs_reply_free() is right after a failure too.
 */
int aifs_call(struct aifs_conn *conn, u16 opcode, const struct iovec *iov,
	      int iovcnt, struct aifs_reply *reply, int timeout_ms);
/*
 * aifs_call() as a try again of an earlier request: with request id
 * *@request_id when not 0 (on a new connection of the same client uuid,
 * the MDS's reply cache knows it), else a new one, left in *@request_id.
 */
int aifs_call_id(struct aifs_conn *conn, u16 opcode, u64 *request_id,
		 const struct iovec *iov, int iovcnt, struct aifs_reply *reply,
		 int timeout_ms);

void aifs_reply_free(struct aifs_reply *reply);

/* Round trip with an empty PING: 0, -status of the reply, or as aifs_call. */
int aifs_ping(struct aifs_conn *conn, int timeout_ms);

/* The protocol version and server session id the handshake agreed on. */
u16 aifs_conn_version(const struct aifs_conn *conn);
u64 aifs_conn_session(const struct aifs_conn *conn);

/* Close and free; no aifs_call() may be running or start afterwards. */
void aifs_close(struct aifs_conn *conn);

struct aifs_lent;

/*
 * Let the server of an RDMA connection read and write @len bytes at @buf
 * (AIFS_IO_RDMA requests describe them by @seg) until aifs_take_back(),
 * which must come before @conn is closed.  -EOPNOTSUPP over TCP.
 */
int aifs_lend(struct aifs_conn *conn, void *buf, size_t len,
	      struct aifs_rdma_seg *seg, struct aifs_lent **lentp);
void aifs_take_back(struct aifs_lent *lent);

/* ---- one call per message (ops.c) ---- */

/*
 * Each function below sends one request and waits for its reply (for the
 * connection's call_timeout_ms).  Like aifs_call() they may run from any
 * number of threads at once.
 *
 * Return: 0 (or the byte count named in the comment), -errno of a reply
 * with a non-zero status (-ENOENT ...), -EBADMSG when the reply does not
 * decode (replies are untrusted: the codec checks every length, name and
 * attribute; the connection stays usable, the frame itself was sound), an
 * encoder's error for a request that cannot be sent (-EINVAL,
 * -ENAMETOOLONG ...: nothing is sent), or an error of aifs_call().
 *
 * Arguments are in host byte order; names and targets are NUL-terminated
 * strings.  Results are the protocol's own structs, as the codec decoded
 * and checked them, still little-endian: le64_to_cpu(entry.attr.ino);
 * every result pointer must point at one (none may be NULL).
 * The building blocks (struct aifs_cred, aifs_layout, aifs_chunk_id,
 * aifs_addr) are passed as their wire structs too.
 *
 * One rule for variable-length results (targets, xattr values and lists,
 * directory entries, data servers, chunk data, CRCs): they are copied into
 * a buffer the caller passes with its size, nothing is left to free.  A
 * result larger than that buffer is -ERANGE (the fixed result is filled in
 * all the same, e.g. the data server count of MAP_GET).  Where the
 * protocol asks for a size (GETXATTR, LISTXATTR, READDIR, CHUNK_READ,
 * CHUNK_CHECKSUM) the buffer's size is what is asked for.
 */

/*
 * The credentials of the calling process: effective uid and gid (the
 * fsuid and fsgid of a process that did not change them) and the first
 * AIFS_CRED_MAX_GROUPS supplementary groups.
 */
int aifs_cred_self(struct aifs_cred *cred);

/* Namespace (client -> MDS); @entry gets the directory and the entry. */
int aifs_lookup(struct aifs_conn *conn, const struct aifs_cred *cred,
		u64 dir, const char *name, struct aifs_entry_rep *entry);
int aifs_getattr(struct aifs_conn *conn, const struct aifs_cred *cred,
		 u64 ino, struct aifs_attr *attr);

/**
 * struct aifs_setattr - what SETATTR changes, in host byte order
 * @ino:    the inode
 * @handle: open handle (ftruncate), else 0
 * @valid:  AIFS_SETATTR_*: which of the fields below apply
 * @mode:   permission bits
 * @uid:    owner
 * @gid:    group
 * @size:   size
 * @atime:  access time
 * @mtime:  modification time
 */
struct aifs_setattr {
	u64 ino;
	u64 handle;
	u32 valid;
	u32 mode;
	u32 uid;
	u32 gid;
	u64 size;
	struct timespec atime;
	struct timespec mtime;
};

int aifs_setattr(struct aifs_conn *conn, const struct aifs_cred *cred,
		 const struct aifs_setattr *sa, struct aifs_attr *attr);

/* Create and open a regular file (@mode without S_IFMT is S_IFREG). */
int aifs_create(struct aifs_conn *conn, const struct aifs_cred *cred,
		u64 dir, const char *name, u32 mode, u32 umask,
		u32 open_flags, struct aifs_create_rep *rep);
int aifs_mkdir(struct aifs_conn *conn, const struct aifs_cred *cred,
	       u64 dir, const char *name, u32 mode, u32 umask,
	       struct aifs_entry_rep *entry);
int aifs_mknod(struct aifs_conn *conn, const struct aifs_cred *cred,
	       u64 dir, const char *name, u32 mode, u32 umask, dev_t rdev,
	       struct aifs_entry_rep *entry);
int aifs_unlink(struct aifs_conn *conn, const struct aifs_cred *cred,
		u64 dir, const char *name, struct aifs_entry_rep *entry);
int aifs_rmdir(struct aifs_conn *conn, const struct aifs_cred *cred,
	       u64 dir, const char *name, struct aifs_entry_rep *entry);
/* @flags: AIFS_RENAME_* (renameat2()'s values). */
int aifs_rename(struct aifs_conn *conn, const struct aifs_cred *cred,
		u64 old_dir, const char *old_name, u64 new_dir,
		const char *new_name, u32 flags, struct aifs_rename_rep *rep);
int aifs_link(struct aifs_conn *conn, const struct aifs_cred *cred,
	      u64 ino, u64 new_dir, const char *name,
	      struct aifs_entry_rep *entry);
int aifs_symlink(struct aifs_conn *conn, const struct aifs_cred *cred,
		 u64 dir, const char *name, const char *target,
		 struct aifs_entry_rep *entry);

/* The target, NUL-terminated, in @buf; returns its length (< @size). */
int aifs_readlink(struct aifs_conn *conn, const struct aifs_cred *cred,
		  u64 ino, char *buf, size_t size);

/* A buffer this big holds at least one entry of any name. */
#define AIFS_READDIR_BUF_MIN	(AIFS_DIRENT_SIZE + AIFS_NAME_MAX)

/**
 * struct aifs_readdir_page - one READDIR reply, its entries in the caller's
 * buffer
 * @count:  entries
 * @eof:    none follow: the listing is complete
 * @cookie: cookie of the last entry: pass it to the next aifs_readdir()
 * @it:     where aifs_readdir_next() is
 */
struct aifs_readdir_page {
	u32 count;
	bool eof;
	u64 cookie;
	struct aifs_dirent_iter it;
};

/*
 * Up to @size bytes of entries (at least AIFS_READDIR_BUF_MIN) of
 * directory @dir after @cookie (0: from the start) into @buf, which must
 * outlive @page.
 */
int aifs_readdir(struct aifs_conn *conn, const struct aifs_cred *cred,
		 u64 dir, u64 cookie, void *buf, u32 size,
		 struct aifs_readdir_page *page);

/* The next entry of @page and its NUL-terminated name: 1, or 0 at the end. */
int aifs_readdir_next(struct aifs_readdir_page *page, struct aifs_dirent *ent,
		      char name[AIFS_NAME_MAX + 1]);

int aifs_statfs(struct aifs_conn *conn, const struct aifs_cred *cred,
		u64 ino, struct aifs_statfs_rep *st);

/*
 * As getxattr(2) and listxattr(2): @size 0 asks for the size only; returns
 * the value's (list's) size, -ERANGE when it is larger than @size.
 */
int aifs_getxattr(struct aifs_conn *conn, const struct aifs_cred *cred,
		  u64 ino, const char *name, void *value, size_t size);
int aifs_listxattr(struct aifs_conn *conn, const struct aifs_cred *cred,
		   u64 ino, char *list, size_t size);
/* @flags: AIFS_XATTR_CREATE, AIFS_XATTR_REPLACE. */
int aifs_setxattr(struct aifs_conn *conn, const struct aifs_cred *cred,
		  u64 ino, const char *name, const void *value, size_t len,
		  u32 flags, struct aifs_attr *attr);
int aifs_removexattr(struct aifs_conn *conn, const struct aifs_cred *cred,
		     u64 ino, const char *name, struct aifs_attr *attr);

/* @flags: AIFS_OPEN_* (not EXCL). */
int aifs_open(struct aifs_conn *conn, const struct aifs_cred *cred,
	      u64 ino, u32 flags, struct aifs_open_rep *rep);

/*
 * CLOSE of an open handle (named after the kernel's ->release, as
 * aifs_close() closes connections).  With @mtime, commits @size and
 * @mtime (AIFS_CLOSE_SIZE).
 */
int aifs_release(struct aifs_conn *conn, const struct aifs_cred *cred,
		 u64 ino, u64 handle, u64 size, const struct timespec *mtime,
		 struct aifs_attr *attr);

int aifs_layout_get(struct aifs_conn *conn, const struct aifs_cred *cred,
		    u64 ino, struct aifs_layout *layout);
/* @layout gets the layout in force afterwards. */
int aifs_layout_set(struct aifs_conn *conn, const struct aifs_cred *cred,
		    u64 ino, const struct aifs_layout *want,
		    struct aifs_layout *layout);
/*
 * Begin converting a replicated file to the EC layout @want on the
 * servers (LAYOUT_SET with AIFS_LAYOUT_SET_ARCHIVE); @layout gets the
 * layout in force, the old one until the archive is done.
 */
int aifs_layout_archive(struct aifs_conn *conn, const struct aifs_cred *cred,
			u64 ino, const struct aifs_layout *want,
			struct aifs_layout *layout);

/* Cluster map (-> MDS). */

/*
 * The map if it is newer than @epoch: @map, and its data servers in
 * @ds[0..map->count); -ERANGE when more than @max_ds.
 */
int aifs_map_get(struct aifs_conn *conn, u64 epoch, struct aifs_map_rep *map,
		 struct aifs_ds_info *ds, u32 max_ds);

/* A data server's space, as it reports it. */
struct aifs_ds_space {
	u64 capacity;
	u64 free;
	u64 chunks;
};

/* @id 0 for a new server; @flags AIFS_DS_*; @space->chunks is not sent. */
int aifs_ds_register(struct aifs_conn *conn, const u8 uuid[16], u32 id,
		     u32 flags, const struct aifs_ds_space *space,
		     const struct aifs_addr *addr,
		     struct aifs_ds_register_rep *rep);
/* @flags AIFS_DS_*, as registered but for AIFS_DS_DRAIN. */
int aifs_ds_heartbeat(struct aifs_conn *conn, u32 id, u32 flags,
		      const struct aifs_ds_space *space, u64 epoch,
		      struct aifs_ds_heartbeat_rep *rep);

/* Data (-> DS). */

/*
 * Up to @len bytes at @offset of chunk @id, at least @version (0: any),
 * into @buf.  Returns the bytes received; fewer than @len where the
 * chunk's stored data ends (the rest is a hole: the caller zero-fills).
 */
int aifs_chunk_read(struct aifs_conn *conn, const struct aifs_chunk_id *id,
		    u64 version, u32 offset, void *buf, u32 len,
		    struct aifs_chunk_read_rep *rep);

/**
 * struct aifs_chunk_write - where a CHUNK_WRITE or CHUNK_FORWARD goes
 * @version:     FORWARD: the version the primary assigned; WRITE: 0
 * @offset:      byte offset within the chunk
 * @flags:       AIFS_IO_SYNC
 * @chunk_size:  the layout's chunk size
 * @nr_replicas: WRITE: entries of @replicas; FORWARD: 0
 * @layout_gen:  WRITE: the generation of the layout written with
 * @replicas:    WRITE: the other data servers of the chunk's group
 */
struct aifs_chunk_write {
	u64 version;
	u32 offset;
	u32 flags;
	u32 chunk_size;
	u32 nr_replicas;
	u32 layout_gen;
	u32 replicas[AIFS_MAX_REPLICAS - 1];
};

/* @data (@len bytes) is sent from where it is, not copied. */
int aifs_chunk_write(struct aifs_conn *conn, const struct aifs_chunk_id *id,
		     const struct aifs_chunk_write *w, const void *data,
		     u32 len, struct aifs_chunk_rep *rep);
int aifs_chunk_forward(struct aifs_conn *conn, const struct aifs_chunk_id *id,
		       const struct aifs_chunk_write *w, const void *data,
		       u32 len, struct aifs_chunk_rep *rep);
/* @fence: 0, or the MDS's truncation number (aifs_chunk_truncate_req). */
int aifs_chunk_truncate(struct aifs_conn *conn,
			const struct aifs_chunk_id *id, u32 length, u32 fence,
			struct aifs_chunk_rep *rep);
/* @flags: AIFS_DELETE_*; @fence as for aifs_chunk_truncate(). */
int aifs_chunk_delete(struct aifs_conn *conn, const struct aifs_chunk_id *id,
		      u32 flags, u32 fence);
/*
 * CRC32C of up to @nr_blocks blocks from @first_block, in host byte order
 * in @crcs[0..rep->count).
 */
int aifs_chunk_checksum(struct aifs_conn *conn,
			const struct aifs_chunk_id *id, u32 first_block,
			u32 nr_blocks, u32 *crcs,
			struct aifs_chunk_checksum_rep *rep);
int aifs_ds_statfs(struct aifs_conn *conn, struct aifs_statfs_rep *st);

#endif /* AIFS_LIBAIFS_H */
