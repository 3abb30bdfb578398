/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aifs - private header of the kernel client.
 *
 * One section per .c file, in the manner of fs/ceph/super.h and
 * fs/erofs/internal.h.
 */
#ifndef _AIFS_INTERNAL_H
#define _AIFS_INTERNAL_H

#include <linux/completion.h>
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/fs_parser.h>
#include <linux/kobject.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/ratelimit.h>
#include <linux/socket.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <aifs/aifs_proto.h>
#include <aifs/aifs_codec.h>
#include <aifs/aifs_genl.h>

#include "compat.h"

struct crypto_shash;
struct aifs_dio;
struct aifs_fs_info;
struct iov_iter;
struct kiocb;
struct net;
struct seq_file;
struct task_struct;
struct writeback_control;
struct aifs_transport_ops;
struct aifs_xprt;
struct aifs_xprt_reg;

#define AIFS_SUPER_MAGIC	0x41494653	/* "AIFS" */

#define AIFS_MAX_SERVERS	8	/* servers in one mount source */
#define AIFS_MAX_PATH		(PATH_MAX - 1)	/* subdir in the source */

/*
 * options.c
 */

enum aifs_transport {
	AIFS_TRANSPORT_TCP,
	AIFS_TRANSPORT_RDMA,
	AIFS_TRANSPORT_AUTO,
};

/*
 * Mount parameters. The unsigned ones come first: their values index
 * aifs_uint_params[], the single table of names, ranges and defaults used
 * by option parsing, show_options, remount and sysfs alike.
 */
enum aifs_param {
	AIFS_OPT_PORT,
	AIFS_OPT_READ_AHEAD_KB,
	AIFS_OPT_MAX_INFLIGHT,
	AIFS_OPT_TIMEO,
	AIFS_OPT_RETRANS,
	AIFS_OPT_ATTR_TIMEOUT,
	AIFS_OPT_DENTRY_TIMEOUT,
	AIFS_NR_UINT_PARAMS,

	AIFS_OPT_TRANSPORT = AIFS_NR_UINT_PARAMS,
	AIFS_OPT_HARD,
	AIFS_OPT_SOFT,
	AIFS_OPT_SECRET,
	AIFS_OPT_SOURCE,
	AIFS_OPT_ADDR,
};

/**
 * struct aifs_uint_param - an unsigned mount option and its limits
 * @name: option name as written in mount(8) and in sysfs
 * @offset: offset of its unsigned int in struct aifs_mount_options
 * @min: smallest accepted value
 * @max: largest accepted value
 * @def: value used when the option is not given
 * @remount: whether remount may change it
 */
struct aifs_uint_param {
	const char *name;
	size_t offset;
	unsigned int min;
	unsigned int max;
	unsigned int def;
	bool remount;
};

extern const struct aifs_uint_param aifs_uint_params[AIFS_NR_UINT_PARAMS];
extern const struct fs_parameter_spec aifs_fs_parameters[];

/**
 * struct aifs_mount_options - everything a mount was asked for
 * @servers: metadata servers; sin_port/sin6_port is 0 until
 *	aifs_finish_options() has applied @port to servers given without one
 * @nr_servers: used entries of @servers, 0 when no source was given
 * @path: subdirectory of the file system to mount, normalised
 * @secret: shared secret for connection authentication, NUL-terminated
 * @transport: transport asked for (not necessarily the one in use)
 * @port: port of servers given without one
 * @read_ahead_kb: readahead window and largest read, in KiB
 * @max_inflight: bound on outstanding requests of the mount
 * @timeo: request timeout, in tenths of a second
 * @retrans: retries before a soft mount fails a request
 * @attr_timeout: seconds cached attributes stay valid
 * @dentry_timeout: seconds cached dentries stay valid
 * @soft: fail requests after @retrans retries instead of retrying forever
 *
 * Ranges and defaults of the unsigned members are in aifs_uint_params[].
 * Those that remount or sysfs may change, and @soft, are read without
 * locks: use READ_ONCE().
 */
struct aifs_mount_options {
	struct sockaddr_storage servers[AIFS_MAX_SERVERS];
	unsigned int nr_servers;
	char *path;
	char *secret;
	enum aifs_transport transport;
	unsigned int port;
	unsigned int read_ahead_kb;
	unsigned int max_inflight;
	unsigned int timeo;
	unsigned int retrans;
	unsigned int attr_timeout;
	unsigned int dentry_timeout;
	bool soft;
};

