// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The data handlers: CHUNK_READ, WRITE, FORWARD, TRUNCATE, DELETE and
 * CHECKSUM, each on a worker thread under its chunk's lock (shared for
 * reads, exclusive for changes).  A write holds the lock while it forwards,
 * so the replicas see the versions of one chunk in order.
 *
 * Bulk data by RDMA (AIFS_IO_RDMA, on a connection that came over RDMA):
 * a read's blocks go from the disk into a registered I/O buffer and from
 * there, by RDMA WRITE, into the client's pages, before the reply; a
 * write's data comes by RDMA READ into such a buffer before the chunk is
 * locked, and is then written and forwarded as any other.
 */
#include <stdlib.h>

#include "aifs/rdma.h"
#include "ds.h"

/* The chunk of a decoded request, locked and open; ds_io_end() undoes. */
static int ds_io_begin(struct ds *ds, const struct aifs_chunk_id *id,
		       enum ds_lock_kind kind, u32 create_size,
		       struct ds_lock *lock, struct ds_chunk *c)
{
	int err = ds_check_id(ds, id);

	if (!err)
		err = ds_chunk_lock_as(ds, id, kind, lock);
	if (err)
		return err;
	err = ds_chunk_open(ds, id, create_size, c);
	if (err)
		ds_chunk_unlock(ds, lock);
	return err;
}

/*
 * ds_io_begin() for a client's read or write: a chunk absent here that
 * the copy should hold is lost, and answers ESTALE (held.c), never as a
 * hole; a write creates only a chunk that was never here.
 */
static int ds_io_open(struct ds *ds, const struct aifs_chunk_id *id,
		      enum ds_lock_kind kind, u32 create_size,
		      struct ds_lock *lock, struct ds_chunk *c)
{
	int err = ds_io_begin(ds, id, kind, 0, lock, c);

	if (err != -ENOENT)
		return err;
	if (ds_held_lost(ds, id))
		return -ESTALE;
	return create_size ? ds_io_begin(ds, id, kind, create_size, lock, c) :
			     -ENOENT;
}

static void ds_io_end(struct ds_chunk *c, struct ds_lock *lock, int err)
{
	struct ds *ds = c->ds;

	ds_chunk_close(c, err);
	ds_chunk_unlock(ds, lock);
}

/**
 * ds_reply_fixed - a reply of @req's opcode with no variable part
 * @req: the request
 * @rep: the reply's struct
 * @size: its size
 *
 * Return: 0 or a negative errno.
 */
int ds_reply_fixed(struct aifs_request *req, const void *rep, u32 size)
{
	u8 *buf = malloc(size);
	int len;

	if (!buf)
		return -ENOMEM;
	len = aifs_msg_encode(req->opcode, true, buf, size, rep, size, NULL);
	if (len < 0) {
		free(buf);
		return len;
	}
	req->reply = buf;
	req->reply_len = len;
	return 0;
}

/* The reply of WRITE, FORWARD and TRUNCATE: the version and a length. */
static int ds_reply_chunk(struct aifs_request *req, const struct ds_chunk *c,
			  u32 length)
{
	struct aifs_chunk_rep rep = {
		.version = cpu_to_le64(c->meta.version),
		.length = cpu_to_le32(length),
	};

	return ds_reply_fixed(req, &rep, sizeof(rep));
}

/*
 * A copy behind its group, or behind what the reader has seen, must not
 * serve: ESTALE sends the client to another replica while this one pulls
 * the chunk from a peer.  What the reader has seen is only its word (any
 * client may ask for any version): it queues a pull that replaces the
 * copy only with one that really is newer, and marks nothing.
 */
static int ds_check_current(struct ds_chunk *c, u64 min_version)
{
	if (c->meta.flags & DS_META_STALE) {
		ds_resync_queue(c->ds, c, DS_RESYNC_STALE);
		return -ESTALE;
	}
	if (c->meta.version >= min_version)
		return 0;
	ds_resync_queue(c->ds, c, DS_RESYNC_NEWER);
	return -ESTALE;
}

/* @buf, encoded to @n bytes (or failed, < 0), becomes the reply. */
static int ds_reply_take(struct aifs_request *req, u8 *buf, int n)
{
	if (n < 0) {
		free(buf);
		return n;
	}
	req->reply = buf;
	req->reply_len = n;
	return 0;
}

/*
 * The CHUNK_READ reply in @buf, whose @len bytes of data (0: they went by
 * RDMA) are in place after the fixed part; the reply takes @buf.
 */
