// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The link to the MDS: one thread registers (DS_REGISTER with the uuid of
 * ds.id and the id from an earlier registration), then sends DS_HEARTBEAT
 * with the capacity every heartbeat_ms the MDS asks for.  When the map
 * epoch in a reply moves, it fetches the cluster map (MAP_GET) and learns
 * the addresses of its peers from it.  An MDS that is down or unreachable
 * is retried with a growing pause (up to DS_MDS_BACKOFF_MAX_MS), going
 * round the configured list; ENOENT to a heartbeat means the MDS forgot
 * us: register again.  Both carry AIFS_DS_DRAIN while ds.conf says
 * drain = yes, read again on SIGHUP (then a heartbeat goes at once).
 *
 * The lease: the MDS marks a server OFFLINE after grace_ms without a
 * heartbeat, and from then on primaries write without it.  So a server
 * serves reads, and takes writes as a primary, only while the MDS holds
 * it UP or DRAINING and for at most 9/10 of grace_ms after sending the
 * heartbeat that said so: it stops before the MDS can count it out, and
 * a server cut off from the MDS never serves what it missed.  Forwards
 * it still takes (they only make it more current).
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ds.h"

#define DS_MDS_MAX		8
#define DS_MDS_BACKOFF_MIN_MS	200
#define DS_MDS_BACKOFF_MAX_MS	5000
#define DS_MDS_CALL_MS		5000

struct ds_mds_addr {
	char host[NI_MAXHOST];
	char port[16];
};

struct ds_mds_link {
	struct ds *ds;
	struct aifs_server *srv;	/* listening; told the map's epoch */
	pthread_t thread;
	pthread_mutex_t lock;	/* protects @stop, @refresh, @reload */
	pthread_cond_t wake;
	bool stop;
	bool refresh;		/* a peer is unknown: heartbeat now */
	bool reload;		/* SIGHUP: read drain again */
	struct ds_mds_addr mds[DS_MDS_MAX];
	int nr_mds;
	struct aifs_addr self;	/* what we tell the MDS */
	struct aifs_conn *conn;
	u64 epoch;		/* of the map we have */
	u64 frozen_until;	/* ds.map.freeze: no map fetched before */
	/* set by the link's thread, read by primaries (ds_mds_out_wait_ms) */
	atomic_uint heartbeat_ms;
	atomic_uint grace_ms;
	u32 state;		/* enum aifs_ds_state, as the MDS last said */
	/* the last DS_REPAIRS the MDS took on this connection */
	bool repairs_told;
	bool repairs_unheard;	/* it answered EOPNOTSUPP */
	struct aifs_ds_repairs_req repairs_sent;
	struct aifs_repair_entry repairs_list[AIFS_REPAIR_LIST_MAX];
};

/*
 * How long a primary waits for the MDS to count an unreachable replica
 * out: its grace (the MDS looks at least every quarter of it) twice over,
 * and three heartbeats for the news to reach us; 0 without an MDS.
 */
u32 ds_mds_out_wait_ms(struct ds *ds)
{
	struct ds_mds_link *l = ds->mds;

	return l ? 2 * atomic_load(&l->grace_ms) +
		   3 * atomic_load(&l->heartbeat_ms) : 0;
}

bool ds_serving(struct ds *ds)
{
	return !ds->mds || aifs_now_ms() < atomic_load(&ds->serve_until);
}

/* The MDS said, in a reply to what we sent at @sent, that we are @state. */
static void ds_mds_lease(struct ds_mds_link *l, u64 sent, u32 state)
{
	bool serving = state == AIFS_DS_UP || state == AIFS_DS_DRAINING;

	if (state != l->state)
		aifs_info("the MDS holds this server %s: %s", aifs_ds_state_name(state),
			  serving ? "serving" : "serving nothing");
	l->state = state;
	atomic_store(&l->ds->serve_until,
		     serving ? sent + l->grace_ms / 10 * 9 : 0);
}

/* Sleep @ms unless told to stop or refresh; true when stopping. */
static bool ds_mds_sleep(struct ds_mds_link *l, u32 ms)
{
	struct timespec ts;
	bool stop;

	aifs_time_after_ms(CLOCK_MONOTONIC, ms, &ts);
	pthread_mutex_lock(&l->lock);
	while (!l->stop && !l->refresh &&
	       pthread_cond_timedwait(&l->wake, &l->lock, &ts) != ETIMEDOUT)
		;
	l->refresh = false;
	stop = l->stop;
	pthread_mutex_unlock(&l->lock);
	return stop;
}

