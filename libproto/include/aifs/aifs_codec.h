/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * aifs wire codec: bounds-checked encoding and decoding of the messages of
 * aifs_proto.h, compiled into both aifs.ko and the userspace library.  No
 * allocation, no I/O: callers hand in buffers.
 *
 * A message's payload is its fixed struct followed by up to
 * AIFS_MSG_MAX_PARTS variable parts (struct aifs_span: pointer and length
 * in bytes).  Decoding copies the fixed struct out (it stays
 * little-endian: read it with le32_to_cpu() and friends) and points the
 * parts into the received buffer; nothing large is copied.  Every length,
 * count, name and flag word is checked against the buffer and the limits
 * of aifs_proto.h before a decoder returns 0.  Encoding sets the length
 * fields from the parts itself and checks the result just as strictly, so
 * what one side encodes the other side decodes.
 *
 * Errors: -EBADMSG malformed (lengths that do not add up, counts over
 * their limit, bad attributes in a reply); -EINVAL a field outside its
 * allowed values (flags, names with '/' or NUL, "." or ".."), or a caller's
 * mistake; -ENAMETOOLONG a file name over AIFS_NAME_MAX or a symlink target
 * over AIFS_SYMLINK_MAX; -ERANGE an xattr name empty or over
 * AIFS_XATTR_NAME_MAX; -E2BIG an xattr value or list over
 * AIFS_XATTR_SIZE_MAX; -EOPNOTSUPP an unknown opcode; encoders also
 * -ENOSPC (buffer too small) and -EMSGSIZE (over AIFS_MAX_PAYLOAD).
 */
#ifndef AIFS_CODEC_H
#define AIFS_CODEC_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/crc32c.h>
#include <asm/byteorder.h>
#else
#include "aifs_user.h"
#endif

#include "aifs_proto.h"

/* Standard CRC32C (Castagnoli) of a buffer, as on the wire. */
u32 aifs_crc32c(const void *buf, size_t len);

/*
 * Fill a frame header for a message of @payload_len bytes; the caller then
 * sets status/map_epoch/payload_crc as needed and seals it last.
 */
void aifs_frame_hdr_init(struct aifs_frame_hdr *hdr, u16 opcode, u32 flags,
			 u64 request_id, u32 payload_len);

/* Compute hdr_crc over the finished header. */
void aifs_frame_hdr_seal(struct aifs_frame_hdr *hdr);

/*
 * Validate a received header before anything is allocated for its payload:
 * magic, hdr_crc, reserved field, known flags, a status only in replies
 * and at most AIFS_MAX_ERRNO, version and payload_len <= @max_payload.
 * Returns 0, -EBADMSG (not an aifs frame or corrupted), -EPROTONOSUPPORT
 * (version outside what this side speaks) or -EMSGSIZE (payload too big).
 */
int aifs_frame_hdr_check(const struct aifs_frame_hdr *hdr, u32 max_payload);

/* Check the payload against payload_crc when the frame carries one. */
int aifs_frame_payload_check(const struct aifs_frame_hdr *hdr,
			     const void *payload);

/*
 * The same for a payload received in pieces: @crc is their CRC32C, chained
 * from one piece to the next (crc32c(~0, first), crc32c(that, second) ...,
 * complemented at the end: what aifs_crc32c() gives for the whole).
 */
int aifs_frame_crc_check(const struct aifs_frame_hdr *hdr, u32 crc);

/**
 * aifs_hello_negotiate() - pick the version for a HELLO request
 * @req: a decoded HELLO request
 *
 * Return: the highest version in both the requester's range and ours, or
 * -EPROTONOSUPPORT when the ranges do not meet.
 */
int aifs_hello_negotiate(const struct aifs_hello_req *req);

/* ---- RDMA streams (aifs_proto.h): the rules both ends run ---- */

void aifs_rdma_cm_data_init(struct aifs_rdma_cm_data *d, u32 credits,
			    u32 msg_size);

/*
 * The peer's rdma_cm private data (@len bytes, any padding after): its
 * credits and message size, within AIFS_RDMA_* bounds; 0 or -EPROTO.
 */
int aifs_rdma_cm_data_check(const void *data, u32 len, u32 *credits,
			    u32 *msg_size);

/**
 * struct aifs_rdma_flow - the credits of one RDMA stream, one side's view
 * @my_credits:   data messages we can receive at once (as advertised)
 * @peer_credits: the same, of the peer
 * @send_credits: data messages we may send now
 * @held:         data messages received and not read yet
 * @owed:         receives posted again since we last said so
 * @fin_received: the peer's stream ended
 */
