// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Requests in, replies out: every handler decodes its request and encodes
 * its reply through the shared codec, so that what the MDS sends is
 * checked as strictly as what it receives.
 */
#include <stdlib.h>

#include "mds.h"

int mds_decode(const struct aifs_request *req, void *fixed, u32 size,
	       struct aifs_span *parts)
{
	return aifs_msg_decode(req->opcode, false, req->payload,
			       req->payload_len, fixed, size, parts);
}

/*
 * What every read-only handler does, as mds_write() for changes: decode
 * @req into @in (@size bytes), then @fn in a read transaction.
 */
int mds_read(struct aifs_request *req, void *in, u32 size, mds_read_fn *fn)
{
	struct aifs_span parts[AIFS_MSG_MAX_PARTS];
	struct mds_txn t;
	int err;

	err = mds_decode(req, in, size, parts);
	if (!err)
		err = mds_read_begin(req->data, &t);
	if (err)
		return err;
	err = fn(&t, req, in, parts);
	mds_read_end(&t);
	return err;
}

/*
 * Encode the reply to @req into a buffer the runtime sends and frees;
 * @parts is NULL or all AIFS_MSG_MAX_PARTS spans of the message.
 */
int mds_reply(struct aifs_request *req, const void *fixed, u32 size,
	      const struct aifs_span parts[AIFS_MSG_MAX_PARTS])
{
	u32 room = size;
	int i, len;
	void *buf;

	for (i = 0; parts && i < AIFS_MSG_MAX_PARTS; i++)
		room += parts[i].len;
	buf = malloc(room);
	if (!buf)
		return -ENOMEM;
	len = aifs_msg_encode(req->opcode, true, buf, room, fixed, size, parts);
	if (len < 0) {
		free(buf);
		return len;
	}
	free(req->reply);
	req->reply = buf;
	req->reply_len = len;
	return 0;
}

/*
 * A reply whose one variable part is @data (a symlink target, an xattr
 * value, the map's servers): mds_reply() reads every part slot, so the
 * unused ones must be there and empty.
 */
int mds_reply_data(struct aifs_request *req, const void *fixed, u32 size,
		   const void *data, u32 len)
{
	struct aifs_span parts[AIFS_MSG_MAX_PARTS] = { { data, len } };

	return mds_reply(req, fixed, size, parts);
}