/**
 * struct aifs_fs_context - mount or remount request being built
 * @opts: parsed options, defaults where not given
 * @given: bit n set when option n (enum aifs_param) was given; remount
 *	touches only those
 * @source_hosts: the servers part of the source, parsed as numeric
 *	addresses only when no addr= option names the servers instead
 */
struct aifs_fs_context {
	struct aifs_mount_options opts;
	unsigned long given;
	char *source_hosts;
};

static inline unsigned int *aifs_uint_ptr(struct aifs_mount_options *opts,
					  enum aifs_param param)
{
	return (unsigned int *)((char *)opts + aifs_uint_params[param].offset);
}

/* Tunables are read without locks while remount or sysfs may write them. */
static inline unsigned int aifs_get_uint(const struct aifs_mount_options *opts,
					 enum aifs_param param)
{
	const unsigned int *p = (const unsigned int *)((const char *)opts +
					aifs_uint_params[param].offset);

	return READ_ONCE(*p);
}

/* The mount's timeo (tenths of a second) in jiffies. */
static inline unsigned long
aifs_timeo_jiffies(const struct aifs_mount_options *opts)
{
	return msecs_to_jiffies(aifs_get_uint(opts, AIFS_OPT_TIMEO) * 100);
}

const char *aifs_transport_name(enum aifs_transport transport);
void aifs_default_options(struct aifs_mount_options *opts);
void aifs_free_options(struct aifs_mount_options *opts);
int aifs_parse_param(struct fs_context *fc, struct fs_parameter *param);
int aifs_finish_options(struct fs_context *fc);
int aifs_check_remount(struct fs_context *fc,
		       const struct aifs_mount_options *cur);
void aifs_show_mount_options(struct seq_file *m,
			     const struct aifs_mount_options *opts);

/*
 * conn.c
 */

/**
 * struct aifs_conn - a connection to one server
 * @ref: references: the opener's, and those of aifs_conn_get()
 * @addr: the server
 * @xprt: transport carrying the frames
 * @receiver: thread receiving the replies
 * @send_lock: serialises the frames sent
 * @reqs: outstanding requests by id; its lock also guards @error
 * @error: 0, or the negative errno that closed the connection
 * @version: protocol version of the frames sent
 * @map_epoch: the highest cluster map epoch a reply's header carried;
 *	written by the receiver only
 */
struct aifs_conn {
	struct kref ref;
	struct sockaddr_storage addr;
	struct aifs_xprt *xprt;
	struct task_struct *receiver;
	struct mutex send_lock;		/* serialises senders */
	struct xarray reqs;
	int error;
	u16 version;
	u64 map_epoch;
};

const struct aifs_transport_ops *aifs_transport_get(enum aifs_transport transport);
bool aifs_transport_fallback(const struct aifs_fs_info *fsi, int err);
struct aifs_conn *aifs_conn_open(struct net *net,
				 const struct sockaddr_storage *addr,
				 const struct aifs_transport_ops *ops,
				 unsigned long timeout);
void aifs_conn_close(struct aifs_conn *conn);
struct aifs_conn *aifs_conn_get(struct aifs_conn *conn);
void aifs_conn_put(struct aifs_conn *conn);
bool aifs_conn_fail(struct aifs_conn *conn, int err);
int aifs_conn_error(struct aifs_conn *conn);
bool aifs_conn_broke(struct aifs_conn *conn, int err);
u64 aifs_conn_map_epoch(struct aifs_conn *conn);
void aifs_conn_set_version(struct aifs_conn *conn, u16 version);
u32 aifs_conn_new_id(void);
int aifs_conn_call_id(struct aifs_conn *conn, u32 id, u16 opcode,
		      const void *payload, u32 len, void *reply,
		      u32 reply_size, unsigned long timeout);
int aifs_conn_call(struct aifs_conn *conn, u16 opcode, const void *payload,
		   u32 len, void *reply, u32 reply_size, unsigned long timeout);
int aifs_conn_call_data(struct aifs_conn *conn, u16 opcode,
			const void *payload, u32 len, void *head,
			u32 head_size, struct iov_iter *data,
			unsigned long timeout);