struct aifs_rdma_flow {
	u32 my_credits;
	u32 peer_credits;
	u32 send_credits;
	u32 held;
	u32 owed;
	bool fin_received;
};

void aifs_rdma_flow_init(struct aifs_rdma_flow *f, u32 my_credits,
			 u32 peer_credits);

/*
 * Account a received message of @byte_len bytes starting with @m; its
 * data (@m->len bytes) is then held until aifs_rdma_flow_read().  -EPROTO
 * for a message that breaks the rules (more data than credits, credits
 * never spent, anything after FIN).
 */
int aifs_rdma_flow_received(struct aifs_rdma_flow *f,
			    const struct aifs_rdma_msg *m, u32 byte_len);

/* A held message was read and its receive posted again. */
void aifs_rdma_flow_read(struct aifs_rdma_flow *f);

/* Fill @m for a message of @len data bytes (spends a credit) and @flags. */
void aifs_rdma_flow_send(struct aifs_rdma_flow *f, struct aifs_rdma_msg *m,
			 u32 len, u16 flags);

/* Whether the credits owed should go in a message of their own now. */
bool aifs_rdma_flow_due(const struct aifs_rdma_flow *f);
/**
 * aifs_auth_transcript() - the bytes that an AUTH proof is the HMAC of
 * @out:     buffer, AIFS_AUTH_TRANSCRIPT_MAX bytes are always enough
 * @outlen:  its size
 * @label:   AIFS_AUTH_CLIENT_LABEL or AIFS_AUTH_SERVER_LABEL
 * @nonce_a: the prover's nonce (AIFS_NONCE_SIZE bytes)
 * @nonce_b: the other side's nonce (AIFS_NONCE_SIZE bytes)
 * @version: the negotiated protocol version
 *
 * Builds label | nonce_a | nonce_b | le16 version.
 *
 * Return: its length, -EINVAL for a label over AIFS_AUTH_LABEL_MAX, or
 * -ENOSPC.
 */
int aifs_auth_transcript(u8 *out, size_t outlen, const char *label,
			 const u8 *nonce_a, const u8 *nonce_b, u16 version);

/**
 * aifs_opcode_name() - name of an opcode, for logs
 * @op: opcode
 *
 * Return: "LOOKUP" etc., or "UNKNOWN".
 */
const char *aifs_opcode_name(u16 op);

/* "UP", "OFFLINE" etc. of an enum aifs_ds_state, or "UNKNOWN". */
const char *aifs_ds_state_name(u32 state);

/**
 * aifs_name_valid() - check a file name
 * @name: bytes of the name (not NUL-terminated)
 * @len:  its length
 *
 * Return: 0 for 1..AIFS_NAME_MAX bytes without '/' or NUL and other than
 * "." and ".."; -ENAMETOOLONG if longer, else -EINVAL.
 */
int aifs_name_valid(const char *name, u32 len);

/**
 * aifs_layout_check() - check a layout's consistency
 * @layout: the layout (see struct aifs_layout for the rules)
 *
 * Return: 0 or -EINVAL.
 */
int aifs_layout_check(const struct aifs_layout *layout);

/* A variable part of a message: @len bytes at @data. */
struct aifs_span {
	const void *data;
	u32 len;
};

#define AIFS_MSG_MAX_PARTS	2

/**
 * aifs_msg_fixed_size() - size of the fixed part of a message
 * @op:    opcode
 * @reply: the reply (true) or the request (false)
 *
 * Return: the size in bytes (0 for PING and other empty messages), or
 * -EOPNOTSUPP for an unknown opcode.
 */
int aifs_msg_fixed_size(u16 op, bool reply);

/**
 * aifs_msg_encode() - encode a payload
 * @op:         opcode
 * @reply:      encode the reply (true) or the request (false)
 * @buf:        output
 * @size:       room at @buf
 * @fixed:      the fixed struct of the message, length fields left to us
 * @fixed_size: sizeof(*@fixed), checked against the opcode
 * @parts:      the variable parts in order (NULL if the message has none);
 *              lengths in bytes (CRC lists: 4 per CRC; DS lists:
 *              AIFS_DS_INFO_SIZE per server)
 *
 * A part whose data already sits at its place in @buf is not copied, so
 * large parts can be built in place.  The data part of CHUNK_WRITE,
 * CHUNK_FORWARD and CHUNK_READ replies (always the last part) may have a
 * NULL @data: then only the fixed part is written and the caller sends the
 * data bytes right after it (e.g. from pages).
 *
 * Return: the payload length (including data not written), or a negative
 * errno (see the top of this file).
 */
