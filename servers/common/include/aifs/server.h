/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The server runtime shared by aifs-mds and aifs-ds: listener, connections,
 * framing, the handshake, dispatch of requests to handlers (inline on the
 * event loop thread, or on worker threads for blocking work), limits,
 * timeouts and a clean stop on SIGTERM.  See Documentation/server-runtime.md.
 *
 * A server:
 *
 *	main():	return aifs_server_main(argc, argv, &mds_program);
 *	then, in mds_program.main:
 *	aifs_server_create(&cfg.server, mds, &srv);
 *	aifs_server_register(srv, AIFS_OP_LOOKUP, mds_lookup,
 *			     AIFS_HANDLER_BLOCKING);
 *	err = aifs_server_run(srv);		(until SIGTERM or SIGINT)
 *	aifs_server_destroy(srv);
 */
#ifndef AIFS_SERVER_H
#define AIFS_SERVER_H

#include <limits.h>
#include <netdb.h>

#include "aifs/aifs_codec.h"
#include "aifs/config.h"
#include "aifs/fail.h"
#include "aifs/log.h"
#include "aifs/metrics.h"

/* What every server's config holds (the rows of AIFS_SERVER_SETTINGS). */
struct aifs_server_config {
	char listen_address[NI_MAXHOST];
	int listen_port;
	int rdma;			/* enum aifs_rdma_mode */
	char secret_file[PATH_MAX];
	int max_connections;
	int max_inflight;
	int output_limit_kib;
	int worker_threads;
	int peer_threads;
	int io_timeout;
	int handshake_timeout;
	int log_level;
	int fault_injection;		/* bool: FAIL_SET honoured */
	char metrics_address[NI_MAXHOST];
	int metrics_port;		/* 0: no metrics served */
};

/*
 * Whether a server also takes RDMA connections (rdma_cm, on the port TCP
 * listens on): never, when the machine has RDMA (and it works), always
 * (no RDMA is then an error).
 */
enum aifs_rdma_mode {
	AIFS_RDMA_OFF,
	AIFS_RDMA_ON,
	AIFS_RDMA_AUTO,
};

extern const char *const aifs_rdma_mode_names[];

/*
 * The common rows of a server's setting table, for a config struct @type
 * whose member @m is its struct aifs_server_config; @port is the default
 * port, as a string.
 */
#define AIFS_SERVER_SETTINGS(T, m, port)				\
	AIFS_SETTING_STRING("listen_address", T, m.listen_address, "::"), \
	AIFS_SETTING_INT("listen_port", T, m.listen_port, port, 0, 65535), \
	AIFS_SETTING_ENUM("rdma", T, m.rdma, "auto", aifs_rdma_mode_names), \
	AIFS_SETTING_STRING("secret_file", T, m.secret_file,	\
			    "/etc/aifs/secret"),			\
	AIFS_SETTING_INT("max_connections", T, m.max_connections,	\
			 "4096", 1, 1000000),				\
	AIFS_SETTING_INT("max_inflight", T, m.max_inflight,		\
			 "64", 1, 4096),				\
	AIFS_SETTING_INT("output_limit_kib", T, m.output_limit_kib,	\
			 "16384", 64, 4194304),				\
	AIFS_SETTING_INT("worker_threads", T, m.worker_threads,	\
			 "8", 1, 1024),					\
	AIFS_SETTING_INT("peer_threads", T, m.peer_threads,		\
			 "2", 1, 1024),					\
	AIFS_SETTING_INT("io_timeout", T, m.io_timeout, "30", 1, 3600), \
	AIFS_SETTING_INT("handshake_timeout", T, m.handshake_timeout, \
			 "10", 1, 3600),				\
	AIFS_SETTING_ENUM("log_level", T, m.log_level, "info",	\
			  aifs_log_level_names),			\
	AIFS_SETTING_ENUM("fault_injection", T, m.fault_injection, "no", \
			  aifs_setting_bool_names),			\
	AIFS_SETTING_STRING("metrics_address", T, m.metrics_address, "::"), \
	AIFS_SETTING_INT("metrics_port", T, m.metrics_port, "0", 0, 65535)

/**
 * struct aifs_request - one request, as a handler sees it
 * @opcode:      enum aifs_opcode
 * @version:     protocol version of the connection
 * @request_id:  the requester's id (for reply caches)
 * @session_id:  the server's id of the connection
 * @client_uuid: the requester's node id from its HELLO (zero if none)
 * @payload:     @payload_len bytes, CRC-checked, not yet decoded
 * @payload_len: at most AIFS_MAX_PAYLOAD
 * @data:        the server's data, as given to aifs_server_create()
 * @reply:       the reply payload, malloc'ed by the handler (or NULL);
 *               the runtime sends and frees it
 * @reply_len:   its length, at most AIFS_MAX_PAYLOAD
 * @rdma:        the RDMA connection the request came on (NULL: TCP), on
 *               which a blocking handler may move the request's bulk data
 *               (aifs/rdma.h: aifs_rdma_transfer()); the request holds a
 *               reference to it until the reply
 *
 * A handler returns 0 or a negative errno, sent as the reply's status.
 * A blocking handler runs on a worker thread: it must not touch anything
 * of the runtime but its request.
 */
struct aifs_request {
	u16 opcode;
	u16 version;
	u64 request_id;
	u64 session_id;
	u8 client_uuid[16];
	const void *payload;
	u32 payload_len;
	void *data;
	void *reply;
	u32 reply_len;
	struct aifs_rdma *rdma;
};

typedef int aifs_handler_fn(struct aifs_request *req);