int aifs_conn_call_write(struct aifs_conn *conn, u16 opcode,
			 const void *payload, u32 len, struct iov_iter *data,
			 void *reply, u32 reply_size, unsigned long timeout);
struct aifs_xprt_reg *aifs_conn_lend(struct aifs_conn *conn,
				     const struct iov_iter *data,
				     struct aifs_rdma_seg *seg);
void aifs_conn_take_back(struct aifs_conn *conn, struct aifs_xprt_reg *reg);

/*
 * auth.c
 */

/**
 * struct aifs_handshake - what a server tells in the handshake
 * @version: protocol version both speak
 * @session_id: the server's id for the connection
 * @fs_uuid: file system the server serves
 */
struct aifs_handshake {
	u16 version;
	u64 session_id;
	u8 fs_uuid[16];
};

int aifs_handshake(struct aifs_conn *conn, struct p_log *log,
		   struct crypto_shash *hmac, struct aifs_handshake *hs,
		   unsigned long timeout);
int aifs_auth_init(void);

/*
 * session.c
 */

/**
 * struct aifs_session - a mount's authenticated session with its MDS
 * @connect_lock: one reconnect at a time
 * @lock: guards @conn, @server, @version, @id and @down
 * @conn: the connection, NULL until aifs_session_open() succeeds; replaced
 *	by a new one after it failed
 * @net: network namespace of the connections
 * @server: address of the server, for sysfs and messages
 * @version: negotiated protocol version
 * @id: the server's session id
 * @down: "not responding" was said, "OK" is owed
 * @closing: umount began: no more dialing
 * @fs_uuid: the file system served; every connection must serve it
 * @keepalive: PING every timeo/2
 */
struct aifs_session {
	struct mutex connect_lock;	/* one reconnect at a time */
	spinlock_t lock;		/* guards the connection and its facts */
	struct aifs_conn *conn;
	struct net *net;
	struct sockaddr_storage server;
	u16 version;
	u64 id;
	bool down;
	bool closing;
	u8 fs_uuid[16];
	struct delayed_work keepalive;
	struct ratelimit_state chatter;	/* "not responding" of this mount */
};

int aifs_session_open(struct aifs_fs_info *fsi, struct fs_context *fc);
void aifs_session_shutdown(struct aifs_fs_info *fsi);
void aifs_session_abort(struct aifs_fs_info *fsi);
void aifs_session_close(struct aifs_fs_info *fsi);
int aifs_session_call(struct aifs_fs_info *fsi, u16 op, const void *payload,
		      u32 len, void *reply, u32 reply_size, bool once);
void aifs_session_server(struct aifs_fs_info *fsi,
			 struct sockaddr_storage *addr);
u64 aifs_session_id(struct aifs_fs_info *fsi);

/*
 * mds.c
 */

/**
 * struct aifs_mds_msg - one request to the MDS and its decoded reply
 * @op: enum aifs_opcode
 * @req: the request's fixed struct; its leading struct aifs_cred is
 *	filled in by aifs_mds_call()
 * @req_size: sizeof(*@req)
 * @req_parts: variable parts of the request (names, targets, values)
 * @rep: out: the reply's fixed struct
 * @rep_size: sizeof(*@rep)
 * @rep_buf: room for a reply with variable parts, NULL for replies
 *	without; @rep_parts then point into it
 * @rep_max: bytes at @rep_buf
 * @rep_parts: out: the reply's variable parts
 * @once: sent once on the session's connection, if there is one (see
 *	aifs_session_call())
 */
struct aifs_mds_msg {
	u16 op;
	void *req;
	u32 req_size;
	struct aifs_span req_parts[AIFS_MSG_MAX_PARTS];
	void *rep;
	u32 rep_size;
	void *rep_buf;
	u32 rep_max;
	struct aifs_span rep_parts[AIFS_MSG_MAX_PARTS];
	bool once;
};

/**
 * struct aifs_mds_limit - a mount's outstanding MDS requests
 * @inflight: requests between taking a slot and their reply
 * @wait: tasks waiting for a slot (max_inflight are taken)
 */
struct aifs_mds_limit {
	atomic_t inflight;
	wait_queue_head_t wait;
};

void aifs_mds_init(struct aifs_fs_info *fsi);
void aifs_mds_wake(struct aifs_fs_info *fsi);
int aifs_mds_call(struct super_block *sb, struct aifs_mds_msg *m);