int aifs_msg_encode(u16 op, bool reply, void *buf, u32 size,
		    const void *fixed, u32 fixed_size,
		    const struct aifs_span *parts);

/**
 * aifs_msg_decode() - decode and validate a payload
 * @op:         opcode
 * @reply:      a reply (true) or a request (false)
 * @buf:        the payload
 * @len:        its length (exactly the payload: trailing bytes are an error)
 * @fixed:      out: the fixed struct, copied
 * @fixed_size: sizeof(*@fixed), checked against the opcode
 * @parts:      out: the variable parts, pointing into @buf (room for
 *              AIFS_MSG_MAX_PARTS; may be NULL if the message has none)
 *
 * Return: 0 or a negative errno (see the top of this file).
 */
int aifs_msg_decode(u16 op, bool reply, const void *buf, u32 len,
		    void *fixed, u32 fixed_size, struct aifs_span *parts);

/**
 * aifs_msg_decode_head() - decode a payload whose data is not received yet
 * @op:          opcode
 * @reply:       a reply (true) or a request (false)
 * @buf:         the first @len bytes of the payload
 * @len:         bytes at @buf
 * @payload_len: the whole payload's length (from the frame header)
 * @fixed:       out: the fixed struct, copied
 * @fixed_size:  sizeof(*@fixed)
 * @parts:       out: the parts; a trailing data part that is not in @buf
 *               has a NULL @data and its length
 *
 * For receiving data straight into its destination: read
 * aifs_msg_fixed_size() bytes, decode the head, then receive the data part
 * (its length is what is left of @payload_len).  With @len ==
 * @payload_len this is aifs_msg_decode().
 *
 * Return: 0 or a negative errno; -EBADMSG also when what is missing from
 * @buf is not exactly a trailing data part.
 */
int aifs_msg_decode_head(u16 op, bool reply, const void *buf, u32 len,
			 u32 payload_len, void *fixed, u32 fixed_size,
			 struct aifs_span *parts);

/*
 * Typed wrappers, one pair per message: aifs_encode_lookup_req(buf, size,
 * &req, parts) and aifs_decode_lookup_req(buf, len, &req, parts), etc.,
 * for struct aifs_<tag>.  AIFS_MSG_<fn> is the opcode and direction.
 */
#define AIFS_MSG_CODEC(fn, op, reply, tag)				\
enum { AIFS_MSG_##fn = (op) << 1 | (reply) };				\
static inline int aifs_encode_##fn(void *buf, u32 size,		\
				   const struct aifs_##tag *m,		\
				   const struct aifs_span *parts)	\
{									\
	return aifs_msg_encode(AIFS_MSG_##fn >> 1, AIFS_MSG_##fn & 1,	\
			       buf, size, m, sizeof(*m), parts);	\
}									\
static inline int aifs_decode_##fn(const void *buf, u32 len,		\
				   struct aifs_##tag *m,		\
				   struct aifs_span *parts)		\
{									\
	return aifs_msg_decode(AIFS_MSG_##fn >> 1, AIFS_MSG_##fn & 1,	\
			       buf, len, m, sizeof(*m), parts);		\
}

