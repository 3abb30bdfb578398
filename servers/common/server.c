// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The server: listener, signals, the worker pool's completions and the
 * periodic look at timeouts, all on one event loop (see aifs/server.h).
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "aifs/rdma.h"
#include "internal.h"

/* Connections taken per readiness of the listener. */
#define SERVER_ACCEPT_BATCH	64

/* Descriptors beyond connections: loop, listener, signals, logs, files. */
#define SERVER_RESERVED_FDS	64

/* Out of descriptors: how long to stop accepting. */
#define SERVER_ACCEPT_PAUSE_MS	1000

static int server_ping(struct aifs_request *req)
{
	return req->payload_len ? -EINVAL : 0;
}

/* FAIL_SET: the payload is a spec of aifs/fail.h, without its NUL. */
static int server_fail_set(struct aifs_request *req)
{
	char spec[1024], why[128];

	if (req->payload_len >= sizeof(spec) ||
	    memchr(req->payload, '\0', req->payload_len))
		return -EINVAL;
	memcpy(spec, req->payload, req->payload_len);
	spec[req->payload_len] = '\0';
	if (aifs_fail_set(spec, why, sizeof(why))) {
		aifs_warn("FAIL_SET refused: %s", why);
		return -EINVAL;
	}
	return 0;
}

void aifs_server_peer_gone(struct aifs_server *srv)
{
	if (srv->stopping && !srv->nr_peers)
		aifs_loop_stop(srv->loop);
}

static void server_close_peers(struct aifs_server *srv)
{
	struct aifs_list *pos, *tmp;

	aifs_list_for_each_safe(pos, tmp, &srv->peers)
		aifs_peer_close(container_of(pos, struct aifs_peer, link), NULL);
}

static void server_unlisten(struct aifs_server *srv)
{
	struct aifs_listener *l;

	while (srv->nr_listeners) {
		l = &srv->listeners[--srv->nr_listeners];
		aifs_loop_unwatch(srv->loop, l->ep.fd);
		l->ep.ops->close(&l->ep);
	}
}

/* Accepting failed for want of descriptors or memory: retry later. */
static void server_pause_accept(struct aifs_listener *l, int err)
{
	aifs_warn("accept (%s): %s; not accepting for %d ms", l->ep.ops->name,
		  strerror(-err), SERVER_ACCEPT_PAUSE_MS);
	aifs_loop_modify(l->srv->loop, l->ep.fd, 0);
	l->paused_until = aifs_now_ms() + SERVER_ACCEPT_PAUSE_MS;
}

static void server_on_listener(struct aifs_loop *loop, int fd,
			       unsigned int events, void *data)
{
	struct aifs_listener *l = data;
	struct aifs_server *srv = l->srv;
	struct aifs_peer *peer;
	int i, err;

	(void)loop;
	(void)fd;
	(void)events;
	for (i = 0; i < SERVER_ACCEPT_BATCH; i++) {
		peer = calloc(1, sizeof(*peer));
		if (!peer) {
			server_pause_accept(l, -ENOMEM);
			return;
		}
		err = l->ep.ops->accept(&l->ep, &peer->ep);
		if (err) {
			free(peer);
			if (err != -EAGAIN && err != -ECONNABORTED)
				server_pause_accept(l, err);
			return;
		}
		/* Accepted and closed at once: the peer sees a clean end. */
		if (srv->nr_peers >= (unsigned int)srv->cfg->max_connections) {
			aifs_warn("%s: refused: max_connections (%d) reached",
				  peer->ep.name, srv->cfg->max_connections);
			peer->ep.ops->close(&peer->ep);
			free(peer);
			continue;
		}
		aifs_peer_accept(srv, peer);
	}
}

static void server_stop(struct aifs_server *srv, const char *why)
{
	struct aifs_list *pos, *tmp;

	aifs_info("%s: stopping", why);
	sd_notify(0, "STOPPING=1");
	srv->stopping = true;
	srv->stop_deadline = aifs_now_ms() + srv->cfg->io_timeout * 1000ULL;
	server_unlisten(srv);
	aifs_list_for_each_safe(pos, tmp, &srv->peers)
		aifs_peer_stop(container_of(pos, struct aifs_peer, link));
	aifs_server_peer_gone(srv);
}

