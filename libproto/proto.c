// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * aifs wire codec, shared by aifs.ko and userspace (see aifs_codec.h).
 *
 * One table, aifs_ops[], describes every message: the size of its fixed
 * struct, where the length fields of its variable parts sit, what kind of
 * bytes each part holds, and a check of the fixed fields.  The encoder and
 * the decoder are both driven by it, and both run the same checks.
 */
#include "aifs/aifs_codec.h"

#ifdef __KERNEL__
#include <linux/build_bug.h>
#include <linux/kernel.h>
#include <linux/stddef.h>
#include <linux/stat.h>
#define AIFS_SIZE_CHECK(type, size) static_assert(sizeof(type) == (size))
#else
#include <assert.h>
#define AIFS_SIZE_CHECK(type, size) static_assert(sizeof(type) == (size), #type)
#endif

AIFS_SIZE_CHECK(struct aifs_frame_hdr, AIFS_FRAME_HDR_SIZE);
AIFS_SIZE_CHECK(struct aifs_rdma_cm_data, 16);
AIFS_SIZE_CHECK(struct aifs_rdma_msg, 8);
AIFS_SIZE_CHECK(struct aifs_hello_req, AIFS_HELLO_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_hello_rep, AIFS_HELLO_REP_SIZE);
AIFS_SIZE_CHECK(struct aifs_auth_req, AIFS_AUTH_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_auth_rep, AIFS_AUTH_REP_SIZE);
AIFS_SIZE_CHECK(struct aifs_timespec, AIFS_TIMESPEC_SIZE);
AIFS_SIZE_CHECK(struct aifs_attr, AIFS_ATTR_SIZE);
AIFS_SIZE_CHECK(struct aifs_cred, AIFS_CRED_SIZE);
AIFS_SIZE_CHECK(struct aifs_layout, AIFS_LAYOUT_SIZE);
AIFS_SIZE_CHECK(struct aifs_chunk_id, AIFS_CHUNK_ID_SIZE);
AIFS_SIZE_CHECK(struct aifs_addr, AIFS_ADDR_SIZE);
AIFS_SIZE_CHECK(struct aifs_rdma_seg, AIFS_RDMA_SEG_SIZE);
AIFS_SIZE_CHECK(struct aifs_ino_req, AIFS_INO_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_name_req, AIFS_NAME_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_setattr_req, AIFS_SETATTR_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_create_req, AIFS_CREATE_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_rename_req, AIFS_RENAME_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_link_req, AIFS_LINK_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_symlink_req, AIFS_SYMLINK_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_readdir_req, AIFS_READDIR_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_getxattr_req, AIFS_GETXATTR_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_setxattr_req, AIFS_SETXATTR_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_listxattr_req, AIFS_LISTXATTR_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_open_req, AIFS_OPEN_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_close_req, AIFS_CLOSE_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_layout_set_req, AIFS_LAYOUT_SET_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_attr_rep, AIFS_ATTR_REP_SIZE);
AIFS_SIZE_CHECK(struct aifs_entry_rep, AIFS_ENTRY_REP_SIZE);
AIFS_SIZE_CHECK(struct aifs_open_rep, AIFS_OPEN_REP_SIZE);
AIFS_SIZE_CHECK(struct aifs_create_rep, AIFS_CREATE_REP_SIZE);
AIFS_SIZE_CHECK(struct aifs_rename_rep, AIFS_RENAME_REP_SIZE);
AIFS_SIZE_CHECK(struct aifs_readlink_rep, AIFS_READLINK_REP_SIZE);
AIFS_SIZE_CHECK(struct aifs_readdir_rep, AIFS_READDIR_REP_SIZE);
AIFS_SIZE_CHECK(struct aifs_dirent, AIFS_DIRENT_SIZE);
AIFS_SIZE_CHECK(struct aifs_statfs_rep, AIFS_STATFS_REP_SIZE);
AIFS_SIZE_CHECK(struct aifs_xattr_rep, AIFS_XATTR_REP_SIZE);
AIFS_SIZE_CHECK(struct aifs_layout_rep, AIFS_LAYOUT_REP_SIZE);
AIFS_SIZE_CHECK(struct aifs_ds_info, AIFS_DS_INFO_SIZE);
AIFS_SIZE_CHECK(struct aifs_map_get_req, AIFS_MAP_GET_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_map_rep, AIFS_MAP_REP_SIZE);
AIFS_SIZE_CHECK(struct aifs_ds_register_req, AIFS_DS_REGISTER_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_ds_register_rep, AIFS_DS_REGISTER_REP_SIZE);
AIFS_SIZE_CHECK(struct aifs_ds_heartbeat_req, AIFS_DS_HEARTBEAT_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_ds_heartbeat_rep, AIFS_DS_HEARTBEAT_REP_SIZE);
AIFS_SIZE_CHECK(struct aifs_chunk_read_req, AIFS_CHUNK_READ_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_chunk_read_rep, AIFS_CHUNK_READ_REP_SIZE);
AIFS_SIZE_CHECK(struct aifs_chunk_write_req, AIFS_CHUNK_WRITE_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_chunk_rep, AIFS_CHUNK_REP_SIZE);
AIFS_SIZE_CHECK(struct aifs_chunk_truncate_req, AIFS_CHUNK_TRUNCATE_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_chunk_delete_req, AIFS_CHUNK_DELETE_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_frag_behind_req, AIFS_FRAG_BEHIND_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_frag_write_req, AIFS_FRAG_WRITE_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_frag_rollback_req, AIFS_FRAG_ROLLBACK_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_chunk_checksum_req, AIFS_CHUNK_CHECKSUM_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_chunk_checksum_rep, AIFS_CHUNK_CHECKSUM_REP_SIZE);
AIFS_SIZE_CHECK(struct aifs_ds_scrub_req, AIFS_DS_SCRUB_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_ds_scrub_rep, AIFS_DS_SCRUB_REP_SIZE);
AIFS_SIZE_CHECK(struct aifs_chunk_entry, AIFS_CHUNK_ENTRY_SIZE);
AIFS_SIZE_CHECK(struct aifs_chunk_list_req, AIFS_CHUNK_LIST_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_chunk_list_rep, AIFS_CHUNK_LIST_REP_SIZE);
AIFS_SIZE_CHECK(struct aifs_ds_inodes_req, AIFS_DS_INODES_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_ds_inodes_rep, AIFS_DS_INODES_REP_SIZE);
AIFS_SIZE_CHECK(struct aifs_ec_group, AIFS_EC_GROUP_SIZE);
AIFS_SIZE_CHECK(struct aifs_ec_write_req, AIFS_EC_WRITE_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_ec_read_req, AIFS_EC_READ_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_ec_archive_req, AIFS_EC_ARCHIVE_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_ec_verify_req, AIFS_EC_VERIFY_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_ec_verify_rep, AIFS_EC_VERIFY_REP_SIZE);
AIFS_SIZE_CHECK(struct aifs_mds_fsck_req, AIFS_MDS_FSCK_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_mds_fsck_rep, AIFS_MDS_FSCK_REP_SIZE);
AIFS_SIZE_CHECK(struct aifs_recovery_entry, AIFS_RECOVERY_ENTRY_SIZE);
AIFS_SIZE_CHECK(struct aifs_recovery_rep, AIFS_RECOVERY_REP_SIZE);
AIFS_SIZE_CHECK(struct aifs_repair_entry, AIFS_REPAIR_ENTRY_SIZE);
AIFS_SIZE_CHECK(struct aifs_ds_repairs_req, AIFS_DS_REPAIRS_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_repair_server, AIFS_REPAIR_SERVER_SIZE);
AIFS_SIZE_CHECK(struct aifs_repairs_rep, AIFS_REPAIRS_REP_SIZE);
AIFS_SIZE_CHECK(struct aifs_chunk_sync_req, AIFS_CHUNK_SYNC_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_chunk_sync_rep, AIFS_CHUNK_SYNC_REP_SIZE);

#define AIFS_NSEC_PER_SEC	1000000000U

/* ------------------------------------------------------------------ */
/* Frames and the handshake                                            */
/* ------------------------------------------------------------------ */

u32 aifs_crc32c(const void *buf, size_t len)
{
	return ~crc32c(~0U, buf, len);
}

void aifs_frame_hdr_init(struct aifs_frame_hdr *hdr, u16 opcode, u32 flags,
			 u64 request_id, u32 payload_len)
{
	memset(hdr, 0, sizeof(*hdr));
	hdr->magic = cpu_to_le32(AIFS_MAGIC);
	hdr->version = cpu_to_le16(AIFS_PROTO_VERSION);
	hdr->opcode = cpu_to_le16(opcode);
	hdr->flags = cpu_to_le32(flags);
	hdr->request_id = cpu_to_le64(request_id);
	hdr->payload_len = cpu_to_le32(payload_len);
}

