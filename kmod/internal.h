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
#include <linux/socket.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <aifs/aifs_proto.h>
#include <aifs/aifs_codec.h>

struct crypto_shash;
struct aifs_fs_info;
struct net;
struct seq_file;
struct task_struct;
struct aifs_transport_ops;
struct aifs_xprt;

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
};

struct aifs_conn *aifs_conn_open(struct net *net,
				 const struct sockaddr_storage *addr,
				 const struct aifs_transport_ops *ops,
				 unsigned long timeout);
void aifs_conn_close(struct aifs_conn *conn);
struct aifs_conn *aifs_conn_get(struct aifs_conn *conn);
void aifs_conn_put(struct aifs_conn *conn);
bool aifs_conn_fail(struct aifs_conn *conn, int err);
int aifs_conn_error(struct aifs_conn *conn);
void aifs_conn_set_version(struct aifs_conn *conn, u16 version);
u32 aifs_conn_new_id(void);
int aifs_conn_call_id(struct aifs_conn *conn, u32 id, u16 opcode,
		      const void *payload, u32 len, void *reply,
		      u32 reply_size, unsigned long timeout);
int aifs_conn_call(struct aifs_conn *conn, u16 opcode, const void *payload,
		   u32 len, void *reply, u32 reply_size, unsigned long timeout);

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
 * @lock: guards @conn, @server, @version, @id, @gen and @down
 * @conn: the connection, NULL until aifs_session_open() succeeds; replaced
 *	by a new one after it failed
 * @net: network namespace of the connections
 * @server: address of the server, for sysfs and messages
 * @version: negotiated protocol version
 * @id: the server's session id
 * @gen: connections made so far; 1 for the first
 * @down: "not responding" was said, "OK" is owed
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
	unsigned int gen;
	bool down;
	u8 fs_uuid[16];
	struct delayed_work keepalive;
};

int aifs_session_open(struct aifs_fs_info *fsi, struct fs_context *fc);
void aifs_session_close(struct aifs_fs_info *fsi);
int aifs_session_call(struct aifs_fs_info *fsi, u16 op, const void *payload,
		      u32 len, void *reply, u32 reply_size, unsigned int *gen);
void aifs_session_server(struct aifs_fs_info *fsi,
			 struct sockaddr_storage *addr);

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
 * @gen: in: 0, or the generation of the session's connection that alone
 *	may carry the request; out: that of the connection that answered
 *	(see aifs_session_call())
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
	unsigned int gen;
};

int aifs_mds_call(struct super_block *sb, struct aifs_mds_msg *m);

/*
 * data.c
 */

/**
 * struct aifs_data - a mount's data servers
 * @servers: struct aifs_ds by server id, freed at umount only
 * @map_lock: serialises MAP_GET
 * @epoch: epoch of the last map fetched
 * @dead_lock: guards @dead
 * @dead: failed connections, closed at umount
 * @net: network namespace of the connections; NULL before
 *	aifs_data_init()
 * @chunk_reads: CHUNK_READ requests sent (sysfs chunk_reads)
 * @chunk_read_bytes: bytes they asked for (sysfs chunk_read_bytes)
 */
struct aifs_data {
	struct xarray servers;
	struct mutex map_lock;		/* serialises MAP_GET */
	u64 epoch;
	spinlock_t dead_lock;		/* guards @dead */
	struct list_head dead;
	struct net *net;
	atomic64_t chunk_reads;
	atomic64_t chunk_read_bytes;
};

void aifs_data_init(struct aifs_fs_info *fsi, struct net *net);
void aifs_data_close(struct aifs_fs_info *fsi);
int aifs_data_refresh_map(struct aifs_fs_info *fsi);
struct aifs_conn *aifs_data_conn(struct aifs_fs_info *fsi, u32 id);

/*
 * file.c
 */

/**
 * struct aifs_file - an open regular file
 * @handle: the MDS's handle of the open, for CLOSE
 * @gen: the session's connection that holds @handle
 */
struct aifs_file {
	u64 handle;
	unsigned int gen;
};

extern const struct file_operations aifs_file_fops;

/*
 * addr.c
 */

extern const struct address_space_operations aifs_aops;

/*
 * inode.c
 */

/* aifs_inode_info.flags */
#define AIFS_I_STALE	0	/* the server's inode is gone or changed type */

/**
 * struct aifs_inode_info - an aifs inode
 * @vfs_inode: the VFS inode
 * @generation: the server's generation of the inode number
 * @change: the server's change counter at the last update
 * @attr_expire: jiffies after which the attributes are refetched
 * @blksize: preferred I/O size the server reported
 * @flags: AIFS_I_* bits
 * @symlink: a symlink's target once read, NUL-terminated; set once
 * @layout: where the data is, from the last OPEN; under @vfs_inode.i_lock
 * @has_layout: @layout is set
 */
struct aifs_inode_info {
	struct inode vfs_inode;
	u64 generation;
	u64 change;
	unsigned long attr_expire;
	u32 blksize;
	unsigned long flags;
	char *symlink;
	struct aifs_layout layout;
	bool has_layout;
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
int aifs_getattr_call(struct super_block *sb, u64 ino, struct aifs_attr *attr);
int aifs_revalidate(struct inode *inode, bool force);
int aifs_getattr(struct user_namespace *mnt_userns, const struct path *path,
		 struct kstat *stat, u32 request_mask, unsigned int flags);
int aifs_setattr(struct user_namespace *mnt_userns, struct dentry *dentry,
		 struct iattr *attr);
int aifs_open(struct inode *inode, struct file *file);

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

ssize_t aifs_listxattr(struct dentry *dentry, char *list, size_t size);

/*
 * super.c
 */

/**
 * struct aifs_fs_info - per-superblock state
 * @sb: the superblock this belongs to
 * @opts: mount options, owned from get_tree on
 * @transport: transport in use (transport=auto resolved)
 * @session: the session with the metadata server, from get_tree on
 * @data: the data servers, from get_tree on
 * @id: number naming the bdi and the sysfs directory ("aifs-<id>"),
 *	-1 until allocated
 * @tune_lock: serialises writers of the tunables in @opts (remount and
 *	sysfs), so that the bdi readahead always matches read_ahead_kb
 * @kobj: /sys/fs/aifs/aifs-<id>
 * @kobj_unregister: completed by the release of @kobj
 */
struct aifs_fs_info {
	struct super_block *sb;
	struct aifs_mount_options opts;
	enum aifs_transport transport;
	struct aifs_session session;
	struct aifs_data data;
	int id;
	struct mutex tune_lock;		/* serialises tunable writers */
	struct kobject kobj;
	struct completion kobj_unregister;
};

static inline struct aifs_fs_info *AIFS_SB(struct super_block *sb)
{
	return sb->s_fs_info;
}

void aifs_set_tunable(struct aifs_fs_info *fsi, enum aifs_param param,
		      unsigned int val);

/*
 * sysfs.c
 */

int aifs_sysfs_register(struct aifs_fs_info *fsi);
void aifs_sysfs_unregister(struct aifs_fs_info *fsi);
int aifs_sysfs_init(void);
void aifs_sysfs_exit(void);

#endif /* _AIFS_INTERNAL_H */
