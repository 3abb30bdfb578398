// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The LMDB environment: opening it (and refusing what is not an aifs MDS
 * database), formatting a new file system, and the small helpers every
 * table goes through, which turn LMDB's errors into errnos.
 *
 * LMDB allows one write transaction at a time; the writer thread
 * (writer.c) owns it.  Readers run on the runtime's worker threads, so the
 * environment is opened with MDB_NOTLS: a read transaction's reader slot
 * belongs to the transaction, not to the thread.
 *
 * One aifs-mds writes a database: a flock on db_path/aifs-mds.lock, taken
 * before anything else opens it and held for the life of the process.
 */
#include <endian.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mds.h"

static const char *const mds_db_names[MDS_NR_DBS] = {
	[MDS_DB_SUPER] = "super",
	[MDS_DB_INODES] = "inodes",
	[MDS_DB_SYMLINKS] = "symlinks",
	[MDS_DB_DENTRIES] = "dentries",
	[MDS_DB_DIRSEQ] = "dirseq",
	[MDS_DB_XATTRS] = "xattrs",
	[MDS_DB_ORPHANS] = "orphans",
	[MDS_DB_CHUNKQ] = "chunkq",
	[MDS_DB_DSMAP] = "dsmap",
	[MDS_DB_REPLIES] = "replies",
	[MDS_DB_REPLY_AGE] = "reply_age",
	[MDS_DB_ARCHIVE] = "archive",
};

/* Tables keyed by a native integer. */
static const unsigned int mds_db_flags[MDS_NR_DBS] = {
	[MDS_DB_INODES] = MDB_INTEGERKEY,
	[MDS_DB_SYMLINKS] = MDB_INTEGERKEY,
	[MDS_DB_ORPHANS] = MDB_INTEGERKEY,
	[MDS_DB_CHUNKQ] = MDB_INTEGERKEY,
	[MDS_DB_DSMAP] = MDB_INTEGERKEY,
	[MDS_DB_ARCHIVE] = MDB_INTEGERKEY,
};

#define MDS_SUPER_KEY	"super"
#define MDS_LOCK_FILE	"aifs-mds.lock"

s64 mds_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int mds_db_errno(int rc)
{
	switch (rc) {
	case MDB_SUCCESS:
		return 0;
	case MDB_NOTFOUND:
		return -ENOENT;
	case MDB_KEYEXIST:
		return -EEXIST;
	case MDB_MAP_FULL:
	case MDB_TXN_FULL:
		return -ENOSPC;
	default:
		aifs_err("lmdb: %s", mdb_strerror(rc));
		return rc > 0 ? -rc : -EIO;
	}
}

void mds_key_name(struct mds_key *k, u64 id, const void *name, size_t len)
{
	u64 be = htobe64(id);

	memcpy(k->bytes, &be, 8);
	memcpy(k->bytes + 8, name, len);
	k->len = 8 + len;
}

void mds_key_pair(struct mds_key *k, u64 id, u64 second)
{
	u64 be[2] = { htobe64(id), htobe64(second) };

	memcpy(k->bytes, be, sizeof(be));
	k->len = sizeof(be);
}

/* The first u64 of a big-endian key. */
u64 mds_key_id(const MDB_val *key)
{
	u64 be;

	memcpy(&be, key->mv_data, sizeof(be));
	return be64toh(be);
}

static MDB_val mds_val(const void *data, size_t len)
{
	return (MDB_val){ .mv_size = len, .mv_data = (void *)data };
}

int mds_db_get(struct mds_txn *t, enum mds_dbi db, const void *key,
	       size_t klen, MDB_val *val)
{
	MDB_val k = mds_val(key, klen);

	return mds_db_errno(mdb_get(t->txn, t->mds->dbi[db], &k, val));
}

/* Whether @key already holds @val, byte for byte. */
static bool db_holds(struct mds_txn *t, enum mds_dbi db, MDB_val *k,
		     const MDB_val *v)
{
	MDB_val old;

	if (mdb_get(t->txn, t->mds->dbi[db], k, &old))
		return false;
	return old.mv_size == v->mv_size &&
		(!v->mv_size || !memcmp(old.mv_data, v->mv_data, v->mv_size));
}

/*
 * A record rewritten as it is (an inode opened for writing that already
 * has its targets) is not put: it would dirty the transaction and cost
 * its batch a durable commit for nothing (writer.c).
 */
int mds_db_put(struct mds_txn *t, enum mds_dbi db, const void *key,
	       size_t klen, const void *val, size_t vlen, unsigned int flags)
{
	MDB_val k = mds_val(key, klen), v = mds_val(val, vlen);
	int rc;

	if (!flags && db_holds(t, db, &k, &v))
		return 0;
	rc = mdb_put(t->txn, t->mds->dbi[db], &k, &v, flags);
	t->changed |= !rc;
	return mds_db_errno(rc);
}

