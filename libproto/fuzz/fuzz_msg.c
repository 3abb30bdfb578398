// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * libFuzzer target: every message decoder.
 *
 * Input: opcode (1 byte: every opcode is below 256, and the rest are
 * unknown ones), mode (bit 0: reply; bits 2..7: bytes withheld for
 * aifs_msg_decode_head()), then the payload.  Whatever decodes must
 * re-encode to the very same bytes, and its parts must walk cleanly.
 */
#include <stdlib.h>
#include "fuzz.h"

static void walk_parts(u16 op, bool reply, const struct aifs_span *parts)
{
	struct aifs_dirent_iter it;
	struct aifs_dirent ent;
	struct aifs_ds_info ds;
	struct aifs_span name;
	u32 i, sum = 0;

	if (!reply)
		return;
	switch (op) {
	case AIFS_OP_READDIR:
		aifs_dirent_iter_init(&it, &parts[0]);
		while (aifs_dirent_next(&it, &ent, &name) > 0)
			if (aifs_name_valid(name.data, name.len))
				abort();
		break;
	case AIFS_OP_MAP_GET:
		for (i = 0; i < parts[0].len / sizeof(ds); i++) {
			aifs_ds_info_get(&parts[0], i, &ds);
			if (!ds.id)
				abort();
		}
		break;
	case AIFS_OP_CHUNK_CHECKSUM:
		for (i = 0; i < parts[0].len / sizeof(__le32); i++)
			sum += aifs_span_le32(&parts[0], i);
		(void)sum;
		break;
	}
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static union fuzz_fixed fixed;
	struct aifs_span parts[AIFS_MSG_MAX_PARTS];
	const u8 *payload = data + 2;
	u32 len, cut;
	int fsize, ret;
	bool reply;
	u16 op;
	u8 *out;

	if (size < 2 || size - 2 > AIFS_MAX_PAYLOAD)
		return 0;
	op = data[0];
	reply = data[1] & 1;
	cut = data[1] >> 2;
	len = size - 2;
	fsize = aifs_msg_fixed_size(op, reply);
	if (fsize < 0) {
		if (aifs_msg_decode(op, reply, payload, len, &fixed, 0,
				    parts) != -EOPNOTSUPP)
			abort();
		return 0;
	}

	if (cut && cut <= len) {
		ret = aifs_msg_decode_head(op, reply, payload, len - cut, len,
					   &fixed, fsize, parts);
		/* Only a data part, the only part of its messages, may be
		 * missing.
		 */
		if (!ret && (parts[0].data || parts[0].len != cut))
			abort();
	}

	ret = aifs_msg_decode(op, reply, payload, len, &fixed, fsize, parts);
	if (ret)
		return 0;
	walk_parts(op, reply, parts);
	out = malloc(len ? len : 1);
	if (!out)
		return 0;
	if (aifs_msg_encode(op, reply, out, len, &fixed, fsize, parts) !=
	    (int)len || memcmp(out, payload, len))
		abort();
	free(out);
	return 0;
}