/*
 * data.c
 */

/**
 * struct aifs_data - a mount's data servers
 * @servers: struct aifs_ds by server id, freed at umount only
 * @map_lock: serialises MAP_GET
 * @epoch: epoch of the last map fetched, 0 before the first
 * @wanted: highest epoch a refresh was started for
 * @refresh: fetches the map after a reply announced a newer one
 * @dead_lock: guards @dead
 * @dead: failed connections, closed at umount
 * @net: network namespace of the connections; NULL before
 *	aifs_data_init()
 * @wq: runs the sub-requests of reads and the runs of writeback,
 *	max_inflight at once; drained at umount
 * @closing: umount began: no new connections
 */
struct aifs_data {
	struct xarray servers;
	struct mutex map_lock;		/* serialises MAP_GET */
	u64 epoch;
	u64 wanted;
	struct work_struct refresh;
	spinlock_t dead_lock;		/* guards @dead */
	struct list_head dead;
	struct net *net;
	struct workqueue_struct *wq;
	bool closing;
};

int aifs_data_init(struct aifs_fs_info *fsi, struct net *net);
void aifs_data_set_inflight(struct aifs_fs_info *fsi);
void aifs_data_shutdown(struct aifs_fs_info *fsi);
void aifs_data_abort(struct aifs_fs_info *fsi);
void aifs_data_close(struct aifs_fs_info *fsi);
int aifs_data_refresh_map(struct aifs_fs_info *fsi);
void aifs_data_map_seen(struct aifs_fs_info *fsi, u64 epoch);
struct aifs_conn *aifs_data_conn(struct aifs_fs_info *fsi, u32 id);

/*
 * file.c
 */

/**
 * struct aifs_file - an open regular file
 * @handle: the MDS's handle of the open, for CLOSE
 */
struct aifs_file {
	u64 handle;
};

extern const struct file_operations aifs_file_fops;

/*
 * addr.c
 */

/* Largest CHUNK_READ or CHUNK_WRITE: one work item's share of a window. */
#define AIFS_DATA_MAX_IO	BIT(20)

extern const struct address_space_operations aifs_aops;

int aifs_layout_get(struct inode *inode, struct aifs_layout *layout);
int aifs_layout_refresh(struct inode *inode);
int aifs_layout_fetch(struct inode *inode, struct aifs_layout *layout);
void aifs_layout_take(struct inode *inode, const struct aifs_layout *layout);
const __le32 *aifs_layout_group(const struct aifs_layout *l, u32 index,
				u32 *width);
u32 aifs_io_piece(const struct aifs_layout *l, loff_t pos, size_t left);
u32 aifs_layout_unit(const struct aifs_layout *l);
void aifs_ec_group_fill(struct aifs_ec_group *g, const struct aifs_layout *l,
			const __le32 *group, u32 ahead);

/**
 * struct aifs_io_rounds - how the rounds of an I/O over a chunk's group went
 * @start: jiffies of the first round
 * @closed: a server closed the connection in the last round
 * @stale: a server answered ESTALE in the last round: it is up but does
 *	not serve yet (its copy is being resynced, or it is SYNCING or lost
 *	its lease from the MDS: Documentation/ds.md)
 * @down: a server was left alone after a failure in the last round
 * @moved: a primary answered EREMCHG: the layout is older than the
 *	file's (a rebuild); fetched again, it is tried again as for @stale
 * @relaid: the caller has a newer layout since the last round
 * @reconnected: the round after a closed connection was had
 * @refreshed: the map was fetched again for a server left alone
 */
struct aifs_io_rounds {
	unsigned long start;
	int aborts;		/* fsi->aborts when the I/O began */
	bool closed;
	bool stale;
	bool down;
	bool moved;
	bool relaid;
	bool reconnected;
	bool refreshed;
};

bool aifs_io_again(struct aifs_fs_info *fsi, struct aifs_io_rounds *rounds);
int aifs_read_direct(struct inode *inode, struct aifs_dio *dio);

/*
 * A folio's private word (the mapping has no large folios: a folio is a
 * page). AIFS_FOLIO_READAHEAD: readahead filled it and no read has been
 * counted yet (addr.c). AIFS_FOLIO_RANGE: of a dirty folio, only the
 * bytes [start, end) in the bits above are this client's to send
 * (write.c); a dirty folio without it is dirty as a whole.
 */
