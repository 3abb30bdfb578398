/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * aifs-ds internals, one section per .c file.  See Documentation/ds.md
 * for the on-disk layout and the replication rules.
 */
#ifndef AIFS_DS_H
#define AIFS_DS_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "aifs/libaifs.h"
#include "aifs/server.h"

/* Checksum block: one CRC32C per this many bytes of a chunk. */
#define DS_BLOCK_SIZE		AIFS_BLOCK_SIZE
#define DS_BLOCKS(bytes)	(((u64)(bytes) + DS_BLOCK_SIZE - 1) / DS_BLOCK_SIZE)
#define DS_IO_ALIGN		4096	/* O_DIRECT buffers and offsets */

/* Other members of a chunk's replica group that a DS remembers. */
#define DS_MAX_PEERS		(AIFS_MAX_REPLICAS - 1)

/* Chunk locks: a chunk id hashes to one of these queues. */
#define DS_LOCK_STRIPES		1024

#define DS_UUID_STR_LEN		36

/* Room for data_dir: the paths of chunks under it must fit PATH_MAX. */
#define DS_DATA_DIR_MAX		3072

struct ds_config {
	struct aifs_server_config server;
	char data_dir[DS_DATA_DIR_MAX];
	char fs_uuid[DS_UUID_STR_LEN + 1];
	int direct_io;
	int ds_id;
	char mds[1024];
	char peers[4096];
	char public_address[NI_MAXHOST];
	int replica_timeout_ms;
	int peer_retry_ms;
	int drain;		/* the MDS places no new files here */
	int scrub_rate_mib;	/* 0: no scrub */
	int resync_rate_mib;	/* 0: no bound */
	int resync_queue;	/* chunks the resync queue holds at most */
	int scrub_interval_s;
};

/* What ds.id in the data directory holds. */
struct ds_identity {
	u8 uuid[16];
	u8 fs_uuid[16];
	u32 id;
};

/*
 * A holder of (or waiter for) one chunk's lock, in the caller's frame.  The
 * lock is the chunk's own, not its stripe's: a primary holds it across
 * its forwards, so a stripe shared with another chunk could make two
 * servers wait on each other's forwards (see ds.md, Replication).
 */
struct ds_lock {
	struct ds_lock *next;	/* in its stripe's queue, oldest first */
	u64 ino;
	u32 index;
	u16 fragment;
	bool write;
	bool primary;		/* held across forwards to other servers */
};

/*
 * How a chunk is locked: shared (reads), exclusive, exclusive by a
 * primary write (which waits on its replicas while it holds the lock),
 * or by a forward, which must not wait behind a primary write of the
 * same chunk here: that primary may be waiting on the server that sent
 * the forward, itself a primary of the chunk for a client that failed
 * over.  Such a forward gets -EAGAIN at once; its primary's client tries
 * again.
 */
enum ds_lock_kind {
	DS_LOCK_SHARED,
	DS_LOCK_EXCL,
	DS_LOCK_PRIMARY,
	DS_LOCK_FORWARD,
};

struct ds_lock_stripe {
	pthread_mutex_t mutex;
	pthread_cond_t cond;	/* a lock of the stripe was let go */
	struct ds_lock *queue;
};

struct ds_peers;
struct ds_resync;
struct ds_scrub;
struct ds_catchup;
struct ds_mds_link;
struct aifs_rdma_buf;

struct ds {
	struct ds_config cfg;
	const char *config_file;	/* read again on SIGHUP */
	struct ds_identity ident;
	pthread_mutex_t ident_lock;	/* ident.id changes on registration */
	int lock_fd;			/* flock of ds.id: one instance per dir */
	bool direct_io;			/* cfg.direct_io, if data_dir can */
	u32 zero_block_crc;		/* CRC32C of a block of zeros */
	atomic_llong nr_chunks;
	/*
	 * aifs_now_ms() until which this server may serve reads and take
	 * writes as a primary: its lease from the MDS (mds_link.c)
	 */
	atomic_ullong serve_until;
	atomic_int catching_up;		/* inodes with a catch-up mark */
	atomic_int repairs;		/* chunks with a repair mark */
	atomic_ullong forwards;		/* to replicas, for metrics.c */
	atomic_ullong forwards_refused;	/* of them, the write is retried */
	struct aifs_secret secret;	/* for connections to peers, the MDS */
	struct ds_lock_stripe locks[DS_LOCK_STRIPES];
	struct ds_peers *peers;
	struct ds_resync *resync;
	struct ds_scrub *scrub;
	struct ds_catchup *catchup;
	struct ds_mds_link *mds;
};

/* identity.c */
int ds_identity_load(struct ds *ds);
int ds_identity_format(struct ds *ds);
int ds_identity_set_id(struct ds *ds, u32 id);
u32 ds_self_id(struct ds *ds);
int ds_uuid_parse(const char *s, u8 uuid[16]);

