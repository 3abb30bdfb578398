// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Erasure-coded stripes (Documentation/erasure-coding.md).  A stripe of an
 * EC file is K data fragments and M parity fragments, each a chunk of its
 * own on one member of the stripe's group (fragment f on member f).
 * Clients read data fragments straight from their servers; what needs the
 * code goes through one member, the stripe's leader (the first member the
 * client reaches):
 *
 *  EC_WRITE  the leader reads what the write leaves of the data fragments
 *            over the columns it touches (a column: the bytes at one offset
 *            of every fragment, a codeword of its own), decoding what it
 *            cannot read, encodes, and writes the new data and every parity
 *            fragment over those columns (FRAG_WRITE).  It holds the
 *            stripe's lock throughout: the writes of a stripe are applied
 *            one at a time, each whole.
 *  EC_READ   a fragment whose server cannot serve it: K others are read
 *            over the same columns (FRAG_READ) and decoded, under the
 *            stripe's lock (shared), so never in the middle of a write.
 *
 * Both work a column slice at a time (DS_EC_SLICE bytes of each fragment
 * at most), which bounds their memory whatever the fragment size.
 *
 * Stripe stamps.  Every write of a slice gives every member's fragment
 * the same new stamp (those whose bytes it leaves alone too, with no
 * data), if it holds the stamp the leader found (FRAG_WRITE's @prev), and
 * the member keeps what the write replaced (undo.c).  Fragments of one
 * stamp are one codeword: nothing is decoded from fragments of different
 * stamps.  A stripe whose members disagree (a leader died between its
 * fragment writes) is settled first, by whoever finds it, under the
 * stripe's lock: rolled forward from the newest stamp when K members
 * hold it (the write may have been acknowledged), else rolled back on
 * the members that took it (it was not).
 */

#include <stdlib.h>
#include <string.h>

#include "aifs/ec.h"
#include "aifs/rdma.h"
#include "ds.h"

#define DS_EC_SLICE		(1U << 20)
#define DS_EC_LOCK_FRAGMENT	0xfffe	/* the stripe's lock: no fragment's */
#define DS_EC_SETTLE_TRIES	3
/*
 * A stamp: the count of the stripe's writes, then the id of the data
 * server that led the write in this many bits (ids are small: the MDS
 * gives them from 1), so that two leaders' writes never share a stamp
 * and the leader of a torn write is known.
 */
#define DS_STAMP_LEADER_BITS	24
#define DS_STAMP_LEADER(stamp)	((u32)((stamp) & ((1U << DS_STAMP_LEADER_BITS) - 1)))

/* A stripe being read or written by this server, its leader. */
struct ds_stripe {
	struct ds *ds;
	const struct aifs_ec *ec;
	struct aifs_chunk_id id;	/* the stripe; fragment 0 */
	u32 k, width, chunk;
	u32 layout_gen;
	bool sync;
	bool whole;			/* a member out fails it: an archive */
	bool unread;			/* nobody reads it yet: an archive's */
	u32 members[AIFS_EC_MAX_WIDTH];
	char *frag[AIFS_EC_MAX_WIDTH];	/* one column slice of each fragment */
	bool lost[AIFS_EC_MAX_WIDTH];
	bool read[AIFS_EC_MAX_WIDTH];	/* the slice holds the stored bytes */
	bool missed[AIFS_EC_MAX_WIDTH];	/* a write skipped the member */
	bool seen[AIFS_EC_MAX_WIDTH];	/* it answered: its stamp is known */
	u64 stamp[AIFS_EC_MAX_WIDTH];	/* what it holds (0: no fragment) */
	u64 agreed;			/* what every member seen holds */
	bool settled;			/* @agreed is known */
	u64 next;			/* the stamp the write gives */
	bool torn;			/* a member answered another stamp */
	bool found;			/* a fragment exists: not all holes */
};

/* A change of one fragment's bytes, and of its stamp. */
struct ds_frag_change {
	u64 prev;		/* the stamp it must hold (or @stamp already) */
	u64 stamp;		/* the stamp it holds after */
	bool undo;		/* a leader's write: keeps what it replaces,
				 * and lands on a stale fragment whatever its
				 * stamp (no source; its rebuild starts again) */
};

/* One fragment's read or write, with its member or locally. */
struct ds_frag_io {
	struct ds_stripe *s;
	u32 frag;
	u32 offset;		/* in the fragment */
	u32 len;
	char *buf;
	bool write;
	bool skipped;		/* a write its member did not take: out */
	bool refused;		/* a write its member answered failed */
	int err;		/* -ENOENT: a hole (read: zeros) */
	struct ds_frag_change change;	/* a write's */
	u64 version;		/* the fragment's stamp */
	pthread_t thread;
	bool threaded;
};

static struct aifs_chunk_id ds_frag_id(const struct ds_stripe *s, u32 frag)
{
	struct aifs_chunk_id id = s->id;

	id.fragment = cpu_to_le16(AIFS_EC_FRAGMENT(frag));
	return id;
}

/* Read @len bytes at @off of a fragment held here; zeros past its end. */
static int ds_frag_read_local(struct ds *ds, const struct aifs_chunk_id *id,
			      u32 off, u32 len, char *buf, u64 *version)
{
	u32 first = off / DS_BLOCK_SIZE, nr, have;
	struct ds_lock lock;
	struct ds_chunk c;
	u8 *blocks;
	int err;

	memset(buf, 0, len);
	if (!ds_serves_inode(ds, le64_to_cpu(id->ino)))
		return -ESTALE;
	ds_chunk_lock(ds, id, false, &lock);
	err = ds_chunk_open(ds, id, 0, &c);
	if (err) {
		ds_chunk_unlock(ds, &lock);
		return err;
	}
	*version = c.meta.version;
	have = off < c.meta.length ? c.meta.length - off : 0;
	if (have > len)
		have = len;
	if (c.meta.flags & DS_META_STALE)
		err = -ESTALE;
	else if (have) {
		nr = DS_BLOCKS(off + have) - first;
		blocks = ds_blocks_alloc(nr);
		err = blocks ? ds_data_read(&c, first, nr, blocks) : -ENOMEM;
		if (!err)
			memcpy(buf, blocks + off % DS_BLOCK_SIZE, have);
		free(blocks);
	}
	ds_chunk_close(&c, 0);
	ds_chunk_unlock(ds, &lock);
	return err;
}

/* Any version: a mark that does not care what it marks. */
#define DS_FRAG_ANY	UINT64_MAX

/*
 * Fragment @id held here, locked for a change (in @lock) and open in @c;
 * created empty when absent with @create (its chunk size).
 */
static int ds_frag_open(struct ds *ds, const struct aifs_chunk_id *id,
			u32 create, struct ds_lock *lock, struct ds_chunk *c)
{
	int err = ds_chunk_lock_as(ds, id, DS_LOCK_EXCL, lock);

	if (err)
		return err;
	err = ds_chunk_open(ds, id, create, c);
	if (err)
		ds_chunk_unlock(ds, lock);
	return err;
}

/*
 * Write @len bytes at @off of a fragment held here (of @len 0: its stamp
 * only) as @ch says: -EILSEQ when it holds neither @ch->prev nor
 * @ch->stamp, nothing written.  The leader's own fragment, FRAG_WRITE,
 * and a rebuild.
 */
static int ds_frag_write_local(struct ds *ds, const struct aifs_chunk_id *id,
			       u32 chunk, u32 off, const void *data, u32 len,
			       bool sync, const struct ds_frag_change *ch)
{
	struct ds_lock lock;
	struct ds_chunk c;
	bool again;
	int err;

	err = ds_frag_open(ds, id, chunk, &lock, &c);
	if (err)
		return err;
	again = c.meta.version == ch->stamp;
	if (c.meta.chunk_size != chunk)
		err = -EINVAL;
	else if (!again && c.meta.version != ch->prev &&
		 !(ch->undo && (c.meta.flags & DS_META_STALE)))
		err = -EILSEQ;
	else if (!again && ch->undo)
		err = ds_undo_save(&c, ch->stamp, off, len, sync);
	if (!err)
		err = ds_data_write(&c, off, data, len);
	if (!err) {
		c.meta.version = ch->stamp;
		err = ds_meta_store(&c);
	}
	if (!err && sync)
		err = ds_chunk_sync(&c);
	if (!err)
		c.created = false;
	ds_chunk_close(&c, err);
	ds_chunk_unlock(ds, &lock);
	return err;
}

/*
 * Mark a fragment held here stale, or (@stale false) no longer, if its
 * version is @expect (DS_FRAG_ANY: whatever it is).  A stale fragment is
 * created if need be: absent, it would read as a hole.  A stale one is
 * queued for its rebuild by decoding (resync.c).
 */
static int ds_frag_mark(struct ds *ds, const struct aifs_chunk_id *id,
			u32 chunk, bool stale, u64 expect)
{
	struct ds_lock lock;
	struct ds_chunk c;
	int err;

	err = ds_frag_open(ds, id, stale ? chunk : 0, &lock, &c);
	if (err)
		return err;
	if (expect != DS_FRAG_ANY && c.meta.version != expect)
		err = -EAGAIN;
	else if (stale)
		c.meta.flags |= DS_META_STALE;
	else
		c.meta.flags &= ~DS_META_STALE;
	if (!err)
		err = ds_meta_store(&c) ?: ds_chunk_sync(&c);
	if (!err)
		c.created = false;
	if (!err && stale)
		ds_resync_queue(ds, &c, DS_RESYNC_STALE);
	ds_chunk_close(&c, err);
	ds_chunk_unlock(ds, &lock);
	return err;
}

/*
 * Undo write @stamp of a fragment held here (undo.c): -EILSEQ when it
 * holds another stamp, -ENODATA when it has no undo of it.  The stamp it
 * holds after in *@now.
 */
static int ds_frag_rollback_local(struct ds *ds, const struct aifs_chunk_id *id,
				  u32 chunk, u64 stamp, u64 *now)
{
	struct ds_lock lock;
	struct ds_chunk c;
	int err;

	err = ds_frag_open(ds, id, 0, &lock, &c);
	if (err)
		return err == -ENOENT ? -EILSEQ : err;
	if (c.meta.chunk_size != chunk)
		err = -EINVAL;
	else if (c.meta.version != stamp)
		err = -EILSEQ;
	else
		err = ds_undo_apply(&c, stamp);
	if (err && err != -EILSEQ && err != -ENODATA && err != -EINVAL) {
		/* undone in part: its bytes are no stamp's now */
		c.meta.flags |= DS_META_STALE;
		if (!ds_meta_store(&c))
			ds_resync_queue(ds, &c, DS_RESYNC_STALE);
	}
	if (!err)
		err = ds_meta_store(&c) ?: ds_chunk_sync(&c);
	*now = c.meta.version;
	ds_chunk_close(&c, err);
	ds_chunk_unlock(ds, &lock);
	return err;
}

/* The bytes a FRAG_READ reply must carry: the fragment's, up to @len. */
static int ds_frag_read_rep_check(const struct aifs_chunk_read_rep *rep,
				  const struct aifs_span *data, u32 off,
				  u32 len, u32 chunk)
{
	u32 stored = le32_to_cpu(rep->chunk_len);
	u32 want = stored > off ? stored - off : 0;

	if (want > len)
		want = len;
	return stored > chunk || data->len != want ? -EPROTO : 0;
}

/* @len bytes at @off of chunk @id from data server @member (FRAG_READ). */
static int ds_chunk_read_peer(struct ds *ds, u32 member,
			      const struct aifs_chunk_id *id, u32 chunk,
			      u32 off, u32 len, char *buf, u64 *version)
{
	struct aifs_chunk_read_req r = {
		.id = *id,
		.offset = cpu_to_le32(off),
		.length = cpu_to_le32(len),
	};
	struct aifs_span parts[AIFS_MSG_MAX_PARTS];
	u8 head[AIFS_CHUNK_READ_REQ_SIZE];
	struct aifs_chunk_read_rep rep;
	struct aifs_reply reply = { 0 };
	int err;

	memset(buf, 0, len);
	err = aifs_encode_frag_read_req(head, sizeof(head), &r, NULL);
	if (err < 0)
		return err;
	err = ds_peer_ask(ds, member, AIFS_OP_FRAG_READ, head, sizeof(head),
			  &reply);
	if (!err)
		err = aifs_decode_frag_read_rep(reply.payload, reply.len, &rep,
						parts);
	if (!err)
		err = ds_frag_read_rep_check(&rep, &parts[0], off, len, chunk);
	if (!err) {
		memcpy(buf, parts[0].data, parts[0].len);
		*version = le64_to_cpu(rep.version);
	}
	aifs_reply_free(&reply);
	return err;
}

static int ds_frag_read_peer(struct ds_frag_io *io)
{
	struct ds_stripe *s = io->s;
	struct aifs_chunk_id id = ds_frag_id(s, io->frag);

	return ds_chunk_read_peer(s->ds, s->members[io->frag], &id, s->chunk,
				  io->offset, io->len, io->buf, &io->version);
}

/*
 * A fragment write to its member.  As a replica's forward: a member that
 * cannot be reached is waited for until the MDS counts it out, then
 * skipped (0: the stripe is short of that fragment until it is rebuilt);
 * one that answers ESTALE (catching up) is skipped; any other failure
 * (EILSEQ: it holds another stamp) fails the write (-EAGAIN: the client
 * tries again).
 */
static int ds_frag_write_peer(struct ds_frag_io *io)
{
	struct ds_stripe *s = io->s;
	u32 member = s->members[io->frag];
	struct aifs_frag_write_req r = {
		.id = ds_frag_id(s, io->frag),
		.stamp = cpu_to_le64(io->change.stamp),
		.prev = cpu_to_le64(io->change.prev),
		.offset = cpu_to_le32(io->offset),
		.flags = cpu_to_le32(s->sync ? AIFS_IO_SYNC : 0),
		.chunk_size = cpu_to_le32(s->chunk),
	};
	struct aifs_span part = { NULL, io->len };
	u8 head[AIFS_FRAG_WRITE_REQ_SIZE];
	struct aifs_reply reply = { 0 };
	struct aifs_chunk_rep rep;
	struct iovec iov[2];
	int err;

	err = aifs_encode_frag_write_req(head, sizeof(head), &r, &part);
	if (err < 0)
		return err;
	iov[0] = (struct iovec){ head, sizeof(head) };
	iov[1] = (struct iovec){ io->buf, io->len };
	err = ds_peer_write(s->ds, member, AIFS_OP_FRAG_WRITE, iov, 2, &reply);
	if (err == -EAGAIN)
		return err;
	if (err == -ENXIO) {
		ds_mds_refresh(s->ds);
		return -EAGAIN;
	}
	if (err < 0) {
		aifs_log(err == -EHOSTDOWN ? AIFS_LOG_DEBUG : AIFS_LOG_WARN,
			 "fragment %u of %llu:%u: data server %u is out (%s): skipped",
			 io->frag, (unsigned long long)le64_to_cpu(s->id.ino),
			 le32_to_cpu(s->id.index), member, strerror(-err));
		io->skipped = true;
		return s->whole ? -EAGAIN : 0;
	}
	err = reply.status;
	if (!err && !aifs_decode_frag_write_rep(reply.payload, reply.len, &rep,
						NULL))
		io->version = le64_to_cpu(rep.version);
	aifs_reply_free(&reply);
	if (err && err != ESTALE)
		aifs_warn("data server %u failed fragment %u: %s", member,
			  io->frag, strerror(err));
	io->skipped = err == ESTALE;
	io->refused = err && err != ESTALE;
	return err && (err != ESTALE || s->whole) ? -EAGAIN : 0;
}

static void ds_frag_io_run(struct ds_frag_io *io)
{
	struct ds_stripe *s = io->s;
	struct aifs_chunk_id id = ds_frag_id(s, io->frag);
	bool local = s->members[io->frag] == ds_self_id(s->ds);

	if (io->write && local) {
		io->err = ds_frag_write_local(s->ds, &id, s->chunk, io->offset,
					      io->buf, io->len, s->sync,
					      &io->change);
		io->refused = io->err;
	} else if (io->write) {
		io->err = ds_frag_write_peer(io);
	} else {
		io->err = local ?
			  ds_frag_read_local(s->ds, &id, io->offset, io->len,
					     io->buf, &io->version) :
			  ds_frag_read_peer(io);
	}
}

static void *ds_frag_io_thread(void *arg)
{
	ds_frag_io_run(arg);
	return NULL;
}

/* Run @n fragment I/Os at once, each on a thread of its own but the first. */
static void ds_frag_io_all(struct ds_frag_io *io, u32 n)
{
	u32 i;

	for (i = 1; i < n; i++)
		io[i].threaded = !pthread_create(&io[i].thread, NULL,
						 ds_frag_io_thread, &io[i]);
	for (i = 0; i < n; i++) {
		if (i && io[i].threaded)
			pthread_join(io[i].thread, NULL);
		else
			ds_frag_io_run(&io[i]);
	}
}

/*
 * Read columns [@c0, @c1) of the fragments flagged in @want into the
 * slice, and with @probe the stamp of every other member (a FRAG_READ of
 * no bytes); a fragment that cannot be read is lost.  Holes read as
 * zeros, stamp 0.  Once the stripe's stamp is agreed, a fragment of
 * another makes the stripe torn (a write got in: two leaders).
 */
static void ds_stripe_read(struct ds_stripe *s, const bool *want, u32 c0,
			   u32 c1, bool probe)
{
	struct ds_frag_io io[AIFS_EC_MAX_WIDTH];
	u32 f, n = 0;
	bool bytes;

	for (f = 0; f < s->width; f++) {
		bytes = want && want[f] && !s->read[f];
		if (s->lost[f] || (!bytes && (!probe || s->seen[f])))
			continue;
		if (ds_peer_out(s->ds, s->members[f])) {
			s->lost[f] = true;
			continue;
		}
		io[n++] = (struct ds_frag_io){
			.s = s, .frag = f, .offset = bytes ? c0 : 0,
			.len = bytes ? c1 - c0 : 0, .buf = s->frag[f],
		};
	}
	ds_frag_io_all(io, n);
	for (f = 0; f < n; f++) {
		if (io[f].err && io[f].err != -ENOENT) {
			s->lost[io[f].frag] = true;
			continue;
		}
		s->seen[io[f].frag] = true;
		s->stamp[io[f].frag] = io[f].err ? 0 : io[f].version;
		s->read[io[f].frag] |= io[f].len > 0;
		s->found |= !io[f].err;
		s->torn |= s->settled && s->stamp[io[f].frag] != s->agreed;
	}
}

static u32 ds_stripe_count(const struct ds_stripe *s, const bool *flags)
{
	u32 f, n = 0;

	for (f = 0; f < s->width; f++)
		n += flags[f];
	return n;
}

/*
 * Make the slice whole from what could be read: read more fragments
 * (parity first, then what was not wanted) until K are in, then decode
 * the rest.  -EIO when fewer than K can be read, -EILSEQ when one read
 * holds another stamp.
 */
static int ds_stripe_decode(struct ds_stripe *s, u32 c0, u32 c1)
{
	bool want[AIFS_EC_MAX_WIDTH], lost[AIFS_EC_MAX_WIDTH];
	u32 f, need;

	while (ds_stripe_count(s, s->read) < s->k) {
		need = s->k - ds_stripe_count(s, s->read);
		memset(want, 0, sizeof(want));
		for (f = s->width; f-- > 0 && need;) {
			if (!s->read[f] && !s->lost[f]) {
				want[f] = true;
				need--;
			}
		}
		if (!ds_stripe_count(s, want))
			return -EIO;
		ds_stripe_read(s, want, c0, c1, false);
	}
	if (s->torn)
		return -EILSEQ;
	for (f = 0; f < s->width; f++)
		lost[f] = !s->read[f];
	return aifs_ec_decode(s->ec, s->frag, lost, c1 - c0);
}

/* The stamp a write led here after @stamp gives. */
static u64 ds_stamp_next(const struct ds_stripe *s, u64 stamp)
{
	return (((stamp >> DS_STAMP_LEADER_BITS) + 1) << DS_STAMP_LEADER_BITS) |
	       DS_STAMP_LEADER(ds_self_id(s->ds));
}

/*
 * The newest stamp the members seen hold, and how many hold it (*@n):
 * the highest count; of two writes with one count (two leaders), the one
 * more members took, then the higher.
 */
static u64 ds_stripe_newest(const struct ds_stripe *s, u32 *n)
{
	u32 f, g, count, best = 0;
	u64 top = 0;

	for (f = 0; f < s->width; f++) {
		if (!s->seen[f])
			continue;
		for (count = 0, g = 0; g < s->width; g++)
			count += s->seen[g] && s->stamp[g] == s->stamp[f];
		if (!best ||
		    s->stamp[f] >> DS_STAMP_LEADER_BITS >
		    top >> DS_STAMP_LEADER_BITS ||
		    (s->stamp[f] >> DS_STAMP_LEADER_BITS ==
		     top >> DS_STAMP_LEADER_BITS &&
		     (count > best || (count == best && s->stamp[f] > top)))) {
			top = s->stamp[f];
			best = count;
		}
	}
	*n = best;
	return top;
}

/* FRAG_ROLLBACK of write @stamp to fragment @frag's member (or here). */
static int ds_frag_rollback(struct ds_stripe *s, u32 frag, u64 stamp)
{
	struct aifs_frag_rollback_req r = {
		.id = ds_frag_id(s, frag),
		.stamp = cpu_to_le64(stamp),
		.chunk_size = cpu_to_le32(s->chunk),
	};
	struct aifs_reply reply;
	u64 now;
	int err;

	if (s->members[frag] == ds_self_id(s->ds))
		return ds_frag_rollback_local(s->ds, &r.id, s->chunk, stamp,
					      &now);
	err = ds_peer_ask(s->ds, s->members[frag], AIFS_OP_FRAG_ROLLBACK, &r,
			  sizeof(r), &reply);
	if (!err) {
		err = -(int)reply.status;
		aifs_reply_free(&reply);
	}
	return err;
}

/* The members that took write @top undo it: it was not acknowledged. */
static int ds_stripe_roll_back(struct ds_stripe *s, u64 top)
{
	u32 f;
	int err;

	for (f = 0; f < s->width; f++) {
		if (!s->seen[f] || s->stamp[f] != top)
			continue;
		err = ds_frag_rollback(s, f, top);
		if (err) {
			aifs_err("stripe %llu:%u: fragment %u on data server %u cannot undo a torn write (%s)",
				 (unsigned long long)le64_to_cpu(s->id.ino),
				 le32_to_cpu(s->id.index), f, s->members[f],
				 strerror(-err));
			return -EIO;
		}
	}
	return 0;
}

/*
 * The members seen without write @top get it: their fragments rebuilt
 * whole, a slice at a time, from K members that hold it (with no undo:
 * such a stripe is never rolled back, for K members hold the write).
 */
static int ds_stripe_roll_forward(struct ds_stripe *s, u64 top)
{
	bool behind[AIFS_EC_MAX_WIDTH];
	struct ds_frag_io io;
	u32 f, c0, c1;
	int err = 0;

	for (f = 0; f < s->width; f++)
		behind[f] = s->seen[f] && s->stamp[f] != top;
	for (c0 = 0; !err && c0 < s->chunk; c0 = c1) {
		c1 = s->chunk - c0 > DS_EC_SLICE ? c0 + DS_EC_SLICE : s->chunk;
		for (f = 0; f < s->width; f++) {
			s->lost[f] = !s->seen[f] || s->stamp[f] != top;
			s->read[f] = false;
		}
		s->agreed = top;
		s->settled = true;
		s->torn = false;
		err = ds_stripe_decode(s, c0, c1);
		for (f = 0; !err && f < s->width; f++) {
			if (!behind[f])
				continue;
			io = (struct ds_frag_io){
				.s = s, .frag = f, .offset = c0,
				.len = c1 - c0, .buf = s->frag[f],
				.write = true,
				/* no undo: it would hold the first slice only */
				.change = { s->stamp[f], top, false },
			};
			ds_frag_io_run(&io);
			err = io.err ?: (io.skipped ? -EAGAIN : 0);
		}
	}
	return err;
}

/* One EC_READ of @len bytes at @off of fragment @frag to @member. */
static int ds_ec_read_peer(struct ds *ds, const struct aifs_chunk_id *id,
			   const struct aifs_ec_group *g, u32 member, u32 off,
			   u32 len, u8 *out, u64 *stamp)
{
	struct aifs_ec_read_req req = {
		.id = *id,
		.offset = cpu_to_le32(off),
		.length = cpu_to_le32(len),
		.group = *g,
	};
	struct aifs_span parts[AIFS_MSG_MAX_PARTS];
	struct aifs_chunk_read_rep rep;
	struct aifs_reply reply;
	int err;

	err = ds_peer_ask(ds, member, AIFS_OP_EC_READ, &req, sizeof(req),
			  &reply);
	if (!err)
		err = aifs_decode_ec_read_rep(reply.payload, reply.len, &rep,
					      parts);
	if (!err && (parts[0].len != len || !rep.version))
		err = -EPROTO;
	if (!err) {
		memcpy(out, parts[0].data, len);
		*stamp = le64_to_cpu(rep.version);
	}
	aifs_reply_free(&reply);
	return err;
}

/*
 * Have data server @leader settle the stripe, under its lock: an EC_READ
 * of a few bytes, which waits for the write it may have under way and
 * settles what is torn (ds_ec_read()).
 */
static int ds_stripe_settle_at(struct ds_stripe *s, u32 leader)
{
	struct aifs_ec_group g = {
		.chunk_size = cpu_to_le32(s->chunk),
		.k = s->k,
		.m = s->width - s->k,
	};
	struct aifs_chunk_id id = ds_frag_id(s, 0);
	u8 bytes[AIFS_EC_ALIGN];
	u64 stamp;
	u32 f;
	int err;

	for (f = 0; f < s->width; f++)
		g.members[f] = cpu_to_le32(s->members[f]);
	err = ds_ec_read_peer(s->ds, &id, &g, leader, 0, sizeof(bytes), bytes,
			      &stamp);
	return err == -ENOENT ? 0 : err;
}

/*
 * A stripe whose members hold different stamps: a write torn by its
 * leader's death, or two leaders at once.  A member that missed an
 * acknowledged write serves nothing until rebuilt (rules 20 and 22), so
 * one seen with an older stamp means the newest write was not
 * acknowledged: rolling it back loses nothing, and is what happens when
 * fewer than K members hold it; with K or more it is rolled forward.
 * Under the stripe's lock, taken for a change.  Only the newest write's
 * leader may, or anyone once the MDS counts it out: a write under way
 * looks torn too, and its leader answers it only while it serves
 * (ds_ec_write_apply()); one that serves settles it itself.
 */
static int ds_stripe_settle(struct ds_stripe *s)
{
	u32 n;
	u64 top = ds_stripe_newest(s, &n);
	u32 leader = DS_STAMP_LEADER(top);

	if (leader != DS_STAMP_LEADER(ds_self_id(s->ds)) &&
	    !ds_peer_leads_nothing(s->ds, leader)) {
		int err = ds_stripe_settle_at(s, leader);

		return err == -EILSEQ || !err ? 0 : -EAGAIN;
	}

	aifs_warn("stripe %llu:%u: a torn write (stamp %llx on %u of %u members seen): rolled %s",
		  (unsigned long long)le64_to_cpu(s->id.ino),
		  le32_to_cpu(s->id.index), (unsigned long long)top, n,
		  ds_stripe_count(s, s->seen), n >= s->k ? "forward" : "back");
	if (n >= s->k)
		return ds_stripe_roll_forward(s, top);
	return ds_stripe_roll_back(s, top);
}

/* Whether every member seen holds one stamp: the stripe's, in @agreed. */
static bool ds_stripe_agree(struct ds_stripe *s)
{
	u32 f;
	bool first = true;

	for (f = 0; f < s->width; f++) {
		if (!s->seen[f])
			continue;
		if (!first && s->stamp[f] != s->agreed)
			return false;
		s->agreed = s->stamp[f];
		first = false;
	}
	if (first)
		s->agreed = 0;
	return true;
}

/*
 * Start on columns [@c0, @c1): the fragments in @want read, and every
 * member's stamp.  A stripe whose members disagree is settled first when
 * the caller holds its lock for a change (@settle), else -EILSEQ.
 */
static int ds_stripe_begin(struct ds_stripe *s, const bool *want, u32 c0,
			   u32 c1, bool settle)
{
	int tries, err;

	for (tries = 0;; tries++) {
		memset(s->lost, 0, sizeof(s->lost));
		memset(s->read, 0, sizeof(s->read));
		memset(s->seen, 0, sizeof(s->seen));
		s->settled = s->torn = false;
		ds_stripe_read(s, want, c0, c1, true);
		if (ds_stripe_agree(s)) {
			s->settled = true;
			return 0;
		}
		if (!settle)
			return -EILSEQ;
		if (tries == DS_EC_SETTLE_TRIES)
			return -EAGAIN;
		err = ds_stripe_settle(s);
		if (err)
			return err;
	}
}

/* Where a write of @len bytes at @off of the stripe's data falls in @frag. */
static bool ds_frag_span(const struct ds_stripe *s, u32 frag, u32 off,
			 u32 len, u32 *a, u32 *b)
{
	u64 start = (u64)frag * s->chunk, end = start + s->chunk;
	u64 lo = off > start ? off : start;
	u64 hi = (u64)off + len < end ? (u64)off + len : end;

	if (lo >= hi)
		return false;
	*a = lo - start;
	*b = hi - start;
	return true;
}

/* FRAG_BEHIND of fragment @frag to its member (or here). */
static int ds_frag_behind(struct ds_stripe *s, u32 frag)
{
	struct aifs_frag_behind_req r = {
		.id = ds_frag_id(s, frag),
		.chunk_size = cpu_to_le32(s->chunk),
	};
	struct aifs_reply reply;
	int err;

	if (s->members[frag] == ds_self_id(s->ds))
		return ds_frag_mark(s->ds, &r.id, s->chunk, true, DS_FRAG_ANY);
	err = ds_peer_ask(s->ds, s->members[frag], AIFS_OP_FRAG_BEHIND, &r,
			  sizeof(r), &reply);
	if (!err) {
		err = -(int)reply.status;
		aifs_reply_free(&reply);
	}
	return err;
}

/*
 * Members that answered their fragment write failed (a full disk, a bad
 * one) while others took theirs: the stripe's data and parity disagree
 * there now, and decoding with that fragment would make garbage of
 * bytes the write never touched.  Each is marked behind (stale) until
 * rebuilt by decoding; a member that cannot even be marked leaves the
 * stripe torn (consistency.md, G3).
 */
static void ds_stripe_behind(struct ds_stripe *s, struct ds_frag_io *io,
			     u32 n)
{
	bool took = false;
	u32 f;
	int err;

	for (f = 0; f < n; f++)
		took |= !io[f].err && !io[f].skipped;
	for (f = 0; took && f < n; f++) {
		if (!io[f].refused)
			continue;
		err = ds_frag_behind(s, io[f].frag);
		if (err)
			aifs_err("fragment %u of %llu:%u: data server %u failed its write and cannot be marked behind (%s): the stripe may decode wrong",
				 io[f].frag,
				 (unsigned long long)le64_to_cpu(s->id.ino),
				 le32_to_cpu(s->id.index),
				 s->members[io[f].frag], strerror(-err));
	}
}

/*
 * Write what changed in columns [@c0, @c1): data as written, all parity,
 * and the new stamp to the data fragments the write leaves alone.
 */
static int ds_stripe_store(struct ds_stripe *s, u32 off, u32 len, u32 c0,
			   u32 c1)
{
	struct ds_frag_io io[AIFS_EC_MAX_WIDTH];
	struct aifs_chunk_id own = s->id;
	u32 f, a, b;
	int err;

	for (f = 0; f < s->width; f++) {
		if (s->members[f] == ds_self_id(s->ds))
			own = ds_frag_id(s, f);
		if (f >= s->k) {
			a = c0;
			b = c1;
		} else if (ds_frag_span(s, f, off, len, &a, &b) && b > c0 &&
			   a < c1) {
			a = a > c0 ? a : c0;
			b = b < c1 ? b : c1;
		} else {
			a = b = c0;	/* its stamp only */
		}
		/*
		 * a member our map counts out is tried all the same: it may
		 * be back and serving already, and would miss the write;
		 * one still out fails fast and is skipped
		 * (ds_frag_write_peer())
		 */
		io[f] = (struct ds_frag_io){
			.s = s, .frag = f, .offset = a, .len = b - a,
			.buf = s->frag[f] + (a - c0), .write = true,
			.change = { s->agreed, s->next, true },
		};
	}
	/*
	 * no intent for an archive's stripe: nothing reads it before the
	 * file switches layouts, the MDS writes it again when this fails,
	 * and a fragment marked stale could not be rebuilt before the switch
	 */
	err = s->unread ? 0 : ds_intent_begin(s->ds, &own, s->sync);
	if (err)
		return err;
	ds_frag_io_all(io, s->width);
	/*
	 * a leader that dies here, its fragments written and nothing
	 * answered, leaves the stripe torn when a member refused its write
	 */
	aifs_fail_crash(AIFS_FAIL_DS_WRITE_CRASH, AIFS_OP_EC_WRITE);
	for (f = 0; f < s->width; f++) {
		if (io[f].err)
			err = io[f].err;
		s->missed[f] |= io[f].skipped;
	}
	ds_stripe_behind(s, io, s->width);
	if (!s->unread)
		ds_intent_end(s->ds, &own);
	return err;
}

/*
 * Whether the stripe holds the write on enough members to acknowledge
 * it: at most M fragments short of it, those whose write was skipped and
 * those of members that serve nothing (out, or SYNCING: a fragment being
 * rebuilt is no source yet).  With more, a member back could not be
 * told current from stale (the MDS takes one back as current when M
 * others went out before it, for no write is acknowledged after that:
 * clustermap.c, mds_map_last_copy()).  Asked before the fragments are
 * written too, so that such a write changes nothing.
 */
static int ds_stripe_enough(struct ds_stripe *s)
{
	u32 f, short_of = 0, self = ds_self_id(s->ds);

	for (f = 0; f < s->width; f++)
		short_of += s->missed[f] ||
			    (s->members[f] != self &&
			     ds_peer_leads_nothing(s->ds, s->members[f]));
	return short_of > s->width - s->k ? -EAGAIN : 0;
}

/*
 * One column slice of a write: what the write does not cover is read
 * (all of it decoded when a fragment it needs cannot be read), the new
 * bytes laid over, the parity encoded, and both written.
 */
static int ds_ec_write_slice(struct ds_stripe *s, const u8 *data, u32 off,
			     u32 len, u32 c0, u32 c1)
{
	bool want[AIFS_EC_MAX_WIDTH] = { false };
	u32 f, a, b;
	int err;

	for (f = 0; f < s->k; f++)
		want[f] = !ds_frag_span(s, f, off, len, &a, &b) || a > c0 ||
			  b < c1;
	err = ds_stripe_begin(s, want, c0, c1, true);
	for (f = 0; !err && f < s->k; f++) {
		if (want[f] && s->lost[f]) {
			err = ds_stripe_decode(s, c0, c1);
			break;
		}
	}
	if (err)
		return err == -EILSEQ ? -EAGAIN : err;
	s->next = ds_stamp_next(s, s->agreed);
	for (f = 0; f < s->k; f++) {
		if (!ds_frag_span(s, f, off, len, &a, &b) || b <= c0 ||
		    a >= c1)
			continue;
		a = a > c0 ? a : c0;
		b = b < c1 ? b : c1;
		memcpy(s->frag[f] + (a - c0),
		       data + ((u64)f * s->chunk + a - off), b - a);
	}
	aifs_ec_encode(s->ec, s->frag, c1 - c0);
	return ds_stripe_store(s, off, len, c0, c1);
}

/*
 * The columns a write of @len bytes at @off of the stripe's data touches,
 * [@c0, @c1), aligned for the code; a write over the end of one fragment
 * and the start of the next, shorter than a fragment, touches two runs:
 * the second comes back in @c2, @c3 (else @c2 == @c3).
 */
static void ds_ec_columns(const struct ds_stripe *s, u32 off, u32 len,
			  u32 *c0, u32 *c1, u32 *c2, u32 *c3)
{
	u32 first = off / s->chunk, last = (off + len - 1) / s->chunk;
	u32 start = off % s->chunk, end = (off + len - 1) % s->chunk + 1;

	*c2 = *c3 = 0;
	if (first == last) {
		*c0 = start;
		*c1 = end;
	} else if (last == first + 1 && end < start) {
		*c0 = 0;
		*c1 = end;
		*c2 = start & ~(AIFS_EC_ALIGN - 1);
		*c3 = s->chunk;
	} else {
		*c0 = 0;
		*c1 = s->chunk;
	}
	*c0 &= ~(AIFS_EC_ALIGN - 1);
	*c1 = (*c1 + AIFS_EC_ALIGN - 1) & ~(AIFS_EC_ALIGN - 1);
}

/* Columns [@c0, @c1) of a write, a slice at a time. */
static int ds_ec_write_run(struct ds_stripe *s, const u8 *data, u32 off,
			   u32 len, u32 c0, u32 c1)
{
	u32 end;
	int err = 0;

	for (; c0 < c1 && !err; c0 = end) {
		end = c1 - c0 > DS_EC_SLICE ? c0 + DS_EC_SLICE : c1;
		err = ds_ec_write_slice(s, data, off, len, c0, end);
	}
	return err;
}

static int ds_stripe_alloc(struct ds_stripe *s)
{
	u32 f, slice = s->chunk < DS_EC_SLICE ? s->chunk : DS_EC_SLICE;

	for (f = 0; f < s->width; f++) {
		if (posix_memalign((void **)&s->frag[f], DS_IO_ALIGN, slice))
			return -ENOMEM;
	}
	return 0;
}

static void ds_stripe_free(struct ds_stripe *s)
{
	u32 f;

	for (f = 0; f < s->width; f++)
		free(s->frag[f]);
}

/*
 * Set up @s for a stripe of @id in @g, led by this server: one of its
 * members (-EINVAL otherwise: a confused client).
 */
static int ds_stripe_init(struct ds_stripe *s, struct ds *ds,
			  const struct aifs_chunk_id *id,
			  const struct aifs_ec_group *g)
{
	u32 f, self = ds_self_id(ds);
	bool member = false;

	memset(s, 0, sizeof(*s));
	s->ds = ds;
	s->id = *id;
	s->id.fragment = 0;
	s->k = g->k;
	s->width = g->k + g->m;
	s->chunk = le32_to_cpu(g->chunk_size);
	for (f = 0; f < s->width; f++) {
		s->members[f] = le32_to_cpu(g->members[f]);
		member |= s->members[f] == self;
	}
	s->ec = aifs_ec_get(g->k, g->m);
	if (!s->ec)
		return -errno;
	if (!member)
		return -EINVAL;
	return ds_stripe_alloc(s);
}

static void ds_stripe_lock(struct ds_stripe *s, bool write,
			   struct ds_lock *lock)
{
	struct aifs_chunk_id id = s->id;

	id.fragment = cpu_to_le16(DS_EC_LOCK_FRAGMENT);
	ds_chunk_lock(s->ds, &id, write, lock);
}

static int ds_ec_reply_chunk(struct aifs_request *req, u64 version, u32 len)
{
	struct aifs_chunk_rep rep = {
		.version = cpu_to_le64(version),
		.length = cpu_to_le32(len),
	};

	return ds_reply_fixed(req, &rep, sizeof(rep));
}

/* The write's bytes: sent, fetched by RDMA, or zeros (*@zeros freed after). */
static int ds_ec_write_data(struct aifs_request *req,
			    const struct aifs_ec_write_req *r,
			    struct aifs_span *data, struct aifs_rdma_buf **bp,
			    void **zeros)
{
	u32 flags = le32_to_cpu(r->flags);

	if (flags & AIFS_IO_RDMA)
		return ds_rdma_fetch(req, &r->rdma, data, bp);
	if (flags & AIFS_IO_ZERO) {
		*zeros = calloc(1, le32_to_cpu(r->rdma.len));
		if (!*zeros)
			return -ENOMEM;
		*data = (struct aifs_span){ *zeros, le32_to_cpu(r->rdma.len) };
	}
	return 0;
}

/*
 * The write under the stripe's lock.  The layout generation is looked at
 * before and once more after the fragments are written, as a replicated
 * primary does (ds_primary_apply()): a rebuild fences the old layout
 * before its new member decodes the stripe, so a write that passes the
 * second look is in what the new member decodes; one that fails it is
 * EREMCHG, not acknowledged, and the client writes it again with the new
 * layout.
 */
static int ds_ec_write_apply(struct ds_stripe *s,
			     const struct aifs_ec_write_req *r,
			     const struct aifs_span *data)
{
	u32 off = le32_to_cpu(r->offset), c0, c1, c2, c3;
	struct ds_lock lock;
	int err;

	if (!data->len)
		return 0;
	err = ds_ahead_out(s->ds, r->group.members,
			   le16_to_cpu(r->group.ahead));
	if (!err)
		err = ds_layout_gen_check(s->ds, le64_to_cpu(r->id.ino),
					  s->layout_gen);
	if (!err)
		err = ds_stripe_enough(s);
	if (err)
		return err;
	ds_ec_columns(s, off, data->len, &c0, &c1, &c2, &c3);
	ds_stripe_lock(s, true, &lock);
	err = ds_ec_write_run(s, data->data, off, data->len, c0, c1);
	if (!err)
		err = ds_ec_write_run(s, data->data, off, data->len, c2, c3);
	if (!err)
		err = ds_stripe_enough(s);
	if (!err) {
		/* written, not answered yet */
		aifs_fail_pause(AIFS_FAIL_DS_WRITE_PAUSE, AIFS_OP_EC_WRITE);
		err = ds_layout_gen_check(s->ds, le64_to_cpu(r->id.ino),
					  s->layout_gen);
	}
	/*
	 * counted out meanwhile: others may have settled the stripe as torn
	 * and rolled the write back (ds_stripe_settle())
	 */
	if (!err && !ds_serving(s->ds))
		err = -ESTALE;
	ds_chunk_unlock(s->ds, &lock);
	return err;
}

/* EC_WRITE, on the stripe's leader. */
static int ds_ec_write(struct aifs_request *req)
{
	struct aifs_span parts[AIFS_MSG_MAX_PARTS], data;
	struct aifs_rdma_buf *rdma_buf = NULL;
	struct aifs_ec_write_req r;
	struct ds_stripe s;
	void *zeros = NULL;
	int err;

	if (!ds_serving(req->data))
		return -ESTALE;	/* maybe counted out: the next member leads */
	err = aifs_decode_ec_write_req(req->payload, req->payload_len, &r,
				       parts);
	if (!err)
		err = ds_check_id(req->data, &r.id);
	if (err)
		return err;
	data = parts[0];
	err = ds_ec_write_data(req, &r, &data, &rdma_buf, &zeros);
	if (!err) {
		err = ds_stripe_init(&s, req->data, &r.id, &r.group);
		s.layout_gen = le32_to_cpu(r.layout_gen);
		s.sync = le32_to_cpu(r.flags) & AIFS_IO_SYNC;
		if (!err)
			err = ds_ec_write_apply(&s, &r, &data);
		if (!err)
			err = ds_ec_reply_chunk(req, s.next, data.len);
		ds_stripe_free(&s);
	}
	if (rdma_buf)
		aifs_rdma_buf_put(rdma_buf);
	free(zeros);
	return err == -EBUSY ? -ESTALE : err;
}

/* The EC_READ reply: @len decoded bytes at @data, sent or by RDMA. */
static int ds_ec_read_reply(struct aifs_request *req,
			    const struct aifs_ec_read_req *r,
			    const struct ds_stripe *s, const u8 *data, u32 len)
{
	bool rdma = le32_to_cpu(r->flags) & AIFS_IO_RDMA;
	struct aifs_chunk_read_rep rep = {
		.version = cpu_to_le64(s->agreed),
		.chunk_len = cpu_to_le32(s->chunk),
	};
	struct aifs_span part = { NULL, rdma ? 0 : len };
	u32 size = sizeof(rep) + part.len;
	u8 *buf;
	int n;

	if (rdma) {
		n = ds_rdma_send(req, data, len, &r->rdma);
		if (n)
			return n;
	}
	buf = malloc(size);
	if (!buf)
		return -ENOMEM;
	memcpy(buf + sizeof(rep), data, part.len);
	part.data = buf + sizeof(rep);
	n = aifs_encode_ec_read_rep(buf, size, &rep, &part);
	if (n < 0) {
		free(buf);
		return n;
	}
	req->reply = buf;
	req->reply_len = n;
	return 0;
}

/*
 * Fragment @want's bytes [@off, @off + @len) into @out, decoded from the
 * other fragments a slice at a time: -ENOENT when the stripe has none.
 */
static int ds_ec_decode_range(struct ds_stripe *s, u32 want, u32 off,
			      u32 len, u8 *out)
{
	u32 c0 = off & ~(AIFS_EC_ALIGN - 1), c1, end = off + len;
	bool ask[AIFS_EC_MAX_WIDTH];
	u32 f, from, to;
	u64 stamp = 0;
	int err;

	/* the other data fragments first: the cheapest K */
	for (f = 0; f < s->width; f++)
		ask[f] = f < s->k && f != want;
	for (; c0 < end; c0 = c1) {
		c1 = end - c0 > DS_EC_SLICE ? c0 + DS_EC_SLICE :
		     (end + AIFS_EC_ALIGN - 1) & ~(AIFS_EC_ALIGN - 1);
		err = ds_stripe_begin(s, ask, c0, c1, false);
		if (err)
			return err;
		/* a write between two slices: one stamp for all, or again */
		if (c0 > (off & ~(AIFS_EC_ALIGN - 1)) && s->agreed != stamp)
			return -EAGAIN;
		stamp = s->agreed;
		s->lost[want] = true;
		s->read[want] = false;
		err = ds_stripe_decode(s, c0, c1);
		if (err)
			return err;
		from = off > c0 ? off : c0;
		to = end < c1 ? end : c1;
		memcpy(out + (from - off), s->frag[want] + (from - c0),
		       to - from);
	}
	/* no stamp: holes, or a first write rolled back */
	return s->found && stamp ? 0 : -ENOENT;
}

/* EC_READ: a fragment its own server cannot serve, decoded. */
static int ds_ec_read(struct aifs_request *req)
{
	struct aifs_ec_read_req r;
	struct ds_stripe s;
	struct ds_lock lock;
	int err, tries;
	u8 *out;

	if (!ds_serving(req->data))
		return -ESTALE;
	err = aifs_decode_ec_read_req(req->payload, req->payload_len, &r,
				      NULL);
	if (!err)
		err = ds_check_id(req->data, &r.id);
	if (!err && (le32_to_cpu(r.flags) & AIFS_IO_RDMA) && !req->rdma)
		err = -EOPNOTSUPP;
	if (err)
		return err;
	err = ds_stripe_init(&s, req->data, &r.id, &r.group);
	out = malloc(le32_to_cpu(r.length));
	if (!err && !out)
		err = -ENOMEM;
	for (tries = 0; !err && tries <= DS_EC_SETTLE_TRIES; tries++) {
		ds_stripe_lock(&s, false, &lock);
		err = ds_ec_decode_range(&s, le16_to_cpu(r.id.fragment) - 1,
					 le32_to_cpu(r.offset),
					 le32_to_cpu(r.length), out);
		ds_chunk_unlock(s.ds, &lock);
		if (err != -EILSEQ)
			break;
		/* torn: settled under the lock taken for a change */
		ds_stripe_lock(&s, true, &lock);
		err = ds_stripe_begin(&s, NULL, 0, 0, true);
		ds_chunk_unlock(s.ds, &lock);
	}
	/*
	 * torn, and its newest write's leader out of reach but not counted
	 * out yet: the client tries again, as with a server catching up
	 */
	if (err == -EILSEQ || err == -EAGAIN)
		err = -ESTALE;
	if (!err)
		err = ds_ec_read_reply(req, &r, &s, out, le32_to_cpu(r.length));
	free(out);
	ds_stripe_free(&s);
	return err;
}

/*
 * EC_ARCHIVE: a stripe of a replicated file written as its fragments,
 * from the file's chunks, by a member of the stripe's group in the EC
 * layout the file is moving to (Documentation/erasure-coding.md,
 * "Archive").  The chunks hold still: the MDS lets nobody open the file
 * for writing meanwhile.  Every fragment must be written (@whole), for no
 * rebuild will look at a stripe of a layout the file does not have yet.
 */

/*
 * @len bytes at @off of chunk @index of the archive's source, from the
 * first member of its group that serves it (holes read as zeros).
 */
static int ds_archive_read(struct ds *ds, const struct aifs_ec_archive_req *r,
			   u32 index, u32 off, u32 len, char *buf)
{
	const struct aifs_layout *l = &r->source;
	u32 width = l->replicas, self = ds_self_id(ds), i, member;
	u32 g = index % le16_to_cpu(l->stripe_count);
	struct aifs_chunk_id id = r->id;
	u64 version;
	int err;

	id.index = cpu_to_le32(index);
	for (i = 0; i < width; i++) {
		member = le32_to_cpu(l->targets[g * width + i]);
		if (member == self)
			err = ds_frag_read_local(ds, &id, off, len, buf,
						 &version);
		else if (!ds_peer_out(ds, member))
			err = ds_chunk_read_peer(ds, member, &id,
						 le32_to_cpu(l->chunk_size),
						 off, len, buf, &version);
		else
			continue;
		if (!err || err == -ENOENT)
			return 0;
	}
	return -EAGAIN;
}

/* Columns [@c0, @c1) of the stripe's @len bytes of data, archived. */
static int ds_ec_archive_slice(struct ds_stripe *s,
			       const struct aifs_ec_archive_req *r, u32 len,
			       u32 c0, u32 c1)
{
	u32 first = le32_to_cpu(r->id.index) * s->k, f, a, b;
	int err;

	/* a try before may have left fragments: their stamp is the prev */
	err = ds_stripe_begin(s, NULL, c0, c1, true);
	if (!err)
		s->next = ds_stamp_next(s, s->agreed);
	for (f = 0; f < s->k && !err; f++) {
		memset(s->frag[f], 0, c1 - c0);
		if (!ds_frag_span(s, f, 0, len, &a, &b) || b <= c0 || a >= c1)
			continue;
		a = a > c0 ? a : c0;
		b = b < c1 ? b : c1;
		err = ds_archive_read(s->ds, r, first + f, a, b - a,
				      s->frag[f] + (a - c0));
	}
	if (err)
		return err;
	aifs_ec_encode(s->ec, s->frag, c1 - c0);
	return ds_stripe_store(s, 0, len, c0, c1);
}

static int ds_ec_archive(struct aifs_request *req)
{
	struct aifs_ec_archive_req r;
	u32 len = 0, c0, c1, c2, c3, end;
	struct ds_stripe s;
	struct ds_lock lock;
	u64 start, size;
	int err;

	if (!ds_serving(req->data))
		return -ESTALE;
	err = aifs_decode_ec_archive_req(req->payload, req->payload_len, &r,
					 NULL);
	if (!err)
		err = ds_check_id(req->data, &r.id);
	if (err)
		return err;
	err = ds_stripe_init(&s, req->data, &r.id, &r.group);
	s.layout_gen = le32_to_cpu(r.layout_gen);
	s.sync = true;
	s.whole = true;
	s.unread = true;
	start = (u64)le32_to_cpu(r.id.index) * s.k * s.chunk;
	size = le64_to_cpu(r.size);
	if (size > start)
		len = size - start < (u64)s.k * s.chunk ? size - start :
							   s.k * s.chunk;
	if (!err && len) {
		ds_ec_columns(&s, 0, len, &c0, &c1, &c2, &c3);
		ds_stripe_lock(&s, true, &lock);
		for (; c0 < c1 && !err; c0 = end) {
			end = c1 - c0 > DS_EC_SLICE ? c0 + DS_EC_SLICE : c1;
			err = ds_ec_archive_slice(&s, &r, len, c0, end);
		}
		ds_chunk_unlock(s.ds, &lock);
	}
	if (!err)
		err = ds_ec_reply_chunk(req, s.next, len);
	ds_stripe_free(&s);
	return err;
}

/*
 * EC_VERIFY: a stripe's parity encoded again from its data and compared,
 * a column slice at a time, under the stripe's lock; with REPAIR, parity
 * that differs is rewritten from the data (the data fragments' own CRCs
 * vouch for them: a damaged block is found, and repaired, as such).
 */
static u64 ds_bytes_differing(const char *a, const char *b, u32 len)
{
	u64 n = 0;
	u32 i;

	for (i = 0; i < len; i++)
		n += a[i] != b[i];
	return n;
}

static int ds_ec_verify_slice(struct ds_stripe *s, u32 c0, u32 c1,
			      char **parity, bool repair,
			      struct aifs_ec_verify_rep *rep)
{
	bool want[AIFS_EC_MAX_WIDTH];
	char *code[AIFS_EC_MAX_WIDTH];
	u32 f, len = c1 - c0;
	u64 bad = 0;
	int err;

	for (f = 0; f < s->width; f++)
		want[f] = true;
	err = ds_stripe_begin(s, want, c0, c1, repair);
	if (err == -EILSEQ) {
		/* torn, and not to be settled: none of it is one codeword */
		rep->checked = cpu_to_le64(le64_to_cpu(rep->checked) + len);
		rep->mismatched = cpu_to_le64(le64_to_cpu(rep->mismatched) +
					      len);
		return 0;
	}
	if (err)
		return err;
	if (ds_stripe_count(s, s->lost)) {
		rep->skipped = cpu_to_le64(le64_to_cpu(rep->skipped) + len);
		return 0;
	}
	for (f = 0; f < s->width; f++)
		code[f] = f < s->k ? s->frag[f] : parity[f - s->k];
	aifs_ec_encode(s->ec, code, len);
	for (f = s->k; f < s->width; f++)
		bad += ds_bytes_differing(s->frag[f], code[f], len);
	rep->checked = cpu_to_le64(le64_to_cpu(rep->checked) + len);
	rep->mismatched = cpu_to_le64(le64_to_cpu(rep->mismatched) + bad);
	if (!bad || !repair)
		return 0;
	for (f = s->k; f < s->width; f++)
		memcpy(s->frag[f], code[f], len);
	s->next = ds_stamp_next(s, s->agreed);
	err = ds_stripe_store(s, 0, 0, c0, c1);
	if (!err)
		rep->repaired = cpu_to_le64(le64_to_cpu(rep->repaired) + bad);
	return err;
}

/**
 * ds_ec_verify_run - EC_VERIFY of one stripe, led here
 * @ds: this server, a member of @r's group
 * @r: the request
 * @rep: out: what was compared and found
 *
 * Return: 0 or a negative errno.
 */
int ds_ec_verify_run(struct ds *ds, const struct aifs_ec_verify_req *r,
		     struct aifs_ec_verify_rep *rep)
{
	bool repair = le32_to_cpu(r->flags) & AIFS_EC_VERIFY_REPAIR;
	char *parity[AIFS_EC_MAX_M] = { NULL };
	u32 slice, c0, f;
	struct ds_stripe s;
	struct ds_lock lock;
	int err;

	memset(rep, 0, sizeof(*rep));
	err = ds_stripe_init(&s, ds, &r->id, &r->group);
	slice = s.chunk < DS_EC_SLICE ? s.chunk : DS_EC_SLICE;
	for (f = 0; !err && f < s.width - s.k; f++)
		if (posix_memalign((void **)&parity[f], DS_IO_ALIGN, slice))
			err = -ENOMEM;
	s.sync = true;
	s.whole = true;
	if (!err) {
		ds_stripe_lock(&s, repair, &lock);
		for (c0 = 0; !err && c0 < s.chunk; c0 += slice)
			err = ds_ec_verify_slice(&s, c0, c0 + slice, parity,
						 repair, rep);
		ds_chunk_unlock(ds, &lock);
	}
	for (f = 0; f < AIFS_EC_MAX_M; f++)
		free(parity[f]);
	ds_stripe_free(&s);
	return err;
}

/* EC_VERIFY of @r by data server @member. */
int ds_ec_verify_peer(struct ds *ds, u32 member,
		      const struct aifs_ec_verify_req *r,
		      struct aifs_ec_verify_rep *rep)
{
	struct aifs_reply reply;
	int err;

	err = ds_peer_ask(ds, member, AIFS_OP_EC_VERIFY, r, sizeof(*r),
			  &reply);
	if (!err)
		err = aifs_decode_ec_verify_rep(reply.payload, reply.len, rep,
						NULL);
	aifs_reply_free(&reply);
	return err;
}

static int ds_ec_verify(struct aifs_request *req)
{
	struct aifs_ec_verify_req r;
	struct aifs_ec_verify_rep rep;
	int err;

	if (!ds_serving(req->data))
		return -ESTALE;
	err = aifs_decode_ec_verify_req(req->payload, req->payload_len, &r,
					NULL);
	if (!err)
		err = ds_check_id(req->data, &r.id);
	if (!err)
		err = ds_ec_verify_run(req->data, &r, &rep);
	return err ? err : ds_reply_fixed(req, &rep, sizeof(rep));
}

/*
 * Catching up (CHUNK_SYNC of an EC file, when this server is back from a
 * failure): every stripe of the file that holds a fragment here is
 * rebuilt, the fragment decoded by the stripe's first other member that
 * serves (EC_READ, under its stripe lock: never from a stripe mid-write)
 * and written here over what this server had.  A leader's write that
 * reaches the fragment meanwhile (it is no OFFLINE member: leaders write
 * to it) changes its version, and the rebuild of that stripe starts
 * again; one that does not reach it leaves its bytes as they were.
 * Stripes past the last listed by a member are not looked at.
 */
#define DS_EC_SYNC_STRIPES	16	/* per CHUNK_SYNC: each decodes a fragment */

/* Group @g of the EC layout @l, as requests name a stripe's servers. */
void ds_ec_group_of(const struct aifs_layout *l, u32 g,
		    struct aifs_ec_group *grp)
{
	u32 width = l->ec_k + l->ec_m;

	memset(grp, 0, sizeof(*grp));
	grp->chunk_size = l->chunk_size;
	grp->k = l->ec_k;
	grp->m = l->ec_m;
	memcpy(grp->members, &l->targets[g * width], width * sizeof(__le32));
}

/* This server's place in group @g of @l: its member index, or -1. */
static int ds_ec_member_at(const struct aifs_layout *l, u32 g, u32 self)
{
	u32 width = l->ec_k + l->ec_m, f;

	for (f = 0; f < width; f++)
		if (le32_to_cpu(l->targets[g * width + f]) == self)
			return f;
	return -1;
}

/**
 * ds_ec_peers - the other members of this server's groups in an EC layout
 * @ds: this server
 * @l: the layout
 * @out: room for AIFS_LAYOUT_MAX_TARGETS ids, or NULL to only ask
 *
 * Return: how many, each once; -ENOENT when no group holds this server.
 */
int ds_ec_peers(struct ds *ds, const struct aifs_layout *l, u32 *out)
{
	u32 width = l->ec_k + l->ec_m, self = ds_self_id(ds), g, f, id;
	u32 sc = le16_to_cpu(l->stripe_count);
	bool member = false;
	int n = 0, i;

	for (g = 0; g < sc && (g + 1) * width <= AIFS_LAYOUT_MAX_TARGETS; g++) {
		if (ds_ec_member_at(l, g, self) < 0)
			continue;
		member = true;
		for (f = 0; out && f < width; f++) {
			id = le32_to_cpu(l->targets[g * width + f]);
			for (i = 0; i < n && out[i] != id; i++)
				;
			if (id != self && i == n)
				out[n++] = id;
		}
	}
	return member ? n : -ENOENT;
}

/* Add @stripe to the sorted set @set of at most DS_EC_SYNC_STRIPES. */
static void ds_ec_stripe_add(u32 *set, u32 *n, u32 stripe)
{
	u32 i = 0;

	while (i < *n && set[i] < stripe)
		i++;
	if ((i < *n && set[i] == stripe) || i == DS_EC_SYNC_STRIPES)
		return;
	if (*n == DS_EC_SYNC_STRIPES)
		(*n)--;
	memmove(&set[i + 1], &set[i], (*n - i) * sizeof(*set));
	set[i] = stripe;
	(*n)++;
}

/*
 * The stripes from @r's index on that @peer holds fragments of, in the
 * groups this server is in, into @set.  -errno when it cannot tell.
 */
static int ds_ec_peer_stripes(struct ds *ds, const struct aifs_chunk_sync_req *r,
			      u32 peer, u32 *set, u32 *n, u32 *fence)
{
	const struct aifs_layout *l = &r->layout;
	struct aifs_chunk_list_req req = {
		.id = r->id,
		.max = cpu_to_le32(AIFS_CHUNK_LIST_MAX),
	};
	struct aifs_span parts[AIFS_MSG_MAX_PARTS];
	u32 i, count, sc = le16_to_cpu(l->stripe_count);
	struct aifs_chunk_list_rep rep;
	struct aifs_chunk_entry e;
	struct aifs_reply reply;
	int err;

	err = ds_peer_ask(ds, peer, AIFS_OP_CHUNK_LIST, &req, sizeof(req),
			  &reply);
	if (!err)
		err = aifs_decode_chunk_list_rep(reply.payload, reply.len, &rep,
						 parts);
	count = err ? 0 : le32_to_cpu(rep.count);
	if (!err && le32_to_cpu(rep.fence) < *fence)
		*fence = le32_to_cpu(rep.fence);
	for (i = 0; i < count; i++) {
		memcpy(&e, (const u8 *)parts[0].data + i * AIFS_CHUNK_ENTRY_SIZE,
		       sizeof(e));
		/* fragment 0: a chunk of the file before its archive */
		if (e.fragment && le32_to_cpu(e.index) >= le32_to_cpu(r->id.index) &&
		    ds_ec_member_at(l, le32_to_cpu(e.index) % sc,
				    ds_self_id(ds)) >= 0)
			ds_ec_stripe_add(set, n, le32_to_cpu(e.index));
	}
	aifs_reply_free(&reply);
	return err;
}

/*
 * The stripes to rebuild in this call: what the other members of this
 * server's groups hold, the first DS_EC_SYNC_STRIPES of them, and the
 * least of their last truncations (@fence).  -EAGAIN when no member
 * could say.
 */
static int ds_ec_sync_stripes(struct ds *ds, const struct aifs_chunk_sync_req *r,
			      u32 *set, u32 *n, u32 *fence)
{
	u32 peers[AIFS_LAYOUT_MAX_TARGETS];
	int i, nr = ds_ec_peers(ds, &r->layout, peers);
	bool answered = false;

	if (nr < 0)
		return -EINVAL;
	*n = 0;
	for (i = 0; i < nr; i++)
		if (!ds_peer_out(ds, peers[i]) &&
		    !ds_ec_peer_stripes(ds, r, peers[i], set, n, fence))
			answered = true;
	return answered ? 0 : -EAGAIN;
}

/*
 * Columns [@off, @off + @len) of the fragment @id, from the first member
 * that decodes them, and the stripe's stamp they are of.
 */
static int ds_ec_decoded(struct ds *ds, const struct aifs_chunk_id *id,
			 const struct aifs_ec_group *g, u32 off, u32 len,
			 u8 *out, u64 *stamp)
{
	u32 f, self = ds_self_id(ds), member;
	int err = -EAGAIN;

	for (f = 0; f < (u32)g->k + g->m; f++) {
		member = le32_to_cpu(g->members[f]);
		if (member == self || ds_peer_out(ds, member))
			continue;
		err = ds_ec_read_peer(ds, id, g, member, off, len, out,
				      stamp);
		if (!err || err == -ENOENT)
			return err;
	}
	return err == -EIO ? -EIO : -EAGAIN;
}

/*
 * Rebuild fragment @f of stripe @stripe (group @g) here, slice by slice:
 * 0 (also for a stripe that holds nothing: a hole), -EAGAIN when a write
 * reached it meanwhile or no member could decode.
 */
static int ds_ec_rebuild(struct ds *ds, const struct aifs_chunk_sync_req *r,
			 u32 stripe, u32 g, u32 f, u8 *buf)
{
	const struct aifs_layout *l = &r->layout;
	u32 chunk = le32_to_cpu(l->chunk_size);
	u32 slice = chunk < DS_EC_SLICE ? chunk : DS_EC_SLICE, off;
	struct aifs_chunk_id id = r->id;
	struct aifs_chunk_entry e = { 0 };
	struct aifs_ec_group grp;
	struct ds_frag_change ch = { 0 };
	u64 stamp = 0;
	int err = 0;

	ds_ec_group_of(l, g, &grp);
	id.index = cpu_to_le32(stripe);
	id.fragment = cpu_to_le16(AIFS_EC_FRAGMENT(f));
	ds_chunk_stat(ds, &id, &e);
	ch.prev = le64_to_cpu(e.version);	/* 0: none here */
	for (off = 0; !err && off < chunk; off += slice) {
		err = ds_ec_decoded(ds, &id, &grp, off, slice, buf, &stamp);
		/* a write between two slices: they are of two codewords */
		if (!err && off && stamp != ch.stamp)
			err = -EAGAIN;
		ch.stamp = stamp;
		if (!err)
			err = ds_frag_write_local(ds, &id, chunk, off, buf,
						  slice, off + slice == chunk,
						  &ch);
	}
	/* whole again: no longer behind, unless a write came meanwhile */
	if (!err && e.flags & cpu_to_le16(AIFS_CHUNK_STALE))
		err = ds_frag_mark(ds, &id, chunk, false, ch.stamp);
	if (err == -EILSEQ)
		err = -EAGAIN;
	/* nothing of the stripe anywhere: a hole */
	return err == -ENOENT ? 0 : err;
}

/**
 * ds_ec_repair - a damaged fragment held here made whole by decoding
 * @ds: this server
 * @id: the fragment (a checksum did not match: resync.c)
 *
 * Its bytes are decoded from the rest of the stripe by another member
 * (which never reads this fragment for it) and written over it, fresh
 * CRCs and all; a write that reaches it meanwhile starts it again.
 *
 * Return: 0, or why not (-EINVAL: no EC layout names this server for
 * it, -EAGAIN: no member could decode it).
 */
int ds_ec_repair(struct ds *ds, const struct aifs_chunk_id *id)
{
	struct aifs_chunk_sync_req r = { .id = *id };
	const struct aifs_layout *l = &r.layout;
	u32 stripe = le32_to_cpu(id->index), g, slice;
	int err, tries = 0;
	u8 *buf;

	err = ds_mds_layout(ds, le64_to_cpu(id->ino), &r.layout);
	if (err)
		return err;
	if (l->type != AIFS_LAYOUT_EC || aifs_layout_check(l) ||
	    !l->target_count)
		return -EINVAL;
	g = stripe % le16_to_cpu(l->stripe_count);
	if (ds_ec_member_at(l, g, ds_self_id(ds)) !=
	    (int)le16_to_cpu(id->fragment) - 1)
		return -EINVAL;
	slice = le32_to_cpu(l->chunk_size) < DS_EC_SLICE ?
		le32_to_cpu(l->chunk_size) : DS_EC_SLICE;
	buf = malloc(slice);
	if (!buf)
		return -ENOMEM;
	do {
		err = ds_ec_rebuild(ds, &r, stripe, g,
				    le16_to_cpu(id->fragment) - 1, buf);
	} while (err == -EAGAIN && ++tries < 3);
	free(buf);
	return err;
}

/**
 * ds_ec_sync - CHUNK_SYNC of an EC file: this server's fragments rebuilt
 * @ds: this server
 * @r: the request, its layout EC
 * @rep: out: how far it went
 *
 * Return: 0, -EAGAIN (try again: a member could not be asked or decode,
 * or a write came in), -EINVAL (the layout does not name this server).
 */
int ds_ec_sync(struct ds *ds, const struct aifs_chunk_sync_req *r,
	       struct aifs_chunk_sync_rep *rep)
{
	const struct aifs_layout *l = &r->layout;
	u32 set[DS_EC_SYNC_STRIPES], n, i, g, self = ds_self_id(ds);
	u32 sc = le16_to_cpu(l->stripe_count), fence = UINT32_MAX;
	u8 *buf;
	int err;

	err = ds_ec_sync_stripes(ds, r, set, &n, &fence);
	if (!err)
		err = ds_sync_pass(ds, le64_to_cpu(r->id.ino),
				   le32_to_cpu(r->id.index), fence);
	if (err > 0) {
		memset(rep, 0, sizeof(*rep));	/* next 0: again */
		return 0;
	}
	if (err)
		return err;
	buf = malloc(le32_to_cpu(l->chunk_size) < DS_EC_SLICE ?
		     le32_to_cpu(l->chunk_size) : DS_EC_SLICE);
	if (!buf)
		return -ENOMEM;
	memset(rep, 0, sizeof(*rep));
	for (i = 0; !err && i < n; i++) {
		g = set[i] % sc;
		err = ds_ec_rebuild(ds, r, set[i], g,
				    ds_ec_member_at(l, g, self), buf);
		if (!err)
			rep->copied = cpu_to_le32(le32_to_cpu(rep->copied) + 1);
	}
	free(buf);
	if (err)
		return err == -EIO ? -EAGAIN : err;
	if (n == DS_EC_SYNC_STRIPES) {
		rep->next = cpu_to_le32(set[n - 1] + 1);
		return 0;
	}
	rep->next = cpu_to_le32(AIFS_CHUNK_SYNC_DONE);
	return ds_sync_done(ds, le64_to_cpu(r->id.ino), fence);
}

/* FRAG_WRITE: a leader's write of a fragment held here. */
static int ds_frag_write(struct aifs_request *req)
{
	struct aifs_span parts[AIFS_MSG_MAX_PARTS];
	struct aifs_frag_write_req r;
	struct ds_frag_change ch;
	int err;

	err = aifs_decode_frag_write_req(req->payload, req->payload_len, &r,
					 parts);
	if (!err)
		err = ds_check_id(req->data, &r.id);
	if (!err)
		err = aifs_fail_errno(AIFS_FAIL_DS_WRITE_ERROR, req->opcode);
	if (err)
		return err;
	ch = (struct ds_frag_change){
		le64_to_cpu(r.prev), le64_to_cpu(r.stamp), true
	};
	err = ds_frag_write_local(req->data, &r.id, le32_to_cpu(r.chunk_size),
				  le32_to_cpu(r.offset), parts[0].data,
				  parts[0].len,
				  le32_to_cpu(r.flags) & AIFS_IO_SYNC, &ch);
	return err ? err : ds_ec_reply_chunk(req, ch.stamp, parts[0].len);
}

/* FRAG_ROLLBACK: a torn write undone on our fragment (ds_stripe_settle()). */
static int ds_frag_rollback_handler(struct aifs_request *req)
{
	struct aifs_frag_rollback_req r;
	u64 now = 0;
	int err;

	err = aifs_decode_frag_rollback_req(req->payload, req->payload_len,
					    &r, NULL);
	if (!err)
		err = ds_check_id(req->data, &r.id);
	if (!err)
		err = ds_frag_rollback_local(req->data, &r.id,
					     le32_to_cpu(r.chunk_size),
					     le64_to_cpu(r.stamp), &now);
	if (!err)
		aifs_warn("chunk %llx.%x.%x: a torn write %llx rolled back to %llx",
			  (unsigned long long)le64_to_cpu(r.id.ino),
			  le32_to_cpu(r.id.index), le16_to_cpu(r.id.fragment),
			  (unsigned long long)le64_to_cpu(r.stamp),
			  (unsigned long long)now);
	return err ? err : ds_ec_reply_chunk(req, now, 0);
}

/* FRAG_BEHIND: a leader's word that our fragment missed a stripe's write. */
static int ds_frag_behind_handler(struct aifs_request *req)
{
	struct aifs_frag_behind_req r;
	int err;

	err = aifs_decode_frag_behind_req(req->payload, req->payload_len, &r,
					  NULL);
	if (!err)
		err = ds_check_id(req->data, &r.id);
	if (!err) {
		aifs_warn("chunk %llx.%x.%x: missed a write its stripe took: stale until rebuilt",
			  (unsigned long long)le64_to_cpu(r.id.ino),
			  le32_to_cpu(r.id.index), le16_to_cpu(r.id.fragment));
		err = ds_frag_mark(req->data, &r.id,
				   le32_to_cpu(r.chunk_size), true,
				   DS_FRAG_ANY);
	}
	return err;
}

int ds_ec_register(struct aifs_server *srv)
{
	/*
	 * A leader's worker waits for the fragment I/O it sends: those run
	 * on the peer threads, which only touch the local store, so two
	 * leaders waiting on each other's members never deadlock.
	 */
	static const struct aifs_handler_def handlers[] = {
		{ AIFS_OP_EC_WRITE, ds_ec_write, AIFS_HANDLER_BLOCKING },
		{ AIFS_OP_EC_READ, ds_ec_read, AIFS_HANDLER_BLOCKING },
		{ AIFS_OP_EC_ARCHIVE, ds_ec_archive, AIFS_HANDLER_BLOCKING },
		{ AIFS_OP_EC_VERIFY, ds_ec_verify, AIFS_HANDLER_BLOCKING },
		{ AIFS_OP_FRAG_READ, ds_read, AIFS_HANDLER_PEER },
		{ AIFS_OP_FRAG_WRITE, ds_frag_write, AIFS_HANDLER_PEER },
		{ AIFS_OP_FRAG_BEHIND, ds_frag_behind_handler,
		  AIFS_HANDLER_PEER },
		{ AIFS_OP_FRAG_ROLLBACK, ds_frag_rollback_handler,
		  AIFS_HANDLER_PEER },
	};

	return aifs_server_register_all(srv, handlers, ARRAY_SIZE(handlers));
}
