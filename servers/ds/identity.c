// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The data directory's identity, ds.id: the server's uuid (stable across
 * restarts, the MDS knows it by it), the uuid of the file system whose
 * chunks it holds, and the id the MDS assigned.  A text file, replaced
 * atomically (write a temporary file, fsync, rename, fsync the directory).
 * It also carries the flock that keeps a second aifs-ds out of the
 * directory.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ds.h"

#define DS_IDENTITY_FILE	"ds.id"
#define DS_CHUNKS_DIR		"chunks"

int ds_uuid_parse(const char *s, u8 uuid[16])
{
	unsigned int byte;
	int i;

	for (i = 0; i < 16; i++) {
		if (*s == '-' && (i == 4 || i == 6 || i == 8 || i == 10))
			s++;
		if (sscanf(s, "%2x", &byte) != 1 || !s[0] || !s[1])
			return -EINVAL;
		uuid[i] = byte;
		s += 2;
	}
	return *s ? -EINVAL : 0;
}

void ds_uuid_format(const u8 uuid[16], char s[DS_UUID_STR_LEN + 1])
{
	const u8 *u = uuid;

	snprintf(s, DS_UUID_STR_LEN + 1,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
		 u[10], u[11], u[12], u[13], u[14], u[15]);
}

static void ds_identity_path(const struct ds *ds, char *path, size_t size,
			     const char *name)
{
	snprintf(path, size, "%s/%s", ds->cfg.data_dir, name);
}

static int ds_identity_write(struct ds *ds)
{
	char path[PATH_MAX], tmp[PATH_MAX], uuid[DS_UUID_STR_LEN + 1];
	char fs[DS_UUID_STR_LEN + 1];
	int fd, dfd, err = 0;
	FILE *f;

	ds_identity_path(ds, path, sizeof(path), DS_IDENTITY_FILE);
	ds_identity_path(ds, tmp, sizeof(tmp), DS_IDENTITY_FILE ".tmp");
	ds_uuid_format(ds->ident.uuid, uuid);
	ds_uuid_format(ds->ident.fs_uuid, fs);
	f = fopen(tmp, "we");
	if (!f)
		return -errno;
	fprintf(f, "# aifs data server identity; do not edit or copy\n"
		"ds_uuid = %s\nfs_uuid = %s\nds_id = %u\n", uuid, fs,
		ds->ident.id);
	if (fflush(f) || fsync(fileno(f)))
		err = -errno;
	if (fclose(f) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err) {
		unlink(tmp);
		return err;
	}
	dfd = open(ds->cfg.data_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	fd = fsync(dfd) ? -errno : 0;
	close(dfd);
	return fd;
}

static int ds_identity_parse(struct ds *ds, FILE *f, const char *path)
{
	char line[256], key[32], value[64];
	unsigned int seen = 0, id;

	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%31s = %63s", key, value) != 2)
			goto bad;
		if (!strcmp(key, "ds_uuid") &&
		    !ds_uuid_parse(value, ds->ident.uuid))
			seen |= 1;
		else if (!strcmp(key, "fs_uuid") &&
			 !ds_uuid_parse(value, ds->ident.fs_uuid))
			seen |= 2;
		else if (!strcmp(key, "ds_id") && sscanf(value, "%u", &id) == 1)
			seen |= 4, ds->ident.id = id;
		else
			goto bad;
	}
	if (seen == 7)
		return 0;
bad:
	aifs_err("%s: not a data server identity file", path);
	return -EINVAL;
}

/* One aifs-ds per data directory: a lock held for the life of the server. */
static int ds_identity_lock(struct ds *ds)
{
	char path[PATH_MAX];

	ds_identity_path(ds, path, sizeof(path), DS_IDENTITY_FILE ".lock");
	ds->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (ds->lock_fd < 0) {
		aifs_err("%s: %m", path);
		return -errno;
	}
	if (flock(ds->lock_fd, LOCK_EX | LOCK_NB)) {
		aifs_err("%s: another aifs-ds uses %s", path, ds->cfg.data_dir);
		return -EBUSY;
	}
	return 0;
}

