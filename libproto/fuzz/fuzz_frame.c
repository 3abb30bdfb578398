// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * libFuzzer target: a received frame, as a connection handles it.
 *
 * Input: a frame header and its payload.  The header is checked as it
 * is, then (so that the fuzzer gets past the CRC) as if sealed; the
 * payload is checked against its CRC and decoded by opcode and direction.
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static union fuzz_fixed fixed;
	struct aifs_span parts[AIFS_MSG_MAX_PARTS];
	struct aifs_frame_hdr hdr;
	const u8 *payload = data + sizeof(hdr);
	u32 len;
	int fsize;
	bool reply;

	if (size < sizeof(hdr))
		return 0;
	memcpy(&hdr, data, sizeof(hdr));
	aifs_frame_hdr_check(&hdr, AIFS_MAX_PAYLOAD);
	aifs_frame_hdr_seal(&hdr);
	if (aifs_frame_hdr_check(&hdr, AIFS_MAX_PAYLOAD))
		return 0;
	len = le32_to_cpu(hdr.payload_len);
	if (len > size - sizeof(hdr))
		return 0;	/* the rest is still on the wire */
	aifs_frame_payload_check(&hdr, payload);
	reply = le32_to_cpu(hdr.flags) & AIFS_FLAG_REPLY;
	if (reply && hdr.status)
		return 0;	/* error replies carry no payload */
	fsize = aifs_msg_fixed_size(le16_to_cpu(hdr.opcode), reply);
	aifs_msg_decode(le16_to_cpu(hdr.opcode), reply, payload, len, &fixed,
			fsize < 0 ? 0 : fsize, parts);
	return 0;
}
