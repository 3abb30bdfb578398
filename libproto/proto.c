// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * aifs wire codec, shared by aifs.ko and userspace (see aifs_codec.h).
 */
#include "aifs/aifs_codec.h"

#ifdef __KERNEL__
#include <linux/build_bug.h>
#define AIFS_SIZE_CHECK(type, size) static_assert(sizeof(type) == (size))
#else
#include <assert.h>
#define AIFS_SIZE_CHECK(type, size) static_assert(sizeof(type) == (size), #type)
#endif

AIFS_SIZE_CHECK(struct aifs_frame_hdr, AIFS_FRAME_HDR_SIZE);
AIFS_SIZE_CHECK(struct aifs_hello_req, AIFS_HELLO_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_hello_rep, AIFS_HELLO_REP_SIZE);
AIFS_SIZE_CHECK(struct aifs_auth_req, AIFS_AUTH_REQ_SIZE);
AIFS_SIZE_CHECK(struct aifs_auth_rep, AIFS_AUTH_REP_SIZE);

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

	if (le32_to_cpu(hdr->magic) != AIFS_MAGIC ||
	    le32_to_cpu(hdr->hdr_crc) != aifs_frame_hdr_crc(hdr) ||
	    hdr->reserved)
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
	if (aifs_crc32c(payload, le32_to_cpu(hdr->payload_len)) !=
	    le32_to_cpu(hdr->payload_crc))
		return -EBADMSG;
	return 0;
}