/* main.c */
int ds_config_reread(const struct ds *ds, struct ds_config *cfg);
void ds_uuid_format(const u8 uuid[16], char s[DS_UUID_STR_LEN + 1]);

/* store.c: chunk files and their metadata sidecar */

/* behind its group, or damaged: serves nothing until resynced */
#define DS_META_STALE		(1U << 0)

/* A chunk's side copy, which a pull fills: "<chunk>.pull" and ".pull.meta" */
#define DS_SIDE_SUFFIX		".pull"

/*
 * A chunk's version: the truncation of its inode it was created under
 * (its incarnation, the high 32 bits) and its count of writes and cuts
 * since.  A chunk cut away and written again (an O_TRUNC checkpoint)
 * starts a new incarnation above every version of the old one, so a copy
 * that missed the cut finds a gap rather than take the new writes for
 * ones it holds.
 */
static inline u32 ds_version_born(u64 version)
{
	return version >> 32;
}

static inline u64 ds_version_first(u32 born)
{
	return ((u64)born << 32) + 1;
}

/* The chunk's metadata, in CPU byte order (on disk: struct ds_meta_disk). */
struct ds_meta {
	u64 version;
	u32 length;		/* bytes stored; the rest of the chunk is holes */
	u32 chunk_size;		/* the layout's chunk size: the CRC list size */
	u32 flags;		/* DS_META_* */
	u32 nr_peers;
	u32 peers[DS_MAX_PEERS];	/* the group as last heard of */
	u64 want;		/* stale: the newest version a forward brought,
				 * which the copy must reach to serve again */
	u32 fence;		/* pulled from a peer that had done this
				 * truncation of the inode: cuts up to it are
				 * in it already (ds_chunk_fence()) */
};

/* An open chunk; its lock is held by the caller. */
struct ds_chunk {
	struct ds *ds;
	struct aifs_chunk_id id;
	char path[PATH_MAX];	/* data file; the sidecar adds ".meta" */
	int fd;
	int mfd;
	bool created;		/* by this open: removed again on failure */
	int new_dirs;		/* directories made for it (ds_mkdirs()) */
	bool stale_stored;	/* the sidecar on disk has DS_META_STALE */
	bool peers_moved;	/* its group is not the one its slot has */
	struct ds_meta meta;
};

/*
 * The last truncation of its inode that a chunk holds: pulled from a peer
 * that had done it, or created under it (or under a later one).  An EC
 * fragment's version is its stripe's stamp, which counts writes, not
 * truncations: its sidecar's fence alone.
 */
static inline u32 ds_chunk_fence(const struct ds_chunk *c)
{
	u32 born = c->id.fragment ? 0 : ds_version_born(c->meta.version);

	return c->meta.fence > born ? c->meta.fence : born;
}

int ds_store_init(struct ds *ds);
void ds_store_exit(struct ds *ds);
int ds_check_id(struct ds *ds, const struct aifs_chunk_id *id);
void ds_chunk_lock(struct ds *ds, const struct aifs_chunk_id *id, bool write,
		   struct ds_lock *lock);
int ds_chunk_lock_as(struct ds *ds, const struct aifs_chunk_id *id,
		     enum ds_lock_kind kind, struct ds_lock *lock);
void ds_chunk_unlock(struct ds *ds, struct ds_lock *lock);
int ds_chunk_open(struct ds *ds, const struct aifs_chunk_id *id,
		  u32 create_size, struct ds_chunk *c);
void ds_chunk_close(struct ds_chunk *c, int err);
int ds_meta_store(struct ds_chunk *c);
int ds_crcs_load(struct ds_chunk *c, u32 first, u32 n, u32 *crcs);
int ds_crcs_store(struct ds_chunk *c, u32 first, u32 n, const u32 *crcs);
int ds_chunk_sync(struct ds_chunk *c);
int ds_side_open(struct ds *ds, const struct aifs_chunk_id *id,
		 u32 chunk_size, struct ds_chunk *c);
void ds_side_drop(struct ds_chunk *c);
int ds_side_swap(struct ds_chunk *c);
int ds_chunk_delete(struct ds *ds, const struct aifs_chunk_id *id, u32 flags,
		    u32 fence);

/* Called per chunk stored; a non-zero return ends the walk with it. */
typedef int ds_chunk_fn(struct ds *ds, const struct aifs_chunk_id *id,
			void *arg);
int ds_store_walk(struct ds *ds, ds_chunk_fn *fn, void *arg);
/* Called per inode with a record of what is held (held.c) */
typedef int ds_held_fn(struct ds *ds, u64 ino, void *arg);
int ds_store_walk_held(struct ds *ds, ds_chunk_fn *fn, ds_held_fn *held,
		       void *arg);
