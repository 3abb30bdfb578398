// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Peers and forwarding.  The primary of a chunk writes locally, then sends
 * CHUNK_FORWARD to every replica the client named, all at once, over one
 * libaifs connection per peer (shared by all worker threads).
 *
 * Rule: the write succeeds when every replica has it, or the MDS has
 * recorded the one that lacks it: counted out (OFFLINE, RETIRED) or
 * SYNCING, a copy that is caught up whole before it serves again.  A
 * replica that cannot be reached, breaks the connection or stays silent
 * for replica_timeout_ms is dead for this write: logged, skipped, and not
 * tried again for peer_retry_ms (so a dead peer does not cost a timeout
 * per write).  A replica that is not in the peer table at all means our
 * cluster map is behind (the client's is newer): the write fails with
 * EAGAIN, never acknowledged with a copy short, and the map is fetched
 * now.  A replica answering ESTALE is behind and pulling the chunk
 * (resync.c): it lacks the write, and is skipped only when our map holds
 * it SYNCING or out; one held UP fails the write with ESTALE (the client
 * goes round again while it catches up: ds_forward_behind()).  A replica
 * answering EEXIST holds the chunk newer than we do (we lost our copy,
 * or came back without writes it has): our copy is marked stale and
 * takes that replica's, and the write is refused (ESTALE) until it has.
 * A replica answering any other error (ENOSPC, EIO) was alive and
 * failed: the write fails with EAGAIN and the client retries; versions
 * tell the newest copy.
 *
 * With an MDS, "dead" is the MDS's word, not ours: a replica we cannot
 * reach is skipped only once the MDS counts it OFFLINE, for only then
 * does it stop serving (its lease, mds_link.c).  Until then the forward
 * is tried again (ds_call_until_out()).  Without one (a static cluster,
 * which promises nothing) a dead replica is skipped at once, and a
 * behind one too.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ds.h"

/* A connection to a peer; the last reference closes it. */
struct ds_link {
	struct aifs_conn *conn;
	int refs;
};

struct ds_peer {
	u32 id;
	u32 state;		/* enum aifs_ds_state in our map; 0: static */
	char host[NI_MAXHOST];
	char port[16];
	struct ds_link *link;	/* NULL until connected */
	u64 retry_at;		/* aifs_now_ms() before which it counts as dead */
};

/* Chunks whose last write a replica held UP refused, being behind. */
#define DS_BEHIND_MAX		256

struct ds_behind {
	struct aifs_chunk_id id;
	u32 replica;		/* 0: a free entry */
};

struct ds_peers {
	pthread_mutex_t lock;	/* the tables and every peer in them */
	struct ds_peer *tab;
	u32 nr;
	u32 cap;
	struct ds_behind behind[DS_BEHIND_MAX];
	u32 behind_next;	/* the entry the next note takes */
	atomic_uint behind_used;	/* entries in use: 0, no write looks */
};

static struct ds_peer *ds_peer_find(struct ds_peers *p, u32 id)
{
	u32 i;

	for (i = 0; i < p->nr; i++)
		if (p->tab[i].id == id)
			return &p->tab[i];
	return NULL;
}

/* Drop @n references to @link. */
static void ds_link_put(struct ds_link *link, int n)
{
	link->refs -= n;
	if (link->refs)
		return;
	aifs_close(link->conn);
	free(link);
}

/*
 * Add or move peer @id (the config's peers, state 0; the MDS's cluster
 * map, with the state it holds).  One that now serves may be the source
 * a held repair waits for: those are tried again at once.
 */
int ds_peer_set(struct ds *ds, u32 id, const char *host, const char *port,
		u32 state)
{
	struct ds_peers *p = ds->peers;
	struct ds_peer *peer, *tab;
	bool serves = state == AIFS_DS_UP || state == AIFS_DS_DRAINING;
	bool back;
	int err = 0;

	pthread_mutex_lock(&p->lock);
	peer = ds_peer_find(p, id);
	back = serves && (!peer || peer->state != state);
	if (peer)
		peer->state = state;
	if (peer && !strcmp(peer->host, host) && !strcmp(peer->port, port))
		goto out;
	if (!peer && p->nr == p->cap) {
		tab = realloc(p->tab, (p->cap * 2 + 8) * sizeof(*tab));
		if (!tab) {
			err = -ENOMEM;
			goto out;
		}
		p->tab = tab;
		p->cap = p->cap * 2 + 8;
	}
	if (!peer) {
		peer = &p->tab[p->nr++];
		*peer = (struct ds_peer){ .id = id, .state = state };
	}
	if (peer->link)
		ds_link_put(peer->link, 1);
	peer->link = NULL;
	peer->retry_at = 0;
	snprintf(peer->host, sizeof(peer->host), "%s", host);
	snprintf(peer->port, sizeof(peer->port), "%s", port);
out:
	pthread_mutex_unlock(&p->lock);
	if (back)
		ds_resync_retry_held(ds);
	return err;
}

/* peers = "2=10.0.0.2:7410, 3=[fd00::3]:7410" */
static int ds_peers_parse(struct ds *ds, const char *list)
{
	char *copy, *item, *save, host[NI_MAXHOST], port[16];
	unsigned int id;
	int n, err = 0;

	if (!strcmp(list, "none"))
		return 0;
	copy = strdup(list);
	if (!copy)
		return -ENOMEM;
	for (item = strtok_r(copy, ", \t", &save); item && !err;
	     item = strtok_r(NULL, ", \t", &save)) {
		n = 0;
		if (sscanf(item, "%u=%n", &id, &n) != 1 || !n || !id ||
		    aifs_parse_hostport(item + n, host, sizeof(host), port,
					sizeof(port))) {
			aifs_err("peers: '%s' is not id=host:port", item);
			err = -EINVAL;
		} else {
			err = ds_peer_set(ds, id, host, port, 0);
		}
	}
	free(copy);
	return err;
}

int ds_peers_init(struct ds *ds)
{
	ds->peers = calloc(1, sizeof(*ds->peers));
	if (!ds->peers)
		return -ENOMEM;
	pthread_mutex_init(&ds->peers->lock, NULL);
	return ds_peers_parse(ds, ds->cfg.peers);
}

void ds_peers_exit(struct ds *ds)
{
	struct ds_peers *p = ds->peers;
	u32 i;

	if (!p)
		return;
	for (i = 0; i < p->nr; i++)
		if (p->tab[i].link)
			ds_link_put(p->tab[i].link, 1);
	free(p->tab);
	pthread_mutex_destroy(&p->lock);
	free(p);
	ds->peers = NULL;
}

static int ds_link_open(struct ds *ds, const char *host, const char *port,
			struct ds_link **linkp)
{
	struct aifs_connect_opts opts = {
		.host = host, .port = port, .secret = &ds->secret,
		.role = AIFS_ROLE_DS, .timeout_ms = ds->cfg.replica_timeout_ms,
	};
	struct ds_link *link;
	int err;

	memcpy(opts.client_uuid, ds->ident.uuid, 16);
	link = calloc(1, sizeof(*link));
	if (!link)
		return -ENOMEM;
	err = aifs_connect(&opts, &link->conn);
	if (err) {
		free(link);
		return err;
	}
	link->refs = 1;
	*linkp = link;
	return 0;
}

/*
 * A reference to peer @id's connection, connecting if needed; @cached:
 * it was connected before (it may have broken since, unnoticed).
 */
static int ds_link_get(struct ds *ds, u32 id, struct ds_link **linkp,
		       bool *cached)
{
	struct ds_peers *p = ds->peers;
	char host[NI_MAXHOST], port[16];
	struct ds_link *link = NULL;
	struct ds_peer *peer;
	int err;

	pthread_mutex_lock(&p->lock);
	peer = ds_peer_find(p, id);
	err = !peer ? -ENXIO : peer->retry_at > aifs_now_ms() ? -EHOSTDOWN : 0;
	*cached = !err && peer->link;
	if (*cached) {
		peer->link->refs++;
		*linkp = peer->link;
		pthread_mutex_unlock(&p->lock);
		return 0;
	}
	if (!err) {
		snprintf(host, sizeof(host), "%s", peer->host);
		snprintf(port, sizeof(port), "%s", peer->port);
	}
	pthread_mutex_unlock(&p->lock);
	if (err)
		return err;

	/* Connect unlocked; a racing thread's connection wins. */
	err = ds_link_open(ds, host, port, &link);
	pthread_mutex_lock(&p->lock);
	peer = ds_peer_find(p, id);
	if (!err && peer && !peer->link) {
		peer->link = link;
		link->refs++;
	}
	if (err && peer)
		peer->retry_at = aifs_now_ms() + ds->cfg.peer_retry_ms;
	pthread_mutex_unlock(&p->lock);
	if (!err)
		*linkp = link;
	return err;
}

/*
 * Drop @link; after a failed call it is also cut from the peer, and with
 * @dead the peer counts as dead for peer_retry_ms.
 */
static void ds_link_done(struct ds *ds, u32 id, struct ds_link *link,
			 bool failed, bool dead)
{
	struct ds_peers *p = ds->peers;
	struct ds_peer *peer;
	int refs = 1;

	pthread_mutex_lock(&p->lock);
	peer = ds_peer_find(p, id);
	if (failed && peer && peer->link == link) {
		peer->link = NULL;
		refs++;
	}
	if (failed && dead && peer)
		peer->retry_at = aifs_now_ms() + ds->cfg.peer_retry_ms;
	ds_link_put(link, refs);
	pthread_mutex_unlock(&p->lock);
}

/*
 * One call to peer @id, bounded by replica_timeout_ms: 0 with a reply, or
 * a negative errno when none came (unknown peer -ENXIO, dead -EHOSTDOWN,
 * or what the connection said; @reply is empty then, as aifs_call()'s).
 */
int ds_peer_call(struct ds *ds, u32 id, u16 opcode, const struct iovec *iov,
		 int iovcnt, struct aifs_reply *reply)
{
	bool cached, again, retried = false;
	struct ds_link *link;
	int err;

	*reply = (struct aifs_reply){ 0 };
	do {
		err = ds_link_get(ds, id, &link, &cached);
		if (err)
			return err;
		err = aifs_call(link->conn, opcode, iov, iovcnt, reply,
				ds->cfg.replica_timeout_ms);
		/*
		 * A cached connection that broke while idle (the peer
		 * restarted) says nothing of the peer now: once more on a
		 * new one.  Requests to peers are idempotent (a forward of
		 * a version already held is acknowledged).
		 */
		again = err < 0 && err != -ETIMEDOUT && cached && !retried;
		ds_link_done(ds, id, link, err < 0, !again);
		retried = true;
	} while (again);
	return err;
}

/* One request of @len bytes at @req to peer @id; its status too as -errno. */
int ds_peer_ask(struct ds *ds, u32 id, u16 opcode, const void *req,
		size_t len, struct aifs_reply *reply)
{
	struct iovec iov = { (void *)req, len };
	int err = ds_peer_call(ds, id, opcode, &iov, 1, reply);

	return !err && reply->status ? -(int)reply->status : err;
}

/*
 * The forward to @target names the rest of the group from its point of
 * view, this server (the primary) first: where it resyncs from.
 */
static void ds_forward_group(struct aifs_chunk_write_req *fwd,
			     const struct aifs_chunk_write_req *req, u32 self,
			     u32 target)
{
	u32 i, n = 0;

	memset(fwd->replicas, 0, sizeof(fwd->replicas));
	if (self)
		fwd->replicas[n++] = cpu_to_le32(self);
	for (i = 0; i < le16_to_cpu(req->nr_replicas); i++)
		if (le32_to_cpu(req->replicas[i]) != target)
			fwd->replicas[n++] = req->replicas[i];
	fwd->nr_replicas = cpu_to_le16(n);
}

/* A forward to one replica, on a thread of its own but the first. */
struct ds_fwd {
	struct ds *ds;
	struct aifs_chunk_write_req req;
	const void *data;
	u32 target;
	pthread_t thread;
	bool threaded;
	int err;	/* 0: it has the write or is skipped; -ESTALE, -EAGAIN */
};

/* Whether peer @id is in the map in one of the @n states of @states. */
static bool ds_peer_in(struct ds *ds, u32 id, const u32 *states, int n)
{
	struct ds_peers *p = ds->peers;
	struct ds_peer *peer;
	bool in = false;
	int i;

	pthread_mutex_lock(&p->lock);
	peer = ds_peer_find(p, id);
	for (i = 0; peer && i < n; i++)
		in |= peer->state == states[i];
	pthread_mutex_unlock(&p->lock);
	return in;
}

/* Whether the MDS counts peer @id out (OFFLINE, RETIRED): it serves nothing. */
bool ds_peer_out(struct ds *ds, u32 id)
{
	static const u32 out[] = { AIFS_DS_OFFLINE, AIFS_DS_RETIRED };

	return ds_peer_in(ds, id, out, ARRAY_SIZE(out));
}

/*
 * Whether peer @id can lead no write now: out, or SYNCING (it serves
 * nothing until it caught up, and it got there through OFFLINE, when its
 * lease ended: no write of its own is in flight).  It still takes
 * forwards.
 */
bool ds_peer_leads_nothing(struct ds *ds, u32 id)
{
	static const u32 idle[] = {
		AIFS_DS_OFFLINE, AIFS_DS_RETIRED, AIFS_DS_SYNCING,
	};

	return ds_peer_in(ds, id, idle, ARRAY_SIZE(idle));
}

#define DS_FWD_RETRY_MS		100

/*
 * A peer we cannot reach (@err): without an MDS it is dead for this
 * write.  With one, the write goes on without it only once the MDS
 * counts it OFFLINE: a copy that missed an acknowledged write must not
 * serve, and it stops when its lease ends, as the MDS counts it out.
 * Until then, for at most the MDS's grace and three heartbeats, the
 * call is tried again and the map refreshed: the peer's answer or its
 * OFFLINE ends the wait; else -EAGAIN (the write fails, the client tries
 * again).
 */
static int ds_call_until_out(struct ds *ds, u32 id, u16 opcode,
			     const struct iovec *iov, int iovcnt,
			     struct aifs_reply *reply, int err)
{
	u32 wait = ds_mds_out_wait_ms(ds);
	u64 until = aifs_now_ms() + wait;

	if (!wait)
		return err;
	aifs_warn("data server %u: %s: the write waits until it answers or the MDS counts it out",
		  id, strerror(-err));
	while (err < 0 && err != -ENXIO && !ds_peer_out(ds, id)) {
		if (aifs_now_ms() > until) {
			aifs_err("data server %u: neither answers nor is counted out after %u ms: write refused",
				 id, wait);
			return -EAGAIN;
		}
		ds_mds_refresh(ds);
		usleep(DS_FWD_RETRY_MS * 1000);
		err = ds_peer_call(ds, id, opcode, iov, iovcnt, reply);
	}
	return err;
}

/*
 * A write to peer @id that must reach it unless it is out: 0 with its
 * reply; else as ds_peer_call(), -EAGAIN when it neither answered nor was
 * counted out in time.
 */
int ds_peer_write(struct ds *ds, u32 id, u16 opcode, const struct iovec *iov,
		  int iovcnt, struct aifs_reply *reply)
{
	int err = ds_peer_call(ds, id, opcode, iov, iovcnt, reply);

	if (err < 0 && err != -ENXIO && !ds_peer_out(ds, id))
		err = ds_call_until_out(ds, id, opcode, iov, iovcnt, reply,
					err);
	return err;
}

/*
 * Replica @id answered ESTALE: it found a version gap, marked its copy
 * stale (durably, with the version it must reach) and pulls the chunk;
 * it lacks the write.  One our map holds SYNCING or out is recorded by
 * the MDS as a copy caught up whole before it serves: skipped (0).  One
 * held UP is recorded nowhere, and the write would rest on fewer copies
 * than its layout's: -ESTALE.  The client goes round again (100 ms
 * apart, up to its timeo; the next member does not lead meanwhile,
 * ds_ahead_out()) while the replica pulls from us, who hold the version;
 * not EAGAIN, tried ten times in half a second, less than a pull may
 * take.  Our map may be behind, the replica SYNCING already: fetched,
 * for the next round.  A static cluster records nothing and skips a dead
 * replica at once: a behind one too, which serves nothing until it
 * caught up (its stale mark).
 */
static int ds_forward_behind(struct ds *ds, u32 id)
{
	if (!ds_mds_out_wait_ms(ds) || ds_peer_leads_nothing(ds, id)) {
		aifs_info("replica %u is behind: skipped while it resyncs", id);
		return 0;
	}
	aifs_info("replica %u is behind: write refused while it resyncs, map refreshed",
		  id);
	ds_mds_refresh(ds);
	return -ESTALE;
}

/* The note of replica @replica behind on chunk @id, or NULL.  Lock held. */
static struct ds_behind *ds_behind_find(struct ds_peers *p,
					const struct aifs_chunk_id *id,
					u32 replica)
{
	u32 i;

	for (i = 0; i < DS_BEHIND_MAX; i++)
		if (p->behind[i].replica == replica &&
		    !memcmp(&p->behind[i].id, id, sizeof(*id)))
			return &p->behind[i];
	return NULL;
}

/*
 * Replica @replica refused a write of chunk @id, being behind: until it
 * has caught up, the chunk's writes are refused before they are applied
 * here (ds_replicas_caught_up()).  A full table forgets its oldest note:
 * that chunk's next write is applied and forwarded, and refused again.
 */
static void ds_behind_note(struct ds *ds, const struct aifs_chunk_id *id,
			   u32 replica)
{
	struct ds_peers *p = ds->peers;

	pthread_mutex_lock(&p->lock);
	if (!ds_behind_find(p, id, replica)) {
		if (!p->behind[p->behind_next].replica)
			atomic_fetch_add(&p->behind_used, 1);
		p->behind[p->behind_next] = (struct ds_behind){ *id, replica };
		p->behind_next = (p->behind_next + 1) % DS_BEHIND_MAX;
	}
	pthread_mutex_unlock(&p->lock);
}

/* Whether replica @replica was behind on chunk @id; the note dropped. */
static bool ds_behind_take(struct ds *ds, const struct aifs_chunk_id *id,
			   u32 replica)
{
	struct ds_peers *p = ds->peers;
	struct ds_behind *b;

	pthread_mutex_lock(&p->lock);
	b = ds_behind_find(p, id, replica);
	if (b) {
		b->replica = 0;
		atomic_fetch_sub(&p->behind_used, 1);
	}
	pthread_mutex_unlock(&p->lock);
	return b;
}

/*
 * Whether replica @id serves chunk @cid at @version or later now: a read
 * of its first byte at that version, which a copy behind answers ESTALE
 * (and pulls the chunk, if it does not already).  -ESTALE, else 0: it
 * does, it has no such chunk, it cannot be reached, or it serves nothing
 * now (which the forward deals with, as for any write).
 */
static int ds_replica_probe(struct ds *ds, u32 id,
			    const struct aifs_chunk_id *cid, u64 version)
{
	struct aifs_chunk_read_req req = {
		.id = *cid,
		.version = cpu_to_le64(version),
		.length = cpu_to_le32(1),
	};
	struct aifs_reply reply;
	int err;

	err = ds_peer_ask(ds, id, AIFS_OP_CHUNK_READ, &req, sizeof(req),
			  &reply);
	aifs_reply_free(&reply);
	return err == -ESTALE && !ds_peer_leads_nothing(ds, id) ? -ESTALE : 0;
}

/**
 * ds_replicas_caught_up - may a write of @req's chunk be applied here?
 * @ds: this server, the chunk's primary
 * @req: the write, its replicas the group
 * @version: the version this server holds
 *
 * A replica that refused the chunk's last write, being behind, pulls the
 * chunk from us; a write applied here meanwhile would be one version
 * more that its pull, once done, is behind again, and a pull slower than
 * the client's rounds would never end.  Such a replica is asked first
 * whether it has caught up; until it has, the write is refused untouched.
 *
 * Return: 0, or -ESTALE (the client goes round again, as when the
 * forward is refused).
 */
int ds_replicas_caught_up(struct ds *ds, const struct aifs_chunk_write_req *req,
			  u64 version)
{
	u32 i, id;

	/* the common case, a write whose replicas all kept up: no lock */
	if (!atomic_load(&ds->peers->behind_used))
		return 0;
	for (i = 0; i < le16_to_cpu(req->nr_replicas); i++) {
		id = le32_to_cpu(req->replicas[i]);
		if (!ds_behind_take(ds, &req->id, id) ||
		    !ds_replica_probe(ds, id, &req->id, version))
			continue;
		ds_behind_note(ds, &req->id, id);
		return -ESTALE;
	}
	return 0;
}

static void ds_forward_one(struct ds_fwd *f)
{
	u32 len = le32_to_cpu(f->req.data_len);
	struct aifs_span part = { NULL, len };
	struct aifs_reply reply = { 0 };
	u8 head[AIFS_CHUNK_WRITE_REQ_SIZE];
	struct iovec iov[2];
	int err;

	f->req.data_len = 0;	/* the encoder sets it */
	err = aifs_encode_chunk_forward_req(head, sizeof(head), &f->req, &part);
	if (err < 0) {
		f->err = err;
		return;
	}
	iov[0] = (struct iovec){ head, sizeof(head) };
	iov[1] = (struct iovec){ (void *)f->data, len };
	err = ds_peer_write(f->ds, f->target, AIFS_OP_CHUNK_FORWARD, iov, 2,
			    &reply);
	if (err == -EAGAIN) {
		f->err = err;
		return;
	}
	if (err == -ENXIO) {
		aifs_info("replica %u is not in our map yet: write refused, map refreshed",
			  f->target);
		ds_mds_refresh(f->ds);
		f->err = -EAGAIN;
		return;
	}
	if (err < 0) {
		/* Said once when it goes; then it is down until retry_at. */
		aifs_log(err == -EHOSTDOWN ? AIFS_LOG_DEBUG : AIFS_LOG_WARN,
			 "replica %u: %s: skipped, it resyncs when back",
			 f->target, strerror(-err));
		return;
	}
	err = reply.status;
	aifs_reply_free(&reply);
	if (err == ESTALE) {
		f->err = ds_forward_behind(f->ds, f->target);
		if (f->err)
			ds_behind_note(f->ds, &f->req.id, f->target);
		return;
	}
	if (err == EEXIST) {
		aifs_warn("replica %u holds chunk %llx.%x newer than we do: our copy takes its",
			  f->target,
			  (unsigned long long)le64_to_cpu(f->req.id.ino),
			  le32_to_cpu(f->req.id.index));
		f->err = -EEXIST;
		return;
	}
	if (err)
		aifs_warn("replica %u failed the write: %s", f->target,
			  strerror(err));
	f->err = err ? -EAGAIN : 0;
}

static void *ds_forward_thread(void *arg)
{
	ds_forward_one(arg);
	return NULL;
}

/*
 * The FORWARD of @req at @version: the data it came with goes after it,
 * whether the client sent it or lent it by RDMA (a replica never fetches).
 */
static void ds_forward_req(struct aifs_chunk_write_req *fwd,
			   const struct aifs_chunk_write_req *req,
			   const struct aifs_span *data, u64 version)
{
	*fwd = *req;
	fwd->version = cpu_to_le64(version);
	fwd->ahead = 0;
	if (le32_to_cpu(req->flags) & AIFS_IO_RDMA) {
		fwd->flags = cpu_to_le32(le32_to_cpu(req->flags) &
					 ~AIFS_IO_RDMA);
		memset(&fwd->rdma, 0, sizeof(fwd->rdma));
	}
	fwd->data_len = cpu_to_le32(data->len);
}

/*
 * Forward to every replica at once, each on a thread of its own (the
 * first on ours): a write waits for the slowest replica, not for the sum
 * of them.  A thread that cannot be had is a forward made in turn.
 * -EEXIST when a replica holds the chunk newer than we do (our copy is
 * behind it, or lost: the id of the first such replica in *@ahead), else
 * -ESTALE when a replica is behind (the client goes round until it
 * caught up), else -EAGAIN when one failed.
 */
int ds_forward(struct ds *ds, const struct aifs_chunk_write_req *req,
	       const struct aifs_span *data, u64 version, u32 *ahead)
{
	u32 nr = le16_to_cpu(req->nr_replicas), self = ds_self_id(ds), i;
	struct ds_fwd fwd[AIFS_MAX_REPLICAS];
	int err = 0;

	for (i = 0; i < nr; i++) {
		fwd[i] = (struct ds_fwd){
			.ds = ds, .data = data->data,
			.target = le32_to_cpu(req->replicas[i]),
		};
		ds_forward_req(&fwd[i].req, req, data, version);
		ds_forward_group(&fwd[i].req, req, self, fwd[i].target);
		fwd[i].threaded = i && !pthread_create(&fwd[i].thread, NULL,
						       ds_forward_thread,
						       &fwd[i]);
	}
	for (i = 0; i < nr; i++) {
		if (fwd[i].threaded)
			pthread_join(fwd[i].thread, NULL);
		else
			ds_forward_one(&fwd[i]);
		if (fwd[i].err == -EEXIST && err != -EEXIST) {
			*ahead = fwd[i].target;
			err = -EEXIST;
		} else if (fwd[i].err == -ESTALE && err != -EEXIST) {
			err = -ESTALE;
		} else if (fwd[i].err && !err) {
			err = -EAGAIN;
		}
		atomic_fetch_add(&ds->forwards, 1);
		atomic_fetch_add(&ds->forwards_refused, !!fwd[i].err);
	}
	return err;
}