static void server_on_signal(struct aifs_loop *loop, int fd,
			     unsigned int events, void *data)
{
	struct aifs_server *srv = data;
	struct signalfd_siginfo si;

	(void)events;
	if (read(fd, &si, sizeof(si)) != sizeof(si))
		return;
	if (si.ssi_signo == SIGHUP) {
		aifs_info("SIGHUP: %s", srv->reload ? "reloading the config" :
			  "nothing to reload");
		if (srv->reload)
			srv->reload(srv->data);
		return;
	}
	if (!srv->stopping) {
		server_stop(srv, strsignal(si.ssi_signo));
		return;
	}
	aifs_info("%s again: stopping now", strsignal(si.ssi_signo));
	server_close_peers(srv);
	aifs_loop_stop(loop);
}

/* @data: the pool (worker or peer threads) whose jobs are done. */
static void server_on_done(struct aifs_loop *loop, int fd, unsigned int events,
			   void *data)
{
	struct aifs_list jobs, *pos, *tmp;

	(void)loop;
	(void)fd;
	(void)events;
	aifs_list_init(&jobs);
	aifs_workers_take_done(data, &jobs);
	aifs_list_for_each_safe(pos, tmp, &jobs) {
		aifs_list_del(pos);
		aifs_peer_complete(container_of(pos, struct aifs_job, link));
	}
}

static int64_t server_cron(struct aifs_loop *loop, void *data)
{
	struct aifs_server *srv = data;
	u64 now = aifs_now_ms();
	struct aifs_list *pos, *tmp;
	struct aifs_listener *l;
	int i;

	aifs_list_for_each_safe(pos, tmp, &srv->peers)
		aifs_peer_check_time(container_of(pos, struct aifs_peer, link),
				     now);
	if (srv->stopping && now >= srv->stop_deadline) {
		aifs_warn("%u connections still busy after %d s: closing them",
			  srv->nr_peers, srv->cfg->io_timeout);
		server_close_peers(srv);
		aifs_loop_stop(loop);
	}
	for (i = 0; i < srv->nr_listeners; i++) {
		l = &srv->listeners[i];
		if (l->paused_until && now >= l->paused_until) {
			l->paused_until = 0;
			aifs_loop_modify(loop, l->ep.fd, AIFS_EV_READ);
		}
	}
	return AIFS_CRON_MS;
}

/* SIGTERM, SIGINT and SIGHUP come through a signalfd, blocked everywhere. */
static int server_signals(struct aifs_server *srv)
{
	sigset_t set;
	int err;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	err = pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (err)
		return -err;
	srv->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	return srv->sigfd < 0 ? -errno : 0;
}

/* max_connections needs as many descriptors: raise the soft limit. */
static void server_fd_limit(const struct aifs_server *srv)
{
	rlim_t need = (rlim_t)srv->cfg->max_connections + SERVER_RESERVED_FDS;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= need)
		return;
	rl.rlim_cur = need < rl.rlim_max ? need : rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur < need)
		aifs_warn("max_connections %d needs %llu descriptors, the limit is %llu",
			  srv->cfg->max_connections, (unsigned long long)need,
			  (unsigned long long)rl.rlim_cur);
}

int aifs_server_create(const struct aifs_server_config *cfg, void *data,
		       struct aifs_server **srvp)
{
	struct aifs_server *srv;
	char why[PATH_MAX + 80];
	int err;

	srv = calloc(1, sizeof(*srv));
	if (!srv)
		return -ENOMEM;
	srv->cfg = cfg;
	srv->data = data;
	srv->sigfd = -1;
	aifs_metrics_init(&srv->metrics);
	aifs_list_init(&srv->peers);
	srv->handlers[AIFS_OP_PING] = (struct aifs_handler){ server_ping, 0 };
	if (cfg->fault_injection)
		srv->handlers[AIFS_OP_FAIL_SET] =
			(struct aifs_handler){ server_fail_set, 0 };