static u32 aifs_frame_hdr_crc(const struct aifs_frame_hdr *hdr)
{
	struct aifs_frame_hdr copy = *hdr;

	copy.hdr_crc = 0;
	return aifs_crc32c(&copy, sizeof(copy));
}

void aifs_frame_hdr_seal(struct aifs_frame_hdr *hdr)
{
	hdr->hdr_crc = cpu_to_le32(aifs_frame_hdr_crc(hdr));
}

int aifs_frame_hdr_check(const struct aifs_frame_hdr *hdr, u32 max_payload)
{
	u16 version = le16_to_cpu(hdr->version);
	u32 flags = le32_to_cpu(hdr->flags);
	u32 status = le32_to_cpu(hdr->status);

	if (le32_to_cpu(hdr->magic) != AIFS_MAGIC ||
	    le32_to_cpu(hdr->hdr_crc) != aifs_frame_hdr_crc(hdr) ||
	    hdr->reserved || (flags & ~AIFS_FLAGS_KNOWN) ||
	    status > AIFS_MAX_ERRNO ||
	    (status && !(flags & AIFS_FLAG_REPLY)))
		return -EBADMSG;
	if (version < AIFS_PROTO_MIN_VERSION || version > AIFS_PROTO_VERSION)
		return -EPROTONOSUPPORT;
	if (le32_to_cpu(hdr->payload_len) > max_payload)
		return -EMSGSIZE;
	return 0;
}

int aifs_frame_payload_check(const struct aifs_frame_hdr *hdr,
			     const void *payload)
{
	if (!(le32_to_cpu(hdr->flags) & AIFS_FLAG_PAYLOAD_CRC))
		return 0;
	return aifs_frame_crc_check(hdr, aifs_crc32c(payload,
					le32_to_cpu(hdr->payload_len)));
}

int aifs_frame_crc_check(const struct aifs_frame_hdr *hdr, u32 crc)
{
	if (!(le32_to_cpu(hdr->flags) & AIFS_FLAG_PAYLOAD_CRC))
		return 0;
	return crc == le32_to_cpu(hdr->payload_crc) ? 0 : -EBADMSG;
}

int aifs_hello_negotiate(const struct aifs_hello_req *req)
{
	u16 lo = le16_to_cpu(req->min_version);
	u16 hi = le16_to_cpu(req->max_version);

	if (lo < AIFS_PROTO_MIN_VERSION)
		lo = AIFS_PROTO_MIN_VERSION;
	if (hi > AIFS_PROTO_VERSION)
		hi = AIFS_PROTO_VERSION;
	return lo <= hi ? hi : -EPROTONOSUPPORT;
}

void aifs_rdma_cm_data_init(struct aifs_rdma_cm_data *d, u32 credits,
			    u32 msg_size)
{
	memset(d, 0, sizeof(*d));
	d->magic = cpu_to_le32(AIFS_MAGIC);
	d->version = cpu_to_le16(AIFS_RDMA_VERSION);
	d->credits = cpu_to_le16(credits);
	d->msg_size = cpu_to_le32(msg_size);
}

int aifs_rdma_cm_data_check(const void *data, u32 len, u32 *credits,
			    u32 *msg_size)
{
	struct aifs_rdma_cm_data d;
	u32 c, m;

	if (!data || len < sizeof(d))
		return -EPROTO;
	memcpy(&d, data, sizeof(d));
	c = le16_to_cpu(d.credits);
	m = le32_to_cpu(d.msg_size);
	if (le32_to_cpu(d.magic) != AIFS_MAGIC ||
	    le16_to_cpu(d.version) != AIFS_RDMA_VERSION ||
	    !c || c > AIFS_RDMA_MAX_CREDITS ||
	    m < AIFS_RDMA_MIN_MSG || m > AIFS_RDMA_MAX_MSG ||
	    (u64)c * m > AIFS_RDMA_MAX_WINDOW)
		return -EPROTO;
	*credits = c;
	*msg_size = m;
	return 0;
}

void aifs_rdma_flow_init(struct aifs_rdma_flow *f, u32 my_credits,
			 u32 peer_credits)
{
	memset(f, 0, sizeof(*f));
	f->my_credits = my_credits;
	f->peer_credits = peer_credits;
	f->send_credits = peer_credits;
}

int aifs_rdma_flow_received(struct aifs_rdma_flow *f,
			    const struct aifs_rdma_msg *m, u32 byte_len)
{
	u32 len = le32_to_cpu(m->len);
	u32 credits = le16_to_cpu(m->credits);
	u32 flags = le16_to_cpu(m->flags);

	if (byte_len < sizeof(*m) || len != byte_len - sizeof(*m) ||
	    (flags & ~AIFS_RDMA_FIN) || (f->fin_received && (len || flags)) ||
	    credits > f->peer_credits - f->send_credits ||
	    (len && f->held + f->owed >= f->my_credits))
		return -EPROTO;
	f->send_credits += credits;
	if (flags & AIFS_RDMA_FIN)
		f->fin_received = true;
	if (len)
		f->held++;
	return 0;
}

void aifs_rdma_flow_read(struct aifs_rdma_flow *f)
{
	f->held--;
	f->owed++;
}

void aifs_rdma_flow_send(struct aifs_rdma_flow *f, struct aifs_rdma_msg *m,
			 u32 len, u16 flags)
{
	m->len = cpu_to_le32(len);
	m->credits = cpu_to_le16(f->owed);
	m->flags = cpu_to_le16(flags);
	f->owed = 0;
	if (len)
		f->send_credits--;
}

bool aifs_rdma_flow_due(const struct aifs_rdma_flow *f)
{
	return f->owed && f->owed >= (f->my_credits + 1) / 2;
}

int aifs_auth_transcript(u8 *out, size_t outlen, const char *label,
			 const u8 *nonce_a, const u8 *nonce_b, u16 version)
{
	size_t llen = strnlen(label, AIFS_AUTH_LABEL_MAX + 1);
	__le16 v = cpu_to_le16(version);
	size_t len = llen + 2 * AIFS_NONCE_SIZE + sizeof(v);

	if (llen > AIFS_AUTH_LABEL_MAX)
		return -EINVAL;
	if (outlen < len)
		return -ENOSPC;
	memcpy(out, label, llen);
	memcpy(out + llen, nonce_a, AIFS_NONCE_SIZE);
	memcpy(out + llen + AIFS_NONCE_SIZE, nonce_b, AIFS_NONCE_SIZE);
	memcpy(out + llen + 2 * AIFS_NONCE_SIZE, &v, sizeof(v));
	return len;
}

/* ------------------------------------------------------------------ */
/* Field checks                                                        */
/* ------------------------------------------------------------------ */

static bool aifs_is_pow2(u32 x)
{
	return x && !(x & (x - 1));
}

int aifs_name_valid(const char *name, u32 len)
{
	if (len > AIFS_NAME_MAX)
		return -ENAMETOOLONG;
	if (!len || memchr(name, '/', len) || memchr(name, '\0', len))
		return -EINVAL;
	if (name[0] == '.' && (len == 1 || (len == 2 && name[1] == '.')))
		return -EINVAL;
	return 0;
}

static int aifs_xname_valid(const void *name, u32 len)
{
	if (!len || len > AIFS_XATTR_NAME_MAX)
		return -ERANGE;
	return memchr(name, '\0', len) ? -EINVAL : 0;
}

static int aifs_part_name_valid(const void *name, u32 len)
{
	return aifs_name_valid(name, len);
}

/* A NUL-terminated xattr name after another. */
static int aifs_xlist_valid(const void *list, u32 len)
{
	const char *pos = list, *end = pos + len;

	while (pos < end) {
		const char *nul = memchr(pos, '\0', end - pos);

		if (!nul || aifs_xname_valid(pos, nul - pos))
			return -EBADMSG;
		pos = nul + 1;
	}
	return 0;
}

static int aifs_path_valid(const void *path, u32 len)
{
	if (len > AIFS_SYMLINK_MAX)
		return -ENAMETOOLONG;
	return !len || memchr(path, '\0', len) ? -EINVAL : 0;
}

static bool aifs_ts_valid(const struct aifs_timespec *ts)
{
	return le32_to_cpu(ts->nsec) < AIFS_NSEC_PER_SEC;
}

/* Attributes in a reply: the client builds inodes from them. */
static int aifs_attr_check(const struct aifs_attr *a)
{
	switch (le32_to_cpu(a->mode) & S_IFMT) {
	case S_IFREG: case S_IFDIR: case S_IFLNK: case S_IFCHR:
	case S_IFBLK: case S_IFIFO: case S_IFSOCK:
		break;
	default:
		return -EBADMSG;
	}
	if (!a->ino || !aifs_ts_valid(&a->atime) ||
	    !aifs_ts_valid(&a->mtime) || !aifs_ts_valid(&a->ctime) ||
	    !aifs_ts_valid(&a->btime))
		return -EBADMSG;
	return 0;
}