static int ds_read_reply(struct aifs_request *req, const struct ds_chunk *c,
			 u8 *buf, u32 len)
{
	struct aifs_chunk_read_rep rep = {
		.version = cpu_to_le64(c->meta.version),
		.chunk_len = cpu_to_le32(c->meta.length),
	};
	struct aifs_span data = { buf + sizeof(rep), len };
	int n;

	n = aifs_encode_chunk_read_rep(buf, sizeof(rep) + len, &rep, &data);
	return ds_reply_take(req, buf, n);
}

/* Read the blocks around @len bytes at @offset into @blocks. */
static int ds_read_span(struct ds_chunk *c, u32 offset, u32 len, u8 *blocks)
{
	u32 first = offset / DS_BLOCK_SIZE;
	int err;

	if (!len)
		return 0;
	err = ds_data_read(c, first, DS_BLOCKS(offset + len) - first, blocks);
	if (err == -EIO)
		ds_resync_queue(c->ds, c, DS_RESYNC_DAMAGED);
	return err;
}

static s64 ds_io_deadline(const struct ds *ds)
{
	return (s64)aifs_now_ms() + ds->cfg.server.io_timeout * 1000LL;
}

/* @len bytes of @data by RDMA WRITE into the requester's @seg. */
int ds_rdma_send(struct aifs_request *req, const void *data, u32 len,
		 const struct aifs_rdma_seg *seg)
{
	struct aifs_rdma_buf *b;
	int err;

	if (!len)
		return 0;
	err = aifs_rdma_buf_get(req->rdma, &b);
	if (err)
		return err;
	memcpy(aifs_rdma_buf_data(b), data, len);
	err = aifs_rdma_transfer(req->rdma, b, 0, len, seg, true,
				 ds_io_deadline(req->data));
	aifs_rdma_buf_put(b);
	return err;
}

/* The data goes by RDMA WRITE from a registered buffer; none in the reply. */
static int ds_read_rdma(struct aifs_request *req, struct ds_chunk *c,
			const struct aifs_rdma_seg *seg, u32 offset, u32 len)
{
	struct aifs_rdma_buf *b;
	u8 *buf;
	int err;

	buf = malloc(sizeof(struct aifs_chunk_read_rep));
	if (!buf)
		return -ENOMEM;
	err = len ? aifs_rdma_buf_get(req->rdma, &b) : 0;
	if (err || !len)
		goto out;
	err = ds_read_span(c, offset, len, aifs_rdma_buf_data(b));
	if (!err)
		err = aifs_rdma_transfer(req->rdma, b, offset % DS_BLOCK_SIZE,
					 len, seg, true,
					 ds_io_deadline(req->data));
	aifs_rdma_buf_put(b);
out:
	if (err) {
		free(buf);
		return err;
	}
	return ds_read_reply(req, c, buf, 0);
}

static int ds_read_blocks(struct aifs_request *req, struct ds_chunk *c,
			  u32 offset, u32 len)
{
	struct ds *ds = req->data;
	u32 nr_blocks = len ? DS_BLOCKS(offset + len) - offset / DS_BLOCK_SIZE :
			      0;
	const size_t head = sizeof(struct aifs_chunk_read_rep);
	u8 *buf, *blocks, *bounce = NULL;
	int err;

	buf = malloc(head + (size_t)nr_blocks * DS_BLOCK_SIZE);
	if (!buf)
		return -ENOMEM;
	blocks = buf + head;
	/* Block-aligned buffered reads land in the reply itself. */
	if (ds->direct_io || offset % DS_BLOCK_SIZE) {
		blocks = bounce = ds_blocks_alloc(nr_blocks);
		err = -ENOMEM;
		if (!bounce)
			goto fail;
	}
	err = ds_read_span(c, offset, len, blocks);
	if (err)
		goto fail;
	if (bounce)
		memcpy(buf + head, bounce + offset % DS_BLOCK_SIZE, len);
	free(bounce);
	return ds_read_reply(req, c, buf, len);
fail:
	free(bounce);
	free(buf);
	return err;
}

/*
 * A read made with a layout older than the newest this server heard of
 * for the inode: -EREMCHG.  Looked at once the chunk is locked, or known
 * absent (@err, ds_io_begin()'s): an archive fences the old layout's
 * servers before it deletes their chunks, so a read that passes holds
 * the chunk or reads a hole of the file.
 */
static int ds_read_gen_check(struct ds *ds, const struct aifs_chunk_read_req *r,
			     int err)
{
	if ((err && err != -ENOENT) || !r->layout_gen)
		return 0;
	return ds_layout_gen_check(ds, le64_to_cpu(r->id.ino),
				   le32_to_cpu(r->layout_gen));
}