int mds_db_del(struct mds_txn *t, enum mds_dbi db, const void *key,
	       size_t klen)
{
	MDB_val k = mds_val(key, klen);
	int rc;

	rc = mdb_del(t->txn, t->mds->dbi[db], &k, NULL);
	t->changed |= !rc;
	return mds_db_errno(rc);
}

int mds_db_cursor(struct mds_txn *t, enum mds_dbi db, MDB_cursor **cur)
{
	return mds_db_errno(mdb_cursor_open(t->txn, t->mds->dbi[db], cur));
}

/*
 * Delete every key starting with @prefix.  Each key is found afresh: a
 * cursor whose delete emptied the table is no longer positioned, and
 * MDB_GET_CURRENT then fails with EINVAL (an unlink of the file holding
 * the table's last xattrs did).
 */
int mds_db_del_prefix(struct mds_txn *t, enum mds_dbi db, const void *prefix,
		      size_t plen)
{
	MDB_val k = mds_val(prefix, plen), v;
	MDB_cursor *cur;
	int rc, err;

	err = mds_db_cursor(t, db, &cur);
	if (err)
		return err;
	rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
	while (!rc && k.mv_size >= plen && !memcmp(k.mv_data, prefix, plen)) {
		rc = mdb_cursor_del(cur, 0);
		t->changed |= !rc;
		k = mds_val(prefix, plen);
		if (!rc)
			rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
	}
	mdb_cursor_close(cur);
	return rc == MDB_NOTFOUND ? 0 : mds_db_errno(rc);
}

int mds_super_put(struct mds_txn *t)
{
	return mds_db_put(t, MDS_DB_SUPER, MDS_SUPER_KEY,
			  strlen(MDS_SUPER_KEY), &t->mds->super,
			  sizeof(t->mds->super), 0);
}

int mds_read_begin(struct mds *mds, struct mds_txn *t)
{
	t->mds = mds;
	t->now = mds_now();
	return mds_db_errno(mdb_txn_begin(mds->env, NULL, MDB_RDONLY,
					  &t->txn));
}

void mds_read_end(struct mds_txn *t)
{
	mdb_txn_abort(t->txn);
}

static int db_open_tables(struct mds *mds, MDB_txn *txn, bool create)
{
	int i, rc;

	for (i = 0; i < MDS_NR_DBS; i++) {
		rc = mdb_dbi_open(txn, mds_db_names[i],
				  mds_db_flags[i] | (create ? MDB_CREATE : 0),
				  &mds->dbi[i]);
		if (rc)
			return rc;
	}
	return 0;
}

static int db_load_super(struct mds *mds, MDB_txn *txn)
{
	struct mds_txn t = { .mds = mds, .txn = txn };
	const char *path = mds->cfg->db_path;
	MDB_val v;
	int err;

	err = mds_db_get(&t, MDS_DB_SUPER, MDS_SUPER_KEY,
			 strlen(MDS_SUPER_KEY), &v);
	if (err || v.mv_size != sizeof(mds->super)) {
		aifs_err("%s: not an aifs metadata database (run aifs-mds --format)",
			 path);
		return -EINVAL;
	}
	memcpy(&mds->super, v.mv_data, sizeof(mds->super));
	if (memcmp(mds->super.magic, MDS_SUPER_MAGIC, sizeof(mds->super.magic))) {
		aifs_err("%s: not an aifs metadata database", path);
		return -EINVAL;
	}
	if (mds->super.format_version != MDS_FORMAT_VERSION) {
		aifs_err("%s: format version %u, this aifs-mds reads %u", path,
			 mds->super.format_version, MDS_FORMAT_VERSION);
		return -EINVAL;
	}
	return 0;
}

/*
 * A second aifs-mds on the database would take the first one's open
 * orphans for a crash's leftovers and free them, and both would write
 * the cluster map: the one that takes this lock is the only one.  The
 * kernel drops it when the process ends, however it ends.
 */
static int db_lock(struct mds *mds)
{
	char path[PATH_MAX + 16];
	int err;

	snprintf(path, sizeof(path), "%s/" MDS_LOCK_FILE, mds->cfg->db_path);
	mds->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (mds->lock_fd < 0) {
		err = -errno;
		aifs_err("%s: %s", path, strerror(-err));
		return err;
	}
	if (!flock(mds->lock_fd, LOCK_EX | LOCK_NB))
		return 0;
	err = -errno;
	if (err == -EWOULDBLOCK)
		aifs_err("%s: another aifs-mds holds it: %s is in use",
			 path, mds->cfg->db_path);
	else
		aifs_err("%s: %s", path, strerror(-err));
	close(mds->lock_fd);
	mds->lock_fd = -1;
	return err;
}