/*
 * One request to the MDS (@req and its @req_parts, if any), decoded into
 * @rep (@rep_size bytes).
 */
static int ds_mds_call(struct ds_mds_link *l, u16 opcode, const void *req,
		       u32 req_size, const struct aifs_span *req_parts,
		       void *rep, u32 rep_size, struct aifs_reply *reply,
		       struct aifs_span *parts)
{
	/* the largest request sent: a full DS_REPAIRS */
	u8 buf[AIFS_DS_REPAIRS_REQ_SIZE +
	       AIFS_REPAIR_LIST_MAX * AIFS_REPAIR_ENTRY_SIZE];
	struct iovec iov = { buf, 0 };
	int err;

	err = aifs_msg_encode(opcode, false, buf, sizeof(buf), req, req_size,
			      req_parts);
	if (err < 0) {
		*reply = (struct aifs_reply){ 0 };
		return err;
	}
	iov.iov_len = err;
	err = aifs_call(l->conn, opcode, &iov, 1, reply, DS_MDS_CALL_MS);
	if (!err && reply->status)
		err = -(int)reply->status;
	if (!err)
		err = aifs_msg_decode(opcode, true, reply->payload, reply->len,
				      rep, rep_size, parts);
	return err;
}

static void ds_mds_learn_peer(struct ds_mds_link *l,
			      const struct aifs_ds_info *info)
{
	char host[INET6_ADDRSTRLEN], port[16];

	if (le32_to_cpu(info->id) == ds_self_id(l->ds) ||
	    aifs_wire_addr_host(&info->addr, host, sizeof(host), port,
				sizeof(port)))
		return;
	ds_peer_set(l->ds, le32_to_cpu(info->id), host, port,
		    le32_to_cpu(info->state));
}

/* The map moved: learn where the other data servers are. */
/* The ds.map.freeze fail point: whether to keep the map we have. */
static bool ds_mds_map_frozen(struct ds_mds_link *l)
{
	u32 ms;

	if (l->epoch && aifs_fail(AIFS_FAIL_DS_MAP_FREEZE, 0, &ms))
		l->frozen_until = aifs_now_ms() + (ms ? ms : 1000);
	return aifs_now_ms() < l->frozen_until;
}

static int ds_mds_map(struct ds_mds_link *l, u64 epoch)
{
	struct aifs_map_get_req req = { .epoch = cpu_to_le64(l->epoch) };
	struct aifs_span parts[AIFS_MSG_MAX_PARTS];
	struct aifs_ds_info info;
	struct aifs_reply reply;
	struct aifs_map_rep rep;
	u32 i;
	int err;

	if (epoch == l->epoch || ds_mds_map_frozen(l))
		return 0;
	err = ds_mds_call(l, AIFS_OP_MAP_GET, &req, sizeof(req), NULL,
			  &rep, sizeof(rep), &reply, parts);
	if (!err && !(le32_to_cpu(rep.flags) & AIFS_MAP_UNCHANGED)) {
		for (i = 0; i < le32_to_cpu(rep.count); i++) {
			aifs_ds_info_get(&parts[0], i, &info);
			ds_mds_learn_peer(l, &info);
		}
	}
	if (!err) {
		l->epoch = le64_to_cpu(rep.epoch);
		aifs_server_set_map_epoch(l->srv, l->epoch);
	}
	aifs_reply_free(&reply);
	return err;
}

/* AIFS_DS_* of DS_REGISTER and DS_HEARTBEAT. */
static __le32 ds_mds_flags(const struct ds_mds_link *l)
{
	return cpu_to_le32((l->ds->cfg.drain ? AIFS_DS_DRAIN : 0) |
			   (aifs_server_listens_rdma(l->srv) ? AIFS_DS_RDMA : 0));
}

