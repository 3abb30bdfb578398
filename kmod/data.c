// SPDX-License-Identifier: GPL-2.0
/*
 * aifs - connections to the data servers.
 *
 * A mount keeps one authenticated connection per data server it has read
 * from, created on demand from the cluster map (MAP_GET on the session).
 * Servers are found by id in an xarray of struct aifs_ds; an entry is
 * never freed before umount, so a reader may hold its pointer without a
 * reference. A connection that failed is not freed either while readers
 * may still use it: it moves to a list of dead connections, closed at
 * umount, and the next request reconnects (after a fresh map, in case the
 * server moved). A server that refused a connection, did not answer in
 * time or broke the protocol is left alone for timeo, so that a dead or
 * hostile replica costs one attempt, not one per request; one that closed
 * the connection (restarted) is reconnected at once.
 *
 * The sub-requests of reads and the runs of writeback run on the mount's
 * own workqueue (with a rescuer: writeback must progress when memory is
 * short), at most max_inflight at once, and outlive the task that started
 * them: umount first fails every connection and stops new ones
 * (@closing), then drains the workqueue (before the superblock goes: a
 * read or a write holds its inode), and only then frees.
 */
#define pr_fmt(fmt) "aifs: " fmt

#include <crypto/hash.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>

#include "internal.h"
#include "transport.h"

/**
 * struct aifs_ds - a data server of the cluster map
 * @id: its id
 * @lock: serialises connecting and the fields below
 * @addr: where it listens, from the map
 * @conn: the connection, NULL until the first request
 * @retry_after: jiffies before which no new connect is tried
 * @epoch: the map epoch at which its entry last changed, as last seen
 * @dialed: a connection was made before: the next one is a reconnection
 */
struct aifs_ds {
	u32 id;
	struct mutex lock;		/* guards connecting */
	struct sockaddr_storage addr;
	struct aifs_conn *conn;
	unsigned long retry_after;
	u64 epoch;
	bool dialed;
};

/* A failed connection kept until umount: readers may still hold it. */
struct aifs_dead_conn {
	struct list_head list;
	struct aifs_conn *conn;
};

static void aifs_data_refresh_work(struct work_struct *work)
{
	struct aifs_fs_info *fsi = container_of(work, struct aifs_fs_info,
						data.refresh);

	/*
	 * A failure leaves the old map: the next newer epoch tries again, and
	 * so does a read that finds an unknown server or a failed connection.
	 */
	aifs_data_refresh_map(fsi);
}

/**
 * aifs_data_init - set up a mount's data server table
 * @fsi: the mount
 * @net: network namespace its connections live in
 *
 * Return: 0 or -ENOMEM.
 */
int aifs_data_init(struct aifs_fs_info *fsi, struct net *net)
{
	struct aifs_data *d = &fsi->data;

	d->wq = alloc_workqueue("aifs-io", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!d->wq)
		return -ENOMEM;
	aifs_data_set_inflight(fsi);
	xa_init(&d->servers);
	mutex_init(&d->map_lock);
	spin_lock_init(&d->dead_lock);
	INIT_LIST_HEAD(&d->dead);
	INIT_WORK(&d->refresh, aifs_data_refresh_work);
	d->net = get_net(net);
	return 0;
}

/**
 * aifs_data_set_inflight - let max_inflight reads and writes run at once
 * @fsi: the mount, whose max_inflight is set or just changed
 */
void aifs_data_set_inflight(struct aifs_fs_info *fsi)
{
	u32 max = aifs_get_uint(&fsi->opts, AIFS_OPT_MAX_INFLIGHT);

	/* above its limit the workqueue clamps, and says so in the log */
	workqueue_set_max_active(fsi->data.wq,
				 min_t(u32, max, WQ_UNBOUND_MAX_ACTIVE));
}

/* Fail the calls on every data server connection with @err. */
static void aifs_data_fail_all(struct aifs_data *d, int err)
{
	struct aifs_ds *ds;
	unsigned long id;

	xa_for_each(&d->servers, id, ds) {
		mutex_lock(&ds->lock);
		if (ds->conn)
			aifs_conn_fail(ds->conn, err);
		mutex_unlock(&ds->lock);
	}
}