#define AIFS_FOLIO_READAHEAD	BIT(0)
#define AIFS_FOLIO_RANGE	BIT(1)
#define AIFS_FOLIO_START_SHIFT	2
#define AIFS_FOLIO_END_SHIFT	(AIFS_FOLIO_START_SHIFT + PAGE_SHIFT)

unsigned long aifs_folio_word(struct folio *folio);
void aifs_folio_set_word(struct folio *folio, unsigned long word);

/*
 * write.c
 */

int aifs_write_begin(AIFS_WRITE_CALLER *caller, struct address_space *mapping,
		     loff_t pos, unsigned int len,
		     struct aifs_write_page **pagep, void **fsdata);
int aifs_write_end(AIFS_WRITE_CALLER *caller, struct address_space *mapping,
		   loff_t pos, unsigned int len, unsigned int copied,
		   struct aifs_write_page *page, void *fsdata);
int aifs_writepages(struct address_space *mapping,
		    struct writeback_control *wbc);
int aifs_launder_folio(struct folio *folio);
void aifs_folio_set_range(struct folio *folio, size_t start, size_t end);
int aifs_write_and_wait(struct file *file, loff_t start, loff_t end);
int aifs_punch_wait(struct inode *inode);
int aifs_ec_cut_tail(struct inode *inode, loff_t size);
int aifs_punch_range(struct inode *inode, const struct aifs_layout *layout,
		     loff_t pos, loff_t len);
int aifs_write_direct(struct inode *inode, struct aifs_dio *dio);

/*
 * mmap.c
 */

int aifs_file_mmap(struct file *file, struct vm_area_struct *vma);

/*
 * direct.c
 */

/*
 * Alignment of O_DIRECT offsets, lengths and buffers (STATX_DIOALIGN):
 * none, as TCP moves any byte and the data servers merge partial blocks.
 */
#define AIFS_DIO_ALIGN	1

/**
 * struct aifs_dio - one batch of an O_DIRECT read or write
 * @ref: references: the caller's, and one for its pieces until the last
 *	ended; the last one gives the pages back
 * @ended: completed when the last piece ended
 * @pending: pieces not ended yet, and the submitter's until all are queued
 * @pos: where it begins in the file
 * @len: bytes of the caller's pages taken
 * @bvec: the caller's pages, a reference held on each
 * @nr_bvec: entries of @bvec
 * @write: a write: the pages are the source
 * @dirty: a read into user pages: they are marked dirty when given back
 * @lock: guards @done and @err while pieces end
 * @done: bytes done from @pos: @len, or where the lowest failure began
 * @err: the error of that failure
 */
struct aifs_dio {
	struct kref ref;
	struct completion ended;
	atomic_t pending;
	loff_t pos;
	size_t len;
	struct bio_vec *bvec;
	unsigned int nr_bvec;
	bool write;
	bool dirty;
	spinlock_t lock;	/* guards @done and @err */
	size_t done;
	int err;
};

void aifs_dio_iter(struct aifs_dio *dio, struct iov_iter *iter, size_t off,
		   size_t len);
void aifs_dio_begin(struct aifs_dio *dio, unsigned int nr);
void aifs_dio_fail(struct aifs_dio *dio, size_t off, int err);
void aifs_dio_end(struct aifs_dio *dio, size_t off, int err);
ssize_t aifs_direct_read(struct kiocb *iocb, struct iov_iter *to);
ssize_t aifs_direct_write(struct kiocb *iocb, struct iov_iter *from,
			  size_t count);

/*
 * inode.c
 */

/* aifs_inode_info.flags */
#define AIFS_I_STALE	0	/* the server's inode is gone or changed type */
#define AIFS_I_WRITTEN	1	/* size and mtime moved by writes, not committed */
#define AIFS_I_UNCLOSED	2	/* the last CLOSE could not commit them */