/* CHUNK_READ; and FRAG_READ, the same from an EC stripe's leader. */
int ds_read(struct aifs_request *req)
{
	struct aifs_chunk_read_req r;
	struct ds_lock lock;
	struct ds_chunk c;
	u32 offset, len;
	int err, moved;

	/* a FRAG_READ of no bytes is a probe of the fragment's stamp */
	err = req->opcode == AIFS_OP_FRAG_READ ?
	      aifs_decode_frag_read_req(req->payload, req->payload_len, &r,
					NULL) :
	      aifs_decode_chunk_read_req(req->payload, req->payload_len, &r,
					 NULL);
	if (!err)
		err = aifs_fail_errno(AIFS_FAIL_DS_READ_ERROR, req->opcode);
	if (!err && !ds_serves_inode(req->data, le64_to_cpu(r.id.ino)))
		err = -ESTALE;	/* maybe counted out: another copy serves */
	if (err)
		return err;
	/* RDMA asked for on a connection that is not RDMA */
	if ((le32_to_cpu(r.flags) & AIFS_IO_RDMA) && !req->rdma)
		return -EOPNOTSUPP;
	err = ds_io_open(req->data, &r.id, DS_LOCK_SHARED, 0, &lock, &c);
	moved = ds_read_gen_check(req->data, &r, err);
	if (moved && !err)
		ds_io_end(&c, &lock, 0);
	if (moved || err)
		return moved ?: err;
	err = ds_check_current(&c, le64_to_cpu(r.version));
	if (!err) {
		/* Past the stored length: holes, which the client zero-fills. */
		offset = le32_to_cpu(r.offset);
		len = le32_to_cpu(r.length);
		if (offset >= c.meta.length)
			len = 0;
		else if (len > c.meta.length - offset)
			len = c.meta.length - offset;
		if (le32_to_cpu(r.flags) & AIFS_IO_RDMA)
			err = ds_read_rdma(req, &c, &r.rdma, offset, len);
		else
			err = ds_read_blocks(req, &c, offset, len);
	}
	ds_io_end(&c, &lock, 0);
	return err;
}

/* Remember the rest of the chunk's group: where a repair comes from. */
static void ds_note_peers(struct ds_chunk *c, const __le32 *ids, u32 nr)
{
	u32 i;

	c->peers_moved |= c->meta.nr_peers != nr;
	c->meta.nr_peers = nr;
	for (i = 0; i < nr; i++) {
		c->peers_moved |= c->meta.peers[i] != le32_to_cpu(ids[i]);
		c->meta.peers[i] = le32_to_cpu(ids[i]);
	}
}

static bool ds_write_zero(const struct aifs_chunk_write_req *r)
{
	return le32_to_cpu(r->flags) & AIFS_IO_ZERO;
}

/* The bytes a write covers: its data, or the zeros it asks for. */
static u32 ds_write_len(const struct aifs_chunk_write_req *r,
			const struct aifs_span *data)
{
	return ds_write_zero(r) ? le32_to_cpu(r->rdma.len) : data->len;
}

/* Apply a write at @version and make it as durable as it asks. */
static int ds_write_local(struct ds_chunk *c,
			  const struct aifs_chunk_write_req *r,
			  const struct aifs_span *data, u64 version)
{
	u32 offset = le32_to_cpu(r->offset);
	int err;

	ds_note_peers(c, r->replicas, le16_to_cpu(r->nr_replicas));
	if (ds_write_zero(r))
		err = ds_data_zero(c, offset, le32_to_cpu(r->rdma.len));
	else
		err = ds_data_write(c, offset, data->data, data->len);
	if (err)
		return err;
	c->meta.version = version;
	err = ds_meta_store(c);
	if (!err && (le32_to_cpu(r->flags) & AIFS_IO_SYNC))
		err = ds_chunk_sync(c);
	/* Holding data now: a later failure (forwarding) keeps the chunk. */
	if (!err)
		c->created = false;
	return err;
}

/*
 * A client's data by RDMA READ from its @seg into a registered buffer
 * (*@bp, given back by the caller), before anything is locked.
 */
int ds_rdma_fetch(struct aifs_request *req, const struct aifs_rdma_seg *seg,
		  struct aifs_span *data, struct aifs_rdma_buf **bp)
{
	u32 len = le32_to_cpu(seg->len);
	int err;

	if (!req->rdma)
		return -EOPNOTSUPP;
	err = aifs_rdma_buf_get(req->rdma, bp);
	if (err)
		return err;
	err = aifs_rdma_transfer(req->rdma, *bp, 0, len, seg, false,
				 ds_io_deadline(req->data));
	if (err) {
		aifs_rdma_buf_put(*bp);
		*bp = NULL;
		return err;
	}
	*data = (struct aifs_span){ aifs_rdma_buf_data(*bp), len };
	return 0;
}

/*
 * Two primaries of one chunk at once (a client failed over from a server
 * another client still writes through) forward to each other, each
 * holding its lock: neither forward may wait for the other.  The one from
 * the server of the higher id yields (EAGAIN: its client tries again);
 * the other waits here for our primary write, which that rule ends.  A
 * FORWARD names its primary first among the replicas.
 */