int ds_store_inodes(struct ds *ds, u32 *dir, u64 *after, u32 max, u64 *out);
int ds_chunk_stat(struct ds *ds, const struct aifs_chunk_id *id,
		  struct aifs_chunk_entry *e);
int ds_store_list(struct ds *ds, u64 ino, u32 from, u32 max,
		  struct aifs_chunk_entry *out, bool *more);

/* What a data server keeps of an inode besides its chunks. */
struct ds_inode_rec {
	u32 fence;		/* its last truncation done here */
	u32 layout_gen;		/* writes of older layouts are refused */
	u32 cutting;		/* the last one begun here, done or not */
	u32 listed;		/* the peers' count of truncations the last
				 * catch-up pass listed first (sync.c) */
};

void ds_inode_lock(struct ds *ds, u64 ino, struct ds_lock *lock);
int ds_inode_load(struct ds *ds, u64 ino, struct ds_inode_rec *rec);
int ds_inode_store(struct ds *ds, u64 ino, const struct ds_inode_rec *rec);
int ds_inode_raise(struct ds *ds, u64 ino, u32 fence, u32 layout_gen);
int ds_inode_born(struct ds *ds, u64 ino, u32 *born);
int ds_sync_pass(struct ds *ds, u64 ino, u32 from, u32 fence);
int ds_file_put(const char *path, const void *buf, size_t len, int made);
void ds_inode_dir(const struct ds *ds, u64 ino, char *path, size_t size);
int ds_dirs_sync(const char *path, int made, int err);

/* held.c: the chunks a copy should hold (G4) */
int ds_held_set(struct ds_chunk *c, bool dir_later);
int ds_held_clear(struct ds *ds, const struct aifs_chunk_id *id);
int ds_held_sync(struct ds *ds, u64 ino);
int ds_held_forget(struct ds *ds, u64 ino);
bool ds_held_lost(struct ds *ds, const struct aifs_chunk_id *id);
int ds_held_missing(struct ds *ds, u64 ino, u32 *lost);
bool ds_chunk_id_parse(const char *name, struct aifs_chunk_id *id);
int ds_marks_init(const char *path, atomic_int *n);
void *ds_blocks_alloc(u32 nr_blocks);
int ds_pread_all(int fd, void *buf, size_t len, off_t off);
int ds_pwrite_all(int fd, const void *buf, size_t len, off_t off);

/* crc.c: block checksums */
void ds_crc_blocks(const void *buf, u32 nr_blocks, u32 *crcs);
int ds_crc_verify(struct ds_chunk *c, u32 first, u32 nr_blocks,
		  const void *buf);

/* block.c: chunk data, a whole checksum block at a time */
int ds_data_read(struct ds_chunk *c, u32 first, u32 nr_blocks, void *buf);
int ds_data_write(struct ds_chunk *c, u32 offset, const void *data, u32 len);
int ds_data_truncate(struct ds_chunk *c, u32 length);
int ds_data_zero(struct ds_chunk *c, u32 offset, u32 len);

/* undo.c: what a fragment's last stripe write replaced, to roll it back */
int ds_undo_save(struct ds_chunk *c, u64 stamp, u32 off, u32 len, bool sync);
int ds_undo_apply(struct ds_chunk *c, u64 stamp);
void ds_undo_unlink(const char *chunk_path);

/* intent.c: the stripe writes a leader has under way */
int ds_intent_begin(struct ds *ds, const struct aifs_chunk_id *id, bool sync);
void ds_intent_end(struct ds *ds, const struct aifs_chunk_id *id);
int ds_intent_recover(struct ds *ds);

/* io.c: the data handlers */
int ds_io_register(struct aifs_server *srv);
int ds_read(struct aifs_request *req);
int ds_rdma_send(struct aifs_request *req, const void *data, u32 len,
		 const struct aifs_rdma_seg *seg);
int ds_rdma_fetch(struct aifs_request *req, const struct aifs_rdma_seg *seg,
		  struct aifs_span *data, struct aifs_rdma_buf **bp);
int ds_ahead_out(struct ds *ds, const __le32 *ids, u32 ahead);
int ds_layout_gen_check(struct ds *ds, u64 ino, u32 layout_gen);
int ds_reply_fixed(struct aifs_request *req, const void *rep, u32 size);

/* ec.c: erasure-coded stripes */
int ds_ec_register(struct aifs_server *srv);
int ds_ec_sync(struct ds *ds, const struct aifs_chunk_sync_req *r,
	       struct aifs_chunk_sync_rep *rep);
int ds_ec_peers(struct ds *ds, const struct aifs_layout *l, u32 *out);
int ds_ec_verify_run(struct ds *ds, const struct aifs_ec_verify_req *r,
		     struct aifs_ec_verify_rep *rep);
