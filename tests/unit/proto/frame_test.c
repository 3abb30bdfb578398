// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Frame headers, payload CRCs, CRC32C itself, and the handshake helpers.
 */
#include "aifs/aifs_codec.h"
#include "test.h"

static void sealed(struct aifs_frame_hdr *h, u32 flags, u32 status)
{
	aifs_frame_hdr_init(h, AIFS_OP_LOOKUP, flags, 77, 100);
	h->status = cpu_to_le32(status);
	aifs_frame_hdr_seal(h);
}

static void test_crc32c(void)
{
	TEST_CTX("crc32c");
	/* The standard check value of CRC-32C. */
	CHECK_EQ(aifs_crc32c("123456789", 9), 0xe3069283);
	CHECK_EQ(aifs_crc32c("", 0), 0);
}

static void test_frame_hdr(void)
{
	struct aifs_frame_hdr h, good;
	u32 byte, bit;

	TEST_CTX("frame header");
	sealed(&good, 0, 0);
	CHECK_EQ(aifs_frame_hdr_check(&good, AIFS_MAX_PAYLOAD), 0);
	CHECK_EQ(le16_to_cpu(good.opcode), AIFS_OP_LOOKUP);
	CHECK_EQ(le64_to_cpu(good.request_id), 77);

	/* Any flipped bit is caught (by the CRC, if by nothing else). */
	for (byte = 0; byte < sizeof(h); byte++) {
		for (bit = 0; bit < 8; bit++) {
			h = good;
			((u8 *)&h)[byte] ^= 1 << bit;
			TEST_CTX("frame header byte %u bit %u", byte, bit);
			CHECK_EQ(aifs_frame_hdr_check(&h, AIFS_MAX_PAYLOAD),
				 -EBADMSG);
		}
	}

	TEST_CTX("frame header fields");
	h = good;
	h.magic = cpu_to_le32(0x53464942);
	aifs_frame_hdr_seal(&h);
	CHECK_EQ(aifs_frame_hdr_check(&h, AIFS_MAX_PAYLOAD), -EBADMSG);
	h = good;
	h.reserved = cpu_to_le32(1);
	aifs_frame_hdr_seal(&h);
	CHECK_EQ(aifs_frame_hdr_check(&h, AIFS_MAX_PAYLOAD), -EBADMSG);
	sealed(&h, 1U << 2, 0);
	CHECK_EQ(aifs_frame_hdr_check(&h, AIFS_MAX_PAYLOAD), -EBADMSG);
	sealed(&h, 0, 5);		/* a status in a request */
	CHECK_EQ(aifs_frame_hdr_check(&h, AIFS_MAX_PAYLOAD), -EBADMSG);
	sealed(&h, AIFS_FLAG_REPLY, 5);
	CHECK_EQ(aifs_frame_hdr_check(&h, AIFS_MAX_PAYLOAD), 0);
	sealed(&h, AIFS_FLAG_REPLY, AIFS_MAX_ERRNO);
	CHECK_EQ(aifs_frame_hdr_check(&h, AIFS_MAX_PAYLOAD), 0);
	sealed(&h, AIFS_FLAG_REPLY, AIFS_MAX_ERRNO + 1);
	CHECK_EQ(aifs_frame_hdr_check(&h, AIFS_MAX_PAYLOAD), -EBADMSG);
	sealed(&h, AIFS_FLAG_REPLY, 0xffffffff);
	CHECK_EQ(aifs_frame_hdr_check(&h, AIFS_MAX_PAYLOAD), -EBADMSG);

	h = good;
	h.version = cpu_to_le16(AIFS_PROTO_VERSION + 1);
	aifs_frame_hdr_seal(&h);
	CHECK_EQ(aifs_frame_hdr_check(&h, AIFS_MAX_PAYLOAD), -EPROTONOSUPPORT);
	h.version = 0;
	aifs_frame_hdr_seal(&h);
	CHECK_EQ(aifs_frame_hdr_check(&h, AIFS_MAX_PAYLOAD), -EPROTONOSUPPORT);

	CHECK_EQ(aifs_frame_hdr_check(&good, 100), 0);
	CHECK_EQ(aifs_frame_hdr_check(&good, 99), -EMSGSIZE);
	h = good;
	h.payload_len = cpu_to_le32(0xffffffff);
	aifs_frame_hdr_seal(&h);
	CHECK_EQ(aifs_frame_hdr_check(&h, AIFS_MAX_PAYLOAD), -EMSGSIZE);
}