static enum ds_lock_kind ds_write_lock_kind(struct aifs_request *req,
					    bool primary,
					    const struct aifs_chunk_write_req *r)
{
	u32 sender = le16_to_cpu(r->nr_replicas) ?
		     le32_to_cpu(r->replicas[0]) : 0;

	if (primary)
		return DS_LOCK_PRIMARY;
	return sender && sender < ds_self_id(req->data) ? DS_LOCK_EXCL :
							  DS_LOCK_FORWARD;
}

/*
 * Decode a WRITE or FORWARD, take its data in, and open its chunk,
 * created if absent; but zeros on a primary without the chunk find a hole
 * already: ENOENT.
 */
static int ds_write_begin(struct aifs_request *req, bool primary,
			  struct aifs_chunk_write_req *r, struct aifs_span *data,
			  struct aifs_rdma_buf **bp, struct ds_lock *lock,
			  struct ds_chunk *c)
{
	struct aifs_span parts[AIFS_MSG_MAX_PARTS];
	u32 create_size;
	int err;

	err = aifs_msg_decode(req->opcode, false, req->payload,
			      req->payload_len, r, sizeof(*r), parts);
	/*
	 * an EC fragment is its stripe's leader's to write (FRAG_WRITE, with
	 * the stripe's stamps): written straight, it would tear the stripe
	 */
	if (!err && r->id.fragment)
		err = -EINVAL;
	if (err)
		return err;
	*data = parts[0];
	if (le32_to_cpu(r->flags) & AIFS_IO_RDMA) {
		/* only a client's WRITE moves data so; a FORWARD never does */
		err = primary ? ds_rdma_fetch(req, &r->rdma, data, bp) :
				-EINVAL;
		if (err)
			return err;
	}
	create_size = primary && ds_write_zero(r) ? 0 :
		      le32_to_cpu(r->chunk_size);
	return ds_io_open(req->data, &r->id, ds_write_lock_kind(req, primary, r),
			  create_size, lock, c);
}

/* A write of a chunk size other than the chunk's own: a confused client. */
static int ds_check_layout(const struct ds_chunk *c,
			   const struct aifs_chunk_write_req *r)
{
	return c->meta.chunk_size == le32_to_cpu(r->chunk_size) ? 0 : -EINVAL;
}

/*
 * A client that failed over to us from the first @ahead members of the
 * group @ids: we are the chunk's (or stripe's) primary only once the MDS
 * counts them out or SYNCING, or two primaries would number writes alike.
 * Until then -EBUSY, answered ESTALE (the client goes round again), and a
 * fresh map; not ESTALE here, which would keep a chunk this write created.
 */
int ds_ahead_out(struct ds *ds, const __le32 *ids, u32 ahead)
{
	u32 i;

	if (!ds_mds_out_wait_ms(ds))
		return 0;	/* no MDS: a static cluster's old rules */
	for (i = 0; i < ahead; i++) {
		if (!ds_peer_leads_nothing(ds, le32_to_cpu(ids[i]))) {
			ds_mds_refresh(ds);
			return -EBUSY;
		}
	}
	return 0;
}

/*
 * A write made with a layout older than the newest this server heard of
 * for the inode (a rebuild changed its groups): -EREMCHG, and the client
 * fetches the layout again.  Looked at once more after the write is
 * applied here: a rebuild fences the old layouts before it copies the
 * inode to the new member, so a write that passes that second look is
 * in the copy.  One that fails it is still forwarded (ds_primary_apply())
 * but not acknowledged.  A new member that is still catching up is no
 * primary: -EBUSY (ESTALE to the client).
 */
int ds_layout_gen_check(struct ds *ds, u64 ino, u32 layout_gen)
{
	struct ds_inode_rec rec;
	int err;

	if (!ds_serves_inode(ds, ino))
		return -EBUSY;
	err = ds_inode_load(ds, ino, &rec);
	if (err)
		return err;
	return layout_gen < rec.layout_gen ? -EREMCHG : 0;
}

static int ds_check_layout_gen(struct ds *ds,
			       const struct aifs_chunk_write_req *r)
{
	return ds_layout_gen_check(ds, le64_to_cpu(r->id.ino),
				   le32_to_cpu(r->layout_gen));
}

/* The version the primary gives its next write of @c (ds_version_born()). */
static int ds_next_version(struct ds_chunk *c, u64 *version)
{
	u32 born;
	int err;

	if (c->meta.version) {
		*version = c->meta.version + 1;
		return 0;
	}
	err = ds_inode_born(c->ds, le64_to_cpu(c->id.ino), &born);
	*version = ds_version_first(born);
	return err;
}