int ds_ec_verify_peer(struct ds *ds, u32 member,
		      const struct aifs_ec_verify_req *r,
		      struct aifs_ec_verify_rep *rep);
void ds_ec_group_of(const struct aifs_layout *l, u32 g,
		    struct aifs_ec_group *grp);
int ds_ec_repair(struct ds *ds, const struct aifs_chunk_id *id);

/* replicate.c: peers and forwarding */
int ds_peers_init(struct ds *ds);
void ds_peers_exit(struct ds *ds);
int ds_peer_set(struct ds *ds, u32 id, const char *host, const char *port,
		u32 state);
bool ds_peer_out(struct ds *ds, u32 id);
bool ds_peer_leads_nothing(struct ds *ds, u32 id);
int ds_peer_call(struct ds *ds, u32 id, u16 opcode, const struct iovec *iov,
		 int iovcnt, struct aifs_reply *reply);
int ds_peer_ask(struct ds *ds, u32 id, u16 opcode, const void *req,
		size_t len, struct aifs_reply *reply);
int ds_peer_write(struct ds *ds, u32 id, u16 opcode, const struct iovec *iov,
		  int iovcnt, struct aifs_reply *reply);
int ds_forward(struct ds *ds, const struct aifs_chunk_write_req *req,
	       const struct aifs_span *data, u64 version, u32 *ahead);
int ds_replicas_caught_up(struct ds *ds, const struct aifs_chunk_write_req *req,
			  u64 version);

/* resync.c: catching up from a peer */
bool ds_sleep_until(pthread_mutex_t *lock, pthread_cond_t *wake,
		    const bool *stop, u64 due);
int ds_resync_start(struct ds *ds);
void ds_resync_stop(struct ds *ds);
/* Why a copy is queued for resync: what may replace it (resync.c). */
enum ds_resync_why {
	DS_RESYNC_STALE,	/* marked stale: a copy with what it missed */
	DS_RESYNC_DAMAGED,	/* a bad CRC: marked stale, then as above */
	DS_RESYNC_NEWER,	/* a reader claims a newer version: only a
				 * copy that really is newer */
};

void ds_resync_queue(struct ds *ds, const struct ds_chunk *c,
		     enum ds_resync_why why);
void ds_resync_request(struct ds *ds, const struct aifs_chunk_id *id,
		       u32 chunk_size, u64 min_version, u64 seen, u32 fence,
		       const u32 *peers, u32 nr_peers);
void ds_resync_counts(struct ds *ds, u64 *resynced, u64 *failed);
u64 ds_resync_queued(struct ds *ds);
void ds_resync_retry_held(struct ds *ds);
u64 ds_resync_held(struct ds *ds, struct aifs_repair_entry *list,
		   unsigned int max, unsigned int *listed);
void ds_resync_wait(struct ds *ds, const struct aifs_chunk_id *id);
bool ds_resync_pulling(struct ds *ds, u64 ino);

/* repair.c */
int ds_repair_init(struct ds *ds);
int ds_repair_note(struct ds *ds, const struct aifs_chunk_id *id, bool needed);
void ds_repair_requeue(struct ds *ds);
void ds_repair_entry(const struct aifs_chunk_id *id, u16 flags,
		     struct aifs_repair_entry *e);
unsigned int ds_repair_report(struct ds *ds, struct aifs_ds_repairs_req *req,
			      struct aifs_repair_entry *list);

/* sync.c */
int ds_catchup_init(struct ds *ds);
int ds_catchup_start(struct ds *ds);
void ds_catchup_stop(struct ds *ds);
bool ds_serves_inode(struct ds *ds, u64 ino);
int ds_sync_done(struct ds *ds, u64 ino, u32 fence);
int ds_sync_register(struct aifs_server *srv);

/* scrub.c */
int ds_scrub_start(struct ds *ds);
void ds_scrub_stop(struct ds *ds);
int ds_scrub_register(struct aifs_server *srv);
int ds_scrub_report(struct ds *ds, bool start, struct aifs_ds_scrub_rep *rep);

/* statfs.c */
int ds_capacity(struct ds *ds, struct aifs_statfs_rep *rep);
int ds_statfs_register(struct aifs_server *srv);

/* mds_link.c: registration and heartbeats */
int ds_mds_start(struct ds *ds, struct aifs_server *srv);
void ds_mds_stop(struct ds *ds);
void ds_mds_refresh(struct ds *ds);
void ds_mds_reload(void *data);
bool ds_serving(struct ds *ds);
int ds_mds_layout(struct ds *ds, u64 ino, struct aifs_layout *layout);
u32 ds_mds_out_wait_ms(struct ds *ds);

/* metrics.c: the DS's part of GET /metrics */
void ds_metrics(FILE *out, void *data);

#endif /* AIFS_DS_H */