static void test_payload_crc(void)
{
	struct aifs_frame_hdr h;
	u8 payload[100];
	u32 i;

	TEST_CTX("payload crc");
	for (i = 0; i < sizeof(payload); i++)
		payload[i] = i * 7;
	sealed(&h, 0, 0);
	CHECK_EQ(aifs_frame_payload_check(&h, payload), 0);	/* no CRC */
	sealed(&h, AIFS_FLAG_PAYLOAD_CRC, 0);
	CHECK_EQ(aifs_frame_payload_check(&h, payload), -EBADMSG);
	h.payload_crc = cpu_to_le32(aifs_crc32c(payload, sizeof(payload)));
	aifs_frame_hdr_seal(&h);
	CHECK_EQ(aifs_frame_hdr_check(&h, AIFS_MAX_PAYLOAD), 0);
	CHECK_EQ(aifs_frame_payload_check(&h, payload), 0);
	for (i = 0; i < sizeof(payload); i++) {
		payload[i] ^= 0x10;
		TEST_CTX("payload crc, byte %u", i);
		CHECK_EQ(aifs_frame_payload_check(&h, payload), -EBADMSG);
		payload[i] ^= 0x10;
	}
}

/* A payload checked in two pieces, as the kernel client receives data. */
static void test_payload_crc_pieces(void)
{
	struct aifs_frame_hdr h;
	u8 payload[100];
	u32 i, cut;

	for (i = 0; i < sizeof(payload); i++)
		payload[i] = i * 13;
	sealed(&h, AIFS_FLAG_PAYLOAD_CRC, 0);
	h.payload_crc = cpu_to_le32(aifs_crc32c(payload, sizeof(payload)));
	for (cut = 0; cut <= sizeof(payload); cut += 9) {
		u32 crc = crc32c(~0U, payload, cut);

		TEST_CTX("payload crc in pieces, cut at %u", cut);
		crc = crc32c(crc, payload + cut, sizeof(payload) - cut);
		CHECK_EQ(aifs_frame_crc_check(&h, ~crc), 0);
		CHECK_EQ(aifs_frame_crc_check(&h, crc), -EBADMSG);
	}
	TEST_CTX("payload crc in pieces, none in the frame");
	sealed(&h, 0, 0);
	CHECK_EQ(aifs_frame_crc_check(&h, 1), 0);
}

static void test_handshake(void)
{
	struct aifs_hello_req req = { 0 };
	u8 a[AIFS_NONCE_SIZE], b[AIFS_NONCE_SIZE];
	u8 out[AIFS_AUTH_TRANSCRIPT_MAX], out2[AIFS_AUTH_TRANSCRIPT_MAX];
	char long_label[AIFS_AUTH_LABEL_MAX + 2];
	int len, llen = sizeof(AIFS_AUTH_CLIENT_LABEL) - 1;

	TEST_CTX("transcript");
	memset(a, 0xaa, sizeof(a));
	memset(b, 0xbb, sizeof(b));
	len = aifs_auth_transcript(out, sizeof(out), AIFS_AUTH_CLIENT_LABEL,
				   a, b, 0x0102);
	CHECK_EQ(len, llen + 2 * AIFS_NONCE_SIZE + 2);
	CHECK(!memcmp(out, AIFS_AUTH_CLIENT_LABEL, llen));
	CHECK_EQ(out[llen], 0xaa);
	CHECK_EQ(out[llen + AIFS_NONCE_SIZE], 0xbb);
	CHECK_EQ(out[len - 2], 0x02);		/* little-endian version */
	CHECK_EQ(out[len - 1], 0x01);
	CHECK_EQ(aifs_auth_transcript(out2, sizeof(out2),
				      AIFS_AUTH_SERVER_LABEL, b, a, 0x0102),
		 len);
	CHECK(memcmp(out, out2, len));		/* the two proofs differ */
	CHECK_EQ(aifs_auth_transcript(out, len - 1, AIFS_AUTH_CLIENT_LABEL,
				      a, b, 1), -ENOSPC);
	memset(long_label, 'l', sizeof(long_label) - 1);
	long_label[sizeof(long_label) - 1] = '\0';
	CHECK_EQ(aifs_auth_transcript(out, sizeof(out), long_label, a, b, 1),
		 -EINVAL);
	long_label[AIFS_AUTH_LABEL_MAX] = '\0';
	CHECK_EQ(aifs_auth_transcript(out, sizeof(out), long_label, a, b, 1),
		 AIFS_AUTH_TRANSCRIPT_MAX);

	TEST_CTX("negotiate");
	req.min_version = cpu_to_le16(1);
	req.max_version = cpu_to_le16(1);
	CHECK_EQ(aifs_hello_negotiate(&req), 1);
	req.max_version = cpu_to_le16(9);
	CHECK_EQ(aifs_hello_negotiate(&req), AIFS_PROTO_VERSION);
	req.min_version = cpu_to_le16(AIFS_PROTO_VERSION + 1);
	CHECK_EQ(aifs_hello_negotiate(&req), -EPROTONOSUPPORT);
	req.min_version = 0;
	req.max_version = 0;
	CHECK_EQ(aifs_hello_negotiate(&req), -EPROTONOSUPPORT);
}

int main(void)
{
	test_crc32c();
	test_frame_hdr();
	test_payload_crc();
	test_payload_crc_pieces();
	test_handshake();
	return test_result("proto-frame");
}