/**
 * struct aifs_inode_info - an aifs inode
 * @vfs_inode: the VFS inode
 * @generation: the server's generation of the inode number
 * @change: the server's change counter at the last update
 * @cache_change: the change counter the cached pages match: set at OPEN
 *	and by this client's own changes (their replies), not by attributes
 *	fetched meanwhile (a lookup must not hide another client's change
 *	from the next OPEN); under @vfs_inode.i_lock
 * @attr_expire: jiffies after which the attributes are refetched
 * @blksize: preferred I/O size the server reported
 * @flags: AIFS_I_* bits
 * @symlink: a symlink's target once read, NUL-terminated; set once
 * @layout: where the data is, from the last OPEN; under @vfs_inode.i_lock
 * @has_layout: @layout is set
 * @mds_size: the size in the MDS's last reply; under @vfs_inode.i_lock
 * @punches: punched holes whose zeros may still be on their way
 *	(write.c); writes wait for none to be left
 */
struct aifs_inode_info {
	struct inode vfs_inode;
	u64 generation;
	u64 change;
	u64 cache_change;
	unsigned long attr_expire;
	u32 blksize;
	unsigned long flags;
	char *symlink;
	struct aifs_layout layout;
	bool has_layout;
	u64 mds_size;
	atomic_t punches;
};

static inline struct aifs_inode_info *AIFS_I(struct inode *inode)
{
	return container_of(inode, struct aifs_inode_info, vfs_inode);
}

extern const struct inode_operations aifs_file_iops;

int aifs_inode_cache_init(void);
void aifs_inode_cache_exit(void);
struct inode *aifs_alloc_inode(struct super_block *sb);
void aifs_free_inode(struct inode *inode);
struct inode *aifs_iget(struct super_block *sb, const struct aifs_attr *attr);
int aifs_inode_update(struct inode *inode, const struct aifs_attr *attr);
int aifs_inode_update_own(struct inode *inode, const struct aifs_attr *attr);
int aifs_getattr_call(struct super_block *sb, u64 ino, struct aifs_attr *attr);
int aifs_revalidate(struct inode *inode, bool force);
int aifs_getattr(struct aifs_idmap *idmap, const struct path *path,
		 struct kstat *stat, u32 request_mask, unsigned int flags);
int aifs_setattr(struct aifs_idmap *idmap, struct dentry *dentry,
		 struct iattr *attr);
int aifs_open(struct inode *inode, struct file *file);
void aifs_ts_to_wire(struct aifs_timespec *w, const struct timespec64 *ts);
void aifs_inode_written(struct inode *inode, loff_t end);
int aifs_inode_commit(struct inode *inode, u64 handle);
int aifs_write_inode(struct inode *inode, struct writeback_control *wbc);

/*
 * namei.c
 */

extern const struct inode_operations aifs_dir_iops;
extern const struct inode_operations aifs_symlink_iops;

int aifs_name_call(struct super_block *sb, u64 dir, u16 op,
		   struct aifs_span name, struct aifs_entry_rep *rep);
int aifs_lookup_path(struct super_block *sb, const char *path,
		     struct aifs_attr *attr);

/*
 * dir.c
 */

extern const struct file_operations aifs_dir_fops;

/*
 * dentry.c
 */

extern const struct dentry_operations aifs_dentry_ops;

void aifs_dentry_set_expiry(struct dentry *dentry);

/*
 * xattr.c
 */

extern const struct xattr_handler *aifs_xattr_handlers[];

ssize_t aifs_getxattr_call(struct inode *inode, const char *name, void *value,
			   size_t size);
int aifs_setxattr_call(struct inode *inode, const char *name,
		       const void *value, size_t size, int flags);
ssize_t aifs_listxattr(struct dentry *dentry, char *list, size_t size);

/*
 * acl.c
 */

struct posix_acl *aifs_get_acl(struct inode *inode, int type, bool rcu);
int aifs_set_acl(struct aifs_idmap *idmap, struct AIFS_ACL_FILE *file,
		 struct posix_acl *acl, int type);

/*
 * super.c
 */

/**
 * struct aifs_fs_info - per-superblock state
 * @sb: the superblock this belongs to
 * @opts: mount options, owned from get_tree on
 * @transport: transport in use (transport=auto resolved)
 * @session: the session with the metadata server, from get_tree on
 * @mds: the bound on its outstanding requests (max_inflight)
 * @data: the data servers, from get_tree on
 * @id: number naming the bdi and the sysfs directory ("aifs-<id>"),
 *	-1 until allocated
 * @tune_lock: serialises writers of the tunables in @opts (remount and
 *	sysfs), so that the bdi readahead always matches read_ahead_kb
 * @kobj: /sys/fs/aifs/aifs-<id>
 * @kobj_unregister: completed by the release of @kobj
 * @stats: counters, from get_tree on
 * @born_ns: when @stats began (boot-time clock)
 */
