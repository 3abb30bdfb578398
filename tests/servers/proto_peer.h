/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * How aifs-proto-peer (proto_peer.c) derives its replies from requests,
 * shared with the test that checks them (libaifs_messages.c).  The test
 * computes from its own arguments what the peer computes from the decoded
 * request, so a field lost or misplaced by either codec direction or by
 * libaifs shows as a difference.
 */
#ifndef AIFS_PROTO_PEER_H
#define AIFS_PROTO_PEER_H

#include "aifs/aifs_codec.h"

/* Names and inodes that make the peer answer with an error. */
#define PEER_ENOENT	"enoent"	/* LOOKUP, UNLINK: ENOENT */
/* CREATE (EXCL), MKDIR, RENAME (NOREPLACE): EEXIST */
#define PEER_EXISTS	"exists"
#define PEER_NOTEMPTY	"notempty"	/* RMDIR: ENOTEMPTY */
#define PEER_BADREPLY	"badreply"	/* LOOKUP: a truncated reply */
#define PEER_INO_STALE	13		/* GETATTR: ESTALE */
#define PEER_INO_BAD	666		/* GETATTR: attributes with ino 0 */

/* READDIR of any directory lists this many entries, named "f%05u". */
#define PEER_DIR_ENTRIES 500

/* The time the peer stamps where a server would take its clock. */
#define PEER_NOW	1700000000

/* The inode of @name in @dir. */
static inline u64 peer_ino(u64 dir, const char *name, u32 len)
{
	return ((dir * 1000003 + (aifs_crc32c(name, len) & 0xffffff)) &
		0xffffffffffffULL) + 2;
}

static inline struct aifs_timespec peer_time(u64 ino, u32 n)
{
	return (struct aifs_timespec){
		.sec = cpu_to_le64(PEER_NOW - ino % 1000000 * n),
		.nsec = cpu_to_le32((ino * n) % 1000000000),
	};
}

/* The attributes of @ino of type and permissions @mode, owned by @cred. */
static inline void peer_attr(struct aifs_attr *a, u64 ino, u32 mode,
			     const struct aifs_cred *cred)
{
	memset(a, 0, sizeof(*a));
	a->ino = cpu_to_le64(ino);
	a->generation = cpu_to_le64(ino % 7 + 1);
	a->size = cpu_to_le64(ino % 100000);
	a->blocks = cpu_to_le64((ino % 100000 + 511) / 512);
	a->change = cpu_to_le64(ino * 3);
	a->atime = peer_time(ino, 1);
	a->mtime = peer_time(ino, 2);
	a->ctime = peer_time(ino, 3);
	a->btime = peer_time(ino, 4);
	a->mode = cpu_to_le32(mode);
	a->nlink = cpu_to_le32(S_ISDIR(mode) ? 2 : 1);
	a->uid = cred->uid;
	a->gid = cred->gid;
	a->blksize = cpu_to_le32(AIFS_CHUNK_SIZE_DEFAULT);
}

#define PEER_DIR_MODE	(S_IFDIR | 0755)
#define PEER_FILE_MODE	(S_IFREG | 0644)

/* The layout of @ino: 3 replicas over 2 groups. */
static inline void peer_layout(struct aifs_layout *l, u64 ino)
{
	u32 i;

	memset(l, 0, sizeof(*l));
	l->chunk_size = cpu_to_le32(AIFS_CHUNK_SIZE_DEFAULT);
	l->generation = cpu_to_le32(ino % 5 + 1);
	l->stripe_count = cpu_to_le16(2);
	l->target_count = cpu_to_le16(6);
	l->type = AIFS_LAYOUT_REPLICA;
	l->replicas = 3;
	for (i = 0; i < 6; i++)
		l->targets[i] = cpu_to_le32((ino + i) % 1000 + 1);
}

/* The open handle of @ino. */
static inline u64 peer_handle(u64 ino)
{
	return ino * 7 + 1;
}

/* STATFS of the file system holding @ino, asked by @cred. */
static inline void peer_statfs(struct aifs_statfs_rep *st, u64 ino,
			       const struct aifs_cred *cred)
{
	u64 total = (ino % 1000 + 1) << 30;

	st->total_bytes = cpu_to_le64(total);
	st->free_bytes = cpu_to_le64(total / 2);
	st->avail_bytes = cpu_to_le64(total / 2 - le32_to_cpu(cred->uid));
	st->files = cpu_to_le64(ino + 1000);
	st->files_free = cpu_to_le64(500);
	st->bsize = cpu_to_le32(4096);
	st->namelen = cpu_to_le32(AIFS_NAME_MAX);
}

/* A data server's heartbeat interval, derived from its id. */
static inline u32 peer_heartbeat_ms(u32 id)
{
	return 1000 + id;
}

/* What DS_STATFS reports for @chunks chunks of @bytes in all. */
#define PEER_DS_CAPACITY	(1ULL << 40)

#endif /* AIFS_PROTO_PEER_H */
