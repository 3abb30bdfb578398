// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Write the seed corpora of the fuzz targets: one small valid message of
 * every kind, as files in DIR/msg (input of fuzz_msg) and in DIR/frame
 * (input of fuzz_frame).
 *
 *   proto-seeds DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include "samples.h"

static u8 payload[AIFS_SAMPLE_BUF_SIZE];

static int write_seed(const char *dir, const char *kind, u32 op, bool reply,
		      const void *head, u32 head_len, u32 len)
{
	char path[4096];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s/%s-%s", dir, kind,
		 aifs_opcode_name(op), reply ? "rep" : "req");
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		return -1;
	}
	ok = fwrite(head, 1, head_len, f) == head_len &&
		fwrite(payload, 1, len, f) == len;
	return fclose(f) || !ok ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct aifs_frame_hdr hdr;
	char path[4096];
	u32 op;
	int len, reply;
	u8 mode[2];

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/msg", argv[1]);
	mkdir(argv[1], 0777);
	mkdir(path, 0777);
	snprintf(path, sizeof(path), "%s/frame", argv[1]);
	mkdir(path, 0777);
	for (op = 0; op < 256; op++) {
		for (reply = 0; reply < 2; reply++) {
			len = aifs_sample(op, reply, AIFS_SAMPLE_SMALL, payload);
			if (len == -EOPNOTSUPP)
				continue;
			if (len < 0) {
				fprintf(stderr, "%s: sample: %d\n",
					aifs_opcode_name(op), len);
				return 1;
			}
			mode[0] = op;
			mode[1] = reply;
			aifs_frame_hdr_init(&hdr, op, AIFS_FLAG_PAYLOAD_CRC |
					    (reply ? AIFS_FLAG_REPLY : 0), 1,
					    len);
			hdr.payload_crc = cpu_to_le32(aifs_crc32c(payload, len));
			aifs_frame_hdr_seal(&hdr);
			if (write_seed(argv[1], "msg", op, reply, mode, 2, len) ||
			    write_seed(argv[1], "frame", op, reply, &hdr,
				       sizeof(hdr), len))
				return 1;
		}
	}
	return 0;
}