static int ds_mds_register(struct ds_mds_link *l)
{
	struct ds *ds = l->ds;
	struct aifs_ds_register_req req = {
		.id = cpu_to_le32(ds_self_id(ds)),
		.flags = ds_mds_flags(l),
		.addr = l->self,
	};
	struct aifs_ds_register_rep rep;
	struct aifs_statfs_rep cap;
	struct aifs_reply reply;
	u64 sent = aifs_now_ms();
	u32 id;
	int err;

	memcpy(req.uuid, ds->ident.uuid, 16);
	err = ds_capacity(ds, &cap);
	if (err)
		return err;
	req.capacity = cap.total_bytes;
	req.free = cap.avail_bytes;
	err = ds_mds_call(l, AIFS_OP_DS_REGISTER, &req, sizeof(req), NULL,
			  &rep, sizeof(rep), &reply, NULL);
	aifs_reply_free(&reply);
	if (err == -EEXIST)
		aifs_err("the MDS refuses ds %u: another server's id, or this server is known by another",
			 le32_to_cpu(req.id));
	if (err)
		return err;
	id = le32_to_cpu(rep.id);
	l->heartbeat_ms = le32_to_cpu(rep.heartbeat_ms) ?: 1000;
	l->grace_ms = le32_to_cpu(rep.grace_ms);
	ds_mds_lease(l, sent, le32_to_cpu(rep.state));
	aifs_info("registered with the MDS as ds %u (heartbeat every %u ms)",
		  id, atomic_load(&l->heartbeat_ms));
	if (id != ds_self_id(ds) && ds_identity_set_id(ds, id))
		return -EIO;
	return ds_mds_map(l, le64_to_cpu(rep.epoch));
}

/*
 * After a SIGHUP: take drain from the config file as it is now (only this
 * thread reads it).  A file that no longer reads changes nothing.
 */
static void ds_mds_take_reload(struct ds_mds_link *l)
{
	struct ds_config *fresh;
	bool reload;

	pthread_mutex_lock(&l->lock);
	reload = l->reload;
	l->reload = false;
	pthread_mutex_unlock(&l->lock);
	if (!reload)
		return;
	fresh = malloc(sizeof(*fresh));
	if (!fresh || ds_config_reread(l->ds, fresh)) {
		aifs_warn("%s: kept the settings in use", l->ds->config_file);
	} else if (fresh->drain != l->ds->cfg.drain) {
		l->ds->cfg.drain = fresh->drain;
		aifs_info("drain = %s: asking the MDS to make this server %s",
			  fresh->drain ? "yes" : "no",
			  fresh->drain ? "DRAINING" : "UP");
	}
	free(fresh);
}

static int ds_mds_heartbeat(struct ds_mds_link *l)
{
	struct aifs_ds_heartbeat_req req = {
		.id = cpu_to_le32(ds_self_id(l->ds)),
		.flags = ds_mds_flags(l),
		.chunks = cpu_to_le64(atomic_load(&l->ds->nr_chunks)),
		.epoch = cpu_to_le64(l->epoch),
	};
	struct aifs_ds_heartbeat_rep rep;
	struct aifs_statfs_rep cap;
	struct aifs_reply reply;
	u64 sent = aifs_now_ms();
	int err;

	err = ds_capacity(l->ds, &cap);
	if (err)
		return err;
	req.capacity = cap.total_bytes;
	req.free = cap.avail_bytes;
	err = ds_mds_call(l, AIFS_OP_DS_HEARTBEAT, &req, sizeof(req), NULL,
			  &rep, sizeof(rep), &reply, NULL);
	aifs_reply_free(&reply);
	if (!err)
		ds_mds_lease(l, sent, le32_to_cpu(rep.state));
	return err ? err : ds_mds_map(l, le64_to_cpu(rep.epoch));
}

/*
 * DS_REPAIRS when what we must repair is not what the MDS last heard on
 * this connection; an MDS that does not know the message is not told
 * again until the next connection.  Only a broken connection is an
 * error: the heartbeats go on whatever the MDS makes of the report.
 */