/*
 * Give a new data directory its identity (aifs-ds --format, or the first
 * start): a fresh server uuid and the configured fs_uuid.
 */
int ds_identity_format(struct ds *ds)
{
	char path[PATH_MAX];
	int err;

	if (ds_uuid_parse(ds->cfg.fs_uuid, ds->ident.fs_uuid)) {
		aifs_err("%s is not formatted and fs_uuid is not set to the file system's uuid",
			 ds->cfg.data_dir);
		return -EINVAL;
	}
	if (mkdir(ds->cfg.data_dir, 0700) && errno != EEXIST) {
		aifs_err("%s: %m", ds->cfg.data_dir);
		return -errno;
	}
	err = ds_identity_lock(ds);
	if (err)
		return err;
	ds_identity_path(ds, path, sizeof(path), DS_IDENTITY_FILE);
	if (!access(path, F_OK)) {
		aifs_err("%s exists: %s is formatted already", path,
			 ds->cfg.data_dir);
		return -EEXIST;
	}
	ds_identity_path(ds, path, sizeof(path), DS_CHUNKS_DIR);
	if (mkdir(path, 0700) && errno != EEXIST) {
		aifs_err("%s: %m", path);
		return -errno;
	}
	err = aifs_random(ds->ident.uuid, sizeof(ds->ident.uuid));
	if (err)
		return err;
	ds->ident.uuid[6] = (ds->ident.uuid[6] & 0x0f) | 0x40;	/* v4 */
	ds->ident.uuid[8] = (ds->ident.uuid[8] & 0x3f) | 0x80;
	ds->ident.id = ds->cfg.ds_id;
	err = ds_identity_write(ds);
	if (err)
		aifs_err("%s: cannot write the identity: %s", ds->cfg.data_dir,
			 strerror(-err));
	else
		aifs_info("formatted %s for file system %s", ds->cfg.data_dir,
			  ds->cfg.fs_uuid);
	return err;
}

/*
 * Read ds.id; a directory without one is formatted on its first start.
 * A configured fs_uuid or ds_id must agree with it: a disk of another
 * file system is never served by mistake.
 */
int ds_identity_load(struct ds *ds)
{
	char path[PATH_MAX];
	u8 fs_uuid[16];
	FILE *f;
	int err;

	ds_identity_path(ds, path, sizeof(path), DS_IDENTITY_FILE);
	f = fopen(path, "re");
	if (!f && errno == ENOENT)
		return ds_identity_format(ds);
	if (!f) {
		aifs_err("%s: %m", path);
		return -errno;
	}
	err = ds_identity_parse(ds, f, path);
	fclose(f);
	if (!err)
		err = ds_identity_lock(ds);
	if (err)
		return err;
	if (!ds_uuid_parse(ds->cfg.fs_uuid, fs_uuid) &&
	    memcmp(fs_uuid, ds->ident.fs_uuid, 16)) {
		aifs_err("%s belongs to another file system than fs_uuid %s",
			 ds->cfg.data_dir, ds->cfg.fs_uuid);
		return -EXDEV;
	}
	if (ds->cfg.ds_id && ds->ident.id != (u32)ds->cfg.ds_id)
		return ds_identity_set_id(ds, ds->cfg.ds_id);
	return 0;
}

/* The id the MDS assigned (or ds_id of a static cluster), kept for restarts. */
int ds_identity_set_id(struct ds *ds, u32 id)
{
	int err;

	pthread_mutex_lock(&ds->ident_lock);
	ds->ident.id = id;
	err = ds_identity_write(ds);
	pthread_mutex_unlock(&ds->ident_lock);
	if (err)
		aifs_err("%s: cannot record ds_id %u: %s", ds->cfg.data_dir, id,
			 strerror(-err));
	return err;
}

u32 ds_self_id(struct ds *ds)
{
	u32 id;

	pthread_mutex_lock(&ds->ident_lock);
	id = ds->ident.id;
	pthread_mutex_unlock(&ds->ident_lock);
	return id;
}