AIFS_MSG_CODEC(hello_req, AIFS_OP_HELLO, false, hello_req)
AIFS_MSG_CODEC(hello_rep, AIFS_OP_HELLO, true, hello_rep)
AIFS_MSG_CODEC(auth_req, AIFS_OP_AUTH, false, auth_req)
AIFS_MSG_CODEC(auth_rep, AIFS_OP_AUTH, true, auth_rep)
AIFS_MSG_CODEC(lookup_req, AIFS_OP_LOOKUP, false, name_req)
AIFS_MSG_CODEC(lookup_rep, AIFS_OP_LOOKUP, true, entry_rep)
AIFS_MSG_CODEC(getattr_req, AIFS_OP_GETATTR, false, ino_req)
AIFS_MSG_CODEC(getattr_rep, AIFS_OP_GETATTR, true, attr_rep)
AIFS_MSG_CODEC(setattr_req, AIFS_OP_SETATTR, false, setattr_req)
AIFS_MSG_CODEC(setattr_rep, AIFS_OP_SETATTR, true, attr_rep)
AIFS_MSG_CODEC(create_req, AIFS_OP_CREATE, false, create_req)
AIFS_MSG_CODEC(create_rep, AIFS_OP_CREATE, true, create_rep)
AIFS_MSG_CODEC(mkdir_req, AIFS_OP_MKDIR, false, create_req)
AIFS_MSG_CODEC(mkdir_rep, AIFS_OP_MKDIR, true, entry_rep)
AIFS_MSG_CODEC(mknod_req, AIFS_OP_MKNOD, false, create_req)
AIFS_MSG_CODEC(mknod_rep, AIFS_OP_MKNOD, true, entry_rep)
AIFS_MSG_CODEC(unlink_req, AIFS_OP_UNLINK, false, name_req)
AIFS_MSG_CODEC(unlink_rep, AIFS_OP_UNLINK, true, entry_rep)
AIFS_MSG_CODEC(rmdir_req, AIFS_OP_RMDIR, false, name_req)
AIFS_MSG_CODEC(rmdir_rep, AIFS_OP_RMDIR, true, entry_rep)
AIFS_MSG_CODEC(rename_req, AIFS_OP_RENAME, false, rename_req)
AIFS_MSG_CODEC(rename_rep, AIFS_OP_RENAME, true, rename_rep)
AIFS_MSG_CODEC(link_req, AIFS_OP_LINK, false, link_req)
AIFS_MSG_CODEC(link_rep, AIFS_OP_LINK, true, entry_rep)
AIFS_MSG_CODEC(symlink_req, AIFS_OP_SYMLINK, false, symlink_req)
AIFS_MSG_CODEC(symlink_rep, AIFS_OP_SYMLINK, true, entry_rep)
AIFS_MSG_CODEC(readlink_req, AIFS_OP_READLINK, false, ino_req)
AIFS_MSG_CODEC(readlink_rep, AIFS_OP_READLINK, true, readlink_rep)
AIFS_MSG_CODEC(readdir_req, AIFS_OP_READDIR, false, readdir_req)
AIFS_MSG_CODEC(readdir_rep, AIFS_OP_READDIR, true, readdir_rep)
AIFS_MSG_CODEC(statfs_req, AIFS_OP_STATFS, false, ino_req)
AIFS_MSG_CODEC(statfs_rep, AIFS_OP_STATFS, true, statfs_rep)
AIFS_MSG_CODEC(getxattr_req, AIFS_OP_GETXATTR, false, getxattr_req)
AIFS_MSG_CODEC(getxattr_rep, AIFS_OP_GETXATTR, true, xattr_rep)
AIFS_MSG_CODEC(setxattr_req, AIFS_OP_SETXATTR, false, setxattr_req)
AIFS_MSG_CODEC(setxattr_rep, AIFS_OP_SETXATTR, true, attr_rep)
AIFS_MSG_CODEC(listxattr_req, AIFS_OP_LISTXATTR, false, listxattr_req)
AIFS_MSG_CODEC(listxattr_rep, AIFS_OP_LISTXATTR, true, xattr_rep)
AIFS_MSG_CODEC(removexattr_req, AIFS_OP_REMOVEXATTR, false, name_req)
AIFS_MSG_CODEC(removexattr_rep, AIFS_OP_REMOVEXATTR, true, attr_rep)
AIFS_MSG_CODEC(open_req, AIFS_OP_OPEN, false, open_req)
AIFS_MSG_CODEC(open_rep, AIFS_OP_OPEN, true, open_rep)
AIFS_MSG_CODEC(close_req, AIFS_OP_CLOSE, false, close_req)
AIFS_MSG_CODEC(close_rep, AIFS_OP_CLOSE, true, attr_rep)
AIFS_MSG_CODEC(layout_get_req, AIFS_OP_LAYOUT_GET, false, ino_req)
AIFS_MSG_CODEC(layout_get_rep, AIFS_OP_LAYOUT_GET, true, layout_rep)
AIFS_MSG_CODEC(layout_set_req, AIFS_OP_LAYOUT_SET, false, layout_set_req)
AIFS_MSG_CODEC(layout_set_rep, AIFS_OP_LAYOUT_SET, true, layout_rep)
AIFS_MSG_CODEC(map_get_req, AIFS_OP_MAP_GET, false, map_get_req)
AIFS_MSG_CODEC(map_get_rep, AIFS_OP_MAP_GET, true, map_rep)
AIFS_MSG_CODEC(ds_register_req, AIFS_OP_DS_REGISTER, false, ds_register_req)
AIFS_MSG_CODEC(ds_register_rep, AIFS_OP_DS_REGISTER, true, ds_register_rep)
AIFS_MSG_CODEC(ds_heartbeat_req, AIFS_OP_DS_HEARTBEAT, false, ds_heartbeat_req)
AIFS_MSG_CODEC(ds_heartbeat_rep, AIFS_OP_DS_HEARTBEAT, true, ds_heartbeat_rep)
AIFS_MSG_CODEC(chunk_read_req, AIFS_OP_CHUNK_READ, false, chunk_read_req)
AIFS_MSG_CODEC(chunk_read_rep, AIFS_OP_CHUNK_READ, true, chunk_read_rep)
AIFS_MSG_CODEC(chunk_write_req, AIFS_OP_CHUNK_WRITE, false, chunk_write_req)
AIFS_MSG_CODEC(chunk_write_rep, AIFS_OP_CHUNK_WRITE, true, chunk_rep)
AIFS_MSG_CODEC(chunk_truncate_req, AIFS_OP_CHUNK_TRUNCATE, false,
	       chunk_truncate_req)
