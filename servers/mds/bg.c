// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The MDS's background threads that talk to the data servers (the chunk
 * queue's drainer, recovery): one thread each, woken by a kick or a
 * period, stopped before the writer, with the cluster secret for their
 * connections.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "mds.h"

#define MDS_DS_CONNECT_MS	5000	/* connect and handshake */

int mds_bg_start(struct mds_bg *bg, struct mds *mds, void *(*fn)(void *),
		 void *arg)
{
	pthread_condattr_t attr;
	char why[256];
	int err;

	err = aifs_secret_load(&bg->secret, mds->cfg->server.secret_file, why,
			       sizeof(why));
	if (err) {
		aifs_err("%s", why);
		return err;
	}
	bg->mds = mds;
	pthread_mutex_init(&bg->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&bg->wake, &attr);
	pthread_condattr_destroy(&attr);
	err = -pthread_create(&bg->thread, NULL, fn, arg);
	if (err) {
		aifs_secret_wipe(&bg->secret);
		pthread_cond_destroy(&bg->wake);
		pthread_mutex_destroy(&bg->lock);
	}
	return err;
}

void mds_bg_kick(struct mds_bg *bg)
{
	pthread_mutex_lock(&bg->lock);
	bg->kicked = true;
	pthread_cond_signal(&bg->wake);
	pthread_mutex_unlock(&bg->lock);
}

bool mds_bg_wait(struct mds_bg *bg, unsigned int ms)
{
	struct timespec until;
	bool stop;

	aifs_time_after_ms(CLOCK_MONOTONIC, ms, &until);
	pthread_mutex_lock(&bg->lock);
	while (!bg->stop && !bg->kicked &&
	       pthread_cond_timedwait(&bg->wake, &bg->lock, &until) != ETIMEDOUT)
		;
	bg->kicked = false;
	stop = bg->stop;
	pthread_mutex_unlock(&bg->lock);
	return stop;
}

bool mds_bg_stopping(struct mds_bg *bg)
{
	bool stop;

	pthread_mutex_lock(&bg->lock);
	stop = bg->stop;
	pthread_mutex_unlock(&bg->lock);
	return stop;
}

void mds_bg_stop(struct mds_bg *bg)
{
	pthread_mutex_lock(&bg->lock);
	bg->stop = true;
	pthread_cond_signal(&bg->wake);
	pthread_mutex_unlock(&bg->lock);
	pthread_join(bg->thread, NULL);
	aifs_secret_wipe(&bg->secret);
	pthread_cond_destroy(&bg->wake);
	pthread_mutex_destroy(&bg->lock);
}

/*
 * A connection as the MDS (role MDS, the cluster secret @secret) to the
 * data server at @addr, its address in the map; calls time out after
 * @call_ms.
 */
int mds_ds_connect(struct mds *mds, const struct aifs_secret *secret,
		   const struct aifs_addr *addr, int call_ms,
		   struct aifs_conn **conn)
{
	char host[INET6_ADDRSTRLEN], port[8];
	struct aifs_connect_opts opts = {
		.host = host, .port = port, .secret = secret,
		.role = AIFS_ROLE_MDS, .timeout_ms = MDS_DS_CONNECT_MS,
		.call_timeout_ms = call_ms,
	};
	if (aifs_wire_addr_host(addr, host, sizeof(host), port, sizeof(port)))
		return -EINVAL;
	memcpy(opts.client_uuid, mds->super.uuid, 16);
	return aifs_connect(&opts, conn);
}

void mds_dsconn_close(struct mds_dsconn *c)
{
	if (c->conn)
		aifs_close(c->conn);
	c->conn = NULL;
}

bool mds_dsconn_failed(struct mds_dsconn *c)
{
	bool first = !c->backoff_ms;

	mds_dsconn_close(c);
	c->backoff_ms = c->backoff_ms ? 2 * c->backoff_ms :
					MDS_DSCONN_BACKOFF_MIN_MS;
	if (c->backoff_ms > MDS_DSCONN_BACKOFF_MAX_MS)
		c->backoff_ms = MDS_DSCONN_BACKOFF_MAX_MS;
	c->retry_at = aifs_now_ms() + c->backoff_ms;
	return first;
}