/**
 * aifs_data_shutdown - end the reads of a mount that goes away
 * @fsi: the mount; no reading task runs any more, but sub-requests may
 *
 * Reads outlive their readers, and a read holds its inode: umount calls
 * this before the superblock's inodes go. Safe to call more than once.
 */
void aifs_data_shutdown(struct aifs_fs_info *fsi)
{
	struct aifs_data *d = &fsi->data;

	if (!d->net)
		return;
	/*
	 * End the calls of the sub-requests and keep them from connecting
	 * again (they look at @closing under ds->lock), then wait for them.
	 * The session closes too: end a MAP_GET in flight at once rather
	 * than wait for it, bounded only by timeo, on a dead server.
	 */
	WRITE_ONCE(d->closing, true);
	aifs_session_shutdown(fsi);
	cancel_work_sync(&d->refresh);
	aifs_data_fail_all(d, -ESHUTDOWN);
	flush_workqueue(d->wq);
}

/**
 * aifs_data_abort - fail the calls in flight to data servers (umount -f)
 * @fsi: the mount
 *
 * Their connections are failed with -EIO; the next call dials again.
 */
void aifs_data_abort(struct aifs_fs_info *fsi)
{
	if (fsi->data.net)
		aifs_data_fail_all(&fsi->data, -EIO);
}

/**
 * aifs_data_close - close every data server connection of a mount
 * @fsi: the mount
 */
void aifs_data_close(struct aifs_fs_info *fsi)
{
	struct aifs_data *d = &fsi->data;
	struct aifs_dead_conn *dc, *tmp;
	struct aifs_ds *ds;
	unsigned long id;

	if (!d->net)
		return;
	aifs_data_shutdown(fsi);
	destroy_workqueue(d->wq);
	xa_for_each(&d->servers, id, ds) {
		aifs_conn_close(ds->conn);
		kfree(ds);
	}
	xa_destroy(&d->servers);
	list_for_each_entry_safe(dc, tmp, &d->dead, list) {
		aifs_conn_close(dc->conn);
		kfree(dc);
	}
	put_net(d->net);
	d->net = NULL;
}

static int aifs_addr_from_wire(struct sockaddr_storage *ss,
			       const struct aifs_addr *a)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	switch (le16_to_cpu(a->family)) {
	case AIFS_AF_INET:
		sin->sin_family = AF_INET;
		sin->sin_port = htons(le16_to_cpu(a->port));
		memcpy(&sin->sin_addr, a->addr, 4);
		return 0;
	case AIFS_AF_INET6:
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(le16_to_cpu(a->port));
		sin6->sin6_scope_id = le32_to_cpu(a->scope_id);
		memcpy(&sin6->sin6_addr, a->addr, 16);
		return 0;
	}
	return -EPROTO;
}

/* Add or update the entry of one server of the map. */
static int aifs_data_learn(struct aifs_data *d, const struct aifs_ds_info *info)
{
	u32 id = le32_to_cpu(info->id);
	struct sockaddr_storage addr;
	struct aifs_ds *ds;
	int err;

	if (!id || aifs_addr_from_wire(&addr, &info->addr))
		return -EPROTO;
	ds = xa_load(&d->servers, id);
	if (!ds) {
		ds = kzalloc(sizeof(*ds), GFP_NOFS);
		if (!ds)
			return -ENOMEM;
		ds->id = id;
		ds->addr = addr;
		ds->epoch = le64_to_cpu(info->epoch);
		mutex_init(&ds->lock);
		/* whole before it is found: aifs_data_conn() does not wait */
		err = xa_insert(&d->servers, id, ds, GFP_NOFS);
		if (err)
			kfree(ds);
		return err;
	}
	mutex_lock(&ds->lock);
	ds->addr = addr;
	/* serving again since we looked: no longer left alone */
	if (le64_to_cpu(info->epoch) != ds->epoch &&
	    (le32_to_cpu(info->state) == AIFS_DS_UP ||
	     le32_to_cpu(info->state) == AIFS_DS_DRAINING))
		ds->retry_after = jiffies;
	ds->epoch = le64_to_cpu(info->epoch);
	mutex_unlock(&ds->lock);
	return 0;
}