AIFS_MSG_CODEC(chunk_truncate_rep, AIFS_OP_CHUNK_TRUNCATE, true, chunk_rep)
AIFS_MSG_CODEC(chunk_delete_req, AIFS_OP_CHUNK_DELETE, false, chunk_delete_req)
AIFS_MSG_CODEC(chunk_checksum_req, AIFS_OP_CHUNK_CHECKSUM, false,
	       chunk_checksum_req)
AIFS_MSG_CODEC(chunk_checksum_rep, AIFS_OP_CHUNK_CHECKSUM, true,
	       chunk_checksum_rep)
AIFS_MSG_CODEC(chunk_forward_req, AIFS_OP_CHUNK_FORWARD, false, chunk_write_req)
AIFS_MSG_CODEC(chunk_forward_rep, AIFS_OP_CHUNK_FORWARD, true, chunk_rep)
AIFS_MSG_CODEC(ds_statfs_rep, AIFS_OP_DS_STATFS, true, statfs_rep)
AIFS_MSG_CODEC(ds_scrub_req, AIFS_OP_DS_SCRUB, false, ds_scrub_req)
AIFS_MSG_CODEC(ds_scrub_rep, AIFS_OP_DS_SCRUB, true, ds_scrub_rep)
AIFS_MSG_CODEC(chunk_list_req, AIFS_OP_CHUNK_LIST, false, chunk_list_req)
AIFS_MSG_CODEC(chunk_list_rep, AIFS_OP_CHUNK_LIST, true, chunk_list_rep)
AIFS_MSG_CODEC(ds_inodes_req, AIFS_OP_DS_INODES, false, ds_inodes_req)
AIFS_MSG_CODEC(ds_inodes_rep, AIFS_OP_DS_INODES, true, ds_inodes_rep)
AIFS_MSG_CODEC(ec_write_req, AIFS_OP_EC_WRITE, false, ec_write_req)
AIFS_MSG_CODEC(ec_write_rep, AIFS_OP_EC_WRITE, true, chunk_rep)
AIFS_MSG_CODEC(ec_read_req, AIFS_OP_EC_READ, false, ec_read_req)
AIFS_MSG_CODEC(ec_read_rep, AIFS_OP_EC_READ, true, chunk_read_rep)
AIFS_MSG_CODEC(frag_read_req, AIFS_OP_FRAG_READ, false, chunk_read_req)
AIFS_MSG_CODEC(frag_read_rep, AIFS_OP_FRAG_READ, true, chunk_read_rep)
AIFS_MSG_CODEC(frag_write_req, AIFS_OP_FRAG_WRITE, false, frag_write_req)
AIFS_MSG_CODEC(frag_write_rep, AIFS_OP_FRAG_WRITE, true, chunk_rep)
AIFS_MSG_CODEC(frag_behind_req, AIFS_OP_FRAG_BEHIND, false, frag_behind_req)
AIFS_MSG_CODEC(frag_rollback_req, AIFS_OP_FRAG_ROLLBACK, false, frag_rollback_req)
AIFS_MSG_CODEC(frag_rollback_rep, AIFS_OP_FRAG_ROLLBACK, true, chunk_rep)
AIFS_MSG_CODEC(ec_archive_req, AIFS_OP_EC_ARCHIVE, false, ec_archive_req)
AIFS_MSG_CODEC(ec_archive_rep, AIFS_OP_EC_ARCHIVE, true, chunk_rep)
AIFS_MSG_CODEC(ec_verify_req, AIFS_OP_EC_VERIFY, false, ec_verify_req)
AIFS_MSG_CODEC(ec_verify_rep, AIFS_OP_EC_VERIFY, true, ec_verify_rep)
AIFS_MSG_CODEC(mds_fsck_req, AIFS_OP_MDS_FSCK, false, mds_fsck_req)
AIFS_MSG_CODEC(mds_fsck_rep, AIFS_OP_MDS_FSCK, true, mds_fsck_rep)
AIFS_MSG_CODEC(recovery_rep, AIFS_OP_RECOVERY_GET, true, recovery_rep)
AIFS_MSG_CODEC(ds_repairs_req, AIFS_OP_DS_REPAIRS, false, ds_repairs_req)
AIFS_MSG_CODEC(repairs_rep, AIFS_OP_REPAIRS_GET, true, repairs_rep)
AIFS_MSG_CODEC(chunk_sync_req, AIFS_OP_CHUNK_SYNC, false, chunk_sync_req)
AIFS_MSG_CODEC(chunk_sync_rep, AIFS_OP_CHUNK_SYNC, true, chunk_sync_rep)

