// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A stripe leader's intents: the stripe writes it has under way, one
 * empty file each in "<data_dir>/writing", named as its own fragment
 * (ino.index.fragment), made before the fragment writes go out and
 * removed once they are answered.  A leader that dies in between may
 * hold its own fragment as of the write while the rest of the stripe was
 * settled without it (rolled back: ec.c, ds_stripe_settle()); back
 * before the MDS counted it out, it would serve those bytes.  So at
 * start every fragment with an intent left is marked stale, and is
 * rebuilt by decoding (resync.c) before it serves again.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ds.h"

#define DS_INTENT_DIR	"writing"

static void ds_intent_path(const struct ds *ds, const struct aifs_chunk_id *id,
			   char *path, size_t size)
{
	snprintf(path, size, "%s/" DS_INTENT_DIR "/%016llx.%08x.%02x",
		 ds->cfg.data_dir, (unsigned long long)le64_to_cpu(id->ino),
		 le32_to_cpu(id->index), le16_to_cpu(id->fragment));
}

/* The directory of intents, synced: an intent made must outlive a crash. */
static int ds_intent_dir_sync(const struct ds *ds)
{
	char path[PATH_MAX];
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/" DS_INTENT_DIR, ds->cfg.data_dir);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fsync(fd))
		err = -errno;
	close(fd);
	return err;
}

/**
 * ds_intent_begin - record a stripe write led here before it goes out
 * @ds: this server
 * @id: its own fragment of the stripe
 * @sync: durably (the write is a synced one)
 *
 * Return: 0, or why not (the write must not go out then).
 */
int ds_intent_begin(struct ds *ds, const struct aifs_chunk_id *id, bool sync)
{
	char path[PATH_MAX];
	int fd;

	ds_intent_path(ds, id, path, sizeof(path));
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	close(fd);
	return sync ? ds_intent_dir_sync(ds) : 0;
}

/* The write is answered by every member, or failed: no intent left. */
void ds_intent_end(struct ds *ds, const struct aifs_chunk_id *id)
{
	char path[PATH_MAX];

	ds_intent_path(ds, id, path, sizeof(path));
	if (unlink(path) && errno != ENOENT)
		aifs_warn("%s: %m", path);
}

/* The fragment of intent @name, left by a leader that died: stale. */
static void ds_intent_recover_one(struct ds *ds, const char *dir,
				  const char *name)
{
	unsigned long long ino;
	unsigned int index, frag;
	struct aifs_chunk_id id = { 0 };
	char path[PATH_MAX];
	struct ds_lock lock;
	struct ds_chunk c;
	int end = 0, err;

	if (sscanf(name, "%16llx.%8x.%2x%n", &ino, &index, &frag, &end) != 3 ||
	    name[end] || !frag)
		return;
	memcpy(id.fs_uuid, ds->ident.fs_uuid, sizeof(id.fs_uuid));
	id.ino = cpu_to_le64(ino);
	id.index = cpu_to_le32(index);
	id.fragment = cpu_to_le16(frag);
	ds_chunk_lock(ds, &id, true, &lock);
	err = ds_chunk_open(ds, &id, 0, &c);
	if (!err) {
		c.meta.flags |= DS_META_STALE;
		err = ds_meta_store(&c) ?: ds_chunk_sync(&c);
		if (!err)
			ds_resync_queue(ds, &c, DS_RESYNC_STALE);
		ds_chunk_close(&c, 0);
	}
	ds_chunk_unlock(ds, &lock);
	if (err && err != -ENOENT) {
		aifs_err("stripe write to %s left unfinished, its fragment not marked stale: %s",
			 name, strerror(-err));
		return;
	}
	aifs_warn("chunk %llx.%x.%x: a stripe write led here was cut short: stale until rebuilt",
		  ino, index, frag);
	if (snprintf(path, sizeof(path), "%s/%s", dir, name) <
	    (int)sizeof(path))
		unlink(path);
}

/**
 * ds_intent_recover - at start, the fragments of writes a crash cut short
 * @ds: this server, its resync queue running
 *
 * Return: 0, or -errno when the directory of intents cannot be made.
 */
int ds_intent_recover(struct ds *ds)
{
	char dir[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int err;

	snprintf(dir, sizeof(dir), "%s/" DS_INTENT_DIR, ds->cfg.data_dir);
	if (mkdir(dir, 0700) && errno != EEXIST) {
		err = -errno;
		aifs_err("%s: %s", dir, strerror(-err));
		return err;
	}
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			ds_intent_recover_one(ds, dir, de->d_name);
	closedir(d);
	return 0;
}
