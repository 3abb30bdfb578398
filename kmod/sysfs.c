// SPDX-License-Identifier: GPL-2.0
/*
 * aifs - /sys/fs/aifs/aifs-<id>/: per-mount tunables and information.
 *
 * Teardown follows fs/erofs/sysfs.c: the kobject is embedded in the
 * superblock info, so its release only completes a completion that
 * aifs_sysfs_unregister() waits for before that memory is freed.
 */
#include <linux/kernel.h>
#include <linux/kstrtox.h>
#include <linux/sysfs.h>

#include "internal.h"

enum aifs_attr_id {
	attr_tunable,
	attr_transport,
	attr_source,
	attr_server,
	attr_session,
	attr_map_epoch,
	attr_stats,
};

/**
 * struct aifs_sysfs_attr - one file in /sys/fs/aifs/aifs-<id>/
 * @attr: the sysfs attribute
 * @attr_id: what it shows
 * @param: for attr_tunable, the row of aifs_uint_params[] giving the
 *	member (by offset) and its range; the same limits as the mount option
 */
struct aifs_sysfs_attr {
	struct attribute attr;
	enum aifs_attr_id attr_id;
	int param;
};

#define AIFS_ATTR(_name, _mode, _id, _param)				\
static struct aifs_sysfs_attr aifs_sysfs_attr_##_name = {				\
	.attr = { .name = __stringify(_name), .mode = _mode },		\
	.attr_id = _id,							\
	.param = _param,						\
}

#define AIFS_ATTR_TUNABLE(_name, _param)				\
	AIFS_ATTR(_name, 0644, attr_tunable, _param)
#define AIFS_ATTR_RO(_name) AIFS_ATTR(_name, 0444, attr_##_name, -1)
#define ATTR_LIST(_name) (&aifs_sysfs_attr_##_name.attr)

AIFS_ATTR_TUNABLE(read_ahead_kb, AIFS_OPT_READ_AHEAD_KB);
AIFS_ATTR_TUNABLE(max_inflight, AIFS_OPT_MAX_INFLIGHT);
AIFS_ATTR_TUNABLE(timeo, AIFS_OPT_TIMEO);
AIFS_ATTR_TUNABLE(attr_timeout, AIFS_OPT_ATTR_TIMEOUT);
AIFS_ATTR_TUNABLE(dentry_timeout, AIFS_OPT_DENTRY_TIMEOUT);
AIFS_ATTR_RO(transport);
AIFS_ATTR_RO(source);
AIFS_ATTR_RO(server);
AIFS_ATTR_RO(session);
AIFS_ATTR_RO(map_epoch);
AIFS_ATTR_RO(stats);

static struct attribute *aifs_sb_attrs[] = {
	ATTR_LIST(read_ahead_kb),
	ATTR_LIST(max_inflight),
	ATTR_LIST(timeo),
	ATTR_LIST(attr_timeout),
	ATTR_LIST(dentry_timeout),
	ATTR_LIST(transport),
	ATTR_LIST(source),
	ATTR_LIST(server),
	ATTR_LIST(session),
	ATTR_LIST(map_epoch),
	ATTR_LIST(stats),
	NULL,
};
ATTRIBUTE_GROUPS(aifs_sb);

/* /sys/fs/aifs */
static struct kset *aifs_kset;

/* Servers and path as parsed, e.g. "10.0.0.1:7400,[::1]:7401:/data". */
static ssize_t aifs_source_show(const struct aifs_mount_options *opts,
				char *buf)
{
	unsigned int i;
	int len = 0;

	for (i = 0; i < opts->nr_servers; i++)
		len += sysfs_emit_at(buf, len, "%s%pISpc", i ? "," : "",
				     &opts->servers[i]);
	len += sysfs_emit_at(buf, len, ":%s\n", opts->path);
	return len;
}