/*
 * A replica holds @c newer than we do (ds_forward() said -EEXIST, @ahead
 * is its id): we lost our copy, or came back without writes it has.
 * Ours is marked stale, durably, and kept (a placeholder that sends
 * readers elsewhere), to take a copy at least as new as the version just
 * numbered, which @ahead holds: it is asked first.  The write is not
 * acknowledged: -ESTALE, and the client goes round while the pull runs.
 */
static int ds_primary_behind(struct ds_chunk *c,
			     const struct aifs_chunk_write_req *r, u32 ahead)
{
	u32 nr = le16_to_cpu(r->nr_replicas), i, n = 0;
	int err;

	c->meta.peers[n++] = ahead;
	for (i = 0; i < nr && n < DS_MAX_PEERS; i++)
		if (le32_to_cpu(r->replicas[i]) != ahead)
			c->meta.peers[n++] = le32_to_cpu(r->replicas[i]);
	c->meta.nr_peers = n;
	c->meta.flags |= DS_META_STALE;
	if (c->meta.want < c->meta.version)
		c->meta.want = c->meta.version;
	c->created = false;
	err = ds_meta_store(c) ?: ds_chunk_sync(c);
	return err ?: ds_check_current(c, 0);
}

/*
 * CHUNK_WRITE, on the chunk's primary: write locally with the next
 * version, then forward to the replicas the request names.
 *
 * A version applied here is forwarded even when the layout changed
 * meanwhile (the second look, ds_layout_gen_check()): the replicas named
 * are the group it was numbered in, and one left a version behind would
 * find a gap in the client's next write, made with the new layout, and
 * refuse it until it pulled the chunk.  The fence does not forbid this
 * forward: it keeps writes of an old layout from being acknowledged, and
 * this one is not (-EREMCHG).  The rebuild's new member, not named here,
 * has the version or not depending on when its copy read it; if not, the
 * client's next write finds its gap, and is acknowledged only once it
 * pulled the chunk.
 */
static int ds_primary_apply(struct aifs_request *req,
			    const struct aifs_chunk_write_req *r,
			    const struct aifs_span *data, struct ds_chunk *c)
{
	u32 ahead = 0;
	u64 version;
	int err, moved;

	err = ds_check_layout(c, r);
	/*
	 * A stale primary would number the write wrongly: it catches up
	 * first, and meanwhile serves nothing (ESTALE: the client goes round
	 * again, for up to its timeo, as while a server is SYNCING).
	 */
	if (!err)
		err = ds_check_current(c, 0);
	if (!err)
		err = ds_ahead_out(req->data, r->replicas,
				   le16_to_cpu(r->ahead));
	if (!err)
		err = ds_check_layout_gen(req->data, r);
	if (!err)
		err = ds_replicas_caught_up(req->data, r, c->meta.version);
	if (!err)
		err = ds_next_version(c, &version);
	if (!err)
		err = ds_write_local(c, r, data, version);
	if (err)
		return err;
	/* applied here, not yet forwarded */
	aifs_fail_pause(AIFS_FAIL_DS_WRITE_PAUSE, req->opcode);
	moved = ds_check_layout_gen(req->data, r);
	err = ds_forward(req->data, r, data, c->meta.version, &ahead);
	if (err == -EEXIST)
		err = ds_primary_behind(c, r, ahead);
	if (!moved && !err && !ds_serving(req->data))
		/*
		 * the lease ran out meanwhile: the next member may lead
		 * already, and number this version too
		 */
		err = -EBUSY;
	return moved ?: err ?: ds_reply_chunk(req, c, ds_write_len(r, data));
}

/*
 * Whether a forward of @version may create chunk @c here: the first of
 * its incarnation, not older than a truncation done here (a primary that
 * has not made that cut yet: -EAGAIN, its write is tried again).
 */
static int ds_forward_creates(struct ds_chunk *c, u64 version)
{
	struct ds_inode_rec rec;
	int err;

	if (version != ds_version_first(ds_version_born(version)))
		return 0;
	err = ds_inode_load(c->ds, le64_to_cpu(c->id.ino), &rec);
	if (err)
		return err;
	return ds_version_born(version) < rec.fence ? -EAGAIN : 1;
}

/*
 * Whether this copy holds what a forward of the version it holds brings:
 * a retry does; other bytes at that version come from a second primary
 * (one that went on past its lease numbered the version too), and the
 * copy is to be replaced by its group's.  1, 0, or an error.
 */