static bool aifs_chunk_size_ok(u32 chunk)
{
	return aifs_is_pow2(chunk) && chunk >= AIFS_CHUNK_SIZE_MIN &&
	       chunk <= AIFS_CHUNK_SIZE_MAX;
}

int aifs_layout_check(const struct aifs_layout *l)
{
	u32 chunk = le32_to_cpu(l->chunk_size);
	u32 stripes = le16_to_cpu(l->stripe_count);
	u32 ntargets = le16_to_cpu(l->target_count);
	u32 width, i;

	switch (l->type) {
	case AIFS_LAYOUT_REPLICA:
		if (l->ec_k || l->ec_m || !l->replicas ||
		    l->replicas > AIFS_MAX_REPLICAS)
			return -EINVAL;
		width = l->replicas;
		break;
	case AIFS_LAYOUT_EC:
		if (l->replicas || !l->ec_k || l->ec_k > AIFS_EC_MAX_K ||
		    !l->ec_m || l->ec_m > AIFS_EC_MAX_M)
			return -EINVAL;
		width = l->ec_k + l->ec_m;
		break;
	case AIFS_LAYOUT_INLINE:
		if (l->replicas || l->ec_k || l->ec_m || stripes)
			return -EINVAL;
		width = 0;
		break;
	default:
		return -EINVAL;
	}
	if (!aifs_chunk_size_ok(chunk) ||
	    (u64)l->ec_k * chunk > AIFS_EC_STRIPE_MAX)
		return -EINVAL;
	if (width && (!stripes || stripes * width > AIFS_LAYOUT_MAX_TARGETS))
		return -EINVAL;
	if (ntargets && ntargets != stripes * width)
		return -EINVAL;
	for (i = 0; i < AIFS_LAYOUT_MAX_TARGETS; i++) {
		bool used = i < ntargets;

		if (used != !!l->targets[i])
			return -EINVAL;
	}
	return 0;
}

static int aifs_open_flags_check(u32 flags)
{
	if ((flags & ~AIFS_OPEN_KNOWN) ||
	    (flags & AIFS_OPEN_ACCMODE) == AIFS_OPEN_ACCMODE)
		return -EINVAL;
	return 0;
}

static int aifs_addr_check(const struct aifs_addr *a)
{
	static const u8 zero[12];

	switch (le16_to_cpu(a->family)) {
	case AIFS_AF_INET:
		return memcmp(a->addr + 4, zero, sizeof(zero)) ? -EINVAL : 0;
	case AIFS_AF_INET6:
		return 0;
	default:
		return -EINVAL;
	}
}

static int aifs_chunk_id_check(const struct aifs_chunk_id *id)
{
	return le16_to_cpu(id->fragment) <= AIFS_EC_FRAGMENT(AIFS_EC_MAX_WIDTH - 1) ?
		0 : -EINVAL;
}

static int aifs_ds_info_check(const struct aifs_ds_info *ds)
{
	u32 state = le32_to_cpu(ds->state);

	if (!ds->id || state < AIFS_DS_UP || state > AIFS_DS_LAST ||
	    (le32_to_cpu(ds->flags) & ~AIFS_DS_KNOWN))
		return -EBADMSG;
	return aifs_addr_check(&ds->addr) ? -EBADMSG : 0;
}

static int aifs_ds_list_valid(const void *list, u32 len)
{
	struct aifs_ds_info ds;
	u32 off;
	int err;

	for (off = 0; off < len; off += sizeof(ds)) {
		memcpy(&ds, (const u8 *)list + off, sizeof(ds));
		err = aifs_ds_info_check(&ds);
		if (err)
			return err;
	}
	return 0;
}