static ssize_t aifs_attr_show(struct kobject *kobj, struct attribute *attr,
			      char *buf)
{
	struct aifs_fs_info *fsi = container_of(kobj, struct aifs_fs_info,
						kobj);
	struct aifs_sysfs_attr *a = container_of(attr, struct aifs_sysfs_attr, attr);
	struct sockaddr_storage addr;

	switch (a->attr_id) {
	case attr_tunable:
		return sysfs_emit(buf, "%u\n",
				  aifs_get_uint(&fsi->opts, a->param));
	case attr_transport:
		return sysfs_emit(buf, "%s\n",
				  aifs_transport_name(fsi->transport));
	case attr_source:
		return aifs_source_show(&fsi->opts, buf);
	/* the session exists before sysfs; a reconnection changes both */
	case attr_server:
		aifs_session_server(fsi, &addr);
		return sysfs_emit(buf, "%pISpc\n", &addr);
	case attr_session:
		return sysfs_emit(buf, "%016llx\n", aifs_session_id(fsi));
	case attr_map_epoch:
		return sysfs_emit(buf, "%llu\n", READ_ONCE(fsi->data.epoch));
	case attr_stats:
		return aifs_stats_show(fsi, buf);
	}
	return 0;
}

static ssize_t aifs_attr_store(struct kobject *kobj, struct attribute *attr,
			       const char *buf, size_t len)
{
	struct aifs_fs_info *fsi = container_of(kobj, struct aifs_fs_info,
						kobj);
	struct aifs_sysfs_attr *a = container_of(attr, struct aifs_sysfs_attr, attr);
	const struct aifs_uint_param *p;
	unsigned int val;

	/* kernfs does not open the 0444 files for writing, even for root */
	if (a->attr_id != attr_tunable)
		return -EPERM;

	p = &aifs_uint_params[a->param];
	if (kstrtouint(buf, 10, &val) || val < p->min || val > p->max)
		return -EINVAL;

	mutex_lock(&fsi->tune_lock);
	aifs_set_tunable(fsi, a->param, val);
	mutex_unlock(&fsi->tune_lock);
	return len;
}

static void aifs_sb_release(struct kobject *kobj)
{
	struct aifs_fs_info *fsi = container_of(kobj, struct aifs_fs_info,
						kobj);

	complete(&fsi->kobj_unregister);
}

static const struct sysfs_ops aifs_attr_ops = {
	.show	= aifs_attr_show,
	.store	= aifs_attr_store,
};

static const struct kobj_type aifs_sb_ktype = {
	.default_groups	= aifs_sb_groups,
	.sysfs_ops	= &aifs_attr_ops,
	.release	= aifs_sb_release,
};

/**
 * aifs_sysfs_register - create /sys/fs/aifs/aifs-<id>/ for a new mount
 * @fsi: superblock info, with its id and bdi set up
 *
 * Return: 0 or an error, in which case nothing is left to unregister.
 */
int aifs_sysfs_register(struct aifs_fs_info *fsi)
{
	int err;

	fsi->kobj.kset = aifs_kset;
	init_completion(&fsi->kobj_unregister);
	err = kobject_init_and_add(&fsi->kobj, &aifs_sb_ktype, NULL,
				   "aifs-%d", fsi->id);
	if (err) {
		kobject_put(&fsi->kobj);
		wait_for_completion(&fsi->kobj_unregister);
	}
	return err;
}

/**
 * aifs_sysfs_unregister - remove a mount's directory, if it has one
 * @fsi: superblock info
 *
 * Returns once no show or store runs any longer and the kobject has been
 * released, so that @fsi and the superblock's bdi may go.
 */
void aifs_sysfs_unregister(struct aifs_fs_info *fsi)
{
	if (!fsi->kobj.state_in_sysfs)
		return;
	kobject_del(&fsi->kobj);
	kobject_put(&fsi->kobj);
	wait_for_completion(&fsi->kobj_unregister);
}

int __init aifs_sysfs_init(void)
{
	aifs_kset = kset_create_and_add("aifs", NULL, fs_kobj);
	return aifs_kset ? 0 : -ENOMEM;
}

void aifs_sysfs_exit(void)
{
	kset_unregister(aifs_kset);
}