static int ds_forward_same(struct ds_chunk *c,
			   const struct aifs_chunk_write_req *r,
			   const struct aifs_span *data)
{
	u32 offset = le32_to_cpu(r->offset), len = ds_write_len(r, data), i;
	const u8 *held;
	u8 *blocks;
	int ret;

	if (ds_write_zero(r) && offset + len > c->meta.length)
		/* past the stored length are holes: zeros already */
		len = offset < c->meta.length ? c->meta.length - offset : 0;
	if (offset + len > c->meta.length)
		return 0;
	if (!len)
		return 1;
	blocks = ds_blocks_alloc(DS_BLOCKS(offset + len) -
				 offset / DS_BLOCK_SIZE);
	if (!blocks)
		return -ENOMEM;
	ret = ds_read_span(c, offset, len, blocks);
	held = blocks + offset % DS_BLOCK_SIZE;
	if (!ret && ds_write_zero(r)) {
		for (i = 0; i < len && !held[i]; i++)
			;
		ret = i == len;
	} else if (!ret) {
		ret = !memcmp(held, data->data, len);
	}
	free(blocks);
	return ret;
}

/*
 * CHUNK_FORWARD, on a replica: apply version v only on top of v - 1 of
 * the same incarnation (ds_version_born()), or as the first of a chunk
 * not held here.  The version held with the same bytes is a retry
 * (acknowledged, not rewritten); one of an older incarnation than ours
 * comes from a primary behind on the file's truncations (-EAGAIN).  An
 * older version, or the one held with other bytes, comes from a primary
 * whose copy is not ours: it lost its copy and created the chunk again,
 * came back without writes we have, or went on past its lease and
 * numbered a version another primary numbered too.  Its write is not
 * acknowledged yet, ours may have been if this server serves: it yields
 * (-EEXIST: it takes this copy, ds_primary_behind()).  A server that
 * serves nothing now (SYNCING, or past its lease) was left out of the
 * writes acknowledged meanwhile, and its copy may hold a write of its
 * own that never was (applied as a primary whose lease then ran out):
 * it yields.  A gap, too, means writes were missed here: the copy is
 * marked stale, answers ESTALE and pulls the chunk from its group.
 */
static int ds_forward_apply(struct aifs_request *req,
			    const struct aifs_chunk_write_req *r,
			    const struct aifs_span *data, struct ds_chunk *c)
{
	u64 version = le64_to_cpu(r->version), held = c->meta.version;
	bool stale = c->meta.flags & DS_META_STALE;
	int err, same = 0;

	if (!version)
		return -EINVAL;
	err = ds_check_layout(c, r);
	if (err)
		return err;
	if (held && ds_version_born(held) > ds_version_born(version))
		return -EAGAIN;
	if (!stale && held == version)
		same = ds_forward_same(c, r, data);
	if (same < 0)
		return same;
	if (!stale && held >= version && !same &&
	    ds_serves_inode(req->data, le64_to_cpu(r->id.ino)))
		return -EEXIST;
	if (same)
		return ds_reply_chunk(req, c, ds_write_len(r, data));
	if (!stale && !held)
		err = ds_forward_creates(c, version);
	else if (!stale)
		err = held + 1 == version;
	if (err > 0) {
		err = ds_write_local(c, r, data, version);
		return err ? err : ds_reply_chunk(req, c, ds_write_len(r, data));
	}
	if (err)
		return err;
	ds_note_peers(c, r->replicas, le16_to_cpu(r->nr_replicas));
	c->meta.flags |= DS_META_STALE;
	/* a resync that pulls an older version must not end the staleness */
	if (c->meta.want < version)
		c->meta.want = version;
	/*
	 * durably: a primary that holds this server SYNCING or out (or has
	 * no MDS) acknowledges without it, and after a crash too this copy
	 * must not serve what it lacks
	 */
	err = ds_meta_store(c) ?: ds_chunk_sync(c);
	return err ? err : ds_check_current(c, version);
}

typedef int ds_write_fn(struct aifs_request *req,
			const struct aifs_chunk_write_req *r,
			const struct aifs_span *data, struct ds_chunk *c);

static int ds_write_op(struct aifs_request *req, bool primary,
		       ds_write_fn *apply)
{
	struct aifs_rdma_buf *rdma_buf = NULL;
	struct aifs_chunk_write_req r;
	struct aifs_span data;
	struct ds_lock lock;
	struct ds_chunk c;
	int err;

	err = aifs_fail_errno(AIFS_FAIL_DS_WRITE_ERROR, req->opcode);
	if (err)
		return err;
	err = ds_write_begin(req, primary, &r, &data, &rdma_buf, &lock, &c);
	if (err == -ENOENT && primary && ds_write_zero(&r)) {
		/* zeros of a hole: nothing to number or forward */
		c.meta = (struct ds_meta){ 0 };
		err = ds_reply_chunk(req, &c, ds_write_len(&r, &data));
	} else if (!err) {
		err = apply(req, &r, &data, &c);
		/* A stale placeholder stays: it tells readers to go elsewhere. */
		ds_io_end(&c, &lock, err == -ESTALE ? 0 : err);
		if (!err)
			aifs_fail_crash(AIFS_FAIL_DS_WRITE_CRASH, req->opcode);
	}
	if (rdma_buf)
		aifs_rdma_buf_put(rdma_buf);
	return err;
}