/* MAP_GET on the session; the caller holds map_lock. */
static int aifs_data_fetch_map(struct aifs_fs_info *fsi)
{
	const u32 max = AIFS_MAP_REP_SIZE + AIFS_MAP_MAX_DS * AIFS_DS_INFO_SIZE;
	struct aifs_map_get_req req = { .epoch = 0 };
	struct aifs_span parts[AIFS_MSG_MAX_PARTS] = {};
	u8 wire[AIFS_MAP_GET_REQ_SIZE];
	const struct aifs_ds_info *info;
	struct aifs_map_rep rep;
	u32 i, count;
	u64 start;
	void *buf;
	int ret;

	ret = aifs_msg_encode(AIFS_OP_MAP_GET, false, wire, sizeof(wire), &req,
			      sizeof(req), NULL);
	if (ret < 0)
		return -EINVAL;
	buf = kvmalloc(max, GFP_NOFS);
	if (!buf)
		return -ENOMEM;
	start = ktime_get_ns();
	ret = aifs_session_call(fsi, AIFS_OP_MAP_GET, wire, sizeof(wire), buf,
				max, false);
	aifs_stats_call(fsi, AIFS_PEER_MDS, AIFS_OP_MAP_GET, sizeof(wire), ret,
			start);
	if (ret < 0)
		goto out;
	ret = aifs_msg_decode(AIFS_OP_MAP_GET, true, buf, ret, &rep,
			      sizeof(rep), parts);
	if (ret) {
		ret = -EIO;
		goto out;
	}
	count = le32_to_cpu(rep.count);
	info = parts[0].data;
	for (i = 0; i < count && !ret; i++)
		ret = aifs_data_learn(&fsi->data, &info[i]);
	/* aifs_data_map_seen() reads it without the lock */
	WRITE_ONCE(fsi->data.epoch, le64_to_cpu(rep.epoch));
	aifs_stat_add(fsi, AIFS_C_MAP_REFRESHES, 1);
out:
	kvfree(buf);
	return ret;
}

/**
 * aifs_data_refresh_map - fetch the cluster map again
 * @fsi: the mount
 *
 * Return: 0, -EINTR for a killed caller, or a negative errno of MAP_GET.
 */
int aifs_data_refresh_map(struct aifs_fs_info *fsi)
{
	int ret;

	if (mutex_lock_killable(&fsi->data.map_lock))
		return -EINTR;
	ret = aifs_data_fetch_map(fsi);
	mutex_unlock(&fsi->data.map_lock);
	return ret;
}

/**
 * aifs_data_map_seen - a reply announced the cluster map's epoch
 * @fsi: the mount
 * @epoch: the epoch in the reply's header
 *
 * When the map the mount has is older, fetch it again in the background,
 * so that a server that was added, moved or marked offline or draining is
 * known before a request fails on it. At most one refresh runs at a time
 * (a work item never runs twice at once), and a server that announces an
 * epoch its own map never reaches triggers one refresh, not one per
 * reply. A mount that has no map yet fetches it at its first read.
 */
void aifs_data_map_seen(struct aifs_fs_info *fsi, u64 epoch)
{
	struct aifs_data *d = &fsi->data;
	u64 have = READ_ONCE(d->epoch);

	if (!have || epoch <= have || epoch <= READ_ONCE(d->wanted))
		return;
	WRITE_ONCE(d->wanted, epoch);
	queue_work(system_unbound_wq, &d->refresh);
}

static void aifs_data_bury(struct aifs_data *d, struct aifs_conn *conn)
{
	struct aifs_dead_conn *dc = kmalloc(sizeof(*dc), GFP_NOFS | __GFP_NOFAIL);

	dc->conn = conn;
	spin_lock(&d->dead_lock);
	list_add(&dc->list, &d->dead);
	spin_unlock(&d->dead_lock);
}

/* Connect to @ds and authenticate with the mount's secret. */
static struct aifs_conn *aifs_data_connect(struct aifs_fs_info *fsi,
					   struct aifs_ds *ds)
{
	struct p_log log = { .prefix = "aifs" };
	unsigned long timeout = aifs_timeo_jiffies(&fsi->opts);
	const char *secret = fsi->opts.secret;
	struct crypto_shash *hmac;
	struct aifs_handshake hs;
	struct aifs_conn *conn;
	int err;