static int ds_mds_repairs(struct ds_mds_link *l)
{
	struct aifs_repair_entry list[AIFS_REPAIR_LIST_MAX];
	struct aifs_span part = { list, 0 };
	struct aifs_ds_repairs_req req;
	struct aifs_reply reply;
	unsigned int n;
	u32 refused;
	int err;

	if (l->repairs_unheard)
		return 0;
	n = ds_repair_report(l->ds, &req, list);
	part.len = n * sizeof(list[0]);
	if (l->repairs_told && !memcmp(&req, &l->repairs_sent, sizeof(req)) &&
	    !memcmp(list, l->repairs_list, part.len))
		return 0;
	err = ds_mds_call(l, AIFS_OP_DS_REPAIRS, &req, sizeof(req), &part,
			  NULL, 0, &reply, NULL);
	refused = reply.status;
	aifs_reply_free(&reply);
	if (err == -EOPNOTSUPP) {
		aifs_info("the MDS does not take DS_REPAIRS: what needs repair here is in the metric aifs_ds_chunks_to_repair only");
		l->repairs_unheard = true;
		return 0;
	}
	/* a refusal is not sent again until the report changes */
	if (refused)
		aifs_warn("the MDS refused DS_REPAIRS: %s", strerror(-err));
	else if (err)
		return err;
	l->repairs_told = true;
	l->repairs_sent = req;
	memcpy(l->repairs_list, list, part.len);
	return 0;
}

/* A connection to MDS @which of the list, as this data server. */
static int ds_mds_connect(struct ds_mds_link *l, int which,
			  struct aifs_conn **conn)
{
	struct aifs_connect_opts opts = {
		.host = l->mds[which].host, .port = l->mds[which].port,
		.secret = &l->ds->secret, .role = AIFS_ROLE_DS,
		.timeout_ms = DS_MDS_CALL_MS,
	};

	memcpy(opts.client_uuid, l->ds->ident.uuid, 16);
	return aifs_connect(&opts, conn);
}

/* Registered and beating until an error; returns it. */
static int ds_mds_session(struct ds_mds_link *l, int which)
{
	int err;

	err = ds_mds_connect(l, which, &l->conn);
	if (err)
		return err;
	ds_mds_take_reload(l);
	l->repairs_told = false;
	l->repairs_unheard = false;
	err = ds_mds_register(l);
	while (!err && !ds_mds_sleep(l, l->heartbeat_ms)) {
		ds_mds_take_reload(l);
		err = ds_mds_heartbeat(l) ?: ds_mds_repairs(l);
	}
	aifs_close(l->conn);
	l->conn = NULL;
	return err;
}

/*
 * The pause after @backoff: twice as long, up to DS_MDS_BACKOFF_MAX_MS
 * and to a quarter of the grace the MDS gave: an MDS that restarts gives
 * every server one grace period to speak, and a server that waits longer
 * is counted out and must catch up.
 */
static u32 ds_mds_backoff(struct ds_mds_link *l, u32 backoff)
{
	u32 max = DS_MDS_BACKOFF_MAX_MS, grace = atomic_load(&l->grace_ms);

	if (grace && grace / 4 < max)
		max = grace / 4 > DS_MDS_BACKOFF_MIN_MS ? grace / 4 :
							  DS_MDS_BACKOFF_MIN_MS;
	return backoff * 2 < max ? backoff * 2 : max;
}

static void *ds_mds_thread(void *arg)
{
	struct ds_mds_link *l = arg;
	u32 backoff = DS_MDS_BACKOFF_MIN_MS;
	int which = 0, err;

	do {
		err = ds_mds_session(l, which);
		if (!err)
			break;		/* stopping */
		aifs_warn("MDS %s:%s: %s; retrying in %u ms",
			  l->mds[which].host, l->mds[which].port,
			  strerror(-err), backoff);
		which = (which + 1) % l->nr_mds;
		backoff = ds_mds_backoff(l, backoff);
	} while (!ds_mds_sleep(l, backoff));
	return NULL;
}

static int ds_mds_parse(struct ds_mds_link *l, const char *list)
{
	char *copy, *item, *save;
	int err = 0;

	copy = strdup(list);
	if (!copy)
		return -ENOMEM;
	for (item = strtok_r(copy, ", \t", &save); item && !err;
	     item = strtok_r(NULL, ", \t", &save)) {
		if (l->nr_mds == DS_MDS_MAX ||
		    aifs_parse_hostport(item, l->mds[l->nr_mds].host,
					sizeof(l->mds[0].host),
					l->mds[l->nr_mds].port,
					sizeof(l->mds[0].port))) {
			aifs_err("mds: '%s' is not host:port (at most %d of them)",
				 item, DS_MDS_MAX);
			err = -EINVAL;
		}
		l->nr_mds++;
	}
	free(copy);
	return err;
}

/*
 * Where clients reach us: public_address, or the listen address unless
 * it is a wildcard, or what the host name resolves to.
 */