static int ds_write(struct aifs_request *req)
{
	int err;

	/* maybe counted out: the next replica is the primary */
	if (!ds_serving(req->data))
		return -ESTALE;
	err = ds_write_op(req, true, ds_primary_apply);
	return err == -EBUSY ? -ESTALE : err;
}

static int ds_forward_handler(struct aifs_request *req)
{
	return ds_write_op(req, false, ds_forward_apply);
}

/* Cut chunk @r->id to @r->length; made durable (the MDS relies on it). */
static int ds_truncate_chunk(struct aifs_request *req, const void *arg)
{
	const struct aifs_chunk_truncate_req *r = arg;
	u32 length = le32_to_cpu(r->length);
	struct ds_lock lock;
	struct ds_chunk c;
	int err;

	err = ds_io_begin(req->data, &r->id, DS_LOCK_EXCL, 0, &lock, &c);
	if (err == -ENOENT) {
		/* A hole stays a hole whatever its length. */
		c.meta = (struct ds_meta){ 0 };
		return ds_reply_chunk(req, &c, 0);
	}
	if (err)
		return err;
	if (r->fence && ds_chunk_fence(&c) >= le32_to_cpu(r->fence)) {
		/* pulled from a peer that had made this cut, or born after */
		err = ds_reply_chunk(req, &c, c.meta.length);
		ds_io_end(&c, &lock, err);
		return err;
	}
	err = length > c.meta.chunk_size ? -EINVAL :
		ds_data_truncate(&c, length);
	if (!err) {
		c.meta.version++;
		err = ds_meta_store(&c);
	}
	if (!err)
		err = ds_chunk_sync(&c);
	if (!err)
		err = ds_reply_chunk(req, &c, c.meta.length);
	ds_io_end(&c, &lock, err);
	return err;
}

/*
 * Where truncation @fence of @ino stands here: 1 done already (a retry
 * of the MDS's queue, which must not cut what was written since), 0 next
 * to do, -EAGAIN while an earlier one has not come yet (truncations of a
 * file are applied in order, each once) or while a chunk of the file is
 * pulled from a peer (ds_resync_pulling(): the pull ends with the peer's
 * count of truncations, which says whether the cut is in what it took).
 * Takes the inode's fence lock into @lock, for the caller to let go once
 * done.
 */
static int ds_fence_check(struct ds *ds, u64 ino, u32 fence,
			  struct ds_lock *lock, struct ds_inode_rec *rec)
{
	int err;

	ds_inode_lock(ds, ino, lock);
	err = ds_inode_load(ds, ino, rec);
	if (err)
		return err;
	if (rec->fence >= fence)
		return 1;
	if (rec->fence != fence - 1 || ds_resync_pulling(ds, ino))
		return -EAGAIN;
	return 0;
}

typedef int ds_fenced_fn(struct aifs_request *req, const void *arg);

/*
 * Apply @apply (a request on chunk @id) as part of truncation @fence of
 * its inode: at once without a fence (0), else in order and once; @last
 * records the truncation done.  Returns 1, applying nothing, when it was
 * done already.
 */
static int ds_fenced(struct aifs_request *req, const struct aifs_chunk_id *id,
		     u32 fence, bool last, ds_fenced_fn *apply, const void *arg)
{
	struct ds *ds = req->data;
	u64 ino = le64_to_cpu(id->ino);
	struct ds_inode_rec rec;
	struct ds_lock lock;
	int err;

	err = ds_check_id(ds, id) ?:
	      aifs_fail_errno(AIFS_FAIL_DS_WRITE_ERROR, req->opcode);
	if (err)
		return err;
	if (!fence)
		return apply(req, arg);
	err = ds_fence_check(ds, ino, fence, &lock, &rec);
	if (err)
		aifs_dbg("inode %llx: truncation %u: %s", (unsigned long long)ino,
			 fence, err > 0 ? "done already" :
			 err == -EAGAIN ? "waits (an earlier one, or a pull)" :
			 strerror(-err));
	if (!err && rec.cutting < fence) {
		/* chunks created from now on are born under it: not cut */
		rec.cutting = fence;
		err = ds_inode_store(ds, ino, &rec);
	}
	if (!err)
		err = apply(req, arg);
	if (!err && last) {
		rec.fence = fence;
		err = ds_inode_store(ds, ino, &rec);
	}
	ds_chunk_unlock(ds, &lock);
	return err;
}