/*
 * A server's map entry gets a new epoch when it registers (a new
 * process, one that has forgotten our session, or one at a new address:
 * the address comes only with a registration) and when its state
 * changes: the old connection would fail the next call, which then waits
 * out a backoff, so it goes.  A reconnection on a change of state is
 * cheap.
 */
int mds_dsconn_connect(struct mds_bg *bg, struct mds_dsconn *c,
		       const struct aifs_ds_info *info, int call_ms)
{
	if (c->conn && c->epoch == le64_to_cpu(info->epoch))
		return 0;
	mds_dsconn_close(c);
	c->epoch = le64_to_cpu(info->epoch);
	return mds_ds_connect(bg->mds, &bg->secret, &info->addr, call_ms,
			      &c->conn);
}

struct mds_dsconn *mds_dsconns_get(struct mds_dsconns *s, u32 id)
{
	struct mds_dsconn *grown;
	unsigned int i;

	for (i = 0; i < s->nr; i++)
		if (s->c[i].id == id)
			return &s->c[i];
	grown = realloc(s->c, (s->nr + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	s->c = grown;
	s->c[s->nr] = (struct mds_dsconn){ .id = id };
	return &s->c[s->nr++];
}

void mds_dsconns_close(struct mds_dsconns *s)
{
	unsigned int i;

	for (i = 0; i < s->nr; i++)
		mds_dsconn_close(&s->c[i]);
	free(s->c);
	*s = (struct mds_dsconns){ NULL, 0 };
}

int mds_ds_call(struct aifs_conn *conn, u16 opcode, const void *req,
		size_t len, int call_ms, struct aifs_reply *reply)
{
	struct iovec iov = { (void *)req, len };
	int err;

	err = aifs_call(conn, opcode, &iov, 1, reply, call_ms);
	if (!err && reply->status) {
		err = -(int)reply->status;
		aifs_reply_free(reply);
	}
	return err;
}

int mds_chunk_sync(struct mds *mds, struct aifs_conn *conn, u64 ino,
		   const struct aifs_layout *layout, u32 from, u32 flags,
		   int call_ms, struct aifs_chunk_sync_rep *rep)
{
	struct aifs_chunk_sync_req req = {
		.id.ino = cpu_to_le64(ino),
		.id.index = cpu_to_le32(from),
		.max = cpu_to_le32(MDS_SYNC_RANGE),
		.flags = cpu_to_le32(flags),
		.layout = *layout,
	};
	struct aifs_reply reply;
	int err;

	memcpy(req.id.fs_uuid, mds->super.uuid, sizeof(req.id.fs_uuid));
	err = mds_ds_call(conn, AIFS_OP_CHUNK_SYNC, &req, sizeof(req), call_ms,
			  &reply);
	if (err)
		return err;
	err = aifs_decode_chunk_sync_rep(reply.payload, reply.len, rep, NULL);
	aifs_reply_free(&reply);
	return err;
}

int mds_chunk_sync_all(struct mds *mds, struct aifs_conn *conn, u64 ino,
		       const struct aifs_layout *layout, int call_ms,
		       struct mds_sync_tally *tally)
{
	struct aifs_chunk_sync_rep rep;
	u32 from = 0, next, restarts = 0;
	int err;

	for (;;) {
		err = mds_chunk_sync(mds, conn, ino, layout, from, 0, call_ms,
				     &rep);
		if (err)
			return err;
		tally->copied += le32_to_cpu(rep.copied);
		tally->deleted += le32_to_cpu(rep.deleted);
		next = le32_to_cpu(rep.next);
		if (next == AIFS_CHUNK_SYNC_DONE)
			return 0;
		/* a truncation came between two ranges: the pass again */
		if (!next && from && restarts++ < MDS_SYNC_RESTARTS) {
			from = 0;
			continue;
		}
		if (next <= from && !rep.copied && !rep.deleted)
			return -EAGAIN;	/* a peer cannot give it yet */
		from = next;
	}
}