static int aifs_repair_list_valid(const void *list, u32 len)
{
	struct aifs_repair_entry e;
	u32 off;

	for (off = 0; off < len; off += sizeof(e)) {
		memcpy(&e, (const u8 *)list + off, sizeof(e));
		if (!e.server || !e.ino ||
		    (le16_to_cpu(e.flags) & ~AIFS_REPAIR_KNOWN))
			return -EBADMSG;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Variable parts                                                      */
/* ------------------------------------------------------------------ */

enum aifs_part_kind {
	AIFS_P_NAME,		/* file name */
	AIFS_P_XNAME,		/* xattr name */
	AIFS_P_PATH,		/* symlink target */
	AIFS_P_XVALUE,		/* xattr value */
	AIFS_P_XLIST,		/* NUL-terminated xattr names */
	AIFS_P_DATA,		/* file data: always the last part */
	AIFS_P_DIRENTS,		/* READDIR entries, checked with the reply */
	AIFS_P_CRCS,		/* counted __le32 CRCs */
	AIFS_P_DSLIST,		/* counted struct aifs_ds_info */
	AIFS_P_CHUNKS,		/* counted struct aifs_chunk_entry */
	AIFS_P_INOS,		/* counted __le64 inode numbers */
	AIFS_P_TEXT,		/* lines of text for people */
	AIFS_P_RECOVERY,	/* counted struct aifs_recovery_entry */
	AIFS_P_REPAIR_SERVERS,	/* counted struct aifs_repair_server */
	AIFS_P_REPAIRS,		/* counted struct aifs_repair_entry */
};

/*
 * A part's length field: its size, what it counts (@unit bytes each), its
 * largest value and the error for a larger one; and a check of the bytes.
 */
static const struct aifs_part_kind_desc {
	u8 len_size;		/* of the length field: __le16 or __le32 */
	u8 unit;
	u32 max;
	int err;
	int (*valid)(const void *data, u32 len);
} aifs_kinds[] = {
	[AIFS_P_NAME] = { 2, 1, AIFS_NAME_MAX, -ENAMETOOLONG,
			  aifs_part_name_valid },
	[AIFS_P_XNAME] = { 2, 1, AIFS_XATTR_NAME_MAX, -ERANGE,
			   aifs_xname_valid },
	[AIFS_P_PATH] = { 2, 1, AIFS_SYMLINK_MAX, -ENAMETOOLONG,
			  aifs_path_valid },
	[AIFS_P_XVALUE] = { 4, 1, AIFS_XATTR_SIZE_MAX, -E2BIG, NULL },
	[AIFS_P_XLIST] = { 4, 1, AIFS_XATTR_SIZE_MAX, -E2BIG,
			   aifs_xlist_valid },
	[AIFS_P_DATA] = { 4, 1, AIFS_MAX_IO, -EINVAL, NULL },
	[AIFS_P_DIRENTS] = { 4, 1, AIFS_MAX_PAYLOAD, -EBADMSG, NULL },
	[AIFS_P_CRCS] = { 4, sizeof(__le32), AIFS_MAX_BLOCKS, -EBADMSG, NULL },
	[AIFS_P_DSLIST] = { 4, AIFS_DS_INFO_SIZE, AIFS_MAP_MAX_DS, -EBADMSG,
			    aifs_ds_list_valid },
	[AIFS_P_CHUNKS] = { 4, AIFS_CHUNK_ENTRY_SIZE, AIFS_CHUNK_LIST_MAX,
			    -EBADMSG, NULL },
	[AIFS_P_INOS] = { 4, sizeof(__le64), AIFS_DS_INODES_MAX, -EBADMSG,
			  NULL },
	[AIFS_P_TEXT] = { 4, 1, AIFS_FSCK_TEXT_MAX, -EBADMSG, NULL },
	[AIFS_P_RECOVERY] = { 4, AIFS_RECOVERY_ENTRY_SIZE, AIFS_MAP_MAX_DS,
			      -EBADMSG, NULL },
	[AIFS_P_REPAIR_SERVERS] = { 4, AIFS_REPAIR_SERVER_SIZE,
				    AIFS_MAP_MAX_DS, -EBADMSG, NULL },
	[AIFS_P_REPAIRS] = { 4, AIFS_REPAIR_ENTRY_SIZE,
			     AIFS_MAP_MAX_DS * AIFS_REPAIR_LIST_MAX, -EBADMSG,
			     aifs_repair_list_valid },
};

static int aifs_part_valid(u8 kind, const void *data, u32 len)
{
	const struct aifs_part_kind_desc *k = &aifs_kinds[kind];

	return k->valid ? k->valid(data, len) : 0;
}

/* ------------------------------------------------------------------ */
/* Checks of fixed fields (and of parts, for check_parts: these see     */
/* the parts, never the length fields, which encoders fill in later).  */
/* ------------------------------------------------------------------ */

static int aifs_check_hello_req(const void *fixed)
{
	const struct aifs_hello_req *m = fixed;
	u16 role = le16_to_cpu(m->role);

	if (le16_to_cpu(m->min_version) > le16_to_cpu(m->max_version) ||
	    role < AIFS_ROLE_CLIENT || role > AIFS_ROLE_ADMIN)
		return -EINVAL;
	return 0;
}

static int aifs_check_hello_rep(const void *fixed)
{
	const struct aifs_hello_rep *m = fixed;
	u16 version = le16_to_cpu(m->version);

	if (version < AIFS_PROTO_MIN_VERSION || version > AIFS_PROTO_VERSION)
		return -EPROTONOSUPPORT;
	return 0;
}

static int aifs_check_setattr_req(const void *fixed)
{
	const struct aifs_setattr_req *m = fixed;
	u32 valid = le32_to_cpu(m->valid);

	if ((valid & ~AIFS_SETATTR_KNOWN) ||
	    ((valid & AIFS_SETATTR_CUT) && !(valid & AIFS_SETATTR_SIZE)) ||
	    ((valid & AIFS_SETATTR_SIZE) && (valid & AIFS_SETATTR_SIZE_GROW)) ||
	    ((valid & AIFS_SETATTR_MODE) && (valid & AIFS_SETATTR_KILL_SUID)) ||
	    ((valid & AIFS_SETATTR_ATIME) && (valid & AIFS_SETATTR_ATIME_NOW)) ||
	    ((valid & AIFS_SETATTR_MTIME) && (valid & AIFS_SETATTR_MTIME_NOW)) ||
	    ((valid & AIFS_SETATTR_ATIME) && !aifs_ts_valid(&m->atime)) ||
	    ((valid & AIFS_SETATTR_MTIME) && !aifs_ts_valid(&m->mtime)))
		return -EINVAL;
	return 0;
}

static int aifs_check_create_req(const void *fixed)
{
	const struct aifs_create_req *m = fixed;

	return aifs_open_flags_check(le32_to_cpu(m->open_flags));
}

static int aifs_check_rename_req(const void *fixed)
{
	const struct aifs_rename_req *m = fixed;
	u32 flags = le32_to_cpu(m->flags);

	if ((flags & ~AIFS_RENAME_KNOWN) ||
	    ((flags & AIFS_RENAME_EXCHANGE) &&
	     (flags & (AIFS_RENAME_NOREPLACE | AIFS_RENAME_WHITEOUT))))
		return -EINVAL;
	return 0;
}

static int aifs_check_readdir_req(const void *fixed)
{
	const struct aifs_readdir_req *m = fixed;
	u32 n = le32_to_cpu(m->max_entries);

	if (!n || n > AIFS_READDIR_MAX_ENTRIES ||
	    le32_to_cpu(m->max_bytes) < AIFS_READDIR_REP_SIZE +
	    AIFS_DIRENT_SIZE + AIFS_NAME_MAX)
		return -EINVAL;
	return 0;
}

static int aifs_check_setxattr_req(const void *fixed)
{
	const struct aifs_setxattr_req *m = fixed;

	return le32_to_cpu(m->flags) & ~AIFS_XATTR_KNOWN ? -EINVAL : 0;
}

static int aifs_check_open_req(const void *fixed)
{
	const struct aifs_open_req *m = fixed;
	u32 flags = le32_to_cpu(m->flags);

	return flags & AIFS_OPEN_EXCL ? -EINVAL : aifs_open_flags_check(flags);
}

static int aifs_check_close_req(const void *fixed)
{
	const struct aifs_close_req *m = fixed;
	u32 flags = le32_to_cpu(m->flags);

	if ((flags & ~AIFS_CLOSE_KNOWN) ||
	    ((flags & AIFS_CLOSE_SIZE) && !aifs_ts_valid(&m->mtime)))
		return -EINVAL;
	return 0;
}

static int aifs_check_layout_set_req(const void *fixed)
{
	const struct aifs_layout_set_req *m = fixed;

	if (le32_to_cpu(m->flags) & ~AIFS_LAYOUT_SET_KNOWN)
		return -EINVAL;
	return aifs_layout_check(&m->layout);
}

static int aifs_check_attr_rep(const void *fixed)
{
	const struct aifs_attr_rep *m = fixed;

	return aifs_attr_check(&m->attr);
}

static int aifs_check_entry_rep(const void *fixed)
{
	const struct aifs_entry_rep *m = fixed;

	return aifs_attr_check(&m->dir) ?: aifs_attr_check(&m->attr);
}

static int aifs_check_open_rep(const void *fixed)
{
	const struct aifs_open_rep *m = fixed;

	if (!m->handle || aifs_layout_check(&m->layout))
		return -EBADMSG;
	return aifs_attr_check(&m->attr);
}

static int aifs_check_create_rep(const void *fixed)
{
	const struct aifs_create_rep *m = fixed;

	return aifs_attr_check(&m->dir) ?: aifs_check_open_rep(&m->open);
}

static int aifs_check_rename_rep(const void *fixed)
{
	const struct aifs_rename_rep *m = fixed;

	return aifs_attr_check(&m->old_dir) ?:
		aifs_attr_check(&m->new_dir) ?:
		aifs_attr_check(&m->attr) ?:
		(m->target.ino ? aifs_attr_check(&m->target) : 0);
}

static int aifs_check_readdir_rep(const void *fixed,
				  const struct aifs_span *parts)
{
	const struct aifs_readdir_rep *m = fixed;
	u32 flags = le32_to_cpu(m->flags);
	struct aifs_dirent_iter it;
	struct aifs_dirent ent;
	struct aifs_span name;
	u32 count = 0;
	int ret;

	if (flags & ~AIFS_READDIR_KNOWN)
		return -EBADMSG;
	aifs_dirent_iter_init(&it, &parts[0]);
	while ((ret = aifs_dirent_next(&it, &ent, &name)) > 0) {
		if (++count > AIFS_READDIR_MAX_ENTRIES || !ent.cookie)
			return -EBADMSG;
		ret = aifs_name_valid(name.data, name.len) ?:
			aifs_attr_check(&ent.attr);
		if (ret)
			return ret;
	}
	if (ret || count != le32_to_cpu(m->count) ||
	    (!count && !(flags & AIFS_READDIR_EOF)))
		return -EBADMSG;
	return 0;
}

static int aifs_check_xattr_rep(const void *fixed,
				const struct aifs_span *parts)
{
	const struct aifs_xattr_rep *m = fixed;
	u32 size = le32_to_cpu(m->size);

	if (size > AIFS_XATTR_SIZE_MAX || (parts[0].len && parts[0].len != size))
		return -EBADMSG;
	return 0;
}

static int aifs_check_layout_rep(const void *fixed)
{
	const struct aifs_layout_rep *m = fixed;

	return aifs_layout_check(&m->layout) ? -EBADMSG : 0;
}

static int aifs_check_map_rep(const void *fixed,
			      const struct aifs_span *parts)
{
	const struct aifs_map_rep *m = fixed;
	u32 flags = le32_to_cpu(m->flags);

	if ((flags & ~AIFS_MAP_KNOWN) ||
	    ((flags & AIFS_MAP_UNCHANGED) && parts[0].len))
		return -EBADMSG;
	return 0;
}

static int aifs_check_ds_register_req(const void *fixed)
{
	const struct aifs_ds_register_req *m = fixed;

	if (le32_to_cpu(m->flags) & ~AIFS_DS_KNOWN)
		return -EINVAL;
	return aifs_addr_check(&m->addr);
}

static int aifs_check_ds_heartbeat_req(const void *fixed)
{
	const struct aifs_ds_heartbeat_req *m = fixed;

	return le32_to_cpu(m->flags) & ~AIFS_DS_KNOWN ? -EINVAL : 0;
}

static int aifs_check_ds_register_rep(const void *fixed)
{
	const struct aifs_ds_register_rep *m = fixed;

	return m->id ? 0 : -EBADMSG;
}

static int aifs_check_ds_heartbeat_rep(const void *fixed)
{
	const struct aifs_ds_heartbeat_rep *m = fixed;
	u32 state = le32_to_cpu(m->state);

	return state < AIFS_DS_UP || state > AIFS_DS_LAST ? -EBADMSG : 0;
}

/* @offset + @len stays within a chunk of @chunk_size bytes. */
static bool aifs_io_fits(u32 offset, u32 len, u32 chunk_size)
{
	return len <= AIFS_MAX_IO && (u64)offset + len <= chunk_size;
}

static int aifs_check_chunk_read_req(const void *fixed)
{
	const struct aifs_chunk_read_req *m = fixed;
	u32 flags = le32_to_cpu(m->flags);
	u32 len = le32_to_cpu(m->length);

	if ((flags & ~AIFS_IO_RDMA) || !len ||
	    !aifs_io_fits(le32_to_cpu(m->offset), len, AIFS_CHUNK_SIZE_MAX) ||
	    ((flags & AIFS_IO_RDMA) && le32_to_cpu(m->rdma.len) < len))
		return -EINVAL;
	return aifs_chunk_id_check(&m->id);
}

static int aifs_check_chunk_read_rep(const void *fixed)
{
	const struct aifs_chunk_read_rep *m = fixed;

	return le32_to_cpu(m->chunk_len) > AIFS_CHUNK_SIZE_MAX ? -EBADMSG : 0;
}

/*
 * The bytes a write covers (its data, or @rdma.len moved by RDMA or
 * zeroed), @offset within @limit: -EINVAL when the flags do not add up.
 */
static int aifs_check_write_span(u32 flags, const struct aifs_rdma_seg *rdma,
				 u32 data_len, u32 offset, u32 limit)
{
	u32 len = data_len;

	if (flags & ~AIFS_IO_KNOWN)
		return -EINVAL;
	if (flags & (AIFS_IO_RDMA | AIFS_IO_ZERO)) {
		if (len)
			return -EINVAL;
		len = le32_to_cpu(rdma->len);
	}
	/* Zeros move no data: a whole chunk in one request. */
	if (flags & AIFS_IO_ZERO) {
		if ((flags & AIFS_IO_RDMA) || rdma->addr || rdma->rkey ||
		    !len || (u64)offset + len > limit)
			return -EINVAL;
	} else if (!aifs_io_fits(offset, len, limit)) {
		return -EINVAL;
	}
	return 0;
}

static int aifs_check_chunk_write_req(const void *fixed,
				      const struct aifs_span *parts)
{
	const struct aifs_chunk_write_req *m = fixed;
	u32 chunk = le32_to_cpu(m->chunk_size);
	u32 nr = le16_to_cpu(m->nr_replicas);
	u32 i;

	if (!aifs_chunk_size_ok(chunk) || nr >= AIFS_MAX_REPLICAS ||
	    le16_to_cpu(m->ahead) > nr ||
	    aifs_check_write_span(le32_to_cpu(m->flags), &m->rdma, parts[0].len,
				  le32_to_cpu(m->offset), chunk))
		return -EINVAL;
	for (i = 0; i < nr; i++)
		if (!m->replicas[i])
			return -EINVAL;
	return aifs_chunk_id_check(&m->id);
}

/* An EC stripe's group: a code in range, distinct members, ahead < width. */
static int aifs_check_ec_group(const struct aifs_ec_group *g)
{
	u32 chunk = le32_to_cpu(g->chunk_size);
	u32 width = g->k + g->m, i, j;

	if (!aifs_chunk_size_ok(chunk) || !g->k || g->k > AIFS_EC_MAX_K ||
	    !g->m || g->m > AIFS_EC_MAX_M ||
	    (u64)g->k * chunk > AIFS_EC_STRIPE_MAX ||
	    le16_to_cpu(g->ahead) >= width)
		return -EINVAL;
	for (i = 0; i < AIFS_EC_MAX_WIDTH; i++) {
		bool used = i < width;

		if (used != !!g->members[i])
			return -EINVAL;
		for (j = 0; used && j < i; j++)
			if (g->members[j] == g->members[i])
				return -EINVAL;
	}
	return 0;
}

static int aifs_check_ec_write_req(const void *fixed,
				   const struct aifs_span *parts)
{
	const struct aifs_ec_write_req *m = fixed;
	int err = aifs_check_ec_group(&m->group);

	if (err)
		return err;
	/* zeros too are data to the leader: no more than a write's */
	if (m->id.fragment || le32_to_cpu(m->rdma.len) > AIFS_MAX_IO ||
	    aifs_check_write_span(le32_to_cpu(m->flags), &m->rdma,
				  parts[0].len, le32_to_cpu(m->offset),
				  m->group.k * le32_to_cpu(m->group.chunk_size)))
		return -EINVAL;
	return aifs_chunk_id_check(&m->id);
}

static int aifs_check_ec_read_req(const void *fixed)
{
	const struct aifs_ec_read_req *m = fixed;
	u32 flags = le32_to_cpu(m->flags);
	u32 len = le32_to_cpu(m->length);
	int err = aifs_check_ec_group(&m->group);

	if (err)
		return err;
	if ((flags & ~AIFS_IO_RDMA) || !len || m->group.ahead ||
	    !m->id.fragment ||
	    le16_to_cpu(m->id.fragment) > m->group.k + m->group.m ||
	    !aifs_io_fits(le32_to_cpu(m->offset), len,
			  le32_to_cpu(m->group.chunk_size)) ||
	    ((flags & AIFS_IO_RDMA) && le32_to_cpu(m->rdma.len) < len))
		return -EINVAL;
	return aifs_chunk_id_check(&m->id);
}

/* A stripe from a replicated file's chunks of the same chunk size. */
static int aifs_check_ec_archive_req(const void *fixed)
{
	const struct aifs_ec_archive_req *m = fixed;
	int err = aifs_check_ec_group(&m->group);

	if (!err)
		err = aifs_layout_check(&m->source);
	if (err)
		return err;
	if (m->id.fragment || m->group.ahead ||
	    m->source.type != AIFS_LAYOUT_REPLICA ||
	    !m->source.target_count ||
	    m->source.chunk_size != m->group.chunk_size)
		return -EINVAL;
	return aifs_chunk_id_check(&m->id);
}

static int aifs_check_ec_verify_req(const void *fixed)
{
	const struct aifs_ec_verify_req *m = fixed;
	int err = aifs_check_ec_group(&m->group);

	if (err)
		return err;
	if (m->id.fragment || m->group.ahead ||
	    (le32_to_cpu(m->flags) & ~AIFS_EC_VERIFY_KNOWN))
		return -EINVAL;
	return aifs_chunk_id_check(&m->id);
}

static int aifs_check_chunk_truncate_req(const void *fixed)
{
	const struct aifs_chunk_truncate_req *m = fixed;

	if (le32_to_cpu(m->length) > AIFS_CHUNK_SIZE_MAX)
		return -EINVAL;
	return aifs_chunk_id_check(&m->id);
}

static int aifs_check_chunk_delete_req(const void *fixed)
{
	const struct aifs_chunk_delete_req *m = fixed;
	u32 flags = le32_to_cpu(m->flags);

	if ((flags & ~AIFS_DELETE_KNOWN) ||
	    (flags & AIFS_DELETE_INODE && flags & AIFS_DELETE_FROM) ||
	    (flags & AIFS_DELETE_UNCODED && !(flags & AIFS_DELETE_INODE)))
		return -EINVAL;
	return aifs_chunk_id_check(&m->id);
}

static int aifs_check_frag_behind_req(const void *fixed)
{
	const struct aifs_frag_behind_req *m = fixed;

	if (!aifs_chunk_size_ok(le32_to_cpu(m->chunk_size)) ||
	    !m->id.fragment)
		return -EINVAL;
	return aifs_chunk_id_check(&m->id);
}

/* A fragment's read; of no bytes too: the probe of its stamp. */
static int aifs_check_frag_read_req(const void *fixed)
{
	const struct aifs_chunk_read_req *m = fixed;
	u32 len = le32_to_cpu(m->length);

	if (m->flags || !m->id.fragment ||
	    !aifs_io_fits(le32_to_cpu(m->offset), len, AIFS_CHUNK_SIZE_MAX))
		return -EINVAL;
	return aifs_chunk_id_check(&m->id);
}

static int aifs_check_frag_write_req(const void *fixed,
				     const struct aifs_span *parts)
{
	const struct aifs_frag_write_req *m = fixed;
	u32 chunk = le32_to_cpu(m->chunk_size);

	if (!aifs_chunk_size_ok(chunk) || !m->id.fragment || !m->stamp ||
	    (le32_to_cpu(m->flags) & ~AIFS_IO_SYNC) ||
	    !aifs_io_fits(le32_to_cpu(m->offset), parts[0].len, chunk))
		return -EINVAL;
	return aifs_chunk_id_check(&m->id);
}

static int aifs_check_frag_rollback_req(const void *fixed)
{
	const struct aifs_frag_rollback_req *m = fixed;

	if (!aifs_chunk_size_ok(le32_to_cpu(m->chunk_size)) ||
	    !m->id.fragment || !m->stamp)
		return -EINVAL;
	return aifs_chunk_id_check(&m->id);
}

static int aifs_check_chunk_checksum_req(const void *fixed)
{
	const struct aifs_chunk_checksum_req *m = fixed;
	u32 n = le32_to_cpu(m->nr_blocks);

	if (!n || n > AIFS_MAX_BLOCKS)
		return -EINVAL;
	return aifs_chunk_id_check(&m->id);
}

static int aifs_check_chunk_checksum_rep(const void *fixed)
{
	const struct aifs_chunk_checksum_rep *m = fixed;

	if (!aifs_is_pow2(le32_to_cpu(m->block_size)) ||
	    le32_to_cpu(m->chunk_len) > AIFS_CHUNK_SIZE_MAX)
		return -EBADMSG;
	return 0;
}

static int aifs_check_chunk_list_req(const void *fixed)
{
	const struct aifs_chunk_list_req *m = fixed;
	u32 n = le32_to_cpu(m->max);

	if (!n || n > AIFS_CHUNK_LIST_MAX)
		return -EINVAL;
	return aifs_chunk_id_check(&m->id);
}

static int aifs_check_ds_inodes_req(const void *fixed)
{
	const struct aifs_ds_inodes_req *m = fixed;
	u32 n = le32_to_cpu(m->max);

	return !n || n > AIFS_DS_INODES_MAX ? -EINVAL : 0;
}

static int aifs_check_mds_fsck_req(const void *fixed)
{
	const struct aifs_mds_fsck_req *m = fixed;

	return le32_to_cpu(m->flags) & ~AIFS_FSCK_KNOWN || m->reserved ?
		-EINVAL : 0;
}

static int aifs_check_chunk_sync_req(const void *fixed)
{
	const struct aifs_chunk_sync_req *m = fixed;
	u32 n = le32_to_cpu(m->max), flags = le32_to_cpu(m->flags);

	if (!n || n > AIFS_CHUNK_LIST_MAX || aifs_layout_check(&m->layout) ||
	    (flags & ~AIFS_CHUNK_SYNC_KNOWN) ||
	    flags == AIFS_CHUNK_SYNC_KNOWN || !m->layout.target_count)
		return -EINVAL;
	return aifs_chunk_id_check(&m->id);
}

/* Every entry names the reporting server, at most a report's worth. */
static int aifs_check_ds_repairs_req(const void *fixed,
				     const struct aifs_span *parts)
{
	const struct aifs_ds_repairs_req *m = fixed;
	u32 off;

	if (!m->id ||
	    parts[0].len > AIFS_REPAIR_LIST_MAX * AIFS_REPAIR_ENTRY_SIZE)
		return -EINVAL;
	for (off = 0; off < parts[0].len; off += AIFS_REPAIR_ENTRY_SIZE)
		if (memcmp((const u8 *)parts[0].data + off +
			   offsetof(struct aifs_repair_entry, server),
			   &m->id, sizeof(m->id)))
			return -EINVAL;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The message table                                                   */
/* ------------------------------------------------------------------ */

/* A variable part: where its length field is, and what it holds. */
struct aifs_part_desc {
	u16 len_off;
	u8 kind;		/* enum aifs_part_kind */
};

/* A request or a reply. */
struct aifs_msg_desc {
	u16 size;		/* of the fixed struct */
	u8 cred;		/* starts with struct aifs_cred */
	u8 nparts;
	struct aifs_part_desc part[AIFS_MSG_MAX_PARTS];
	int (*check)(const void *fixed);
	int (*check_parts)(const void *fixed, const struct aifs_span *parts);
};

static const struct aifs_op_desc {
	const char *name;
	struct aifs_msg_desc req;
	struct aifs_msg_desc rep;
} aifs_ops[] = {
#define AIFS_PART(type, field, kind)	{ offsetof(type, field), kind }
#define MSG0(type, chk)		{ sizeof(type), 0, 0, {}, chk, NULL }
#define MSG1(type, chk, f, k)						\
	{ sizeof(type), 0, 1, { AIFS_PART(type, f, k) }, chk, NULL }
#define MSGP(type, chk, f, k)						\
	{ sizeof(type), 0, 1, { AIFS_PART(type, f, k) }, NULL, chk }
#define MSG2(type, chk, f1, k1, f2, k2)					\
	{ sizeof(type), 0, 2,						\
	  { AIFS_PART(type, f1, k1), AIFS_PART(type, f2, k2) }, chk, NULL }
#define NS0(type, chk)		{ sizeof(type), 1, 0, {}, chk, NULL }
#define NS1(type, chk, f, k)						\
	{ sizeof(type), 1, 1, { AIFS_PART(type, f, k) }, chk, NULL }
#define NS2(type, chk, f1, k1, f2, k2)					\
	{ sizeof(type), 1, 2,						\
	  { AIFS_PART(type, f1, k1), AIFS_PART(type, f2, k2) }, chk, NULL }
#define EMPTY			{ 0, 0, 0, {}, NULL, NULL }
#define ATTR_REP		MSG0(struct aifs_attr_rep, aifs_check_attr_rep)
#define ENTRY_REP		MSG0(struct aifs_entry_rep, aifs_check_entry_rep)
#define LAYOUT_REP		MSG0(struct aifs_layout_rep, aifs_check_layout_rep)
#define INO_REQ			NS0(struct aifs_ino_req, NULL)
#define NAME_REQ(kind)		NS1(struct aifs_name_req, NULL, name_len, kind)
#define CREATE_REQ							\
	NS1(struct aifs_create_req, aifs_check_create_req, name_len, AIFS_P_NAME)
#define WRITE_REQ							\
	MSGP(struct aifs_chunk_write_req, aifs_check_chunk_write_req,	\
	     data_len, AIFS_P_DATA)
#define CHUNK_REP		MSG0(struct aifs_chunk_rep, NULL)
#define READ_REQ							\
	MSG0(struct aifs_chunk_read_req, aifs_check_chunk_read_req)
#define READ_REP							\
	MSG1(struct aifs_chunk_read_rep, aifs_check_chunk_read_rep,	\
	     data_len, AIFS_P_DATA)
	[AIFS_OP_HELLO] = { "HELLO",
		MSG0(struct aifs_hello_req, aifs_check_hello_req),
		MSG0(struct aifs_hello_rep, aifs_check_hello_rep) },
	[AIFS_OP_AUTH] = { "AUTH",
		MSG0(struct aifs_auth_req, NULL),
		MSG0(struct aifs_auth_rep, NULL) },
	[AIFS_OP_PING] = { "PING", EMPTY, EMPTY },
	[AIFS_OP_LOOKUP] = { "LOOKUP", NAME_REQ(AIFS_P_NAME), ENTRY_REP },
	[AIFS_OP_GETATTR] = { "GETATTR", INO_REQ, ATTR_REP },
	[AIFS_OP_SETATTR] = { "SETATTR",
		NS0(struct aifs_setattr_req, aifs_check_setattr_req),
		ATTR_REP },
	[AIFS_OP_CREATE] = { "CREATE", CREATE_REQ,
		MSG0(struct aifs_create_rep, aifs_check_create_rep) },
	[AIFS_OP_MKDIR] = { "MKDIR", CREATE_REQ, ENTRY_REP },
	[AIFS_OP_MKNOD] = { "MKNOD", CREATE_REQ, ENTRY_REP },
	[AIFS_OP_UNLINK] = { "UNLINK", NAME_REQ(AIFS_P_NAME), ENTRY_REP },
	[AIFS_OP_RMDIR] = { "RMDIR", NAME_REQ(AIFS_P_NAME), ENTRY_REP },
	[AIFS_OP_RENAME] = { "RENAME",
		NS2(struct aifs_rename_req, aifs_check_rename_req,
		    old_len, AIFS_P_NAME, new_len, AIFS_P_NAME),
		MSG0(struct aifs_rename_rep, aifs_check_rename_rep) },
	[AIFS_OP_LINK] = { "LINK",
		NS1(struct aifs_link_req, NULL, name_len, AIFS_P_NAME),
		ENTRY_REP },
	[AIFS_OP_SYMLINK] = { "SYMLINK",
		NS2(struct aifs_symlink_req, NULL,
		    name_len, AIFS_P_NAME, target_len, AIFS_P_PATH),
		ENTRY_REP },
	[AIFS_OP_READLINK] = { "READLINK", INO_REQ,
		MSG1(struct aifs_readlink_rep, NULL, target_len, AIFS_P_PATH) },
	[AIFS_OP_READDIR] = { "READDIR",
		NS0(struct aifs_readdir_req, aifs_check_readdir_req),
		MSGP(struct aifs_readdir_rep, aifs_check_readdir_rep,
		     bytes, AIFS_P_DIRENTS) },
	[AIFS_OP_STATFS] = { "STATFS", INO_REQ,
		MSG0(struct aifs_statfs_rep, NULL) },
	[AIFS_OP_GETXATTR] = { "GETXATTR",
		NS1(struct aifs_getxattr_req, NULL, name_len, AIFS_P_XNAME),
		MSGP(struct aifs_xattr_rep, aifs_check_xattr_rep,
		     len, AIFS_P_XVALUE) },
	[AIFS_OP_SETXATTR] = { "SETXATTR",
		NS2(struct aifs_setxattr_req, aifs_check_setxattr_req,
		    name_len, AIFS_P_XNAME, value_len, AIFS_P_XVALUE),
		ATTR_REP },
	[AIFS_OP_LISTXATTR] = { "LISTXATTR",
		NS0(struct aifs_listxattr_req, NULL),
		MSGP(struct aifs_xattr_rep, aifs_check_xattr_rep,
		     len, AIFS_P_XLIST) },
	[AIFS_OP_REMOVEXATTR] = { "REMOVEXATTR", NAME_REQ(AIFS_P_XNAME),
		ATTR_REP },
	[AIFS_OP_OPEN] = { "OPEN",
		NS0(struct aifs_open_req, aifs_check_open_req),
		MSG0(struct aifs_open_rep, aifs_check_open_rep) },
	[AIFS_OP_CLOSE] = { "CLOSE",
		NS0(struct aifs_close_req, aifs_check_close_req), ATTR_REP },
	[AIFS_OP_LAYOUT_GET] = { "LAYOUT_GET", INO_REQ, LAYOUT_REP },
	[AIFS_OP_LAYOUT_SET] = { "LAYOUT_SET",
		NS0(struct aifs_layout_set_req, aifs_check_layout_set_req),
		LAYOUT_REP },
	[AIFS_OP_MAP_GET] = { "MAP_GET",
		MSG0(struct aifs_map_get_req, NULL),
		MSGP(struct aifs_map_rep, aifs_check_map_rep,
		     count, AIFS_P_DSLIST) },
	[AIFS_OP_DS_REGISTER] = { "DS_REGISTER",
		MSG0(struct aifs_ds_register_req, aifs_check_ds_register_req),
		MSG0(struct aifs_ds_register_rep, aifs_check_ds_register_rep) },
	[AIFS_OP_DS_HEARTBEAT] = { "DS_HEARTBEAT",
		MSG0(struct aifs_ds_heartbeat_req,
		     aifs_check_ds_heartbeat_req),
		MSG0(struct aifs_ds_heartbeat_rep,
		     aifs_check_ds_heartbeat_rep) },
	[AIFS_OP_CHUNK_READ] = { "CHUNK_READ", READ_REQ, READ_REP },
	[AIFS_OP_CHUNK_WRITE] = { "CHUNK_WRITE", WRITE_REQ, CHUNK_REP },
	[AIFS_OP_CHUNK_TRUNCATE] = { "CHUNK_TRUNCATE",
		MSG0(struct aifs_chunk_truncate_req,
		     aifs_check_chunk_truncate_req),
		CHUNK_REP },
	[AIFS_OP_CHUNK_DELETE] = { "CHUNK_DELETE",
		MSG0(struct aifs_chunk_delete_req, aifs_check_chunk_delete_req),
		EMPTY },
	[AIFS_OP_CHUNK_CHECKSUM] = { "CHUNK_CHECKSUM",
		MSG0(struct aifs_chunk_checksum_req,
		     aifs_check_chunk_checksum_req),
		MSG1(struct aifs_chunk_checksum_rep,
		     aifs_check_chunk_checksum_rep, count, AIFS_P_CRCS) },
	[AIFS_OP_CHUNK_FORWARD] = { "CHUNK_FORWARD", WRITE_REQ, CHUNK_REP },
	[AIFS_OP_DS_STATFS] = { "DS_STATFS", EMPTY,
		MSG0(struct aifs_statfs_rep, NULL) },
	[AIFS_OP_DS_SCRUB] = { "DS_SCRUB",
		MSG0(struct aifs_ds_scrub_req, NULL),
		MSG0(struct aifs_ds_scrub_rep, NULL) },
	[AIFS_OP_CHUNK_LIST] = { "CHUNK_LIST",
		MSG0(struct aifs_chunk_list_req, aifs_check_chunk_list_req),
		MSG1(struct aifs_chunk_list_rep, NULL, count, AIFS_P_CHUNKS) },
	[AIFS_OP_CHUNK_SYNC] = { "CHUNK_SYNC",
		MSG0(struct aifs_chunk_sync_req, aifs_check_chunk_sync_req),
		MSG0(struct aifs_chunk_sync_rep, NULL) },
	[AIFS_OP_DS_INODES] = { "DS_INODES",
		MSG0(struct aifs_ds_inodes_req, aifs_check_ds_inodes_req),
		MSG1(struct aifs_ds_inodes_rep, NULL, count, AIFS_P_INOS) },
	[AIFS_OP_EC_WRITE] = { "EC_WRITE",
		MSGP(struct aifs_ec_write_req, aifs_check_ec_write_req,
		     data_len, AIFS_P_DATA),
		CHUNK_REP },
	[AIFS_OP_EC_READ] = { "EC_READ",
		MSG0(struct aifs_ec_read_req, aifs_check_ec_read_req),
		READ_REP },
	[AIFS_OP_FRAG_READ] = { "FRAG_READ",
		MSG0(struct aifs_chunk_read_req, aifs_check_frag_read_req),
		READ_REP },
	[AIFS_OP_FRAG_WRITE] = { "FRAG_WRITE",
		MSGP(struct aifs_frag_write_req, aifs_check_frag_write_req,
		     data_len, AIFS_P_DATA),
		CHUNK_REP },
	[AIFS_OP_EC_ARCHIVE] = { "EC_ARCHIVE",
		MSG0(struct aifs_ec_archive_req, aifs_check_ec_archive_req),
		CHUNK_REP },
	[AIFS_OP_EC_VERIFY] = { "EC_VERIFY",
		MSG0(struct aifs_ec_verify_req, aifs_check_ec_verify_req),
		MSG0(struct aifs_ec_verify_rep, NULL) },
	[AIFS_OP_FRAG_BEHIND] = { "FRAG_BEHIND",
		MSG0(struct aifs_frag_behind_req, aifs_check_frag_behind_req),
		EMPTY },
	[AIFS_OP_FRAG_ROLLBACK] = { "FRAG_ROLLBACK",
		MSG0(struct aifs_frag_rollback_req,
		     aifs_check_frag_rollback_req),
		CHUNK_REP },
	[AIFS_OP_MDS_FSCK] = { "MDS_FSCK",
		MSG0(struct aifs_mds_fsck_req, aifs_check_mds_fsck_req),
		MSG1(struct aifs_mds_fsck_rep, NULL, text_len, AIFS_P_TEXT) },
	[AIFS_OP_RECOVERY_GET] = { "RECOVERY_GET", EMPTY,
		MSG1(struct aifs_recovery_rep, NULL, count, AIFS_P_RECOVERY) },
	[AIFS_OP_DS_REPAIRS] = { "DS_REPAIRS",
		MSGP(struct aifs_ds_repairs_req, aifs_check_ds_repairs_req,
		     count, AIFS_P_REPAIRS),
		EMPTY },
	[AIFS_OP_REPAIRS_GET] = { "REPAIRS_GET", EMPTY,
		MSG2(struct aifs_repairs_rep, NULL, servers,
		     AIFS_P_REPAIR_SERVERS, count, AIFS_P_REPAIRS) },
#undef AIFS_PART
#undef MSG0
#undef MSG1
#undef MSGP
#undef MSG2
#undef NS0
#undef NS1
#undef NS2
#undef EMPTY
#undef ATTR_REP
#undef ENTRY_REP
#undef LAYOUT_REP
#undef INO_REQ
#undef NAME_REQ
#undef CREATE_REQ
#undef WRITE_REQ
#undef CHUNK_REP
#undef READ_REQ
#undef READ_REP
};

static const struct aifs_msg_desc *aifs_msg_desc(u16 op, bool reply)
{
	if (op >= ARRAY_SIZE(aifs_ops) || !aifs_ops[op].name)
		return NULL;
	return reply ? &aifs_ops[op].rep : &aifs_ops[op].req;
}

const char *aifs_opcode_name(u16 op)
{
	return aifs_msg_desc(op, false) ? aifs_ops[op].name : "UNKNOWN";
}

const char *aifs_ds_state_name(u32 state)
{
	static const char *const names[] = {
		[AIFS_DS_UP] = "UP",
		[AIFS_DS_OFFLINE] = "OFFLINE",
		[AIFS_DS_DRAINING] = "DRAINING",
		[AIFS_DS_RETIRED] = "RETIRED",
		[AIFS_DS_SYNCING] = "SYNCING",
	};

	return state < ARRAY_SIZE(names) && names[state] ? names[state] :
							     "UNKNOWN";
}

int aifs_msg_fixed_size(u16 op, bool reply)
{
	const struct aifs_msg_desc *d = aifs_msg_desc(op, reply);

	return d ? d->size : -EOPNOTSUPP;
}

/* ------------------------------------------------------------------ */
/* Encoding and decoding                                               */
/* ------------------------------------------------------------------ */

/*
 * A bounds-checked reader, after ceph's decode.h: aifs_need() before every
 * access.
 */
struct aifs_cursor {
	const u8 *pos;
	const u8 *end;
};

static bool aifs_need(const struct aifs_cursor *c, u32 n)
{
	return n <= (size_t)(c->end - c->pos);
}

static u32 aifs_len_get(const void *fixed, const struct aifs_part_desc *p)
{
	const u8 *f = (const u8 *)fixed + p->len_off;
	__le16 v16;
	__le32 v32;

	if (aifs_kinds[p->kind].len_size == sizeof(v16)) {
		memcpy(&v16, f, sizeof(v16));
		return le16_to_cpu(v16);
	}
	memcpy(&v32, f, sizeof(v32));
	return le32_to_cpu(v32);
}

static void aifs_len_put(void *fixed, const struct aifs_part_desc *p, u32 n)
{
	u8 *f = (u8 *)fixed + p->len_off;
	__le16 v16 = cpu_to_le16(n);
	__le32 v32 = cpu_to_le32(n);

	if (aifs_kinds[p->kind].len_size == sizeof(v16))
		memcpy(f, &v16, sizeof(v16));
	else
		memcpy(f, &v32, sizeof(v32));
}

/* Checks common to both directions, once the parts are known. */
static int aifs_msg_check(const struct aifs_msg_desc *d, const void *fixed,
			  const struct aifs_span *parts)
{
	const struct aifs_cred *cred = fixed;
	u32 i;
	int err;

	for (i = 0; i < d->nparts; i++) {
		if (!parts[i].data)
			continue;	/* data not received or not copied */
		err = aifs_part_valid(d->part[i].kind, parts[i].data,
				      parts[i].len);
		if (err)
			return err;
	}
	if (d->cred && le32_to_cpu(cred->ngroups) > AIFS_CRED_MAX_GROUPS)
		return -EBADMSG;
	if (d->check)
		return d->check(fixed);
	return d->check_parts ? d->check_parts(fixed, parts) : 0;
}

static const struct aifs_msg_desc *
aifs_msg_lookup(u16 op, bool reply, u32 fixed_size, const void *parts,
		int *err)
{
	const struct aifs_msg_desc *d = aifs_msg_desc(op, reply);

	*err = -EOPNOTSUPP;
	if (!d)
		return NULL;
	*err = -EINVAL;
	if (fixed_size != d->size || (d->nparts && !parts))
		return NULL;
	return d;
}

int aifs_msg_encode(u16 op, bool reply, void *buf, u32 size,
		    const void *fixed, u32 fixed_size,
		    const struct aifs_span *parts)
{
	const struct aifs_msg_desc *d;
	u32 total, head, i;
	u8 *out = buf;
	int err;

	d = aifs_msg_lookup(op, reply, fixed_size, parts, &err);
	if (!d)
		return err;
	total = d->size;
	head = d->size;
	for (i = 0; i < d->nparts; i++) {
		const struct aifs_part_kind_desc *k = &aifs_kinds[d->part[i].kind];
		u32 len = parts[i].len;

		if (len % k->unit)
			return -EINVAL;
		if (len / k->unit > k->max)
			return k->err;
		if (!parts[i].data && len &&
		    (d->part[i].kind != AIFS_P_DATA || i + 1 != d->nparts))
			return -EINVAL;
		total += len;	/* at most 2 * AIFS_MAX_PAYLOAD: no wrap */
		if (parts[i].data)
			head += len;
	}
	if (total > AIFS_MAX_PAYLOAD)
		return -EMSGSIZE;
	err = aifs_msg_check(d, fixed, parts);
	if (err)
		return err;
	if (head > size)
		return -ENOSPC;

	if (d->size)
		memcpy(out, fixed, d->size);
	head = d->size;
	for (i = 0; i < d->nparts; i++) {
		aifs_len_put(out, &d->part[i],
			     parts[i].len / aifs_kinds[d->part[i].kind].unit);
		if (parts[i].data && parts[i].data != out + head)
			memmove(out + head, parts[i].data, parts[i].len);
		head += parts[i].len;
	}
	return total;
}

int aifs_msg_decode_head(u16 op, bool reply, const void *buf, u32 len,
			 u32 payload_len, void *fixed, u32 fixed_size,
			 struct aifs_span *parts)
{
	struct aifs_cursor c = { buf, (const u8 *)buf + len };
	const struct aifs_msg_desc *d;
	u32 left, i;
	int err;

	d = aifs_msg_lookup(op, reply, fixed_size, parts, &err);
	if (!d)
		return err;
	if (len > payload_len)
		return -EINVAL;
	if (!aifs_need(&c, d->size))
		return -EBADMSG;
	if (d->size)
		memcpy(fixed, c.pos, d->size);
	c.pos += d->size;
	left = payload_len - d->size;	/* bytes of the payload after c.pos */

	for (i = 0; i < d->nparts; i++) {
		const struct aifs_part_kind_desc *k = &aifs_kinds[d->part[i].kind];
		u32 n = aifs_len_get(fixed, &d->part[i]);
		u32 bytes;

		if (n > k->max)
			return k->err;
		bytes = n * k->unit;	/* max * unit fits in u32 */
		if (bytes > left)
			return -EBADMSG;
		if (aifs_need(&c, bytes)) {
			parts[i].data = c.pos;
			c.pos += bytes;
		} else if (d->part[i].kind == AIFS_P_DATA &&
			   i + 1 == d->nparts && c.pos == c.end) {
			parts[i].data = NULL;	/* to be received */
		} else {
			return -EBADMSG;
		}
		parts[i].len = bytes;
		left -= bytes;
	}
	if (left)
		return -EBADMSG;
	return aifs_msg_check(d, fixed, parts);
}

int aifs_msg_decode(u16 op, bool reply, const void *buf, u32 len,
		    void *fixed, u32 fixed_size, struct aifs_span *parts)
{
	return aifs_msg_decode_head(op, reply, buf, len, len, fixed,
				    fixed_size, parts);
}

/* ------------------------------------------------------------------ */
/* Parts of decoded messages; building READDIR replies                 */
/* ------------------------------------------------------------------ */

int aifs_dirent_next(struct aifs_dirent_iter *it, struct aifs_dirent *ent,
		     struct aifs_span *name)
{
	struct aifs_cursor c = { it->pos, it->end };
	u32 len;

	if (c.pos == c.end)
		return 0;
	if (!aifs_need(&c, sizeof(*ent)))
		return -EBADMSG;
	memcpy(ent, c.pos, sizeof(*ent));
	c.pos += sizeof(*ent);
	len = le16_to_cpu(ent->name_len);
	if (!aifs_need(&c, len))
		return -EBADMSG;
	name->data = c.pos;
	name->len = len;
	it->pos = c.pos + len;
	return 1;
}

u32 aifs_span_le32(const struct aifs_span *list, u32 i)
{
	__le32 v;

	memcpy(&v, (const u8 *)list->data + i * sizeof(v), sizeof(v));
	return le32_to_cpu(v);
}

void aifs_ds_info_get(const struct aifs_span *list, u32 i,
		      struct aifs_ds_info *info)
{
	memcpy(info, (const u8 *)list->data + i * sizeof(*info),
	       sizeof(*info));
}

void aifs_dirents_init(struct aifs_dirent_buf *b, void *buf, u32 size)
{
	b->buf = buf;
	b->size = size;
	b->used = 0;
	b->count = 0;
}

int aifs_dirents_add(struct aifs_dirent_buf *b, u64 cookie,
		     const struct aifs_attr *attr, const char *name,
		     u32 name_len)
{
	struct aifs_dirent ent;
	u8 *at;
	int err = aifs_name_valid(name, name_len);

	if (err)
		return err;
	if (!cookie)
		return -EINVAL;
	if (b->count == AIFS_READDIR_MAX_ENTRIES ||
	    b->size < AIFS_READDIR_REP_SIZE ||
	    b->size - AIFS_READDIR_REP_SIZE - b->used < sizeof(ent) + name_len)
		return -ENOSPC;
	at = b->buf + AIFS_READDIR_REP_SIZE + b->used;
	memset(&ent, 0, sizeof(ent));
	ent.cookie = cpu_to_le64(cookie);
	ent.attr = *attr;
	ent.name_len = cpu_to_le16(name_len);
	memcpy(at, &ent, sizeof(ent));
	memcpy(at + sizeof(ent), name, name_len);
	b->used += sizeof(ent) + name_len;
	b->count++;
	return 0;
}

int aifs_dirents_finish(struct aifs_dirent_buf *b, u32 flags)
{
	struct aifs_readdir_rep rep = {
		.count = cpu_to_le32(b->count),
		.flags = cpu_to_le32(flags),
	};
	struct aifs_span part = {
		b->buf + AIFS_READDIR_REP_SIZE, b->used
	};

	return aifs_encode_readdir_rep(b->buf, b->size, &rep, &part);
}