struct aifs_rdma;

/* Run on a worker thread: the handler may block (disk, LMDB, the network). */
#define AIFS_HANDLER_BLOCKING	0x1U
/*
 * Run on the peer_threads pool, apart from the worker threads: for requests
 * another server sends while one of its own workers waits for the answer
 * (aifs-ds's CHUNK_FORWARD).  Were they queued behind our workers, and our
 * workers waiting on that server, neither would move.  Such a handler may
 * block on its own disk but must never wait on another server.
 */
#define AIFS_HANDLER_PEER	0x2U

struct aifs_server;

/*
 * Load the secret, start the worker threads; nothing listens yet.  @data
 * is handed to every handler.  Errors are logged.
 */
int aifs_server_create(const struct aifs_server_config *cfg, void *data,
		       struct aifs_server **srvp);

/*
 * Handle @opcode with @fn (AIFS_HANDLER_* @flags), replacing any earlier
 * handler; PING has a built-in inline one.  HELLO and AUTH belong to the
 * runtime (-EINVAL).
 */
int aifs_server_register(struct aifs_server *srv, u16 opcode,
			 aifs_handler_fn *fn, unsigned int flags);

/* One row of a handler table, for aifs_server_register_all(). */
struct aifs_handler_def {
	u16 opcode;
	aifs_handler_fn *fn;
	unsigned int flags;
};

/* aifs_server_register() of each of the @n rows of @defs: 0 or the first error. */
int aifs_server_register_all(struct aifs_server *srv,
			     const struct aifs_handler_def *defs, size_t n);

/*
 * Listen for TCP, and for RDMA as the rdma setting says, if not yet: a
 * server that tells others how to reach it listens first, the rest leave
 * it to aifs_server_run().  Errors are logged.
 */
int aifs_server_listen(struct aifs_server *srv);

/* Whether aifs_server_listen() listens for RDMA too. */
bool aifs_server_listens_rdma(const struct aifs_server *srv);

/*
 * Listen (aifs_server_listen()) and serve until SIGTERM or SIGINT
 * (SIGHUP: aifs_server_on_reload());
 * then stop accepting, answer the
 * requests in flight (for up to io_timeout seconds), close every
 * connection and return 0.  Errors are logged.
 */
int aifs_server_run(struct aifs_server *srv);

void aifs_server_destroy(struct aifs_server *srv);

/* The file system's uuid, sent in every HELLO reply from now on. */
void aifs_server_set_fs_uuid(struct aifs_server *srv, const u8 uuid[16]);

/*
 * The cluster map epoch that every reply's header carries from now on.
 * Any thread may call it.
 */
void aifs_server_set_map_epoch(struct aifs_server *srv, u64 epoch);

/*
 * A session's start and end, on the loop thread, without blocking: start
 * once the peer has authenticated, before any request of the session;
 * end once its connection closed and every request of it was answered
 * (or dropped).  A server hands what a session held (open files) over to
 * the client's next session here: @client_uuid is the client's HELLO
 * (zero when it has none).
 */
typedef void aifs_session_fn(void *data, u64 session_id,
			     const u8 client_uuid[16]);

void aifs_server_on_session(struct aifs_server *srv,
			    aifs_session_fn *start, aifs_session_fn *end);

/*
 * Called on the loop thread on SIGHUP: take up what may change in the
 * config file, without blocking (hand the reading to a thread of the
 * server's).  Without one, SIGHUP is logged and ignored.
 */
typedef void aifs_reload_fn(void *data);

void aifs_server_on_reload(struct aifs_server *srv, aifs_reload_fn *fn);

/*
 * @fn appends the server's own metrics to every scrape of GET /metrics
 * (aifs/metrics.h), on the HTTP thread.  Set it before aifs_server_run().
 */
void aifs_server_on_metrics(struct aifs_server *srv, aifs_metrics_fn *fn);

/**
 * struct aifs_server_program - a server's main(), for aifs_server_main()
 * @name:        the program as the log names it ("aifs-mds")
 * @config_path: the config file read when the command line has no -c FILE
 * @config_file: if not NULL, where the name of the file read is stored
 *               (to read it again on SIGHUP)
 * @settings:    the setting table that fills @config
 * @config:      the server's config struct
 * @server:      the struct aifs_server_config inside @config
 * @main:        the server's work, with @data, once the config is read;
 *               returns the exit status of the process
 * @data:        for @main
 */
struct aifs_server_program {
	const char *name;
	const char *config_path;
	const char **config_file;
	const struct aifs_setting *settings;
	void *config;
	const struct aifs_server_config *server;
	int (*main)(void *data);
	void *data;
};

/*
 * The start of every server: log as @prog->name (at info), read the
 * config from the command line (-c FILE, --print-config: see
 * aifs_config_from_args()), log at its log_level, then run @prog->main.
 * Returns the exit status: @prog->main's, EXIT_SUCCESS when the command
 * line only asked for the config, EXIT_FAILURE when it could not be read.
 */
int aifs_server_main(int argc, char **argv,
		     const struct aifs_server_program *prog);

/* Register @srv's handlers for @data: 0 or a negative errno. */
typedef int aifs_server_setup_fn(struct aifs_server *srv, void *data);

/*
 * A server with nothing to start beside the runtime: create it on @cfg
 * for @data, @setup it, run it until SIGTERM or SIGINT and destroy it.
 * Returns 0 or a negative errno (logged by the runtime).
 */
int aifs_server_serve(const struct aifs_server_config *cfg, void *data,
		      aifs_server_setup_fn *setup);

#endif /* AIFS_SERVER_H */
