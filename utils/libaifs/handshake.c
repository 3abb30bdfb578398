// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The requester's side of the handshake of aifs_proto.h: HELLO to agree on
 * a version and swap nonces, AUTH to prove both sides hold the secret.
 */
#include <stdlib.h>

#include "internal.h"

/*
 * One handshake round trip whose reply must be exactly @rep_len bytes.
 * Returns 0, -status of a refusal, or a transport/protocol error.
 */
static int handshake_step(struct aifs_conn *conn, u16 opcode, const void *req,
			  size_t req_len, void *rep, size_t rep_len,
			  s64 deadline)
{
	struct iovec iov = { .iov_base = (void *)req, .iov_len = req_len };
	u64 request_id = conn->next_request_id++;
	struct aifs_frame_hdr hdr;
	void *payload = NULL;
	bool partial;
	int err;

	aifs_frame_hdr_init(&hdr, opcode, 0, request_id, 0);
	hdr.version = cpu_to_le16(conn->version);
	err = aifs_frame_send(&conn->stream, &hdr, &iov, 1, deadline, &partial);
	if (err)
		return err;
	err = aifs_frame_recv(&conn->stream, &hdr, &payload, deadline);
	if (err)
		return err;
	if (!(le32_to_cpu(hdr.flags) & AIFS_FLAG_REPLY))
		err = -EPROTO;
	else if (le32_to_cpu(hdr.status) > AIFS_MAX_STATUS)
		err = -EPROTO;
	else if (hdr.status)
		err = -(int)le32_to_cpu(hdr.status);
	else if (le16_to_cpu(hdr.opcode) != opcode ||
		 le64_to_cpu(hdr.request_id) != request_id ||
		 le32_to_cpu(hdr.payload_len) != rep_len)
		err = -EPROTO;
	else
		memcpy(rep, payload, rep_len);
	free(payload);
	return err;
}

static int handshake_hello(struct aifs_conn *conn,
			   const struct aifs_connect_opts *opts,
			   u8 *nonce_c, u8 *nonce_s, s64 deadline)
{
	struct aifs_hello_req req = {
		.min_version = cpu_to_le16(AIFS_PROTO_MIN_VERSION),
		.max_version = cpu_to_le16(AIFS_PROTO_VERSION),
		.role = cpu_to_le16(opts->role),
	};
	struct aifs_hello_rep rep;
	u16 version;
	int err;

	err = aifs_random(nonce_c, AIFS_NONCE_SIZE);
	if (err)
		return err;
	memcpy(req.client_uuid, opts->client_uuid, sizeof(req.client_uuid));
	memcpy(req.nonce, nonce_c, AIFS_NONCE_SIZE);
	err = handshake_step(conn, AIFS_OP_HELLO, &req, sizeof(req), &rep,
			     sizeof(rep), deadline);
	if (err)
		return err;
	version = le16_to_cpu(rep.version);
	if (version < AIFS_PROTO_MIN_VERSION || version > AIFS_PROTO_VERSION)
		return -EPROTO;
	conn->version = version;
	memcpy(nonce_s, rep.nonce, AIFS_NONCE_SIZE);
	return 0;
}

static int handshake_auth(struct aifs_conn *conn, const struct aifs_secret *secret,
			  const u8 *nonce_c, const u8 *nonce_s, s64 deadline)
{
	struct aifs_auth_req req;
	struct aifs_auth_rep rep;
	int err;

	err = aifs_auth_proof(secret, AIFS_AUTH_CLIENT, nonce_c, nonce_s,
			      conn->version, req.proof);
	if (err)
		return err;
	err = handshake_step(conn, AIFS_OP_AUTH, &req, sizeof(req), &rep,
			     sizeof(rep), deadline);
	if (err)
		return err;
	/* A server that cannot prove it holds the secret is not ours. */
	if (!aifs_auth_proof_ok(secret, AIFS_AUTH_SERVER, nonce_c, nonce_s,
				conn->version, rep.proof))
		return -EACCES;
	conn->session_id = le64_to_cpu(rep.session_id);
	return 0;
}

int aifs_handshake(struct aifs_conn *conn, const struct aifs_connect_opts *opts,
		   s64 deadline)
{
	u8 nonce_c[AIFS_NONCE_SIZE], nonce_s[AIFS_NONCE_SIZE];
	int err;

	/*
	 * HELLO goes out in the oldest frame version we speak, so that any
	 * server whose range overlaps ours can read it; from the reply on,
	 * both sides use the version agreed.
	 */
	conn->version = AIFS_PROTO_MIN_VERSION;
	err = handshake_hello(conn, opts, nonce_c, nonce_s, deadline);
	if (err)
		return err;
	return handshake_auth(conn, opts->secret, nonce_c, nonce_s, deadline);
}