	err = aifs_fail_setup_from_env();
	if (err)
		goto fail;
	err = aifs_secret_load(&srv->secret, cfg->secret_file, why, sizeof(why));
	if (err) {
		aifs_err("%s", why);
		goto fail;
	}
	/* Session ids differ from one run of the server to the next. */
	err = aifs_random(&srv->next_session_id, sizeof(srv->next_session_id));
	if (!err)
		err = aifs_loop_create(&srv->loop);
	if (!err)
		err = server_signals(srv);
	if (!err)
		err = aifs_workers_start(&srv->workers, cfg->worker_threads);
	if (err) {
		aifs_err("cannot start the server: %s", strerror(-err));
		goto fail;
	}
	*srvp = srv;
	return 0;
fail:
	aifs_server_destroy(srv);
	return err;
}

int aifs_server_register(struct aifs_server *srv, u16 opcode,
			 aifs_handler_fn *fn, unsigned int flags)
{
	if (opcode == AIFS_OP_HELLO || opcode == AIFS_OP_AUTH || !fn ||
	    (flags & ~(AIFS_HANDLER_BLOCKING | AIFS_HANDLER_PEER)))
		return -EINVAL;
	if (opcode >= AIFS_SERVER_MAX_OPCODE)
		return -ERANGE;
	srv->handlers[opcode] = (struct aifs_handler){ fn, flags };
	return 0;
}

int aifs_server_register_all(struct aifs_server *srv,
			     const struct aifs_handler_def *defs, size_t n)
{
	size_t i;
	int err;

	for (i = 0; i < n; i++) {
		err = aifs_server_register(srv, defs[i].opcode, defs[i].fn,
					   defs[i].flags);
		if (err)
			return err;
	}
	return 0;
}

void aifs_server_set_fs_uuid(struct aifs_server *srv, const u8 uuid[16])
{
	memcpy(srv->fs_uuid, uuid, sizeof(srv->fs_uuid));
}

void aifs_server_set_map_epoch(struct aifs_server *srv, u64 epoch)
{
	__atomic_store_n(&srv->map_epoch, epoch, __ATOMIC_RELAXED);
}

void aifs_server_on_session(struct aifs_server *srv,
			    aifs_session_fn *start, aifs_session_fn *end)
{
	srv->session_start = start;
	srv->session_end = end;
}

void aifs_server_on_reload(struct aifs_server *srv, aifs_reload_fn *fn)
{
	srv->reload = fn;
}

void aifs_server_on_metrics(struct aifs_server *srv, aifs_metrics_fn *fn)
{
	srv->metrics.fn = fn;
}

static int server_listen_on(struct aifs_server *srv,
			    const struct aifs_transport_ops *ops, int port)
{
	const char *addr = srv->cfg->listen_address;
	struct aifs_listener *l = &srv->listeners[srv->nr_listeners];
	int err;

	*l = (struct aifs_listener){ .srv = srv, .ep.ops = ops };
	err = ops->listen(&l->ep, addr, port);
	if (err)
		return err;
	err = aifs_loop_watch(srv->loop, l->ep.fd, AIFS_EV_READ,
			      server_on_listener, l);
	if (err) {
		ops->close(&l->ep);
		return err;
	}
	srv->nr_listeners++;
	return 0;
}

