// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The server's side of the handshake of aifs_proto.h.  The requester
 * proves first: a peer without the secret gets a random nonce and EACCES,
 * nothing else.
 */
#include <stdlib.h>

#include "internal.h"

static void handshake_hello(struct aifs_peer *peer,
			    const struct aifs_frame_hdr *hdr,
			    const struct aifs_hello_req *req)
{
	struct aifs_hello_rep *rep;
	u16 role = le16_to_cpu(req->role);
	int version = aifs_hello_negotiate(req);

	if (version < 0) {
		aifs_peer_fail(peer, hdr, -EPROTONOSUPPORT,
			       "no protocol version in common");
		return;
	}
	if (role < AIFS_ROLE_CLIENT || role > AIFS_ROLE_ADMIN) {
		aifs_peer_fail(peer, hdr, -EINVAL, "unknown role in HELLO");
		return;
	}
	rep = calloc(1, sizeof(*rep));
	if (!rep || aifs_random(peer->nonce_s, AIFS_NONCE_SIZE)) {
		free(rep);
		aifs_peer_fail(peer, hdr, -ENOMEM, "cannot answer HELLO");
		return;
	}
	memcpy(peer->nonce_c, req->nonce, AIFS_NONCE_SIZE);
	memcpy(peer->client_uuid, req->client_uuid, sizeof(peer->client_uuid));
	memcpy(rep->fs_uuid, peer->srv->fs_uuid, sizeof(rep->fs_uuid));
	peer->version = version;
	rep->version = cpu_to_le16(version);
	memcpy(rep->nonce, peer->nonce_s, AIFS_NONCE_SIZE);
	/* handshake_timeout runs from the connection's start: no new stamp. */
	peer->state = AIFS_PEER_AUTH;
	aifs_peer_reply(peer, AIFS_OP_HELLO, le64_to_cpu(hdr->request_id), 0,
			rep, sizeof(*rep));
}

static void handshake_auth(struct aifs_peer *peer,
			   const struct aifs_frame_hdr *hdr,
			   const struct aifs_auth_req *req)
{
	struct aifs_server *srv = peer->srv;
	struct aifs_auth_rep *rep;

	if (!aifs_auth_proof_ok(&srv->secret, AIFS_AUTH_CLIENT, peer->nonce_c,
				peer->nonce_s, peer->version, req->proof)) {
		aifs_peer_fail(peer, hdr, -EACCES, "wrong secret");
		return;
	}
	rep = calloc(1, sizeof(*rep));
	if (!rep || aifs_auth_proof(&srv->secret, AIFS_AUTH_SERVER,
				    peer->nonce_c, peer->nonce_s, peer->version,
				    rep->proof)) {
		free(rep);
		aifs_peer_fail(peer, hdr, -ENOMEM, "cannot answer AUTH");
		return;
	}
	peer->session_id = srv->next_session_id++;
	peer->authenticated = true;
	if (srv->session_start)
		srv->session_start(srv->data, peer->session_id,
				   peer->client_uuid);
	rep->session_id = cpu_to_le64(peer->session_id);
	peer->state = AIFS_PEER_READY;
	aifs_dbg("%s: authenticated, session %llx, version %u", peer->ep.name,
		 (unsigned long long)peer->session_id, peer->version);
	aifs_peer_reply(peer, AIFS_OP_AUTH, le64_to_cpu(hdr->request_id), 0,
			rep, sizeof(*rep));
}

/*
 * A frame before the handshake is done: exactly the expected message, of
 * exactly its size (the whole validation of a fixed-size message), or an
 * error and the end of the connection.
 */
void aifs_peer_handshake(struct aifs_peer *peer,
			 const struct aifs_frame_hdr *hdr, const void *payload)
{
	u16 opcode = le16_to_cpu(hdr->opcode);
	u32 len = le32_to_cpu(hdr->payload_len);

	if (peer->state == AIFS_PEER_HELLO && opcode == AIFS_OP_HELLO) {
		if (len != sizeof(struct aifs_hello_req))
			aifs_peer_fail(peer, hdr, -EBADMSG, "malformed HELLO");
		else
			handshake_hello(peer, hdr, payload);
	} else if (peer->state == AIFS_PEER_AUTH && opcode == AIFS_OP_AUTH) {
		if (len != sizeof(struct aifs_auth_req))
			aifs_peer_fail(peer, hdr, -EBADMSG, "malformed AUTH");
		else
			handshake_auth(peer, hdr, payload);
	} else {
		aifs_peer_fail(peer, hdr, -EACCES,
			       "request before authentication");
	}
}
