// SPDX-License-Identifier: GPL-2.0
/*
 * aifs - the client's side of the connection handshake (aifs_proto.h):
 * HELLO negotiates the protocol version and exchanges nonces, AUTH proves
 * to the server that we know the shared secret, then checks that the
 * server knows it too. Proofs are HMAC-SHA256 through the crypto API.
 */
#define pr_fmt(fmt) "aifs: " fmt

#include <crypto/algapi.h>
#include <crypto/hash.h>
#include <linux/random.h>
#include <linux/string.h>
#include <linux/uuid.h>

#include <aifs/aifs_codec.h>

#include "internal.h"

/*
 * Who we are to the servers: one random id per loaded module, the same for
 * every mount, as a node id. A reboot or a module reload makes a new
 * client.
 */
static u8 aifs_client_uuid[16];

/* HMAC-SHA256(secret, transcript of @label): the proof of one side. */
static int aifs_auth_proof(struct crypto_shash *hmac, const char *label,
			   const u8 *nonce_a, const u8 *nonce_b, u16 version,
			   u8 *proof)
{
	u8 transcript[AIFS_AUTH_TRANSCRIPT_MAX];
	int len;

	len = aifs_auth_transcript(transcript, sizeof(transcript), label,
				   nonce_a, nonce_b, version);
	if (len < 0)
		return len;
	return crypto_shash_tfm_digest(hmac, transcript, len, proof);
}

static int aifs_hello(struct aifs_conn *conn, struct p_log *log,
		      struct aifs_handshake *hs, u8 *nonce_c, u8 *nonce_s,
		      unsigned long timeout)
{
	struct aifs_hello_req req = {
		.min_version = cpu_to_le16(AIFS_PROTO_MIN_VERSION),
		.max_version = cpu_to_le16(AIFS_PROTO_VERSION),
		.role = cpu_to_le16(AIFS_ROLE_CLIENT),
	};
	struct aifs_hello_rep rep;
	u8 buf[AIFS_HELLO_REQ_SIZE], reply[AIFS_HELLO_REP_SIZE];
	int len;

	memcpy(req.client_uuid, aifs_client_uuid, sizeof(req.client_uuid));
	get_random_bytes(nonce_c, AIFS_NONCE_SIZE);
	memcpy(req.nonce, nonce_c, AIFS_NONCE_SIZE);

	len = aifs_encode_hello_req(buf, sizeof(buf), &req, NULL);
	if (len < 0)
		return len;
	len = aifs_conn_call(conn, AIFS_OP_HELLO, buf, len, reply,
			     sizeof(reply), timeout);
	if (len < 0)
		goto fail;
	/* checks the size and that the version is one we speak */
	len = aifs_decode_hello_rep(reply, len, &rep, NULL);
	if (len == -EBADMSG) {
		error_plog(log, "server %pISpc: malformed HELLO reply",
			   &conn->addr);
		return -EPROTO;
	}
	if (len < 0)
		goto fail;

	hs->version = le16_to_cpu(rep.version);
	memcpy(hs->fs_uuid, rep.fs_uuid, sizeof(hs->fs_uuid));
	memcpy(nonce_s, rep.nonce, AIFS_NONCE_SIZE);
	aifs_conn_set_version(conn, hs->version);
	return 0;

fail:
	if (len == -EPROTONOSUPPORT)
		error_plog(log, "server %pISpc shares no protocol version with this client (%d-%d)",
			   &conn->addr, AIFS_PROTO_MIN_VERSION,
			   AIFS_PROTO_VERSION);
	return len;
}

/**
 * aifs_handshake - negotiate and authenticate a new connection
 * @conn: connection on which nothing was sent yet
 * @log: where to say why it failed (the mount's, so mount.aifs shows it)
 * @hmac: hmac(sha256) transform keyed with the shared secret
 * @hs: out: what the server told us
 * @timeout: jiffies each step may take
 *
 * Return: 0; -EACCES when the server refuses our proof or fails its own;
 * -EPROTONOSUPPORT without a common version; -EPROTO for a malformed
 * answer; or the connection's error (-ETIMEDOUT, -ECONNRESET, -EINTR ...).
 */
int aifs_handshake(struct aifs_conn *conn, struct p_log *log,
		   struct crypto_shash *hmac, struct aifs_handshake *hs,
		   unsigned long timeout)
{
	u8 nonce_c[AIFS_NONCE_SIZE], nonce_s[AIFS_NONCE_SIZE];
	u8 expect[AIFS_HMAC_SIZE];
	u8 buf[AIFS_AUTH_REQ_SIZE], reply[AIFS_AUTH_REP_SIZE];
	struct aifs_auth_req req;
	struct aifs_auth_rep rep;
	int len, err;

	err = aifs_hello(conn, log, hs, nonce_c, nonce_s, timeout);
	if (err)
		return err;

	err = aifs_auth_proof(hmac, AIFS_AUTH_CLIENT_LABEL, nonce_c, nonce_s,
			      hs->version, req.proof);
	if (err)
		return err;
	len = aifs_encode_auth_req(buf, sizeof(buf), &req, NULL);
	if (len < 0)
		return len;
	len = aifs_conn_call(conn, AIFS_OP_AUTH, buf, len, reply,
			     sizeof(reply), timeout);
	if (len == -EACCES) {
		error_plog(log, "server %pISpc refused authentication",
			   &conn->addr);
		return len;
	}
	if (len < 0)
		return len;
	if (aifs_decode_auth_rep(reply, len, &rep, NULL)) {
		error_plog(log, "server %pISpc: malformed AUTH reply",
			   &conn->addr);
		return -EPROTO;
	}

	err = aifs_auth_proof(hmac, AIFS_AUTH_SERVER_LABEL, nonce_s, nonce_c,
			      hs->version, expect);
	if (err)
		return err;
	if (crypto_memneq(expect, rep.proof, sizeof(expect))) {
		error_plog(log, "server %pISpc failed to prove the shared secret",
			   &conn->addr);
		return -EACCES;
	}
	hs->session_id = le64_to_cpu(rep.session_id);
	return 0;
}

/**
 * aifs_auth_init - check that the handshake can work, at module init
 *
 * Return: 0, or -ENOENT when the kernel has no hmac(sha256).
 */
int __init aifs_auth_init(void)
{
	if (!crypto_has_shash("hmac(sha256)", 0, 0)) {
		pr_err("hmac(sha256) is not available: cannot authenticate\n");
		return -ENOENT;
	}
	generate_random_uuid(aifs_client_uuid);
	return 0;
}