/* TCP; then RDMA on the port TCP took, as the rdma setting says. */
static int server_listen_all(struct aifs_server *srv)
{
	const struct aifs_server_config *cfg = srv->cfg;
	int err;

	err = server_listen_on(srv, &aifs_tcp_transport, cfg->listen_port);
	if (err) {
		aifs_err("cannot listen on %s port %d: %s", cfg->listen_address,
			 cfg->listen_port, strerror(-err));
		return err;
	}
	if (cfg->rdma == AIFS_RDMA_OFF)
		return 0;
	/* the handlers on the workers move bulk data, one buffer each */
	aifs_rdma_set_buffers(cfg->worker_threads);
	err = server_listen_on(srv, &aifs_rdma_transport,
			       srv->listeners[0].ep.port);
	if (err && cfg->rdma == AIFS_RDMA_AUTO) {
		aifs_info("no RDMA on %s port %d (%s): TCP only",
			  cfg->listen_address, srv->listeners[0].ep.port,
			  strerror(-err));
		return 0;
	}
	if (err)
		aifs_err("cannot listen for RDMA on %s port %d: %s",
			 cfg->listen_address, srv->listeners[0].ep.port,
			 strerror(-err));
	return err;
}

/* One line once every listener is up: tests and admins wait for it. */
static int server_listen(struct aifs_server *srv)
{
	int err = server_listen_all(srv);

	if (err)
		return err;
	aifs_info("listening on %s (%s%s)", srv->listeners[0].ep.name,
		  srv->listeners[0].ep.ops->name,
		  srv->nr_listeners > 1 ? ", rdma" : "");
	return 0;
}

/* The peer_threads pool, for a server with AIFS_HANDLER_PEER handlers. */
static int server_start_peer_workers(struct aifs_server *srv)
{
	int i, err;

	for (i = 0; i < AIFS_SERVER_MAX_OPCODE; i++)
		if (srv->handlers[i].flags & AIFS_HANDLER_PEER)
			break;
	if (i == AIFS_SERVER_MAX_OPCODE)
		return 0;
	err = aifs_workers_start(&srv->peer_workers, srv->cfg->peer_threads);
	if (err)
		return err;
	return aifs_loop_watch(srv->loop, srv->peer_workers.efd, AIFS_EV_READ,
			       server_on_done, &srv->peer_workers);
}

int aifs_server_listen(struct aifs_server *srv)
{
	if (srv->nr_listeners)
		return 0;
	server_fd_limit(srv);
	return server_listen(srv);
}

bool aifs_server_listens_rdma(const struct aifs_server *srv)
{
	return srv->nr_listeners > 1;
}

int aifs_server_run(struct aifs_server *srv)
{
	int err;

	err = aifs_server_listen(srv);
	if (!err)
		err = aifs_loop_watch(srv->loop, srv->sigfd, AIFS_EV_READ,
				      server_on_signal, srv);
	if (!err)
		err = aifs_loop_watch(srv->loop, srv->workers.efd, AIFS_EV_READ,
				      server_on_done, &srv->workers);
	if (!err)
		err = server_start_peer_workers(srv);
	if (!err)
		err = aifs_loop_timer(srv->loop, AIFS_CRON_MS, server_cron, srv);
	/* Last: a scrape may look at everything started before. */
	if (!err)
		err = aifs_metrics_http_start(srv);
	if (err) {
		aifs_err("cannot start serving: %s", strerror(-err));
		return err;
	}
	sd_notify(0, "READY=1");
	err = aifs_loop_run(srv->loop);
	if (err)
		aifs_err("event loop: %s", strerror(-err));
	/* Before anything a scrape looks at is torn down. */
	aifs_metrics_http_stop(srv);
	server_close_peers(srv);
	server_unlisten(srv);
	aifs_info("stopped");
	return err;
}

/* Tear down whatever exists: also the half-built server of a failed create. */
void aifs_server_destroy(struct aifs_server *srv)
{
	struct aifs_list jobs, *pos, *tmp;

	aifs_list_init(&jobs);
	aifs_workers_stop(&srv->workers, &jobs);
	aifs_workers_stop(&srv->peer_workers, &jobs);
	aifs_list_for_each_safe(pos, tmp, &jobs)
		aifs_job_free(container_of(pos, struct aifs_job, link));
	if (srv->loop) {
		server_close_peers(srv);
		server_unlisten(srv);
		aifs_loop_destroy(srv->loop);
	}
	if (srv->sigfd >= 0)
		close(srv->sigfd);
	aifs_secret_wipe(&srv->secret);
	free(srv);
}