static int ds_mds_self_addr(struct ds_mds_link *l)
{
	const struct ds_config *cfg = &l->ds->cfg;
	const struct addrinfo hints = { .ai_socktype = SOCK_STREAM };
	const char *host = cfg->public_address;
	char name[NI_MAXHOST];
	struct addrinfo *ai;
	int err;

	if (!strcmp(host, "auto")) {
		host = cfg->server.listen_address;
		if (!strcmp(host, "::") || !strcmp(host, "0.0.0.0")) {
			if (gethostname(name, sizeof(name)))
				return -errno;
			host = name;
		}
	}
	err = getaddrinfo(host, NULL, &hints, &ai);
	if (err) {
		aifs_err("public_address %s: %s", host, gai_strerror(err));
		return -EINVAL;
	}
	l->self.port = cpu_to_le16(cfg->server.listen_port);
	if (ai->ai_family == AF_INET) {
		l->self.family = cpu_to_le16(AIFS_AF_INET);
		memcpy(l->self.addr,
		       &((struct sockaddr_in *)ai->ai_addr)->sin_addr, 4);
	} else {
		l->self.family = cpu_to_le16(AIFS_AF_INET6);
		memcpy(l->self.addr,
		       &((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr, 16);
	}
	freeaddrinfo(ai);
	return 0;
}

/*
 * A client named a replica we have not heard of: our map is behind.
 * Heartbeat now; a newer epoch in the reply fetches the map.
 */
void ds_mds_refresh(struct ds *ds)
{
	struct ds_mds_link *l = ds->mds;

	if (!l)
		return;
	pthread_mutex_lock(&l->lock);
	l->refresh = true;
	pthread_cond_signal(&l->wake);
	pthread_mutex_unlock(&l->lock);
}

/* SIGHUP, on the loop thread: the MDS thread reads the file. */
void ds_mds_reload(void *data)
{
	struct ds *ds = data;
	struct ds_mds_link *l = ds->mds;

	if (!l) {
		aifs_info("mds = none: drain means nothing without an MDS");
		return;
	}
	pthread_mutex_lock(&l->lock);
	l->reload = true;
	l->refresh = true;
	pthread_cond_signal(&l->wake);
	pthread_mutex_unlock(&l->lock);
}

/*
 * The layout of @ino as the MDS has it now, on a connection of its own
 * (the link's belongs to its thread): 0, -ESTALE for an inode that is
 * gone, or why the MDS could not say.
 */
int ds_mds_layout(struct ds *ds, u64 ino, struct aifs_layout *layout)
{
	struct ds_mds_link *l = ds->mds;
	struct aifs_cred cred = { 0 };
	struct aifs_conn *conn = NULL;
	int which, err = -ENOTCONN;

	for (which = 0; l && which < l->nr_mds && err; which++) {
		err = ds_mds_connect(l, which, &conn);
		if (!err) {
			err = aifs_layout_get(conn, &cred, ino, layout);
			aifs_close(conn);
			if (err == -ESTALE || err == -ENOENT)
				return -ESTALE;
		}
	}
	return err;
}

int ds_mds_start(struct ds *ds, struct aifs_server *srv)
{
	pthread_condattr_t attr;
	struct ds_mds_link *l;
	int err;

	if (!strcmp(ds->cfg.mds, "none")) {
		aifs_info("mds = none: not registering (static cluster)");
		return 0;
	}
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->ds = ds;
	l->srv = srv;
	err = ds_mds_parse(l, ds->cfg.mds);
	if (!err)
		err = ds_mds_self_addr(l);
	if (err) {
		free(l);
		return err;
	}
	pthread_mutex_init(&l->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&l->wake, &attr);
	pthread_condattr_destroy(&attr);
	ds->mds = l;
	err = -pthread_create(&l->thread, NULL, ds_mds_thread, l);
	if (err) {
		ds->mds = NULL;
		free(l);
	}
	return err;
}

void ds_mds_stop(struct ds *ds)
{
	struct ds_mds_link *l = ds->mds;

	if (!l)
		return;
	pthread_mutex_lock(&l->lock);
	l->stop = true;
	pthread_cond_signal(&l->wake);
	pthread_mutex_unlock(&l->lock);
	pthread_join(l->thread, NULL);
	pthread_mutex_destroy(&l->lock);
	pthread_cond_destroy(&l->wake);
	free(l);
	ds->mds = NULL;
}