/*
 * Open the database at db_path.  Without @create, a missing directory, a
 * directory without an LMDB file or a database of something else is an
 * error; the tables are opened once here, before any other transaction.
 * With @exclusive (every use that writes), the lock is taken first.
 */
int mds_db_open(struct mds *mds, bool create, bool exclusive)
{
	const struct mds_config *cfg = mds->cfg;
	unsigned int flags = MDB_NOTLS;
	char data_path[PATH_MAX + 16];
	struct stat st;
	MDB_txn *txn;
	int rc, err;

	mds->lock_fd = -1;
	snprintf(data_path, sizeof(data_path), "%s/data.mdb", cfg->db_path);
	if (create && mkdir(cfg->db_path, 0700) && errno != EEXIST) {
		aifs_err("%s: %s", cfg->db_path, strerror(errno));
		return -errno;
	}
	if (stat(data_path, &st) ? create == false : create == true) {
		aifs_err(create ? "%s: a database is already there" :
			 "%s: no database (run aifs-mds --format first)",
			 cfg->db_path);
		return create ? -EEXIST : -ENOENT;
	}
	if (exclusive) {
		err = db_lock(mds);
		if (err)
			return err;
	}
	rc = mdb_env_create(&mds->env);
	if (!rc)
		rc = mdb_env_set_mapsize(mds->env,
					 (size_t)cfg->map_size_mib << 20);
	if (!rc)
		rc = mdb_env_set_maxdbs(mds->env, MDS_NR_DBS);
	if (!rc)
		rc = mdb_env_set_maxreaders(mds->env,
					    cfg->server.worker_threads + 16);
	if (!rc)
		rc = mdb_env_open(mds->env, cfg->db_path, flags, 0600);
	if (!rc)
		rc = mdb_txn_begin(mds->env, NULL, 0, &txn);
	if (rc) {
		aifs_err("%s: %s", cfg->db_path, mdb_strerror(rc));
		goto fail;
	}
	rc = db_open_tables(mds, txn, create);
	if (rc) {
		mdb_txn_abort(txn);
		aifs_err("%s: not an aifs metadata database (%s)", cfg->db_path,
			 mdb_strerror(rc));
		goto fail;
	}
	err = create ? 0 : db_load_super(mds, txn);
	if (err) {
		mdb_txn_abort(txn);
		goto fail_err;
	}
	rc = mdb_txn_commit(txn);
	if (!rc)
		return 0;
	aifs_err("%s: %s", cfg->db_path, mdb_strerror(rc));
fail:
	err = -EIO;
fail_err:
	mds_db_close(mds);
	return err;
}

/* The lock goes last: nothing of the database is open without it. */
void mds_db_close(struct mds *mds)
{
	if (mds->env)
		mdb_env_close(mds->env);
	mds->env = NULL;
	if (mds->lock_fd >= 0)
		close(mds->lock_fd);
	mds->lock_fd = -1;
}

/* The root: a directory 0755 owned by root, holding the default layout. */
static int db_format_root(struct mds_txn *t)
{
	struct mds_inode root;

	mds_inode_init(t, &root, AIFS_ROOT_INO, S_IFDIR | 0755, 0, 0);
	root.parent = AIFS_ROOT_INO;
	mds_layout_default(t->mds->cfg, &root.layout);
	return mds_inode_put(t, &root);
}

/* A new, empty file system in the freshly created database. */
int mds_db_format(struct mds *mds)
{
	struct mds_super *sb = &mds->super;
	struct mds_txn t = { .mds = mds, .now = mds_now() };
	int err;

	memset(sb, 0, sizeof(*sb));
	memcpy(sb->magic, MDS_SUPER_MAGIC, sizeof(sb->magic));
	sb->format_version = MDS_FORMAT_VERSION;
	sb->next_ino = AIFS_ROOT_INO + 1;
	sb->next_ds_id = 1;
	sb->next_chunk_job = 1;
	sb->map_epoch = 1;
	sb->created = t.now;
	err = aifs_random(sb->uuid, sizeof(sb->uuid));
	if (err)
		return err;
	/* A version 4 (random) uuid. */
	sb->uuid[6] = (sb->uuid[6] & 0x0f) | 0x40;
	sb->uuid[8] = (sb->uuid[8] & 0x3f) | 0x80;
	err = mds_db_errno(mdb_txn_begin(mds->env, NULL, 0, &t.txn));
	if (err)
		return err;
	err = db_format_root(&t);
	if (!err)
		err = mds_super_put(&t);
	if (err) {
		mdb_txn_abort(t.txn);
		return err;
	}
	return mds_db_errno(mdb_txn_commit(t.txn));
}
