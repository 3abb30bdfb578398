// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Handshake proofs, computed the same way by libaifs (the requester) and the
 * server runtime (which links this library for them).
 */
#include <sys/random.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "aifs/libaifs.h"

int aifs_random(void *buf, size_t len)
{
	u8 *p = buf;
	ssize_t n;

	while (len) {
		n = getrandom(p, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= n;
	}
	return 0;
}

int aifs_auth_proof(const struct aifs_secret *secret, enum aifs_auth_side side,
		    const u8 *nonce_c, const u8 *nonce_s, u16 version,
		    u8 proof[AIFS_HMAC_SIZE])
{
	bool client = side == AIFS_AUTH_CLIENT;
	u8 transcript[AIFS_AUTH_TRANSCRIPT_MAX];
	unsigned int len = AIFS_HMAC_SIZE;
	int tlen;

	/* The prover's own nonce comes first (aifs_proto.h). */
	tlen = aifs_auth_transcript(transcript, sizeof(transcript),
				    client ? AIFS_AUTH_CLIENT_LABEL :
					     AIFS_AUTH_SERVER_LABEL,
				    client ? nonce_c : nonce_s,
				    client ? nonce_s : nonce_c, version);
	if (tlen < 0)
		return tlen;
	if (!HMAC(EVP_sha256(), secret->key, secret->len, transcript, tlen,
		  proof, &len))
		return -ENOMEM;
	return 0;
}

bool aifs_auth_proof_ok(const struct aifs_secret *secret,
			enum aifs_auth_side side, const u8 *nonce_c,
			const u8 *nonce_s, u16 version,
			const u8 proof[AIFS_HMAC_SIZE])
{
	u8 expected[AIFS_HMAC_SIZE];
	bool ok;

	if (aifs_auth_proof(secret, side, nonce_c, nonce_s, version, expected))
		return false;
	ok = !CRYPTO_memcmp(expected, proof, AIFS_HMAC_SIZE);
	OPENSSL_cleanse(expected, sizeof(expected));
	return ok;
}
