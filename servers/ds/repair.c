// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * What needs repair, kept across a restart (issue 29, G6).  A copy marked
 * stale (behind its group, or damaged) has a repair mark: an empty file
 * named as the chunk in data_dir/repair, made durably before the stale
 * sidecar is stored (ds_meta_store()), removed once the copy is whole
 * again or deleted.  The sidecar says what the copy is; the marks say
 * where to look without opening every chunk: at start each marked chunk
 * is queued for resync again (the queue lives in memory), so a copy that
 * lost its source keeps being tried after a restart, not only once
 * something reads, forwards, syncs or scrubs it.  A mark whose chunk is
 * whole (a crash between the sidecar and the mark's removal) goes then.
 * ds->repairs counts the marks: aifs_ds_chunks_to_repair.  The MDS hears
 * of them too (DS_REPAIRS, mds_link.c): their number, how many wait for
 * a source, and the first few by name, for aifs recovery.
 */
#include <dirent.h>
#include <stdio.h>
#include <unistd.h>

#include "ds.h"

static int ds_repair_dir(const struct ds *ds, char *path, size_t size)
{
	return snprintf(path, size, "%s/repair", ds->cfg.data_dir) >=
	       (int)size ? -ENAMETOOLONG : 0;
}

static int ds_repair_path(const struct ds *ds, const struct aifs_chunk_id *id,
			  char *path, size_t size)
{
	return snprintf(path, size, "%s/repair/%016llx.%08x.%02x",
			ds->cfg.data_dir,
			(unsigned long long)le64_to_cpu(id->ino),
			le32_to_cpu(id->index), le16_to_cpu(id->fragment)) >=
	       (int)size ? -ENAMETOOLONG : 0;
}

/* The repair directory, made if need be, and its marks counted. */
int ds_repair_init(struct ds *ds)
{
	char path[PATH_MAX];

	return ds_repair_dir(ds, path, sizeof(path)) ?:
	       ds_marks_init(path, &ds->repairs);
}

/**
 * ds_repair_note - the repair mark of chunk @id set or cleared
 * @ds: this server
 * @id: the chunk
 * @needed: set (durably: the file and its name synced) or cleared
 *
 * Return: 0 or -errno (setting only: a mark that cannot be cleared now
 * goes at the next start).
 */
int ds_repair_note(struct ds *ds, const struct aifs_chunk_id *id, bool needed)
{
	char path[PATH_MAX];
	int err;

	err = ds_repair_path(ds, id, path, sizeof(path));
	if (err)
		return err;
	if (!needed) {
		if (!unlink(path))
			atomic_fetch_sub(&ds->repairs, 1);
		return 0;
	}
	if (!access(path, F_OK))
		return 0;
	err = ds_file_put(path, NULL, 0, 0);
	if (!err)
		atomic_fetch_add(&ds->repairs, 1);
	return err;
}

/*
 * The marked chunk @id queued for resync if stale; its mark goes if the
 * chunk is whole or gone on purpose (one that does not open stays
 * marked, one lost is made a placeholder: held.c).
 */
static void ds_repair_requeue_one(struct ds *ds, const struct aifs_chunk_id *id)
{
	struct ds_lock lock;
	struct ds_chunk c;
	bool stale = false;
	int err;

	ds_chunk_lock(ds, id, false, &lock);
	err = ds_chunk_open(ds, id, 0, &c);
	if (!err) {
		stale = c.meta.flags & DS_META_STALE;
		if (stale)
			ds_resync_queue(ds, &c, DS_RESYNC_STALE);
		ds_chunk_close(&c, 0);
	}
	ds_chunk_unlock(ds, &lock);
	if ((!err && !stale) || (err == -ENOENT && !ds_held_lost(ds, id)))
		ds_repair_note(ds, id, false);
}

/* At start, once resync runs: every marked chunk queued again. */
void ds_repair_requeue(struct ds *ds)
{
	struct aifs_chunk_id id = { 0 };
	char path[PATH_MAX];
	struct dirent *de;
	int n = 0;
	DIR *d;

	if (ds_repair_dir(ds, path, sizeof(path)))
		return;
	d = opendir(path);
	if (!d)
		return;
	memcpy(id.fs_uuid, ds->ident.fs_uuid, sizeof(id.fs_uuid));
	while ((de = readdir(d))) {
		if (!ds_chunk_id_parse(de->d_name, &id))
			continue;
		ds_repair_requeue_one(ds, &id);
		n++;
	}
	closedir(d);
	if (n)
		aifs_info("%d chunks marked for repair: queued again", n);
}

/* @id as a repair entry (@flags AIFS_REPAIR_*; the server is set later). */
void ds_repair_entry(const struct aifs_chunk_id *id, u16 flags,
		     struct aifs_repair_entry *e)
{
	*e = (struct aifs_repair_entry){
		.ino = id->ino, .index = id->index, .fragment = id->fragment,
		.flags = cpu_to_le16(flags),
	};
}

static bool ds_repair_listed(const struct aifs_repair_entry *list,
			     unsigned int n, const struct aifs_chunk_id *id)
{
	while (n--)
		if (list[n].ino == id->ino && list[n].index == id->index &&
		    list[n].fragment == id->fragment)
			return true;
	return false;
}

/* @list filled up to AIFS_REPAIR_LIST_MAX with marks not in it yet. */
static unsigned int ds_repair_list_marks(struct ds *ds,
					 struct aifs_repair_entry *list,
					 unsigned int n)
{
	struct aifs_chunk_id id = { 0 };
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;

	if (ds_repair_dir(ds, path, sizeof(path)))
		return n;
	d = opendir(path);
	if (!d)
		return n;
	while (n < AIFS_REPAIR_LIST_MAX && (de = readdir(d)))
		if (ds_chunk_id_parse(de->d_name, &id) &&
		    !ds_repair_listed(list, n, &id))
			ds_repair_entry(&id, 0, &list[n++]);
	closedir(d);
	return n;
}

/**
 * ds_repair_report - what this server must repair, as DS_REPAIRS says it
 * @ds: this server
 * @req: its counts
 * @list: room for AIFS_REPAIR_LIST_MAX entries: those waiting for a
 *        source first, then other marked ones
 *
 * Return: the entries in @list.
 */
unsigned int ds_repair_report(struct ds *ds, struct aifs_ds_repairs_req *req,
			      struct aifs_repair_entry *list)
{
	int marked = atomic_load(&ds->repairs);
	unsigned int n, i;
	u64 held;

	held = ds_resync_held(ds, list, AIFS_REPAIR_LIST_MAX, &n);
	if (marked > 0)
		n = ds_repair_list_marks(ds, list, n);
	*req = (struct aifs_ds_repairs_req){
		.id = cpu_to_le32(ds_self_id(ds)),
		.count = cpu_to_le32(n),
		.marked = cpu_to_le64(marked > 0 ? marked : 0),
		.no_source = cpu_to_le64(held),
	};
	for (i = 0; i < n; i++)
		list[i].server = req->id;
	return n;
}