/*
 * CHUNK_TRUNCATE.  With a fence it comes first of that truncation's
 * requests here; its CHUNK_DELETE, the last, records it done, so a retry
 * in between cuts again.
 */
static int ds_truncate(struct aifs_request *req)
{
	struct aifs_chunk_truncate_req r;
	struct ds_chunk c = { .ds = req->data };
	int err;

	err = aifs_decode_chunk_truncate_req(req->payload, req->payload_len,
					     &r, NULL);
	if (!err)
		err = ds_fenced(req, &r.id, le32_to_cpu(r.fence), false,
				ds_truncate_chunk, &r);
	return err > 0 ? ds_reply_chunk(req, &c, 0) : err;
}

static int ds_delete_chunk(struct aifs_request *req, const void *arg)
{
	const struct aifs_chunk_delete_req *r = arg;

	return ds_chunk_delete(req->data, &r->id, le32_to_cpu(r->flags),
			       le32_to_cpu(r->fence));
}

/* CHUNK_DELETE; with a fence, the last request of that truncation. */
static int ds_delete(struct aifs_request *req)
{
	struct aifs_chunk_delete_req r;
	int err;

	err = aifs_decode_chunk_delete_req(req->payload, req->payload_len, &r,
					   NULL);
	if (!err)
		err = ds_fenced(req, &r.id, le32_to_cpu(r.fence), true,
				ds_delete_chunk, &r);
	return err > 0 ? 0 : err;
}

static int ds_checksum_reply(struct aifs_request *req, struct ds_chunk *c,
			     u32 first, u32 wanted)
{
	struct aifs_chunk_checksum_rep rep = {
		.version = cpu_to_le64(c->meta.version),
		.block_size = cpu_to_le32(DS_BLOCK_SIZE),
		.chunk_len = cpu_to_le32(c->meta.length),
		.first_block = cpu_to_le32(first),
	};
	u32 blocks = DS_BLOCKS(c->meta.length), count = 0, i, *crcs;
	struct aifs_span list;
	u8 *buf;
	int n;

	if (first < blocks)
		count = blocks - first < wanted ? blocks - first : wanted;
	rep.count = cpu_to_le32(count);
	buf = malloc(sizeof(rep) + (size_t)count * 8);
	if (!buf)
		return -ENOMEM;
	crcs = (u32 *)(buf + sizeof(rep) + (size_t)count * 4);
	n = ds_crcs_load(c, first, count, crcs);
	for (i = 0; i < count; i++)
		((__le32 *)(buf + sizeof(rep)))[i] = cpu_to_le32(crcs[i]);
	list = (struct aifs_span){ buf + sizeof(rep), count * 4 };
	if (!n)
		n = aifs_encode_chunk_checksum_rep(buf, sizeof(rep) + count * 4,
						   &rep, &list);
	return ds_reply_take(req, buf, n);
}

static int ds_checksum(struct aifs_request *req)
{
	struct aifs_chunk_checksum_req r;
	struct ds_lock lock;
	struct ds_chunk c;
	int err;

	err = aifs_decode_chunk_checksum_req(req->payload, req->payload_len,
					     &r, NULL);
	if (!err && !ds_serves_inode(req->data, le64_to_cpu(r.id.ino)))
		err = -ESTALE;
	if (!err)
		err = ds_io_begin(req->data, &r.id, DS_LOCK_SHARED, 0, &lock,
				  &c);
	if (err)
		return err;
	err = ds_check_current(&c, 0);
	if (!err)
		err = ds_checksum_reply(req, &c, le32_to_cpu(r.first_block),
					le32_to_cpu(r.nr_blocks));
	ds_io_end(&c, &lock, 0);
	return err;
}

int ds_io_register(struct aifs_server *srv)
{
	/*
	 * A primary's worker waits for its forwards: they run on the peer
	 * threads, never queued behind our own workers, which may all be
	 * waiting on forwards to that primary.  A forward only writes
	 * locally, so the peer threads never wait on another server.
	 */
	static const struct aifs_handler_def handlers[] = {
		{ AIFS_OP_CHUNK_READ, ds_read, AIFS_HANDLER_BLOCKING },
		{ AIFS_OP_CHUNK_WRITE, ds_write, AIFS_HANDLER_BLOCKING },
		{ AIFS_OP_CHUNK_FORWARD, ds_forward_handler, AIFS_HANDLER_PEER },
		{ AIFS_OP_CHUNK_TRUNCATE, ds_truncate, AIFS_HANDLER_BLOCKING },
		{ AIFS_OP_CHUNK_DELETE, ds_delete, AIFS_HANDLER_BLOCKING },
		{ AIFS_OP_CHUNK_CHECKSUM, ds_checksum, AIFS_HANDLER_BLOCKING },
	};

	return aifs_server_register_all(srv, handlers, ARRAY_SIZE(handlers));
}