/* Reading the parts of a decoded message. */

/**
 * struct aifs_dirent_iter - walks the entries of a READDIR reply
 * @pos: next entry
 * @end: end of the entries
 */
struct aifs_dirent_iter {
	const u8 *pos;
	const u8 *end;
};

static inline void aifs_dirent_iter_init(struct aifs_dirent_iter *it,
					 const struct aifs_span *entries)
{
	it->pos = entries->data;
	it->end = it->pos + entries->len;
}

/**
 * aifs_dirent_next() - the next READDIR entry
 * @it:   iterator
 * @ent:  out: the entry's fixed part, copied
 * @name: out: its name, pointing into the reply
 *
 * Checks bounds itself, but does not check names and attributes: decode
 * the reply with aifs_decode_readdir_rep() first.
 *
 * Return: 1 for an entry, 0 at the end, -EBADMSG if truncated.
 */
int aifs_dirent_next(struct aifs_dirent_iter *it, struct aifs_dirent *ent,
		     struct aifs_span *name);

/* CRC @i of a decoded CHUNK_CHECKSUM reply's list (i < count). */
u32 aifs_span_le32(const struct aifs_span *list, u32 i);

/* Entry @i of a decoded MAP_GET reply's list (i < count), copied. */
void aifs_ds_info_get(const struct aifs_span *list, u32 i,
		      struct aifs_ds_info *info);

/* Building a READDIR reply in place. */

/**
 * struct aifs_dirent_buf - a READDIR reply under construction
 * @buf:   the payload buffer; entries start at AIFS_READDIR_REP_SIZE
 * @size:  its size (the smaller of the buffer and the request's max_bytes)
 * @used:  bytes of entries so far
 * @count: entries so far
 */
struct aifs_dirent_buf {
	u8 *buf;
	u32 size;
	u32 used;
	u32 count;
};

void aifs_dirents_init(struct aifs_dirent_buf *b, void *buf, u32 size);

/**
 * aifs_dirents_add() - append an entry to a READDIR reply
 * @b:        the reply
 * @cookie:   resume cookie of the entry (never 0)
 * @attr:     the entry's attributes
 * @name:     its name
 * @name_len: its length
 *
 * Return: 0, -ENOSPC when it does not fit (the reply is complete without
 * it), or the error of aifs_name_valid() / -EINVAL for a zero cookie.
 */
int aifs_dirents_add(struct aifs_dirent_buf *b, u64 cookie,
		     const struct aifs_attr *attr, const char *name,
		     u32 name_len);

/**
 * aifs_dirents_finish() - complete a READDIR reply
 * @b:     the reply
 * @flags: AIFS_READDIR_*
 *
 * Return: the payload length, or a negative errno (as aifs_msg_encode()).
 */
int aifs_dirents_finish(struct aifs_dirent_buf *b, u32 flags);

#endif /* AIFS_CODEC_H */
