/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * aifs-mds internals, one section per .c file.  Documentation/mds.md
 * describes the LMDB schema, the group commit and the reply cache.
 *
 * Threads: the runtime's loop thread, its worker threads running the
 * handlers, and one writer thread (writer.c) that owns every write
 * transaction.  Read-only handlers open their own read transactions on
 * the worker threads (MDB_NOTLS); handlers that change anything hand an
 * apply function to the writer and wait for its commit.  What only the
 * writer touches (the open files, the superblock's counters) needs no
 * lock.
 */
#ifndef AIFS_MDS_H
#define AIFS_MDS_H

#include <lmdb.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "aifs/libaifs.h"
#include "aifs/server.h"
#include "../common/list.h"

/* ---- main.c: configuration ---- */

struct mds_config {
	struct aifs_server_config server;
	char db_path[PATH_MAX];
	int map_size_mib;
	int db_reserve_mib;
	int heartbeat_ms;
	int heartbeat_grace_ms;
	int rebuild_delay_s;
	int reply_cache_seconds;
	int reply_memory_mib;
	int open_grace_ms;
	int default_replicas;
	int default_stripe_count;
	int default_chunk_kib;
};

/* ---- db.c: LMDB environment, schema and helpers ---- */

enum mds_dbi {
	MDS_DB_SUPER,		/* "super" -> struct mds_super */
	MDS_DB_INODES,		/* ino -> struct mds_inode */
	MDS_DB_SYMLINKS,	/* ino -> target */
	MDS_DB_DENTRIES,	/* (parent, name) -> struct mds_dentry */
	MDS_DB_DIRSEQ,		/* (parent, seq) -> name */
	MDS_DB_XATTRS,		/* (ino, name) -> value */
	MDS_DB_ORPHANS,		/* ino -> nothing */
	MDS_DB_CHUNKQ,		/* seq -> struct mds_chunk_job */
	MDS_DB_DSMAP,		/* DS id -> struct aifs_ds_info */
	MDS_DB_REPLIES,		/* struct mds_reply_key -> cached reply */
	MDS_DB_REPLY_AGE,	/* (time, struct mds_reply_key) -> nothing */
	MDS_DB_ARCHIVE,		/* ino -> struct mds_archive_rec (archive.c) */
	MDS_NR_DBS,
};

#define MDS_SUPER_MAGIC		"aifs-mds"
#define MDS_FORMAT_VERSION	1

/* The superblock: one record, written at format and by the writer. */
struct mds_super {
	char magic[8];
	u32 format_version;
	u32 next_ds_id;
	u8 uuid[16];
	u64 next_ino;
	u64 next_chunk_job;
	u64 map_epoch;
	s64 created;		/* ns */
};

struct mds {
	const struct mds_config *cfg;
	MDB_env *env;
	int lock_fd;			/* one aifs-mds per database (db.c) */
	MDB_dbi dbi[MDS_NR_DBS];
	struct mds_super super;		/* the writer's copy */
	bool super_dirty;		/* to be written with the batch */
	struct aifs_server *srv;
	struct mds_writer *writer;
	struct mds_map *map;
	struct mds_opens *opens;
	struct mds_replies *replies;	/* replies of ops that wrote nothing */
	struct mds_drainer *drainer;
	bool chunkq_queued;		/* the batch queued chunk jobs */
	atomic_bool db_full;		/* no room ahead: creates refused */
	struct mds_recovery *recovery;
	struct mds_fsck *fsck;
	struct mds_archiver *archiver;
};

/* A transaction and the time of the operations it carries. */
struct mds_txn {
	struct mds *mds;
	MDB_txn *txn;
	s64 now;		/* ns, CLOCK_REALTIME */
	u64 cut_job;		/* a truncation queued: its reply waits for it */
	bool changed;		/* something was written (mds_db_put/del) */
};

int mds_db_open(struct mds *mds, bool create, bool exclusive);
void mds_db_close(struct mds *mds);
int mds_db_format(struct mds *mds);
int mds_db_errno(int rc);
s64 mds_now(void);

int mds_read_begin(struct mds *mds, struct mds_txn *t);
void mds_read_end(struct mds_txn *t);

int mds_db_get(struct mds_txn *t, enum mds_dbi db, const void *key,
	       size_t klen, MDB_val *val);
int mds_db_put(struct mds_txn *t, enum mds_dbi db, const void *key,
	       size_t klen, const void *val, size_t vlen, unsigned int flags);
int mds_db_del(struct mds_txn *t, enum mds_dbi db, const void *key,
	       size_t klen);
int mds_db_del_prefix(struct mds_txn *t, enum mds_dbi db, const void *prefix,
		      size_t plen);
int mds_db_cursor(struct mds_txn *t, enum mds_dbi db, MDB_cursor **cur);
int mds_super_put(struct mds_txn *t);

/* Keys of the tables of (u64, bytes) and (u64, u64): big-endian, sorted. */
#define MDS_KEY_MAX	(8 + AIFS_XATTR_NAME_MAX)

struct mds_key {
	u8 bytes[MDS_KEY_MAX];
	size_t len;
};

void mds_key_name(struct mds_key *k, u64 id, const void *name, size_t len);
void mds_key_pair(struct mds_key *k, u64 id, u64 second);
u64 mds_key_id(const MDB_val *key);

/* ---- perm.c: who may do what ---- */

#define MDS_MAY_EXEC	1
#define MDS_MAY_WRITE	2
#define MDS_MAY_READ	4

struct mds_cred {
	u32 uid;
	u32 gid;
	u32 ngroups;
	u32 groups[AIFS_CRED_MAX_GROUPS];
};

struct mds_inode;

void mds_cred_from_wire(struct mds_cred *cred, const struct aifs_cred *w);
bool mds_in_group(const struct mds_cred *cred, u32 gid);
bool mds_is_owner(const struct mds_cred *cred, const struct mds_inode *inode);
u32 mds_strip_sgid(const struct mds_cred *cred, const struct mds_inode *inode,
		   u32 mode);
int mds_permission(struct mds_txn *t, const struct mds_cred *cred,
		   const struct mds_inode *inode, int mask);
int mds_may_lookup(struct mds_txn *t, const struct mds_cred *cred,
		   const struct mds_inode *dir);
int mds_may_change_dir(struct mds_txn *t, const struct mds_cred *cred,
		       const struct mds_inode *dir);
int mds_may_delete(struct mds_txn *t, const struct mds_cred *cred,
		   const struct mds_inode *dir, const struct mds_inode *victim);

/* ---- acl.c: POSIX ACLs ---- */

#define MDS_ACL_ACCESS	0	/* system.posix_acl_access */
#define MDS_ACL_DEFAULT	1	/* system.posix_acl_default */

int mds_acl_type(const struct aifs_span *name);
int mds_acl_check(const void *value, size_t size);
int mds_acl_permission(struct mds_txn *t, const struct mds_cred *cred,
		       const struct mds_inode *inode, int mask);
int mds_acl_chmod(struct mds_txn *t, const struct mds_inode *inode);
int mds_acl_set(struct mds_txn *t, const struct mds_cred *cred,
		struct mds_inode *inode, int type, const struct aifs_span *value);
int mds_acl_inherit(struct mds_txn *t, const struct mds_inode *dir,
		    struct mds_inode *inode, u32 umask);

/* ---- inode.c: inode records ---- */

/* Inode record, host-endian (an LMDB file is not portable anyway). */
struct mds_inode {
	u64 ino;
	u64 generation;
	u64 size;
	u64 change;
	s64 atime, mtime, ctime, btime;		/* ns since the epoch */
	u32 mode;
	u32 nlink;
	u32 uid;
	u32 gid;
	u32 rdev_major;
	u32 rdev_minor;
	u32 flags;
	u32 truncs;		/* files: truncations queued (chunkq fences) */
	u64 parent;		/* directories: their parent (root: itself) */
	u64 next_seq;		/* directories: seq of the next entry */
	u64 entries;		/* directories: entries in it */
	struct aifs_layout layout;	/* files: theirs; dirs: the default */
};

#define MDS_LINK_MAX		65000

/* What mds_inode_touch() sets to the transaction's time. */
#define MDS_ATIME	1
#define MDS_MTIME	2
#define MDS_CTIME	4

int mds_inode_get(struct mds_txn *t, u64 ino, struct mds_inode *inode);
int mds_inode_put(struct mds_txn *t, struct mds_inode *inode);
int mds_inode_get_dir(struct mds_txn *t, u64 ino, struct mds_inode *dir);
void mds_inode_init(struct mds_txn *t, struct mds_inode *inode, u64 ino,
		    u32 mode, u32 uid, u32 gid);
u64 mds_inode_alloc_ino(struct mds_txn *t);
void mds_inode_touch(struct mds_txn *t, struct mds_inode *inode,
		     unsigned int what);
void mds_inode_to_attr(const struct mds_inode *inode, struct aifs_attr *attr);
s64 mds_time_from_wire(const struct aifs_timespec *ts);
int mds_inode_drop_link(struct mds_txn *t, struct mds_inode *inode);
int mds_inode_free(struct mds_txn *t, struct mds_inode *inode);
/*
 * What mds_inode_scan() hands each inode record it looks at: true to
 * take it (copied, if wanted, by @fn).
 */
typedef bool mds_scan_fn(const struct mds_inode *inode, void *arg);
int mds_inode_scan(struct mds *mds, u64 *cursor, unsigned int looked_max,
		   unsigned int take_max, mds_scan_fn *fn, void *arg);
int mds_reply_attr(struct aifs_request *req, const struct mds_inode *inode);
int mds_handle_getattr(struct aifs_request *req);
int mds_handle_setattr(struct aifs_request *req);

/* ---- dir.c: directory entries, lookup, readdir ---- */

struct mds_dentry {
	u64 ino;
	u64 seq;		/* readdir cookie, unique in the directory */
	u32 mode;		/* file type of the entry */
	u32 reserved;
};

int mds_dentry_get(struct mds_txn *t, u64 dir, const struct aifs_span *name,
		   struct mds_dentry *d);
int mds_dentry_add(struct mds_txn *t, struct mds_inode *dir,
		   const struct aifs_span *name, const struct mds_inode *inode);
int mds_dentry_del(struct mds_txn *t, struct mds_inode *dir,
		   const struct aifs_span *name, const struct mds_dentry *d);
int mds_handle_lookup(struct aifs_request *req);
int mds_handle_readdir(struct aifs_request *req);

/* ---- namei.c: create, link, unlink, rename ---- */

int mds_handle_create(struct aifs_request *req);
int mds_handle_mkdir(struct aifs_request *req);
int mds_handle_mknod(struct aifs_request *req);
int mds_handle_symlink(struct aifs_request *req);
int mds_handle_readlink(struct aifs_request *req);
int mds_handle_link(struct aifs_request *req);
int mds_handle_unlink(struct aifs_request *req);
int mds_handle_rmdir(struct aifs_request *req);
int mds_handle_rename(struct aifs_request *req);

/* ---- xattr.c ---- */

int mds_handle_getxattr(struct aifs_request *req);
int mds_handle_setxattr(struct aifs_request *req);
int mds_handle_listxattr(struct aifs_request *req);
int mds_handle_removexattr(struct aifs_request *req);

/* ---- open.c: open files, orphans ---- */

int mds_opens_create(struct mds *mds);
void mds_opens_destroy(struct mds *mds);
bool mds_opens_busy(struct mds *mds, u64 ino);
bool mds_opens_writing(struct mds *mds, u64 ino);
bool mds_opens_writable(struct mds *mds, u64 handle, u64 ino);
void mds_opens_truncated(struct mds *mds, u64 handle, u64 ino);
int mds_open_inode(struct mds_txn *t, const struct aifs_request *req,
		   const struct mds_cred *cred, struct mds_inode *inode,
		   u32 flags, struct aifs_open_rep *rep);
int mds_orphans_reap(struct mds *mds);
void mds_session_start(void *data, u64 session_id, const u8 client_uuid[16]);
void mds_session_end(void *data, u64 session_id, const u8 client_uuid[16]);
int mds_opens_expire(struct mds_txn *t);
int mds_handle_open(struct aifs_request *req);
int mds_handle_close(struct aifs_request *req);

/* ---- layout.c: layouts and placement ---- */

void mds_layout_default(const struct mds_config *cfg,
			struct aifs_layout *layout);
int mds_layout_assign(struct mds_txn *t, struct aifs_layout *layout);
bool mds_ids_have(const u32 *ids, unsigned int n, u32 id);
unsigned int mds_layout_width(const struct aifs_layout *layout);
bool mds_layout_names(const struct aifs_layout *l, u32 id);
int mds_handle_layout_get(struct aifs_request *req);
int mds_handle_layout_set(struct aifs_request *req);

/* ---- bg.c: background threads talking to the data servers ---- */

/**
 * struct mds_bg - a background thread of the MDS
 * @mds: its server
 * @thread: the thread
 * @lock: protects @stop, @kicked, and what its owner says
 * @wake: signalled by a kick and a stop (CLOCK_MONOTONIC)
 * @stop: the thread is to end
 * @kicked: work came: a round now
 * @secret: the cluster secret, for connections to the data servers
 */
struct mds_bg {
	struct mds *mds;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop;
	bool kicked;
	struct aifs_secret secret;
};

int mds_bg_start(struct mds_bg *bg, struct mds *mds, void *(*fn)(void *),
		 void *arg);
void mds_bg_kick(struct mds_bg *bg);
/* Wait for a kick or @ms; true once stopping. */
bool mds_bg_wait(struct mds_bg *bg, unsigned int ms);
/* Whether the thread is to end, for a long round to look now and then. */
bool mds_bg_stopping(struct mds_bg *bg);
/* Stop and join the thread, and free what mds_bg_start() made. */
void mds_bg_stop(struct mds_bg *bg);

#define MDS_DSCONN_BACKOFF_MIN_MS	200
#define MDS_DSCONN_BACKOFF_MAX_MS	5000

/**
 * struct mds_dsconn - a background thread's connection to a data server
 * @id: the server
 * @addr: its address in the map when @conn was made
 * @conn: NULL until connected
 * @retry_at: aifs_now_ms() before which it is left alone
 * @backoff_ms: the pause after its last failure (0: it did not fail)
 */
struct mds_dsconn {
	u32 id;
	u64 epoch;		/* of the server's map entry when connected */
	struct aifs_conn *conn;
	u64 retry_at;
	u32 backoff_ms;
};

void mds_dsconn_close(struct mds_dsconn *c);

/* A background thread's connections, one per data server, by id. */
struct mds_dsconns {
	struct mds_dsconn *c;
	unsigned int nr;
};

/* @id's entry, made (not connected) if new; NULL without memory. */
struct mds_dsconn *mds_dsconns_get(struct mds_dsconns *s, u32 id);
/* Every connection closed, the entries freed. */
void mds_dsconns_close(struct mds_dsconns *s);
#define MDS_SYNC_RANGE		16	/* chunks per CHUNK_SYNC */
#define MDS_SYNC_RESTARTS	3	/* passes of an inode begun again */

struct mds_sync_tally;

/*
 * A call of @opcode with @req (@len bytes) on @conn: 0 with the reply in
 * @reply (to free), or -errno, the server's status too.
 */
int mds_ds_call(struct aifs_conn *conn, u16 opcode, const void *req,
		size_t len, int call_ms, struct aifs_reply *reply);
/* CHUNK_SYNC of @ino (@layout) from chunk @from, with @flags, on @conn. */
int mds_chunk_sync(struct mds *mds, struct aifs_conn *conn, u64 ino,
		   const struct aifs_layout *layout, u32 from, u32 flags,
		   int call_ms, struct aifs_chunk_sync_rep *rep);
/*
 * CHUNK_SYNC of @ino on @conn, range after range, what it copied and
 * deleted added to @tally: 0 once it is in sync there, -EAGAIN when a
 * peer cannot give a chunk yet, or another -errno.
 */
int mds_chunk_sync_all(struct mds *mds, struct aifs_conn *conn, u64 ino,
		       const struct aifs_layout *layout, int call_ms,
		       struct mds_sync_tally *tally);
/* @c failed: closed, left alone for a pause that doubles up to 5 s; true
 * the first time (to say so once). */
bool mds_dsconn_failed(struct mds_dsconn *c);
/*
 * Connected to the server of @info: the connection kept unless its map
 * entry changed (it registered again, as a new process or at a new
 * address): 0 or -errno.
 */
int mds_dsconn_connect(struct mds_bg *bg, struct mds_dsconn *c,
		       const struct aifs_ds_info *info, int call_ms);

/* ---- chunkq.c: the chunk queue and its drainer ---- */

int mds_chunks_free(struct mds_txn *t, const struct mds_inode *inode);
int mds_chunks_cut(struct mds_txn *t, struct mds_inode *inode, u64 size);
u64 mds_chunks_cut_pending(struct mds_txn *t, const struct aifs_request *req);
int mds_chunks_archived(struct mds_txn *t, u64 ino,
			const struct aifs_layout *old);
int mds_chunks_dropped(struct mds_txn *t, u64 ino,
		       const struct aifs_layout *layout);
struct mds_u64s;
int mds_chunkq_inos(struct mds_txn *t, struct mds_u64s *inos);
void mds_drain_kick(struct mds *mds);
void mds_drain_sync(struct mds *mds, u64 job);
int mds_drain_cuts_on(struct mds *mds, u32 id, struct aifs_conn *conn);
int mds_drain_start(struct mds *mds);
void mds_drain_stop(struct mds *mds);
int mds_ds_connect(struct mds *mds, const struct aifs_secret *secret,
		   const struct aifs_addr *addr, int call_ms,
		   struct aifs_conn **conn);

/* ---- recovery.c: SYNCING data servers catch up ---- */

int mds_recovery_start(struct mds *mds);
void mds_recovery_stop(struct mds *mds);
int mds_handle_recovery_get(struct aifs_request *req);
int mds_handle_ds_repairs(struct aifs_request *req);
int mds_handle_repairs_get(struct aifs_request *req);
void mds_recovery_metrics(struct mds *mds, FILE *out);
void mds_repairs_metrics(struct mds *mds, FILE *out);

/* ---- clustermap.c: data servers ---- */

int mds_map_load(struct mds *mds);
void mds_map_publish(struct mds *mds);
void mds_map_destroy(struct mds *mds);
int mds_map_pick(struct mds *mds, u32 *ids, unsigned int n,
		 const u32 *except, unsigned int nr_except);
bool mds_map_known(struct mds *mds, u32 id);
int mds_map_get_ds(struct mds *mds, u32 id, struct aifs_ds_info *info);
int mds_map_next(struct mds *mds, u32 after, struct aifs_ds_info *info);
bool mds_map_serves(struct mds *mds, u32 id);
int mds_map_expire(struct mds_txn *t);
int mds_map_count_out(struct mds *mds, u32 id, const char *why);
int mds_map_next_recovering(struct mds *mds, u32 after, u64 rebuild_delay_ms,
			    struct aifs_ds_info *info, u64 *cursor,
			    u32 *round);
/* Recovery's work on a server in the current round. */
struct mds_sync_tally {
	u64 files, copied, deleted, left;
};

void mds_map_sync_cursor(struct mds *mds, u32 id, u32 round, u64 cursor,
			 const struct mds_sync_tally *tally);
int mds_map_repairs_set(struct mds *mds, const struct aifs_ds_repairs_req *req,
			const struct aifs_repair_entry *list);
unsigned int mds_map_repairs(struct mds *mds, struct aifs_repair_server *srv,
			     struct aifs_repair_entry *list,
			     unsigned int *listed);
unsigned int mds_map_recovery(struct mds *mds, u64 rebuild_delay_ms,
			      struct aifs_recovery_entry *out,
			      unsigned int max);
int mds_map_sync_done(struct mds *mds, u32 id, u32 round);
bool mds_map_last_copy(struct mds *mds, u32 id, const struct aifs_layout *l,
		       unsigned int g);
int mds_handle_map_get(struct aifs_request *req);
int mds_handle_ds_register(struct aifs_request *req);
int mds_handle_ds_heartbeat(struct aifs_request *req);
int mds_handle_statfs(struct aifs_request *req);

/* ---- space.c: room on the database's disk ---- */

void mds_space_check(struct mds *mds);
int mds_space_refuses(struct mds *mds, const struct aifs_request *req);

/* ---- writer.c: one writer, group commit ---- */

struct mds_op;
typedef int mds_apply_fn(struct mds_txn *t, struct mds_op *op);

/**
 * struct mds_op - a change, applied by the writer thread
 * @link:  in the writer's queue
 * @apply: makes the change in @t (a nested transaction of the batch) and
 *         sets @req's reply; 0 or a negative errno (then undone)
 * @req:   the request, or NULL for the server's own changes
 * @arg:   for @apply
 * @ret:   what @apply returned, or the cached reply's status
 * @cut_job: the truncation job @apply queued (0: none), for the waiter
 * @async: nobody waits: the writer frees the op
 * @done:  committed (or failed): the waiter may go
 */
struct mds_op {
	struct aifs_list link;
	mds_apply_fn *apply;
	struct aifs_request *req;
	void *arg;
	int ret;
	u64 cut_job;
	bool async;
	bool done;
};

int mds_writer_start(struct mds *mds);
void mds_writer_forget_server(struct mds *mds);
void mds_writer_stop(struct mds *mds);
int mds_write(struct aifs_request *req, mds_apply_fn *apply);
int mds_write_own(struct mds *mds, mds_apply_fn *apply, void *arg);
void mds_write_async(struct mds *mds, mds_apply_fn *apply, void *arg);

/* ---- replycache.c ---- */

/*
 * Who a request comes from, across its connections: the uuid of the
 * client's HELLO, or for a client without one its session id.
 */
#define MDS_CLIENT_KEY_SIZE	16

void mds_client_key(u64 session_id, const u8 client_uuid[16],
		    u8 key[MDS_CLIENT_KEY_SIZE]);

int mds_replies_create(struct mds *mds);
void mds_replies_destroy(struct mds *mds);
int mds_reply_cached(struct mds_txn *t, struct aifs_request *req);
int mds_reply_store(struct mds_txn *t, const struct aifs_request *req);
int mds_reply_prune(struct mds_txn *t);

/* ---- reply.c: decoding requests, encoding replies ---- */

int mds_decode(const struct aifs_request *req, void *fixed, u32 size,
	       struct aifs_span *parts);
int mds_reply(struct aifs_request *req, const void *fixed, u32 size,
	      const struct aifs_span parts[AIFS_MSG_MAX_PARTS]);
int mds_reply_data(struct aifs_request *req, const void *fixed, u32 size,
		   const void *data, u32 len);

/*
 * A read-only handler's work: @in is the request's decoded fixed part,
 * @parts what follows it; replies (mds_reply()) inside @t, so that it may
 * send values that live only as long as the transaction.
 */
typedef int mds_read_fn(struct mds_txn *t, struct aifs_request *req,
			const void *in, const struct aifs_span *parts);

int mds_read(struct aifs_request *req, void *in, u32 size, mds_read_fn *fn);

/* ---- check.c: the tables against each other ---- */

/* What fsck may do about a problem check.c finds. */
enum mds_fix_type {
	MDS_FIX_NONE,
	MDS_FIX_DENTRY_DEL,	/* entry @name in @ino names no inode */
	MDS_FIX_DIRSEQ_DEL,	/* sequence entry @seq of @ino names none */
	MDS_FIX_DIRSEQ_ADD,	/* entry @name of @ino lacks sequence @seq */
	MDS_FIX_COUNTS,		/* file @ino (as @snap) to @nlink; a
				 * directory's counted again */
	MDS_FIX_LOST,		/* @ino (as @snap) into /lost+found */
	MDS_FIX_ORPHAN_DEL,	/* @ino has names, or is gone: not an orphan */
};

#define MDS_FIX_TEXT	160

/**
 * struct mds_fix - a repair, done only if what it was found in is as it
 *                  was (the namespace lives on meanwhile)
 */
struct mds_fix {
	enum mds_fix_type type;
	u64 ino;
	u64 child;		/* DENTRY_DEL: the inode the entry names */
	u64 seq;
	u64 nlink;
	struct mds_inode snap;
	u32 name_len;
	char name[AIFS_NAME_MAX];
};

struct mds_check_tally {
	u64 inodes, dentries, orphans, problems;
};

typedef void mds_problem_fn(void *arg, enum aifs_fsck_kind kind,
			    const struct mds_fix *fix, const char *text);

/* Every problem of the tables in @t to @found: 0 or -errno. */
int mds_check_tables(struct mds_txn *t, struct mds_check_tally *tally,
		     mds_problem_fn *found, void *arg);
int mds_check(struct mds *mds);

/* A growing list of u64 (to free(@v)); @pos: check.c's counting. */
struct mds_u64s {
	u64 *v;
	size_t nr, room, pos;
};

int mds_u64s_add(struct mds_u64s *l, u64 v);
void mds_u64s_sort(struct mds_u64s *l);
/* Whether sorted @l has @v. */
bool mds_u64s_has(const struct mds_u64s *l, u64 v);

/* ---- fsck.c: aifs fsck, the tables against the data servers ---- */

int mds_fsck_start(struct mds *mds);
void mds_fsck_stop(struct mds *mds);
int mds_handle_fsck(struct aifs_request *req);
void mds_fsck_retired_back(struct mds *mds, u32 id);
/* Apply @fix if still due: 0 done, -ESTALE things changed, -errno. */
int mds_fix_apply(struct mds *mds, const struct mds_fix *fix);

/* ---- archive.c: replicated files converted to EC on the servers ---- */

int mds_archive_begin(struct mds_txn *t, const struct mds_inode *inode,
		      const struct aifs_layout *want);
bool mds_archiving(struct mds_txn *t, u64 ino);
int mds_archive_start(struct mds *mds);
void mds_archive_stop(struct mds *mds);

/* ---- metrics.c: the MDS's part of GET /metrics ---- */

void mds_metrics(FILE *out, void *data);

#endif /* AIFS_MDS_H */