struct aifs_fs_info {
	struct super_block *sb;
	struct aifs_mount_options opts;
	enum aifs_transport transport;
	struct aifs_session session;
	struct aifs_mds_limit mds;
	struct aifs_data data;
	int id;
	struct mutex tune_lock;		/* serialises tunable writers */
	struct kobject kobj;
	struct completion kobj_unregister;
	struct aifs_stats __percpu *stats;
	u64 born_ns;
	/* umount -f: one more each time, and a call waiting sees it */
	atomic_t aborts;
	wait_queue_head_t abort_wait;
};

static inline struct aifs_fs_info *AIFS_SB(struct super_block *sb)
{
	return sb->s_fs_info;
}

/* Whether umount -f came since a call that saw fsi->aborts at @aborts. */
static inline bool aifs_aborted(struct aifs_fs_info *fsi, int aborts)
{
	return atomic_read(&fsi->aborts) != aborts;
}

void aifs_set_tunable(struct aifs_fs_info *fsi, enum aifs_param param,
		      unsigned int val);

/*
 * stats.c
 */

/* The kinds of server a mount sends requests to. */
enum aifs_peer {
	AIFS_PEER_MDS,
	AIFS_PEER_DS,
	AIFS_NR_PEERS,
};

/**
 * struct aifs_stats - a mount's counters, one copy per CPU; only u64
 * @count: by enum aifs_counter (aifs_genl.h, which says what each counts)
 * @mds_ops: MDS requests by opcode, from AIFS_STATS_OP_FIRST
 * @lat: requests by latency class and bucket (aifs_lat_bucket())
 */
struct aifs_stats {
	u64 count[AIFS_NR_COUNTERS];
	u64 mds_ops[AIFS_STATS_NR_OPS];
	u64 lat[AIFS_LAT_CLASSES][AIFS_LAT_BUCKETS];
};

static inline void aifs_stat_add(struct aifs_fs_info *fsi,
				 enum aifs_counter counter, u64 n)
{
	this_cpu_add(fsi->stats->count[counter], n);
}

/* The @n bytes a read(2) or a write(2) moved, if any. */
static inline void aifs_stats_io(struct aifs_fs_info *fsi, bool write,
				 bool direct, ssize_t n)
{
	if (n <= 0)
		return;
	aifs_stat_add(fsi, write ? AIFS_C_WRITE_BYTES : AIFS_C_READ_BYTES, n);
	if (direct)
		aifs_stat_add(fsi, write ? AIFS_C_DIRECT_WRITE_BYTES :
				       AIFS_C_DIRECT_READ_BYTES, n);
}

int aifs_stats_init(struct aifs_fs_info *fsi);
void aifs_stats_free(struct aifs_fs_info *fsi);
void aifs_stats_call(struct aifs_fs_info *fsi, enum aifs_peer peer, u16 op,
		     u32 sent, int ret, u64 start_ns);
void aifs_stats_sum(struct aifs_fs_info *fsi, struct aifs_stats *sum);
int aifs_stats_show(struct aifs_fs_info *fsi, char *buf);

/* super.c: for iterate_supers_type() */
extern struct file_system_type aifs_fs_type;

/*
 * genl.c
 */

int aifs_genl_init(void);
void aifs_genl_exit(void);

/*
 * sysfs.c
 */

int aifs_sysfs_register(struct aifs_fs_info *fsi);
void aifs_sysfs_unregister(struct aifs_fs_info *fsi);
int aifs_sysfs_init(void);
void aifs_sysfs_exit(void);

/*
 * fail.c
 */

enum aifs_fail_point {
	AIFS_FAIL_REPLY_DROP,
	AIFS_FAIL_READ_ERROR,
	AIFS_FAIL_WRITE_ERROR,
	AIFS_NR_FAIL_POINTS
};

bool aifs_fail(enum aifs_fail_point point, u16 opcode, u32 *value);
int aifs_fail_errno(enum aifs_fail_point point);
void aifs_fail_init(void);
void aifs_fail_exit(void);

#endif /* _AIFS_INTERNAL_H */
