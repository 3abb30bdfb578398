/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * libaifs: the userspace client of the aifs wire protocol, used by the
 * tools, the tests, the benchmarks and by servers talking to each other.
 *
 * Functions return 0 or a negative errno.  A connection is safe to share
 * between threads: aifs_call() may run concurrently from any number of
 * threads, replies are matched to callers by request id.
 */
#ifndef AIFS_LIBAIFS_H
#define AIFS_LIBAIFS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/uio.h>

#include "aifs/aifs_codec.h"

/* Largest errno a reply may carry (as the kernel's MAX_ERRNO). */
#define AIFS_MAX_STATUS		4095

/* Milliseconds on the monotonic clock (frame.c). */
u64 aifs_now_ms(void);

/* ---- shared secret (secret.c) ---- */

#define AIFS_SECRET_PATH	"/etc/aifs/secret"
#define AIFS_SECRET_MIN		16
#define AIFS_SECRET_MAX		256

struct aifs_secret {
	size_t len;
	u8 key[AIFS_SECRET_MAX];
};

/*
 * Load the cluster's shared secret: the file's bytes, minus one trailing
 * newline, AIFS_SECRET_MIN..AIFS_SECRET_MAX bytes long.  A file readable by
 * others is refused.  On error, a sentence naming @path and the problem is
 * left in @why (which may be NULL).
 */
int aifs_secret_load(struct aifs_secret *secret, const char *path,
		     char *why, size_t why_len);

/* Erase a secret from memory. */
void aifs_secret_wipe(struct aifs_secret *secret);

/* ---- handshake proofs (auth.c), shared with the server runtime ---- */

enum aifs_auth_side {
	AIFS_AUTH_CLIENT,	/* proof_c: the requester's */
	AIFS_AUTH_SERVER,	/* proof_s: the server's */
};

/* Fill @buf with random bytes from the kernel (getrandom). */
int aifs_random(void *buf, size_t len);

/*
 * The HMAC-SHA256 proof of @side over the transcript that aifs_proto.h
 * defines for the handshake of @version with nonces @nonce_c and @nonce_s.
 */
int aifs_auth_proof(const struct aifs_secret *secret, enum aifs_auth_side side,
		    const u8 *nonce_c, const u8 *nonce_s, u16 version,
		    u8 proof[AIFS_HMAC_SIZE]);

/* Whether @proof is @side's proof, compared in constant time. */
bool aifs_auth_proof_ok(const struct aifs_secret *secret,
			enum aifs_auth_side side, const u8 *nonce_c,
			const u8 *nonce_s, u16 version,
			const u8 proof[AIFS_HMAC_SIZE]);

/* ---- connections (conn.c, handshake.c) ---- */

#define AIFS_CONNECT_TIMEOUT_MS	10000

/**
 * struct aifs_connect_opts - where and who to connect as
 * @host:       server name or numeric IPv4/IPv6 address
 * @port:       service name or port number, e.g. "7400"
 * @secret:     the cluster's shared secret
 * @role:       enum aifs_role announced in HELLO
 * @client_uuid: stable id of this node (zero if it has none)
 * @timeout_ms: bound on connect plus handshake; 0 means
 *              AIFS_CONNECT_TIMEOUT_MS
 */
struct aifs_connect_opts {
	const char *host;
	const char *port;
	const struct aifs_secret *secret;
	enum aifs_role role;
	u8 client_uuid[16];
	int timeout_ms;
};

struct aifs_conn;

/**
 * struct aifs_reply - what came back for one aifs_call()
 * @status:    0 or the positive errno the server answered with
 * @map_epoch: the server's cluster map epoch
 * @payload:   @len bytes (malloc'ed, NULL when empty): aifs_reply_free()
 * @len:       payload length
 */
struct aifs_reply {
	u32 status;
	u64 map_epoch;
	void *payload;
	u32 len;
};

/*
 * Connect over TCP and authenticate.  -EACCES: the server refused our
 * secret, or it could not prove that it holds it; -EPROTONOSUPPORT: no
 * protocol version in common; -ETIMEDOUT: past @opts->timeout_ms.
 */
int aifs_connect(const struct aifs_connect_opts *opts, struct aifs_conn **connp);

/*
 * Send request @opcode whose payload is the concatenation of @iov[0..iovcnt)
 * and wait up to @timeout_ms (negative: forever) for its reply.  Returns 0
 * when a reply arrived (its status in @reply->status), or a negative errno
 * when none did: -ETIMEDOUT, or the error that broke the connection (which
 * then fails every later call; reconnect).
 */
int aifs_call(struct aifs_conn *conn, u16 opcode, const struct iovec *iov,
	      int iovcnt, struct aifs_reply *reply, int timeout_ms);

void aifs_reply_free(struct aifs_reply *reply);

/* Round trip with an empty PING: 0, -status of the reply, or as aifs_call. */
int aifs_ping(struct aifs_conn *conn, int timeout_ms);

/* The protocol version and server session id the handshake agreed on. */
u16 aifs_conn_version(const struct aifs_conn *conn);
u64 aifs_conn_session(const struct aifs_conn *conn);

/* Close and free; no aifs_call() may be running or start afterwards. */
void aifs_close(struct aifs_conn *conn);

#endif /* AIFS_LIBAIFS_H */