	hmac = crypto_alloc_shash("hmac(sha256)", 0, 0);
	if (IS_ERR(hmac))
		return ERR_CAST(hmac);
	err = crypto_shash_setkey(hmac, secret, strlen(secret));
	if (err)
		goto out_hmac;
	conn = aifs_conn_open(fsi->data.net, &ds->addr,
			      aifs_transport_get(fsi->transport), timeout);
	/* transport=auto: a data server without RDMA still serves over TCP */
	if (IS_ERR(conn) && aifs_transport_fallback(fsi, PTR_ERR(conn)))
		conn = aifs_conn_open(fsi->data.net, &ds->addr,
				      &aifs_tcp_transport, timeout);
	if (IS_ERR(conn)) {
		err = PTR_ERR(conn);
		goto out_hmac;
	}
	/*
	 * A data server's HELLO may carry no file system uuid; it checks
	 * the one of every chunk id instead (EXDEV).
	 */
	err = aifs_handshake(conn, &log, hmac, &hs, timeout);
	if (err)
		aifs_conn_close(conn);
out_hmac:
	crypto_free_shash(hmac);
	return err ? ERR_PTR(err) : conn;
}

/*
 * Bury a failed connection; unless only its link broke (the server
 * closed it as one that restarted does, an RDMA completion failed), leave
 * the server alone for timeo. The caller holds ds->lock.
 */
static void aifs_data_drop(struct aifs_fs_info *fsi, struct aifs_ds *ds,
			   int err)
{
	if (!aifs_conn_broke(ds->conn, err))
		ds->retry_after = jiffies + aifs_timeo_jiffies(&fsi->opts);
	aifs_data_bury(&fsi->data, ds->conn);
	ds->conn = NULL;
}

/* A new connection to @ds, unless it is left alone. Holds ds->lock. */
static struct aifs_conn *aifs_data_reconnect(struct aifs_fs_info *fsi,
					     struct aifs_ds *ds)
{
	struct aifs_conn *conn;

	if (time_before(jiffies, ds->retry_after))
		return ERR_PTR(-EHOSTDOWN);
	conn = aifs_data_connect(fsi, ds);
	if (IS_ERR(conn)) {
		pr_warn_ratelimited("data server %u at %pISpc: %pe\n",
				    ds->id, &ds->addr, conn);
		ds->retry_after = jiffies + aifs_timeo_jiffies(&fsi->opts);
		return conn;
	}
	if (ds->dialed)
		aifs_stat_add(fsi, AIFS_C_RECONNECTS, 1);
	ds->dialed = true;
	ds->conn = conn;
	return conn;
}

/**
 * aifs_data_conn - the connection to a data server, opened if need be
 * @fsi: the mount
 * @id: the server's id, from a layout
 *
 * The connection stays valid until umount, even after it failed.
 *
 * Return: the connection, or an ERR_PTR: -ENOENT for an id the map does
 * not know, -EHOSTDOWN while a failed server is left alone, -ESHUTDOWN
 * while the mount goes away, -EINTR for a killed caller, or the error of
 * connecting.
 */
struct aifs_conn *aifs_data_conn(struct aifs_fs_info *fsi, u32 id)
{
	struct aifs_data *d = &fsi->data;
	struct aifs_conn *conn;
	struct aifs_ds *ds;
	int err;

	ds = xa_load(&d->servers, id);
	if (!ds && !aifs_data_refresh_map(fsi))
		ds = xa_load(&d->servers, id);
	if (!ds)
		return ERR_PTR(-ENOENT);

	if (mutex_lock_killable(&ds->lock))
		return ERR_PTR(-EINTR);
	err = ds->conn ? aifs_conn_error(ds->conn) : 0;
	if (err) {
		aifs_data_drop(fsi, ds, err);
		/* it may have moved: the next connect uses a fresh map */
		mutex_unlock(&ds->lock);
		aifs_data_refresh_map(fsi);
		if (mutex_lock_killable(&ds->lock))
			return ERR_PTR(-EINTR);
	}
	if (READ_ONCE(d->closing))
		conn = ERR_PTR(-ESHUTDOWN);
	else
		conn = ds->conn ?: aifs_data_reconnect(fsi, ds);
	mutex_unlock(&ds->lock);
	return conn;
}
