/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * aifs wire protocol: the one header shared by the kernel module and the
 * userspace servers, tools and library.
 *
 * Every multi-byte field is little-endian (__le16/32/64 from
 * <linux/types.h>, present in the kernel and in linux-libc-dev); every
 * struct has a fixed size with explicit padding, checked at compile time in
 * proto.c.  Nothing here allocates or does I/O.
 *
 * A message is a frame header followed by payload_len bytes of payload.  A
 * request and its reply carry the same request_id; a reply has
 * AIFS_FLAG_REPLY set and a status (0 or a positive Linux errno).  A reply
 * with a non-zero status has an empty payload.
 *
 * A payload is the fixed struct of its opcode and direction, followed by
 * the variable parts (names, symlink targets, xattr values, directory
 * entries, data) in the order the struct lists their length fields, with
 * no padding between them and nothing after the last one.  Senders zero
 * every reserved field; receivers ignore them.  Documentation/protocol.md
 * describes every message, its limits and the errors it returns.
 *
 * Changelog (protocol versions):
 *   1  first version: HELLO, AUTH, PING; namespace operations LOOKUP ..
 *      LAYOUT_SET on the MDS; cluster map, DS registration and heartbeat;
 *      chunk read, write, truncate, delete, checksum, replica forward and
 *      DS statfs on the data servers.  Before its release: AIFS_DS_DRAIN,
 *      and DS_HEARTBEAT's reserved field became its flags; the
 *      reserved fields of CHUNK_TRUNCATE and CHUNK_DELETE became @fence;
 *      AIFS_IO_ZERO (a CHUNK_WRITE of zeros with no data: hole punching);
 *      FAIL_SET (fault injection), DS_SCRUB, CHUNK_LIST, CHUNK_SYNC,
 *      DS_INODES, MDS_FSCK, RECOVERY_GET, EC_WRITE, EC_READ,
 *      FRAG_READ, FRAG_WRITE, EC_ARCHIVE, EC_VERIFY,
 *      CHUNK_WRITE's @ahead and @layout_gen, CHUNK_SYNC's @flags,
 *      CHUNK_READ's @layout_gen, LAYOUT_SET's @flags, AIFS_DELETE_ONE,
 *      EC fragments numbered from 1 (AIFS_EC_FRAGMENT),
 *      AIFS_DS_SYNCING, and DS_REGISTER's reply got @grace_ms.
 *      FRAG_BEHIND (2026-12-05); FRAG_WRITE's own request with stripe
 *      stamps, FRAG_READ of no bytes (a stamp's probe), FRAG_ROLLBACK
 *      (2026-12-05).  DS_REPAIRS, REPAIRS_GET (2026-12-05).
 */
#ifndef AIFS_PROTO_H
#define AIFS_PROTO_H

#include <linux/types.h>

#define AIFS_MAGIC		0x53464941U	/* "AIFS" in little-endian */
#define AIFS_PROTO_VERSION	1
#define AIFS_PROTO_MIN_VERSION	1

#define AIFS_MDS_PORT		7400	/* default metadata server port */
#define AIFS_DS_PORT		7410	/* default first data server port */

/*
 * Largest payload a peer accepts: one chunk segment of data (at most
 * AIFS_MAX_IO bytes) plus its request fields.  A frame announcing more is a
 * protocol error and closes the connection before anything is allocated.
 */
#define AIFS_MAX_IO		(4U << 20)
#define AIFS_MAX_PAYLOAD	(AIFS_MAX_IO + (64U << 10))

/* Largest status a reply may carry (the kernel's MAX_ERRNO). */
#define AIFS_MAX_ERRNO		4095

/* Frame flags. */
#define AIFS_FLAG_REPLY		(1U << 0)	/* this frame answers request_id */
#define AIFS_FLAG_PAYLOAD_CRC	(1U << 1)	/* payload_crc is set and checked */
#define AIFS_FLAGS_KNOWN	(AIFS_FLAG_REPLY | AIFS_FLAG_PAYLOAD_CRC)

/**
 * struct aifs_frame_hdr - the fixed header in front of every message
 * @magic:       AIFS_MAGIC
 * @version:     protocol version the sender speaks on this connection
 * @opcode:      enum aifs_opcode
 * @flags:       AIFS_FLAG_*
 * @status:      in a reply, 0 or a positive Linux errno; 0 in requests
 * @request_id:  chosen by the requester, unique among its outstanding
 *               requests on the connection (and, with the client id of the
 *               session, the key of the servers' reply caches)
 * @map_epoch:   the sender's cluster map epoch; servers set it in every
 *               reply so that clients notice a changed map
 * @payload_len: bytes of payload following this header
 * @payload_crc: CRC32C of the payload when AIFS_FLAG_PAYLOAD_CRC is set
 * @reserved:    zero
 * @hdr_crc:     CRC32C of this header with hdr_crc itself zero
 */
struct aifs_frame_hdr {
	__le32 magic;
	__le16 version;
	__le16 opcode;
	__le32 flags;
	__le32 status;
	__le64 request_id;
	__le64 map_epoch;
	__le32 payload_len;
	__le32 payload_crc;
	__le32 reserved;
	__le32 hdr_crc;
};

#define AIFS_FRAME_HDR_SIZE	48

/*
 * RDMA (transport=rdma): the same stream of frames, carried in SEND
 * messages over a reliable-connected queue pair set up by rdma_cm.
 *
 * Each side advertises in its rdma_cm private data (struct
 * aifs_rdma_cm_data: the requester's connect, the server's accept) how
 * many data messages it can take at once (@credits) and how large they may
 * be (@msg_size, the struct aifs_rdma_msg in front included), and posts
 * that many receives plus AIFS_RDMA_RESERVE for messages without data.
 * A message with data (@len > 0) spends one of the peer's credits; the
 * receiver gives it back in the @credits of a later message once the
 * application has read the data. A message with no data spends none: it
 * returns credits when the receiver has no data of its own to send them
 * with (sent once half its credits are owed), or ends the sender's
 * stream (AIFS_RDMA_FIN: the peer reads end of stream after what came
 * before, as after a TCP FIN). A receiver that runs short of posted
 * receives is covered by an infinite RNR retry count.
 */
#define AIFS_RDMA_VERSION	1
#define AIFS_RDMA_RESERVE	4
#define AIFS_RDMA_MIN_MSG	4096
#define AIFS_RDMA_MAX_MSG	(1U << 20)
#define AIFS_RDMA_MAX_CREDITS	256
/* What credits × msg_size a peer may ask its partner to set aside. */
#define AIFS_RDMA_MAX_WINDOW	(8U << 20)

/**
 * struct aifs_rdma_cm_data - rdma_cm private data of connect and accept
 * @magic:    AIFS_MAGIC
 * @version:  AIFS_RDMA_VERSION
 * @credits:  data messages the sender can receive at once, 1..256
 * @msg_size: largest message the sender receives, header included
 * @reserved: zero
 */
struct aifs_rdma_cm_data {
	__le32 magic;
	__le16 version;
	__le16 credits;
	__le32 msg_size;
	__le32 reserved;
};

#define AIFS_RDMA_FIN		(1U << 0)	/* the sender's stream ends */

/**
 * struct aifs_rdma_msg - in front of the bytes of each SEND
 * @len:     bytes of the frame stream that follow (the rest of the SEND)
 * @credits: receives the sender posted again since it last said so
 * @flags:   AIFS_RDMA_FIN; other bits zero
 */
struct aifs_rdma_msg {
	__le32 len;
	__le16 credits;
	__le16 flags;
};

/*
 * Connection set-up (every connection, before anything else):
 *
 *   requester                              server
 *   HELLO {versions, role, nonce_c}   ->
 *                                     <-   HELLO reply {version, nonce_s}
 *   AUTH {proof_c}                    ->
 *                                     <-   AUTH reply {proof_s, session_id}
 *
 *   proof_c = HMAC-SHA256(secret, "aifs-auth-client" | nonce_c | nonce_s | version)
 *   proof_s = HMAC-SHA256(secret, "aifs-auth-server" | nonce_s | nonce_c | version)
 *
 * (label without its NUL, nonces of AIFS_NONCE_SIZE bytes, version as
 * __le16: aifs_auth_transcript() builds these bytes.)
 *
 * The requester proves first, so a peer without the secret learns nothing
 * but a random nonce and an EACCES; the server proves second, so the
 * requester knows it reached a server of its own file system.  Until AUTH
 * succeeds the server answers any other opcode with EACCES and closes.
 * The HELLO reply carries EPROTONOSUPPORT when the version ranges do not
 * meet.  The version both use is the highest in both ranges.
 */
/*
 * Opcodes.  Numbers never change once released; a peer answers an opcode
 * it does not know with EOPNOTSUPP.  Ranges: 1..15 connection, 16..47
 * namespace (client -> MDS), 48..63 cluster map (-> MDS), 64..95 data
 * (-> DS), 96.. reserved.
 */
enum aifs_opcode {
	AIFS_OP_HELLO		= 1,
	AIFS_OP_AUTH		= 2,
	AIFS_OP_PING		= 3,	/* liveness; empty payload both ways */
	AIFS_OP_FAIL_SET	= 4,	/* arm fault injection points */

	AIFS_OP_LOOKUP		= 16,
	AIFS_OP_GETATTR		= 17,
	AIFS_OP_SETATTR		= 18,
	AIFS_OP_CREATE		= 19,	/* create a regular file and open it */
	AIFS_OP_MKDIR		= 20,
	AIFS_OP_MKNOD		= 21,
	AIFS_OP_UNLINK		= 22,
	AIFS_OP_RMDIR		= 23,
	AIFS_OP_RENAME		= 24,
	AIFS_OP_LINK		= 25,
	AIFS_OP_SYMLINK		= 26,
	AIFS_OP_READLINK	= 27,
	AIFS_OP_READDIR		= 28,
	AIFS_OP_STATFS		= 29,
	AIFS_OP_GETXATTR	= 30,
	AIFS_OP_SETXATTR	= 31,
	AIFS_OP_LISTXATTR	= 32,
	AIFS_OP_REMOVEXATTR	= 33,
	AIFS_OP_OPEN		= 34,
	AIFS_OP_CLOSE		= 35,
	AIFS_OP_LAYOUT_GET	= 36,
	AIFS_OP_LAYOUT_SET	= 37,

	AIFS_OP_MAP_GET		= 48,
	AIFS_OP_DS_REGISTER	= 49,
	AIFS_OP_DS_HEARTBEAT	= 50,
	AIFS_OP_MDS_FSCK	= 51,	/* admin -> MDS: start an fsck, or ask */
	AIFS_OP_RECOVERY_GET	= 52,	/* admin -> MDS: how recovery goes */

	AIFS_OP_CHUNK_READ	= 64,
	AIFS_OP_CHUNK_WRITE	= 65,
	AIFS_OP_CHUNK_TRUNCATE	= 66,
	AIFS_OP_CHUNK_DELETE	= 67,
	AIFS_OP_CHUNK_CHECKSUM	= 68,
	AIFS_OP_CHUNK_FORWARD	= 69,	/* primary -> replica write */
	AIFS_OP_DS_STATFS	= 70,
	AIFS_OP_DS_SCRUB	= 71,	/* start a scrub pass, or ask how it goes */
	AIFS_OP_CHUNK_LIST	= 72,	/* the chunks of an inode a server holds */
	AIFS_OP_CHUNK_SYNC	= 73,	/* MDS -> DS: catch up an inode's chunks */
	AIFS_OP_DS_INODES	= 74,	/* the inodes a server holds chunks of */
	AIFS_OP_EC_WRITE	= 75,	/* client -> leader: a write in a stripe */
	AIFS_OP_EC_READ		= 76,	/* client -> DS: a fragment, decoded */
	AIFS_OP_FRAG_READ	= 77,	/* leader -> DS: CHUNK_READ of a fragment */
	AIFS_OP_FRAG_WRITE	= 78,	/* leader -> DS: a fragment's new bytes */
	AIFS_OP_EC_ARCHIVE	= 79,	/* MDS -> DS: a stripe from the chunks */
	AIFS_OP_EC_VERIFY	= 80,	/* DS -> DS: a stripe's parity checked */
	AIFS_OP_FRAG_BEHIND	= 81,	/* leader -> DS: a fragment missed a write */
	AIFS_OP_FRAG_ROLLBACK	= 82,	/* DS -> DS: a torn write undone */
	AIFS_OP_DS_REPAIRS	= 83,	/* DS -> MDS: the copies it must repair */
	AIFS_OP_REPAIRS_GET	= 84,	/* admin -> MDS: every server's */
};

/* Who is connecting, in HELLO. */
enum aifs_role {
	AIFS_ROLE_CLIENT	= 1,	/* kernel module or libaifs user */
	AIFS_ROLE_DS		= 2,	/* data server (to the MDS or a peer DS) */
	AIFS_ROLE_MDS		= 3,	/* metadata server (to a DS) */
	AIFS_ROLE_ADMIN		= 4,	/* aifs CLI, fsck */
};

/* Length of the shared secret every side keys its HMAC with. */
#define AIFS_SECRET_MIN		16
#define AIFS_SECRET_MAX		256

#define AIFS_NONCE_SIZE		32
#define AIFS_HMAC_SIZE		32
#define AIFS_AUTH_CLIENT_LABEL	"aifs-auth-client"
#define AIFS_AUTH_SERVER_LABEL	"aifs-auth-server"
#define AIFS_AUTH_LABEL_MAX	32	/* longest label aifs_auth_transcript takes */
#define AIFS_AUTH_TRANSCRIPT_MAX \
	(AIFS_AUTH_LABEL_MAX + 2 * AIFS_NONCE_SIZE + 2)

/* HELLO request. */
struct aifs_hello_req {
	__le16 min_version;
	__le16 max_version;
	__le16 role;			/* enum aifs_role */
	__le16 reserved;
	__u8 client_uuid[16];		/* stable id of the requesting node */
	__u8 nonce[AIFS_NONCE_SIZE];
};

#define AIFS_HELLO_REQ_SIZE	56

/* HELLO reply. */
struct aifs_hello_rep {
	__le16 version;			/* the version both will speak */
	__le16 reserved[3];
	__u8 fs_uuid[16];		/* file system served (zero if none yet) */
	__u8 nonce[AIFS_NONCE_SIZE];
};

#define AIFS_HELLO_REP_SIZE	56

/* AUTH request. */
struct aifs_auth_req {
	__u8 proof[AIFS_HMAC_SIZE];
};

#define AIFS_AUTH_REQ_SIZE	32

/* AUTH reply. */
struct aifs_auth_rep {
	__u8 proof[AIFS_HMAC_SIZE];
	__le64 session_id;		/* server's id for this connection */
};

#define AIFS_AUTH_REP_SIZE	40

/* ------------------------------------------------------------------ */
/* Limits                                                              */
/* ------------------------------------------------------------------ */

#define AIFS_NAME_MAX		255	/* file name: 1..255, no '/', no NUL */
#define AIFS_SYMLINK_MAX	4095	/* symlink target: 1..4095, no NUL */
#define AIFS_XATTR_NAME_MAX	255	/* xattr name: 1..255, no NUL */
#define AIFS_XATTR_SIZE_MAX	65536	/* xattr value, and listxattr list */
#define AIFS_CRED_MAX_GROUPS	16	/* supplementary groups sent */
#define AIFS_READDIR_MAX_ENTRIES 4096	/* entries in one READDIR reply */
#define AIFS_MAP_MAX_DS		4096	/* data servers in one cluster map */

#define AIFS_LAYOUT_MAX_TARGETS	64	/* data servers in one layout */
#define AIFS_MAX_REPLICAS	8
#define AIFS_EC_MAX_K		32	/* EC data fragments */
#define AIFS_EC_MAX_M		16	/* EC parity fragments */
#define AIFS_EC_MAX_WIDTH	(AIFS_EC_MAX_K + AIFS_EC_MAX_M)
#define AIFS_EC_STRIPE_MAX	(1U << 30)	/* ec_k * chunk_size, at most */
#define AIFS_CHUNK_SIZE_MIN	(64U << 10)
#define AIFS_CHUNK_SIZE_MAX	(1U << 30)
#define AIFS_CHUNK_SIZE_DEFAULT	(4U << 20)
#define AIFS_BLOCK_SIZE		(64U << 10)	/* default checksum block */
#define AIFS_MAX_BLOCKS		16384	/* CRCs in one CHUNK_CHECKSUM reply */

/* ------------------------------------------------------------------ */
/* Building blocks                                                     */
/* ------------------------------------------------------------------ */

/**
 * struct aifs_timespec - a point in time
 * @sec:      seconds since the epoch (signed)
 * @nsec:     nanoseconds, 0..999999999
 * @reserved: zero
 */
struct aifs_timespec {
	__le64 sec;
	__le32 nsec;
	__le32 reserved;
};

#define AIFS_TIMESPEC_SIZE	16

/* aifs_attr.flags */
#define AIFS_ATTR_INLINE	(1U << 0)	/* data kept in the MDS (planned) */

/**
 * struct aifs_attr - the attributes of an inode
 * @ino:        inode number (never 0; the root is AIFS_ROOT_INO)
 * @generation: bumped when @ino is reused, for NFS-style file handles
 * @size:       file size in bytes
 * @blocks:     space used, in 512-byte units
 * @change:     change counter, bumped by every change of data or metadata
 *              (lets the client revalidate its cache on open)
 * @atime:      last access
 * @mtime:      last data change
 * @ctime:      last inode change
 * @btime:      creation
 * @mode:       file type and permission bits, Linux values (S_IFREG ...)
 * @nlink:      hard links
 * @uid:        owner
 * @gid:        group
 * @rdev_major: device number of character and block devices
 * @rdev_minor: device number of character and block devices
 * @blksize:    preferred I/O size (the chunk size of the layout)
 * @flags:      AIFS_ATTR_*
 */
struct aifs_attr {
	__le64 ino;
	__le64 generation;
	__le64 size;
	__le64 blocks;
	__le64 change;
	struct aifs_timespec atime;
	struct aifs_timespec mtime;
	struct aifs_timespec ctime;
	struct aifs_timespec btime;
	__le32 mode;
	__le32 nlink;
	__le32 uid;
	__le32 gid;
	__le32 rdev_major;
	__le32 rdev_minor;
	__le32 blksize;
	__le32 flags;
};

#define AIFS_ATTR_SIZE		136
#define AIFS_ROOT_INO		1

/**
 * struct aifs_cred - who asks, at the start of every namespace request
 * @uid:      fsuid of the calling task
 * @gid:      fsgid of the calling task
 * @ngroups:  entries of @groups used, 0..AIFS_CRED_MAX_GROUPS (a task with
 *            more sends the first AIFS_CRED_MAX_GROUPS, as AUTH_SYS does)
 * @reserved: zero
 * @groups:   supplementary groups
 */
struct aifs_cred {
	__le32 uid;
	__le32 gid;
	__le32 ngroups;
	__le32 reserved;
	__le32 groups[AIFS_CRED_MAX_GROUPS];
};

#define AIFS_CRED_SIZE		80

/* aifs_layout.type */
enum aifs_layout_type {
	AIFS_LAYOUT_REPLICA	= 1,	/* @replicas copies of every chunk */
	AIFS_LAYOUT_EC		= 2,	/* Reed-Solomon, @ec_k data + @ec_m parity */
	AIFS_LAYOUT_INLINE	= 3,	/* data in the MDS (planned, Data-on-MDS) */
};

/**
 * struct aifs_layout - where the data of a file lives
 * @chunk_size:   bytes per chunk, a power of two in
 *                AIFS_CHUNK_SIZE_MIN..AIFS_CHUNK_SIZE_MAX
 * @generation:   bumped when the layout changes (e.g. conversion to EC)
 * @stripe_count: number of target groups chunks rotate over (0 for inline)
 * @target_count: entries of @targets used: 0 (not assigned yet: a
 *                directory default, or a request leaving the choice to the
 *                MDS) or @stripe_count * width, where width is @replicas
 *                or @ec_k + @ec_m; at most AIFS_LAYOUT_MAX_TARGETS
 * @type:         enum aifs_layout_type
 * @replicas:     copies, 1..AIFS_MAX_REPLICAS (replica layouts, else 0)
 * @ec_k:         data fragments, 1..AIFS_EC_MAX_K (EC layouts, else 0)
 * @ec_m:         parity fragments, 1..AIFS_EC_MAX_M (EC layouts, else 0)
 * @targets:      data server ids (never 0), group after group: group g is
 *                targets[g * width .. g * width + width - 1], its first
 *                entry the primary; unused entries zero
 *
 * Replicas: chunk i lives on group i % @stripe_count.  EC: chunk i is
 * fragment i % @ec_k of stripe i / @ec_k; stripe s lives on group
 * s % @stripe_count, fragment f on the group's entry f, parity fragments
 * at @ec_k .. @ec_k + @ec_m - 1.  Every fragment is @chunk_size bytes, and
 * a stripe's data (@ec_k * @chunk_size) at most AIFS_EC_STRIPE_MAX.
 */
struct aifs_layout {
	__le32 chunk_size;
	__le32 generation;
	__le16 stripe_count;
	__le16 target_count;
	__u8 type;
	__u8 replicas;
	__u8 ec_k;
	__u8 ec_m;
	__le32 targets[AIFS_LAYOUT_MAX_TARGETS];
};

#define AIFS_LAYOUT_SIZE	272

/*
 * The name under which a mounted client shows a file's or directory's
 * layout (a struct aifs_layout) and takes a new one (LAYOUT_SET).
 */
#define AIFS_LAYOUT_XATTR	"aifs.layout"
/*
 * The name under which a mounted client takes an archive of a file to a
 * layout (a struct aifs_layout, EC): LAYOUT_SET with
 * AIFS_LAYOUT_SET_ARCHIVE.  Write only.
 */
#define AIFS_ARCHIVE_XATTR	"aifs.archive"

/**
 * struct aifs_chunk_id - names one chunk (or EC fragment) on a data server
 * @fs_uuid:  the file system's uuid: a data server refuses chunks of
 *            another file system (EXDEV)
 * @ino:      inode number of the file
 * @index:    chunk index (replicas: offset / chunk_size; EC: the stripe)
 * @fragment: 0 for replicated chunks; EC fragment f (0..k+m-1) of the
 *            stripe is AIFS_EC_FRAGMENT(f), so that a file being archived
 *            has its fragments and its chunks side by side on a server
 * @reserved: zero
 */
struct aifs_chunk_id {
	__u8 fs_uuid[16];
	__le64 ino;
	__le32 index;
	__le16 fragment;
	__le16 reserved;
};

#define AIFS_CHUNK_ID_SIZE	32

#define AIFS_EC_FRAGMENT(f)	((f) + 1)

/* aifs_addr.family */
#define AIFS_AF_INET		4
#define AIFS_AF_INET6		6

/**
 * struct aifs_addr - a transport address, independent of struct sockaddr
 * @family:   AIFS_AF_INET or AIFS_AF_INET6
 * @port:     TCP port (RDMA CM uses the same port)
 * @scope_id: IPv6 scope (interface) id, 0 otherwise
 * @addr:     address in network byte order: 4 bytes then zeros for IPv4,
 *            16 bytes for IPv6
 */
struct aifs_addr {
	__le16 family;
	__le16 port;
	__le32 scope_id;
	__u8 addr[16];
};

#define AIFS_ADDR_SIZE		24

/**
 * struct aifs_rdma_seg - client memory the server reads or writes by RDMA
 * @addr: remote virtual address
 * @rkey: remote key of the registration
 * @len:  bytes, at most AIFS_MAX_IO
 */
struct aifs_rdma_seg {
	__le64 addr;
	__le32 rkey;
	__le32 len;
};

#define AIFS_RDMA_SEG_SIZE	16

/* ------------------------------------------------------------------ */
/* Namespace requests (client -> MDS).  Each starts with struct aifs_cred. */
/* ------------------------------------------------------------------ */

/**
 * struct aifs_ino_req - request naming one inode
 * @cred: caller
 * @ino:  the inode
 *
 * GETATTR, READLINK, STATFS (any inode of the file system), LAYOUT_GET.
 */
struct aifs_ino_req {
	struct aifs_cred cred;
	__le64 ino;
};

#define AIFS_INO_REQ_SIZE	88

/**
 * struct aifs_name_req - request naming an inode and a name, name follows
 * @cred:     caller
 * @ino:      the directory (LOOKUP, UNLINK, RMDIR) or the inode
 *            (REMOVEXATTR)
 * @name_len: bytes of the name (a file name, or an xattr name for
 *            REMOVEXATTR)
 * @reserved: zero
 */
struct aifs_name_req {
	struct aifs_cred cred;
	__le64 ino;
	__le16 name_len;
	__le16 reserved[3];
};

#define AIFS_NAME_REQ_SIZE	96

/* aifs_setattr_req.valid: which fields to set (as the ATTR_* of iattr) */
#define AIFS_SETATTR_MODE	(1U << 0)
#define AIFS_SETATTR_UID	(1U << 1)
#define AIFS_SETATTR_GID	(1U << 2)
#define AIFS_SETATTR_SIZE	(1U << 3)
#define AIFS_SETATTR_ATIME	(1U << 4)	/* to @atime */
#define AIFS_SETATTR_MTIME	(1U << 5)	/* to @mtime */
#define AIFS_SETATTR_ATIME_NOW	(1U << 6)	/* to the server's time */
#define AIFS_SETATTR_MTIME_NOW	(1U << 7)	/* to the server's time */
/*
 * With SIZE: cut the chunks at @size even when it is not below the MDS's
 * size (the client wrote past that size and has not committed it yet).
 */
#define AIFS_SETATTR_CUT	(1U << 8)
/* the size of committed writes: grows to @size, never shrinks, cuts nothing */
#define AIFS_SETATTR_SIZE_GROW	(1U << 9)
/*
 * What a write by a caller without CAP_FSETID does to the mode: drop
 * setuid, and setgid if group-executable, from the server's mode. Write
 * access (or a handle open for writing) suffices, as for the write.
 */
#define AIFS_SETATTR_KILL_SUID	(1U << 10)
#define AIFS_SETATTR_KNOWN	0x7ffU

/**
 * struct aifs_setattr_req - SETATTR
 * @cred:   caller
 * @ino:    the inode
 * @handle: open handle when called through an open file (ftruncate), else 0
 * @valid:  AIFS_SETATTR_*; never both ATIME and ATIME_NOW (nor MTIME and
 *          MTIME_NOW); ctime is always set to the server's time
 * @mode:   new permission bits (the file type bits are ignored)
 * @uid:    new owner
 * @gid:    new group
 * @size:   new size
 * @atime:  new access time
 * @mtime:  new modification time
 */
struct aifs_setattr_req {
	struct aifs_cred cred;
	__le64 ino;
	__le64 handle;
	__le32 valid;
	__le32 mode;
	__le32 uid;
	__le32 gid;
	__le64 size;
	struct aifs_timespec atime;
	struct aifs_timespec mtime;
};

#define AIFS_SETATTR_REQ_SIZE	152

/* Open flags (aifs_open_req.flags, aifs_create_req.open_flags). */
#define AIFS_OPEN_RDONLY	0
#define AIFS_OPEN_WRONLY	1
#define AIFS_OPEN_RDWR		2
#define AIFS_OPEN_ACCMODE	3
#define AIFS_OPEN_TRUNC		(1U << 4)
#define AIFS_OPEN_APPEND	(1U << 5)
#define AIFS_OPEN_SYNC		(1U << 6)	/* O_SYNC/O_DSYNC */
#define AIFS_OPEN_DIRECT	(1U << 7)
#define AIFS_OPEN_EXCL		(1U << 8)	/* CREATE only: EEXIST if there */
#define AIFS_OPEN_KNOWN		0x1f3U

/**
 * struct aifs_create_req - CREATE, MKDIR, MKNOD; the name follows
 * @cred:       caller
 * @parent:     directory
 * @mode:       type and permission bits (S_IFREG for CREATE, S_IFDIR or
 *              just permissions for MKDIR, any non-directory type for
 *              MKNOD)
 * @umask:      umask of the caller, applied by the server (0 when the
 *              client applied it, e.g. with POSIX default ACLs)
 * @rdev_major: MKNOD of a device: device number
 * @rdev_minor: MKNOD of a device: device number
 * @open_flags: CREATE: AIFS_OPEN_* of the open that follows the create
 *              (without AIFS_OPEN_EXCL an existing file is opened); else 0
 * @reserved0:  zero
 * @name_len:   bytes of the name
 * @reserved:   zero
 */
struct aifs_create_req {
	struct aifs_cred cred;
	__le64 parent;
	__le32 mode;
	__le32 umask;
	__le32 rdev_major;
	__le32 rdev_minor;
	__le32 open_flags;
	__le32 reserved0;
	__le16 name_len;
	__le16 reserved[3];
};

#define AIFS_CREATE_REQ_SIZE	120

/* RENAME flags: the values of Linux's renameat2(). */
#define AIFS_RENAME_NOREPLACE	(1U << 0)
#define AIFS_RENAME_EXCHANGE	(1U << 1)
#define AIFS_RENAME_WHITEOUT	(1U << 2)
#define AIFS_RENAME_KNOWN	0x7U

/**
 * struct aifs_rename_req - RENAME; old name then new name follow
 * @cred:       caller
 * @old_parent: directory holding the old name
 * @new_parent: directory receiving the new name
 * @flags:      AIFS_RENAME_*; NOREPLACE and EXCHANGE exclude each other,
 *              as do WHITEOUT and EXCHANGE
 * @old_len:    bytes of the old name
 * @new_len:    bytes of the new name
 */
struct aifs_rename_req {
	struct aifs_cred cred;
	__le64 old_parent;
	__le64 new_parent;
	__le32 flags;
	__le16 old_len;
	__le16 new_len;
};

#define AIFS_RENAME_REQ_SIZE	104

/**
 * struct aifs_link_req - LINK; the new name follows
 * @cred:       caller
 * @ino:        existing inode
 * @new_parent: directory receiving the new name
 * @name_len:   bytes of the new name
 * @reserved:   zero
 */
struct aifs_link_req {
	struct aifs_cred cred;
	__le64 ino;
	__le64 new_parent;
	__le16 name_len;
	__le16 reserved[3];
};

#define AIFS_LINK_REQ_SIZE	104

/**
 * struct aifs_symlink_req - SYMLINK; the name then the target follow
 * @cred:       caller
 * @parent:     directory
 * @name_len:   bytes of the name
 * @target_len: bytes of the target, 1..AIFS_SYMLINK_MAX
 * @reserved:   zero
 */
struct aifs_symlink_req {
	struct aifs_cred cred;
	__le64 parent;
	__le16 name_len;
	__le16 target_len;
	__le32 reserved;
};

#define AIFS_SYMLINK_REQ_SIZE	96

/**
 * struct aifs_readdir_req - READDIR
 * @cred:        caller
 * @ino:         directory
 * @cookie:      0 to start, else the cookie of the last entry received
 * @max_entries: entries wanted, 1..AIFS_READDIR_MAX_ENTRIES
 * @max_bytes:   payload size the client accepts (the server stops before
 *               a reply would exceed it; at least one entry must fit:
 *               AIFS_READDIR_REP_SIZE + AIFS_DIRENT_SIZE + AIFS_NAME_MAX)
 *
 * "." and ".." are never returned: the client makes them up.
 */
struct aifs_readdir_req {
	struct aifs_cred cred;
	__le64 ino;
	__le64 cookie;
	__le32 max_entries;
	__le32 max_bytes;
};

#define AIFS_READDIR_REQ_SIZE	104

/**
 * struct aifs_getxattr_req - GETXATTR; the xattr name follows
 * @cred:     caller
 * @ino:      inode
 * @size:     room the caller has for the value; 0 asks for the size only
 * @name_len: bytes of the xattr name
 * @reserved: zero
 */
struct aifs_getxattr_req {
	struct aifs_cred cred;
	__le64 ino;
	__le32 size;
	__le16 name_len;
	__le16 reserved;
};

#define AIFS_GETXATTR_REQ_SIZE	96

/* SETXATTR flags: the values of Linux's setxattr(). */
#define AIFS_XATTR_CREATE	(1U << 0)
#define AIFS_XATTR_REPLACE	(1U << 1)
#define AIFS_XATTR_KNOWN	0x3U

/**
 * struct aifs_setxattr_req - SETXATTR; the xattr name then the value follow
 * @cred:      caller
 * @ino:       inode
 * @flags:     AIFS_XATTR_*
 * @value_len: bytes of the value, 0..AIFS_XATTR_SIZE_MAX
 * @name_len:  bytes of the xattr name
 * @reserved:  zero
 */
struct aifs_setxattr_req {
	struct aifs_cred cred;
	__le64 ino;
	__le32 flags;
	__le32 value_len;
	__le16 name_len;
	__le16 reserved[3];
};

#define AIFS_SETXATTR_REQ_SIZE	104

/**
 * struct aifs_listxattr_req - LISTXATTR
 * @cred:     caller
 * @ino:      inode
 * @size:     room the caller has for the list; 0 asks for the size only
 * @reserved: zero
 */
struct aifs_listxattr_req {
	struct aifs_cred cred;
	__le64 ino;
	__le32 size;
	__le32 reserved;
};

#define AIFS_LISTXATTR_REQ_SIZE	96

/**
 * struct aifs_open_req - OPEN
 * @cred:     caller
 * @ino:      inode (a regular file)
 * @flags:    AIFS_OPEN_* (not EXCL)
 * @reserved: zero
 *
 * The MDS counts the open until the matching CLOSE (or the end of the
 * client's session), so that an unlinked file keeps its data meanwhile.
 */
struct aifs_open_req {
	struct aifs_cred cred;
	__le64 ino;
	__le32 flags;
	__le32 reserved;
};

#define AIFS_OPEN_REQ_SIZE	96

/* aifs_close_req.flags */
#define AIFS_CLOSE_SIZE		(1U << 0)	/* @size and @mtime are set */
#define AIFS_CLOSE_KNOWN	0x1U

/**
 * struct aifs_close_req - CLOSE (release of an open handle)
 * @cred:     caller
 * @ino:      inode
 * @handle:   handle from OPEN or CREATE
 * @flags:    AIFS_CLOSE_*
 * @reserved: zero
 * @size:     with AIFS_CLOSE_SIZE: size after the client's writes (the MDS
 *            keeps the larger of it and its own, unless truncated since)
 * @mtime:    with AIFS_CLOSE_SIZE: mtime of the client's last write
 *
 * Close-to-open: a client flushes its dirty data to the data servers,
 * then sends CLOSE, so that the next OPEN anywhere sees size and mtime.
 * FSYNC is CLOSE-like: a client commits size and mtime with SETATTR.
 */
struct aifs_close_req {
	struct aifs_cred cred;
	__le64 ino;
	__le64 handle;
	__le32 flags;
	__le32 reserved;
	__le64 size;
	struct aifs_timespec mtime;
};

#define AIFS_CLOSE_REQ_SIZE	128

/*
 * LAYOUT_SET of a regular file with data: convert it on the servers to
 * @layout, an EC one (Documentation/erasure-coding.md, "Archive").
 */
#define AIFS_LAYOUT_SET_ARCHIVE	(1U << 0)
#define AIFS_LAYOUT_SET_KNOWN	0x1U

/**
 * struct aifs_layout_set_req - LAYOUT_SET
 * @cred:   caller (owner or CAP_SYS_ADMIN-equivalent root)
 * @ino:    a directory (sets its default layout for new files) or an empty
 *          regular file (sets its own layout); with AIFS_LAYOUT_SET_ARCHIVE
 *          a replicated file, which must not be open for writing (EBUSY)
 * @layout: the wanted layout; target_count 0 lets the MDS choose targets
 * @flags:  AIFS_LAYOUT_SET_*
 * @reserved: zero
 *
 * Reply: the layout in force: with ARCHIVE the file's old one, until the
 * MDS has written every stripe and switched the file over.
 */
struct aifs_layout_set_req {
	struct aifs_cred cred;
	__le64 ino;
	struct aifs_layout layout;
	__le32 flags;
	__le32 reserved;
};

#define AIFS_LAYOUT_SET_REQ_SIZE 368

/* ------------------------------------------------------------------ */
/* Namespace replies                                                   */
/* ------------------------------------------------------------------ */

/**
 * struct aifs_attr_rep - attributes after the operation
 * @attr: the inode
 *
 * GETATTR, SETATTR, SETXATTR, REMOVEXATTR, CLOSE.
 */
struct aifs_attr_rep {
	struct aifs_attr attr;
};

#define AIFS_ATTR_REP_SIZE	136

/**
 * struct aifs_entry_rep - a directory entry and its directory
 * @dir:  the directory after the operation
 * @attr: the entry's inode after the operation (UNLINK, RMDIR: with the
 *        nlink it has left)
 *
 * LOOKUP, MKDIR, MKNOD, UNLINK, RMDIR, LINK, SYMLINK.
 */
struct aifs_entry_rep {
	struct aifs_attr dir;
	struct aifs_attr attr;
};

#define AIFS_ENTRY_REP_SIZE	272

/**
 * struct aifs_open_rep - OPEN
 * @attr:   the file (after truncation for AIFS_OPEN_TRUNC)
 * @layout: the file's layout
 * @handle: the open, for CLOSE and SETATTR; never 0
 */
struct aifs_open_rep {
	struct aifs_attr attr;
	struct aifs_layout layout;
	__le64 handle;
};

#define AIFS_OPEN_REP_SIZE	416

/**
 * struct aifs_create_rep - CREATE
 * @dir:  the directory after the operation
 * @open: the new (or, without AIFS_OPEN_EXCL, existing) file, opened
 */
struct aifs_create_rep {
	struct aifs_attr dir;
	struct aifs_open_rep open;
};

#define AIFS_CREATE_REP_SIZE	552

/**
 * struct aifs_rename_rep - RENAME
 * @old_dir: old parent after the operation
 * @new_dir: new parent after the operation (same as @old_dir when equal)
 * @attr:    the inode that moved
 * @target:  the inode replaced (with the nlink it has left) or exchanged;
 *           all zero when the new name did not exist
 */
struct aifs_rename_rep {
	struct aifs_attr old_dir;
	struct aifs_attr new_dir;
	struct aifs_attr attr;
	struct aifs_attr target;
};

#define AIFS_RENAME_REP_SIZE	544

/**
 * struct aifs_readlink_rep - READLINK; the target follows
 * @target_len: bytes of the target, 1..AIFS_SYMLINK_MAX
 * @reserved:   zero
 */
struct aifs_readlink_rep {
	__le16 target_len;
	__le16 reserved[3];
};

#define AIFS_READLINK_REP_SIZE	8

/* aifs_readdir_rep.flags */
#define AIFS_READDIR_EOF	(1U << 0)	/* no entries after these */
#define AIFS_READDIR_KNOWN	0x1U

/**
 * struct aifs_readdir_rep - READDIR; @bytes of entries follow
 * @count:    entries, 0..AIFS_READDIR_MAX_ENTRIES (0 only with EOF)
 * @flags:    AIFS_READDIR_*
 * @bytes:    bytes of entries: each a struct aifs_dirent immediately
 *            followed by its name, the next entry immediately after
 * @reserved: zero
 */
struct aifs_readdir_rep {
	__le32 count;
	__le32 flags;
	__le32 bytes;
	__le32 reserved;
};

#define AIFS_READDIR_REP_SIZE	16

/**
 * struct aifs_dirent - one READDIR entry; the name follows
 * @cookie:   resumes the listing after this entry; stays valid while the
 *            directory changes; never 0
 * @attr:     the entry's attributes
 * @name_len: bytes of the name
 * @reserved: zero
 */
struct aifs_dirent {
	__le64 cookie;
	struct aifs_attr attr;
	__le16 name_len;
	__le16 reserved[3];
};

#define AIFS_DIRENT_SIZE	152

/**
 * struct aifs_statfs_rep - STATFS (file system) and DS_STATFS (one server)
 * @total_bytes: capacity
 * @free_bytes:  free space
 * @avail_bytes: free space available to unprivileged users
 * @files:       inodes in use (DS: chunks stored)
 * @files_free:  inodes that can still be made (DS: 0)
 * @bsize:       block size reported to statfs (DS: its checksum block)
 * @namelen:     AIFS_NAME_MAX (DS: 0)
 */
struct aifs_statfs_rep {
	__le64 total_bytes;
	__le64 free_bytes;
	__le64 avail_bytes;
	__le64 files;
	__le64 files_free;
	__le32 bsize;
	__le32 namelen;
};

#define AIFS_STATFS_REP_SIZE	48

/**
 * struct aifs_xattr_rep - GETXATTR (value follows), LISTXATTR (list follows)
 * @size: size of the whole value or list
 * @len:  bytes following: 0 when the request asked for the size only,
 *        else @size (a value or list larger than the caller's room is
 *        answered with ERANGE instead)
 *
 * A list is a sequence of NUL-terminated xattr names.
 */
struct aifs_xattr_rep {
	__le32 size;
	__le32 len;
};

#define AIFS_XATTR_REP_SIZE	8

/**
 * struct aifs_layout_rep - LAYOUT_GET, LAYOUT_SET
 * @layout: the layout in force
 */
struct aifs_layout_rep {
	struct aifs_layout layout;
};

#define AIFS_LAYOUT_REP_SIZE	272

/* ------------------------------------------------------------------ */
/* Cluster map (-> MDS)                                                */
/* ------------------------------------------------------------------ */

enum aifs_ds_state {
	AIFS_DS_UP		= 1,	/* serving */
	AIFS_DS_OFFLINE		= 2,	/* missed its heartbeats */
	AIFS_DS_DRAINING	= 3,	/* serving, no new chunks, emptied */
	AIFS_DS_RETIRED		= 4,	/* gone for good; its id is never reused */
	/* back from OFFLINE: catching up, it takes forwards, serves nothing */
	AIFS_DS_SYNCING		= 5,
	AIFS_DS_LAST		= AIFS_DS_SYNCING,
};

/* aifs_ds_info.flags, aifs_ds_register_req.flags, aifs_ds_heartbeat_req.flags */
#define AIFS_DS_RDMA		(1U << 0)	/* also listens for RDMA CM */
#define AIFS_DS_DRAIN		(1U << 1)	/* asks to be DRAINING, else UP */
#define AIFS_DS_KNOWN		0x3U

/**
 * struct aifs_ds_info - one data server in the cluster map
 * @id:       server id (never 0), assigned at first registration
 * @state:    enum aifs_ds_state
 * @capacity: bytes
 * @free:     bytes
 * @epoch:    map epoch at which this entry last changed
 * @addr:     where clients reach it
 * @flags:    AIFS_DS_*
 * @reserved: zero
 * @uuid:     the server's instance uuid (kept in its data directory)
 */
struct aifs_ds_info {
	__le32 id;
	__le32 state;
	__le64 capacity;
	__le64 free;
	__le64 epoch;
	struct aifs_addr addr;
	__le32 flags;
	__le32 reserved;
	__u8 uuid[16];
};

#define AIFS_DS_INFO_SIZE	80

/**
 * struct aifs_map_get_req - MAP_GET
 * @epoch: epoch of the map the requester has (0: none)
 */
struct aifs_map_get_req {
	__le64 epoch;
};

#define AIFS_MAP_GET_REQ_SIZE	8

/* aifs_map_rep.flags */
#define AIFS_MAP_UNCHANGED	(1U << 0)	/* requester is current: count 0 */
#define AIFS_MAP_KNOWN		0x1U

/**
 * struct aifs_map_rep - MAP_GET; @count struct aifs_ds_info follow
 * @epoch: current map epoch
 * @count: data servers listed, 0..AIFS_MAP_MAX_DS
 * @flags: AIFS_MAP_*
 */
struct aifs_map_rep {
	__le64 epoch;
	__le32 count;
	__le32 flags;
};

#define AIFS_MAP_REP_SIZE	16

/**
 * struct aifs_ds_register_req - DS_REGISTER (data server -> MDS)
 * @uuid:     the server's instance uuid
 * @id:       id from an earlier registration, 0 for a new server
 * @flags:    AIFS_DS_*
 * @capacity: bytes
 * @free:     bytes
 * @addr:     where clients reach it
 */
struct aifs_ds_register_req {
	__u8 uuid[16];
	__le32 id;
	__le32 flags;
	__le64 capacity;
	__le64 free;
	struct aifs_addr addr;
};

#define AIFS_DS_REGISTER_REQ_SIZE 64

/**
 * struct aifs_ds_register_rep - DS_REGISTER
 * @id:           the server's id (new or confirmed)
 * @heartbeat_ms: interval of DS_HEARTBEAT the MDS expects
 * @grace_ms:     silence after which the MDS marks the server OFFLINE: a
 *                server that has not heard from the MDS for this long
 *                must assume it is, and serve nothing
 * @state:        enum aifs_ds_state the MDS now holds for the server
 * @epoch:        current map epoch
 */
struct aifs_ds_register_rep {
	__le32 id;
	__le32 heartbeat_ms;
	__le32 grace_ms;
	__le32 state;
	__le64 epoch;
};

#define AIFS_DS_REGISTER_REP_SIZE 24

/**
 * struct aifs_ds_heartbeat_req - DS_HEARTBEAT (data server -> MDS)
 * @id:       server id
 * @flags:    AIFS_DS_*, as in DS_REGISTER (AIFS_DS_DRAIN may change)
 * @capacity: bytes
 * @free:     bytes
 * @chunks:   chunks stored
 * @epoch:    map epoch the server has
 */
struct aifs_ds_heartbeat_req {
	__le32 id;
	__le32 flags;
	__le64 capacity;
	__le64 free;
	__le64 chunks;
	__le64 epoch;
};

#define AIFS_DS_HEARTBEAT_REQ_SIZE 40

/**
 * struct aifs_ds_heartbeat_rep - DS_HEARTBEAT
 * @state:    enum aifs_ds_state the MDS holds for the server
 * @reserved: zero
 * @epoch:    current map epoch
 */
struct aifs_ds_heartbeat_rep {
	__le32 state;
	__le32 reserved;
	__le64 epoch;
};

#define AIFS_DS_HEARTBEAT_REP_SIZE 16

/* ------------------------------------------------------------------ */
/* Data (-> DS)                                                        */
/* ------------------------------------------------------------------ */

/* Chunk I/O flags (aifs_chunk_read_req.flags, aifs_chunk_write_req.flags) */
#define AIFS_IO_RDMA		(1U << 0)	/* data moves by RDMA via @rdma */
#define AIFS_IO_SYNC		(1U << 1)	/* write: durable before reply */
#define AIFS_IO_ZERO		(1U << 2)	/* write: zeros, no data follows */
#define AIFS_IO_KNOWN		0x7U

/**
 * struct aifs_chunk_read_req - CHUNK_READ
 * @id:       the chunk
 * @version:  lowest chunk version acceptable (0: any); a replica behind it
 *            answers ESTALE and the client tries another
 * @offset:   byte offset within the chunk
 * @length:   bytes wanted, 1..AIFS_MAX_IO; @offset + @length at most
 *            AIFS_CHUNK_SIZE_MAX
 * @flags:    AIFS_IO_RDMA (the server RDMA-WRITEs into @rdma instead of
 *            sending data in the reply)
 * @layout_gen: the generation of the layout the client read with: a server
 *            that heard of a newer one for the inode (an archive moved the
 *            file, a rebuild its group) answers EREMCHG, and the client
 *            fetches the layout again; 0 (data servers among themselves):
 *            not looked at
 * @rdma:     with AIFS_IO_RDMA: where the data goes (@rdma.len >= @length)
 */
struct aifs_chunk_read_req {
	struct aifs_chunk_id id;
	__le64 version;
	__le32 offset;
	__le32 length;
	__le32 flags;
	__le32 layout_gen;
	struct aifs_rdma_seg rdma;
};

#define AIFS_CHUNK_READ_REQ_SIZE 72

/**
 * struct aifs_chunk_read_rep - CHUNK_READ; @data_len bytes follow
 * @version:   the chunk's version
 * @chunk_len: bytes stored in the chunk; bytes past it are holes (zero)
 * @data_len:  bytes of data following (0 with AIFS_IO_RDMA), at most the
 *             request's length: fewer when the chunk ends earlier
 */
struct aifs_chunk_read_rep {
	__le64 version;
	__le32 chunk_len;
	__le32 data_len;
};

#define AIFS_CHUNK_READ_REP_SIZE 16

/**
 * struct aifs_chunk_write_req - CHUNK_WRITE and CHUNK_FORWARD; data follows
 * @id:          the chunk
 * @version:     FORWARD: the version the primary assigned; WRITE: 0
 * @offset:      byte offset within the chunk
 * @data_len:    bytes of data following, 0..AIFS_MAX_IO (0 with
 *               AIFS_IO_RDMA: the server RDMA-READs @rdma.len bytes; 0
 *               with AIFS_IO_ZERO)
 * @flags:       AIFS_IO_*; AIFS_IO_ZERO (not with AIFS_IO_RDMA) zeroes
 *               @rdma.len bytes, 1..@chunk_size, at @offset, up to the
 *               chunk's stored length, which does not change: a hole
 *               punched, numbered and forwarded like any write
 * @chunk_size:  the layout's chunk size: @offset + length must not pass it
 * @nr_replicas: WRITE: entries of @replicas, 0..AIFS_MAX_REPLICAS - 1;
 *               FORWARD: 0
 * @ahead:       WRITE: the first @ahead entries of @replicas are members
 *               of the group before this primary, which the client could
 *               not use: the primary takes the write only while the MDS
 *               counts them out (else ESTALE), so that a chunk never has
 *               two primaries; at most @nr_replicas. FORWARD: 0
 * @layout_gen:  WRITE: the generation of the layout the client wrote
 *               with; a primary that learned of a newer one for the
 *               inode (its group changed: a rebuild) answers EREMCHG,
 *               and the client fetches the layout again. FORWARD: 0
 * @rdma:        with AIFS_IO_RDMA: where the data comes from; with
 *               AIFS_IO_ZERO: @rdma.len bytes of zeros, @addr and @rkey 0
 * @replicas:    WRITE: ids of the other data servers of the chunk's group
 *               that the primary forwards to
 */
struct aifs_chunk_write_req {
	struct aifs_chunk_id id;
	__le64 version;
	__le32 offset;
	__le32 data_len;
	__le32 flags;
	__le32 chunk_size;
	__le16 nr_replicas;
	__le16 ahead;
	__le32 layout_gen;
	struct aifs_rdma_seg rdma;
	__le32 replicas[AIFS_MAX_REPLICAS];
};

#define AIFS_CHUNK_WRITE_REQ_SIZE 112

/**
 * struct aifs_chunk_rep - CHUNK_WRITE, CHUNK_FORWARD, CHUNK_TRUNCATE
 * @version:  the chunk's version after the operation
 * @length:   WRITE, FORWARD: bytes written (AIFS_IO_ZERO: the bytes
 *            asked to zero); TRUNCATE: the chunk's length
 * @reserved: zero
 */
struct aifs_chunk_rep {
	__le64 version;
	__le32 length;
	__le32 reserved;
};

#define AIFS_CHUNK_REP_SIZE	16

/**
 * struct aifs_chunk_truncate_req - CHUNK_TRUNCATE (MDS or client -> DS)
 * @id:       the chunk
 * @length:   new length of the chunk, 0..AIFS_CHUNK_SIZE_MAX
 * @fence:    0, or the MDS's truncation number of @id.ino: then applied
 *            only once per data server, and only after truncation
 *            @fence - 1 (EAGAIN before); once done a no-op, so that a
 *            late retry never cuts data written after it
 */
struct aifs_chunk_truncate_req {
	struct aifs_chunk_id id;
	__le32 length;
	__le32 fence;
};

#define AIFS_CHUNK_TRUNCATE_REQ_SIZE 40

/* aifs_chunk_delete_req.flags */
#define AIFS_DELETE_INODE	(1U << 0)	/* every chunk of id.ino */
#define AIFS_DELETE_FROM	(1U << 1)	/* chunks with index >= id.index */
/*
 * With INODE: only the replicated chunks (fragment 0), which an archive
 * leaves beside the file's EC fragments; the inode's record (its layout
 * generation, which turns away readers of the old layout) stays.
 */
#define AIFS_DELETE_UNCODED	(1U << 2)
#define AIFS_DELETE_KNOWN	0x7U

/**
 * struct aifs_chunk_delete_req - CHUNK_DELETE (MDS -> DS); empty reply
 * @id:       the chunk (all fragments this server holds of it)
 * @flags:    AIFS_DELETE_* (not both); 0 deletes just @id
 * @fence:    0, or the MDS's truncation number of @id.ino, as for
 *            CHUNK_TRUNCATE: the server records it as done once the
 *            chunks are gone (the truncation's last request to it)
 *
 * Deleting what is not there succeeds, so the MDS can retry.
 */
struct aifs_chunk_delete_req {
	struct aifs_chunk_id id;
	__le32 flags;
	__le32 fence;
};

#define AIFS_CHUNK_DELETE_REQ_SIZE 40

/**
 * struct aifs_frag_behind_req - FRAG_BEHIND (an EC stripe's leader -> a
 * member); empty reply
 * @id:         the fragment, of a stripe whose other members took a write
 *              this member failed (it answered the FRAG_WRITE an error)
 * @chunk_size: the layout's
 *
 * The member marks its fragment stale, durably (created so if it has
 * none): it serves it to no reader and no decoder until it is rebuilt by
 * decoding, for its bytes disagree with the stripe's parity.
 */
struct aifs_frag_behind_req {
	struct aifs_chunk_id id;
	__le32 chunk_size;
	__le32 reserved;
};

#define AIFS_FRAG_BEHIND_REQ_SIZE 40

/**
 * struct aifs_frag_write_req - FRAG_WRITE (an EC stripe's leader -> a
 * member); @data_len bytes follow; reply: struct aifs_chunk_rep
 * @id:         the fragment
 * @stamp:      the stripe's stamp after this write: every member takes
 *              it, those whose bytes the write leaves alone too (with
 *              no data), so that fragments of one stamp are one codeword
 * @prev:       the stamp the member must hold (0: none, no fragment);
 *              else the write is refused with EILSEQ and nothing written
 * @offset:     byte offset within the fragment
 * @data_len:   bytes following, 0..AIFS_MAX_IO
 * @flags:      AIFS_IO_SYNC or 0
 * @chunk_size: the layout's
 * @reserved:   zero
 *
 * The member keeps what the write replaces (its undo) until the next
 * write, so that a write torn by its leader's death can be rolled back
 * (FRAG_ROLLBACK).  A write of the stamp the member holds already (a
 * column slice of the same write, or a repair) keeps the undo it has.
 */
struct aifs_frag_write_req {
	struct aifs_chunk_id id;
	__le64 stamp;
	__le64 prev;
	__le32 offset;
	__le32 data_len;
	__le32 flags;
	__le32 chunk_size;
	__le32 reserved[2];
};

#define AIFS_FRAG_WRITE_REQ_SIZE 72

/**
 * struct aifs_frag_rollback_req - FRAG_ROLLBACK (a member settling a
 * torn stripe -> a member); reply: struct aifs_chunk_rep (the stamp held
 * now, the fragment's length)
 * @id:         the fragment
 * @stamp:      the write to undo: the member must hold it (else EILSEQ),
 *              and its undo (else ENODATA: it cannot go back)
 * @chunk_size: the layout's
 * @reserved:   zero
 */
struct aifs_frag_rollback_req {
	struct aifs_chunk_id id;
	__le64 stamp;
	__le32 chunk_size;
	__le32 reserved;
};

#define AIFS_FRAG_ROLLBACK_REQ_SIZE 48

/**
 * struct aifs_chunk_checksum_req - CHUNK_CHECKSUM
 * @id:          the chunk
 * @first_block: first checksum block wanted
 * @nr_blocks:   blocks wanted, 1..AIFS_MAX_BLOCKS
 */
struct aifs_chunk_checksum_req {
	struct aifs_chunk_id id;
	__le32 first_block;
	__le32 nr_blocks;
};

#define AIFS_CHUNK_CHECKSUM_REQ_SIZE 40

/**
 * struct aifs_chunk_checksum_rep - CHUNK_CHECKSUM; @count __le32 CRCs follow
 * @version:     the chunk's version
 * @block_size:  bytes per checksum block (a power of two)
 * @chunk_len:   bytes stored in the chunk
 * @first_block: block of the first CRC
 * @count:       CRC32C values following, 0..AIFS_MAX_BLOCKS (fewer than
 *               asked when the chunk ends earlier)
 */
struct aifs_chunk_checksum_rep {
	__le64 version;
	__le32 block_size;
	__le32 chunk_len;
	__le32 first_block;
	__le32 count;
};

#define AIFS_CHUNK_CHECKSUM_REP_SIZE 24

/* DS_SCRUB flags */
#define AIFS_SCRUB_START	0x1U	/* begin a pass now, unless one runs */

/**
 * struct aifs_ds_scrub_req - DS_SCRUB
 * @flags:    AIFS_SCRUB_*; 0 only asks
 * @reserved: zero
 */
struct aifs_ds_scrub_req {
	__le32 flags;
	__le32 reserved;
};

#define AIFS_DS_SCRUB_REQ_SIZE	8

/**
 * struct aifs_ds_scrub_rep - a data server's scrub, as it stands
 * @running:       1 while a pass runs
 * @rate_mib:      its bound in MiB/s (0: no scrub)
 * @passes:        passes ended since the server started
 * @started:       when the current or last pass began (Unix seconds; 0: none)
 * @finished:      when the last pass ended (0: none)
 * @pass_chunks:   chunks the current (or last) pass has verified
 * @pass_total:    chunks stored when it began
 * @chunks:        chunks verified since the server started
 * @bytes:         bytes verified since the server started
 * @bad:           damaged chunks scrub found since the server started
 * @resynced:      chunks made whole from a peer (repairs and catch-ups)
 * @resync_failed: resync attempts that found no source (the copy kept)
 * @stripes:       EC stripes whose parity scrub compared with their data
 *                 (each by the server of its first parity fragment)
 * @stripes_bad:   of them, with parity that did not match: rewritten
 */
struct aifs_ds_scrub_rep {
	__le32 running;
	__le32 rate_mib;
	__le64 passes;
	__le64 started;
	__le64 finished;
	__le64 pass_chunks;
	__le64 pass_total;
	__le64 chunks;
	__le64 bytes;
	__le64 bad;
	__le64 resynced;
	__le64 resync_failed;
	__le64 stripes;
	__le64 stripes_bad;
};

#define AIFS_DS_SCRUB_REP_SIZE	104

/* Entries of a CHUNK_LIST reply, and chunks of a CHUNK_SYNC, at most */
#define AIFS_CHUNK_LIST_MAX	1024

/* aifs_chunk_entry.flags */
#define AIFS_CHUNK_STALE	(1U << 0)	/* behind its group: no source */

/**
 * struct aifs_chunk_entry - one chunk in a CHUNK_LIST reply
 * @index:    chunk index
 * @fragment: EC fragment (0 for replicas)
 * @flags:    AIFS_CHUNK_*
 * @version:  the chunk's version
 * @length:   bytes stored
 * @reserved: zero
 */
struct aifs_chunk_entry {
	__le32 index;
	__le16 fragment;
	__le16 flags;
	__le64 version;
	__le32 length;
	__le32 reserved;
};

#define AIFS_CHUNK_ENTRY_SIZE	24

/**
 * struct aifs_chunk_list_req - CHUNK_LIST (DS -> DS)
 * @id:       fs_uuid and ino; chunks of index @id.index and up are listed
 *            (@id.fragment is ignored)
 * @max:      entries wanted, 1..AIFS_CHUNK_LIST_MAX
 * @reserved: zero
 */
struct aifs_chunk_list_req {
	struct aifs_chunk_id id;
	__le32 max;
	__le32 reserved;
};

#define AIFS_CHUNK_LIST_REQ_SIZE 40

/* aifs_chunk_list_rep.flags */
#define AIFS_CHUNK_LIST_MORE	(1U << 0)	/* entries past the last left out */

/**
 * struct aifs_chunk_list_rep - CHUNK_LIST; @count struct aifs_chunk_entry
 *                              follow, by index and fragment
 * @fence:    the last truncation of the inode this server applied
 * @count:    entries following, at most the request's @max
 * @flags:    AIFS_CHUNK_LIST_*
 * @reserved: zero
 */
struct aifs_chunk_list_rep {
	__le32 fence;
	__le32 count;
	__le32 flags;
	__le32 reserved;
};

#define AIFS_CHUNK_LIST_REP_SIZE 16

/**
 * struct aifs_chunk_sync_req - CHUNK_SYNC (MDS -> DS): make this server's
 *     copies of the inode's chunks, from chunk @id.index on, those of its
 *     replica group: copy what differs from a peer, delete what the group
 *     no longer holds
 * @id:       fs_uuid, ino, and the first chunk index to look at
 * @max:      chunks to look at in this call, 1..AIFS_CHUNK_LIST_MAX
 * @flags:    0, or one of AIFS_CHUNK_SYNC_BEGIN (a rebuild made this
 *            server a new member: it serves nothing of the inode until a
 *            CHUNK_SYNC without flags says it is in sync) and
 *            AIFS_CHUNK_SYNC_FENCE (a rebuild changed the inode's groups:
 *            take no write made with an older layout); with either the
 *            server only records @layout's generation and answers @next
 *            = @id.index at once.  Every CHUNK_SYNC records it.
 * @layout:   the file's layout: this server's groups and their members
 */
struct aifs_chunk_sync_req {
	struct aifs_chunk_id id;
	__le32 max;
	__le32 flags;
	struct aifs_layout layout;
};

#define AIFS_CHUNK_SYNC_REQ_SIZE 312

#define AIFS_CHUNK_SYNC_DONE	0xffffffffU

/* CHUNK_SYNC flags */
#define AIFS_CHUNK_SYNC_BEGIN	(1U << 0)
#define AIFS_CHUNK_SYNC_FENCE	(1U << 1)
#define AIFS_CHUNK_SYNC_KNOWN	(AIFS_CHUNK_SYNC_BEGIN | AIFS_CHUNK_SYNC_FENCE)

/**
 * struct aifs_chunk_sync_rep - CHUNK_SYNC
 * @next:    chunk index to go on from, or AIFS_CHUNK_SYNC_DONE: the inode
 *           is in sync here
 * @copied:  chunks copied from a peer by this call
 * @deleted: chunks deleted by this call (the group no longer holds them)
 * @reserved: zero
 */
struct aifs_chunk_sync_rep {
	__le32 next;
	__le32 copied;
	__le32 deleted;
	__le32 reserved;
};

#define AIFS_CHUNK_SYNC_REP_SIZE 16

/* Inode numbers of a DS_INODES reply, at most */
#define AIFS_DS_INODES_MAX	1024

/* DS_INODES cursor: the walk is over */
#define AIFS_DS_INODES_END	0xffffffffU

/**
 * struct aifs_ds_inodes_req - DS_INODES (MDS -> DS): the inodes this
 *     server holds chunks of, a part of its store at a time
 * @fs_uuid:  the file system's (EXDEV for another)
 * @after:    with @dir, where to go on: 0 and 0 at first, then the
 *            reply's
 * @dir:      the store's directory to go on in (the server's own order)
 * @max:      inode numbers wanted, 1..AIFS_DS_INODES_MAX
 *
 * A reply may hold fewer than @max, even none, before the end: a call
 * looks at a bounded part of the store.
 */
struct aifs_ds_inodes_req {
	__u8 fs_uuid[16];
	__le64 after;
	__le32 dir;
	__le32 max;
};

#define AIFS_DS_INODES_REQ_SIZE	32

/**
 * struct aifs_ds_inodes_rep - DS_INODES; @count __le64 inode numbers
 *                             follow, each once
 * @after:  cursor for the next call, with @dir
 * @dir:    cursor, or AIFS_DS_INODES_END: nothing more
 * @count:  inode numbers following
 */
struct aifs_ds_inodes_rep {
	__le64 after;
	__le32 dir;
	__le32 count;
};

#define AIFS_DS_INODES_REP_SIZE	16

/**
 * struct aifs_ec_group - the servers of one EC stripe, in a request
 * @chunk_size: the layout's chunk size: bytes per fragment
 * @k:          data fragments, 1..AIFS_EC_MAX_K
 * @m:          parity fragments, 1..AIFS_EC_MAX_M
 * @ahead:      EC_WRITE: the first @ahead members could not be used by the
 *              client: this server leads the stripe only while the MDS
 *              counts them out (else ESTALE); less than @k + @m.  EC_READ: 0
 * @members:    data server ids, fragment f on @members[f] (the stripe's
 *              group of the layout); @k + @m used, the rest zero
 */
struct aifs_ec_group {
	__le32 chunk_size;
	__u8 k;
	__u8 m;
	__le16 ahead;
	__le32 members[AIFS_EC_MAX_WIDTH];
};

#define AIFS_EC_GROUP_SIZE	200

/**
 * struct aifs_ec_write_req - EC_WRITE (client -> the stripe's leader: its
 *                            first member the client can reach)
 * @id:         the stripe: @id.index is the stripe number, @id.fragment 0
 * @offset:     byte offset in the stripe's data (the @k data fragments end
 *              to end)
 * @data_len:   bytes of data following (0 with AIFS_IO_RDMA or ZERO: then
 *              @rdma.len bytes), 1..AIFS_MAX_IO within the stripe's data
 * @flags:      AIFS_IO_*, as CHUNK_WRITE
 * @layout_gen: the generation of the layout the client wrote with, as
 *              CHUNK_WRITE
 * @rdma:       with AIFS_IO_RDMA: where the data comes from; with
 *              AIFS_IO_ZERO: @rdma.len bytes of zeros, @addr and @rkey 0
 * @group:      the stripe's servers
 *
 * The leader writes the data fragments it covers and every parity
 * fragment over the same bytes (encoded from the whole stripe: a write of
 * part of it reads the rest first); with AIFS_IO_SYNC each is durable
 * before the reply.  Reply: aifs_chunk_rep (the stripe's version, the
 * bytes written).
 */
struct aifs_ec_write_req {
	struct aifs_chunk_id id;
	__le32 offset;
	__le32 data_len;
	__le32 flags;
	__le32 layout_gen;
	struct aifs_rdma_seg rdma;
	struct aifs_ec_group group;
};

#define AIFS_EC_WRITE_REQ_SIZE	264

/**
 * struct aifs_ec_read_req - EC_READ (client -> a member of the stripe)
 * @id:       the fragment wanted (index: the stripe; fragment
 *            AIFS_EC_FRAGMENT(f), f < @group.k + @group.m: a data fragment
 *            for a reader, any for a member rebuilding its own)
 * @offset:   byte offset within the fragment
 * @length:   bytes wanted, 1..AIFS_MAX_IO, within the fragment
 * @flags:    AIFS_IO_RDMA, as CHUNK_READ
 * @reserved: zero
 * @rdma:     with AIFS_IO_RDMA: where the data goes
 * @group:    the stripe's servers
 *
 * For a fragment whose own server cannot serve it: the server reads the
 * same bytes of @k other fragments of the stripe and decodes them.
 * Reply: aifs_chunk_read_rep, with data as CHUNK_READ (@version: the
 * stripe's; @chunk_len: the fragment's length); EIO when fewer than @k
 * fragments can be read.
 */
struct aifs_ec_read_req {
	struct aifs_chunk_id id;
	__le32 offset;
	__le32 length;
	__le32 flags;
	__le32 reserved;
	struct aifs_rdma_seg rdma;
	struct aifs_ec_group group;
};

#define AIFS_EC_READ_REQ_SIZE	264

/**
 * struct aifs_ec_archive_req - EC_ARCHIVE (MDS -> a member of the stripe)
 * @id:         the stripe (@id.index; @id.fragment 0)
 * @size:       the file's size: its bytes past it are zeros
 * @layout_gen: the generation the EC layout will have
 * @reserved:   zero
 * @group:      the stripe's servers in the EC layout
 * @source:     the file's layout now: replicated, of @group.chunk_size
 *
 * The server reads the stripe's data from the file's chunks (the first
 * member of each chunk's group that serves it), encodes it and writes
 * every fragment, durably, under the stripe's lock; a member it could not
 * write fails the stripe (EAGAIN): an archive never leaves a stripe short.
 * Reply: aifs_chunk_rep (the stripe's version, the bytes of data).
 */
struct aifs_ec_archive_req {
	struct aifs_chunk_id id;
	__le64 size;
	__le32 layout_gen;
	__le32 reserved;
	struct aifs_ec_group group;
	struct aifs_layout source;
};

#define AIFS_EC_ARCHIVE_REQ_SIZE 520

/* EC_VERIFY flags */
#define AIFS_EC_VERIFY_REPAIR	(1U << 0)	/* parity rewritten from data */
#define AIFS_EC_VERIFY_KNOWN	0x1U

/**
 * struct aifs_ec_verify_req - EC_VERIFY (a data server's scrub -> a member
 *                             of the stripe, its leader if it answers)
 * @id:       the stripe (@id.index; @id.fragment 0)
 * @flags:    AIFS_EC_VERIFY_*
 * @reserved: zero
 * @group:    the stripe's servers
 *
 * Under the stripe's lock (exclusive with REPAIR), every fragment is read
 * a slice at a time, the parity encoded again from the data and compared
 * with the stored parity; with REPAIR parity that differs is rewritten.
 * Columns where a fragment cannot be read are not compared (@skipped).
 */
struct aifs_ec_verify_req {
	struct aifs_chunk_id id;
	__le32 flags;
	__le32 reserved;
	struct aifs_ec_group group;
};

#define AIFS_EC_VERIFY_REQ_SIZE	240

/**
 * struct aifs_ec_verify_rep - EC_VERIFY
 * @checked:    bytes of each fragment compared
 * @mismatched: bytes of parity that did not match the data's code
 * @repaired:   of them, rewritten (AIFS_EC_VERIFY_REPAIR)
 * @skipped:    bytes of each fragment not compared: one could not be read
 */
struct aifs_ec_verify_rep {
	__le64 checked;
	__le64 mismatched;
	__le64 repaired;
	__le64 skipped;
};

#define AIFS_EC_VERIFY_REP_SIZE	32

/* MDS_FSCK flags */
#define AIFS_FSCK_START		(1U << 0)	/* begin a pass, unless one runs */
#define AIFS_FSCK_REPAIR	(1U << 1)	/* with START: repair what it finds */
#define AIFS_FSCK_KNOWN		0x3U

/* What an fsck finds (Documentation/fsck.md), and what repairs it. */
enum aifs_fsck_kind {
	AIFS_FSCK_DANGLING,	/* an entry names no inode: removed */
	AIFS_FSCK_DIRSEQ,	/* readdir's table disagrees with the names */
	AIFS_FSCK_LINKS,	/* a link or entry count, or the orphan list */
	AIFS_FSCK_NAMELESS,	/* an inode without a name: to /lost+found */
	AIFS_FSCK_ORPHAN_CHUNKS,	/* chunks no layout places there: deleted */
	AIFS_FSCK_MISSING_COPY,	/* a copy behind its group: caught up */
	AIFS_FSCK_PAST_SIZE,	/* bytes past a closed file's size: cut */
	AIFS_FSCK_OTHER,	/* damaged records and the like: reported */
	AIFS_FSCK_KINDS,
};

/* Problems an MDS_FSCK reply describes in words, at most */
#define AIFS_FSCK_TEXT_MAX	8192

/**
 * struct aifs_mds_fsck_req - MDS_FSCK
 * @flags:    AIFS_FSCK_*; 0 only asks how the current or last pass goes
 * @reserved: zero
 */
struct aifs_mds_fsck_req {
	__le32 flags;
	__le32 reserved;
};

#define AIFS_MDS_FSCK_REQ_SIZE	8

/**
 * struct aifs_mds_fsck_rep - the current or last fsck pass; @text_len
 *     bytes follow: its first problems, a line each
 * @running:   1 while a pass runs
 * @flags:     the pass's AIFS_FSCK_* flags
 * @passes:    passes ended since the MDS started
 * @started:   when the pass began (Unix seconds; 0: none yet)
 * @finished:  when it ended (0: running, or none)
 * @inodes:    inode records checked
 * @entries:   directory entries checked
 * @files:     files whose copies were compared
 * @chunk_inodes: inodes the data servers hold chunks of, checked
 * @servers:   data servers checked
 * @skipped:   data servers not checked (down, or not answering)
 * @found:     problems found, by enum aifs_fsck_kind
 * @repaired:  of those, repaired
 * @error:     0, or the errno that ended the pass early
 * @text_len:  bytes of text following
 */
struct aifs_mds_fsck_rep {
	__le32 running;
	__le32 flags;
	__le64 passes;
	__le64 started;
	__le64 finished;
	__le64 inodes;
	__le64 entries;
	__le64 files;
	__le64 chunk_inodes;
	__le32 servers;
	__le32 skipped;
	__le64 found[AIFS_FSCK_KINDS];
	__le64 repaired[AIFS_FSCK_KINDS];
	__le32 error;
	__le32 text_len;
};

#define AIFS_MDS_FSCK_REP_SIZE	208

/* RECOVERY_GET: a server's rebuild never starts (rebuild_delay_s = 0) */
#define AIFS_REBUILD_NEVER	0xffffffffU

/**
 * struct aifs_recovery_entry - a data server recovery has work for
 * @id:         the server
 * @state:      SYNCING (it catches up) or OFFLINE (waiting for the
 *              rebuild delay, or being rebuilt around)
 * @round:      recovery's round of it (a new one at each state change)
 * @rebuild_in: OFFLINE: seconds until its rebuild begins (0: begun), or
 *              AIFS_REBUILD_NEVER
 * @cursor:     the next inode number the walk looks at (0: not begun)
 * @files:      files synced on it, or rebuilt around it, this round
 * @copied:     chunks copied this round
 * @deleted:    chunks deleted this round (cut while it was away)
 * @left:       rebuild: files left for another pass (no source, nowhere
 *              to go)
 * @since:      when the round began (Unix seconds)
 */
struct aifs_recovery_entry {
	__le32 id;
	__le32 state;
	__le32 round;
	__le32 rebuild_in;
	__le64 cursor;
	__le64 files;
	__le64 copied;
	__le64 deleted;
	__le64 left;
	__le64 since;
};

#define AIFS_RECOVERY_ENTRY_SIZE	64

/**
 * struct aifs_recovery_rep - RECOVERY_GET (empty request); @count struct
 *                            aifs_recovery_entry follow, by id
 * @next_ino: the inode number the MDS gives next: where the walks end
 * @count:    entries following: every SYNCING and OFFLINE server
 * @reserved: zero
 */
struct aifs_recovery_rep {
	__le64 next_ino;
	__le32 count;
	__le32 reserved;
};

#define AIFS_RECOVERY_REP_SIZE	16

/* DS_REPAIRS, REPAIRS_GET: copies named per server, at most */
#define AIFS_REPAIR_LIST_MAX	16

/* aifs_repair_entry.flags */
#define AIFS_REPAIR_NO_SOURCE	0x1	/* no peer had a copy to take when
					 * last tried: tried again */
#define AIFS_REPAIR_KNOWN	AIFS_REPAIR_NO_SOURCE

/**
 * struct aifs_repair_entry - a chunk copy its server must repair
 * @ino:      the file
 * @index:    chunk index
 * @fragment: EC fragment (0 for replicas)
 * @flags:    AIFS_REPAIR_*
 * @server:   the server holding the copy
 * @reserved: zero
 */
struct aifs_repair_entry {
	__le64 ino;
	__le32 index;
	__le16 fragment;
	__le16 flags;
	__le32 server;
	__le32 reserved;
};

#define AIFS_REPAIR_ENTRY_SIZE	24

/**
 * struct aifs_ds_repairs_req - DS_REPAIRS (data server -> MDS; empty
 *                              reply): what it must repair, sent on each
 *                              new connection and when it changed;
 *                              @count struct aifs_repair_entry follow
 *                              (@server = @id), those with no source first
 * @id:        the server
 * @count:     entries following, at most AIFS_REPAIR_LIST_MAX
 * @marked:    copies marked for repair (stale or damaged; the marks
 *             outlive a restart)
 * @no_source: of them, those no peer had a copy for when last tried
 */
struct aifs_ds_repairs_req {
	__le32 id;
	__le32 count;
	__le64 marked;
	__le64 no_source;
};

#define AIFS_DS_REPAIRS_REQ_SIZE	24

/**
 * struct aifs_repair_server - a server's last DS_REPAIRS, in REPAIRS_GET
 * @id:        the server
 * @reserved:  zero
 * @marked:    as it said
 * @no_source: as it said
 * @reported:  when the MDS heard it (Unix seconds)
 */
struct aifs_repair_server {
	__le32 id;
	__le32 reserved;
	__le64 marked;
	__le64 no_source;
	__le64 reported;
};

#define AIFS_REPAIR_SERVER_SIZE	32

/**
 * struct aifs_repairs_rep - REPAIRS_GET (empty request): @servers struct
 *                           aifs_repair_server follow, by id (each server
 *                           whose last report had a copy to repair), then
 *                           @count struct aifs_repair_entry, by server
 * @servers: servers following
 * @count:   entries following them
 */
struct aifs_repairs_rep {
	__le32 servers;
	__le32 count;
};

#define AIFS_REPAIRS_REP_SIZE	8

#endif /* AIFS_PROTO_H */
