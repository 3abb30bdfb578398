// SPDX-License-Identifier: GPL-2.0
/*
 * aifs - module init and exit, the fs_context mount path, the superblock
 * and the per-superblock bdi.
 *
 * A mount's life: get_tree parses the options into a new aifs_fs_info,
 * opens the session with a metadata server (session.c), then makes the
 * superblock; kill_sb removes sysfs, writes the dirty data back, ends the
 * reads still running, kills the superblock and frees the aifs_fs_info,
 * closing the session last (aifs_free_fs_info). A mount that fails before the superblock exists
 * frees the same way from aifs_free_fc().
 */
#include <linux/backing-dev.h>
#include <linux/idr.h>
#include <linux/init.h>
#include <linux/lockdep.h>
#include <linux/module.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/statfs.h>

#include "internal.h"

/* Numbers of live superblocks: "aifs-<id>" names their bdi and sysfs dir. */
static DEFINE_IDA(aifs_ida);

static void aifs_set_readahead(struct aifs_fs_info *fsi)
{
	struct backing_dev_info *bdi = fsi->sb->s_bdi;
	unsigned long pages;

	/* as ceph_setup_bdi(): whole pages, and as large a single I/O */
	pages = READ_ONCE(fsi->opts.read_ahead_kb) >> (PAGE_SHIFT - 10);
	WRITE_ONCE(bdi->ra_pages, pages);
	WRITE_ONCE(bdi->io_pages, pages);
}

/**
 * aifs_set_tunable - change a tunable of a mounted file system at once
 * @fsi: the mounted file system
 * @param: an unsigned option that remount may change
 * @val: new value, already range-checked
 *
 * Called with @fsi->tune_lock held, from remount and from sysfs.
 */
void aifs_set_tunable(struct aifs_fs_info *fsi, enum aifs_param param,
		      unsigned int val)
{
	lockdep_assert_held(&fsi->tune_lock);

	WRITE_ONCE(*aifs_uint_ptr(&fsi->opts, param), val);
	if (param == AIFS_OPT_READ_AHEAD_KB)
		aifs_set_readahead(fsi);
	if (param == AIFS_OPT_MAX_INFLIGHT) {
		aifs_mds_wake(fsi);
		aifs_data_set_inflight(fsi);
	}
}

static int aifs_show_options(struct seq_file *m, struct dentry *root)
{
	aifs_show_mount_options(m, &AIFS_SB(root->d_sb)->opts);
	return 0;
}

/* STATFS: the space of the data servers, the inodes of the MDS. */
static int aifs_statfs(struct dentry *dentry, struct kstatfs *buf)
{
	struct super_block *sb = dentry->d_sb;
	struct aifs_ino_req req = { .ino = cpu_to_le64(d_inode(dentry)->i_ino) };
	struct aifs_statfs_rep rep;
	struct aifs_mds_msg m = {
		.op = AIFS_OP_STATFS,
		.req = &req, .req_size = sizeof(req),
		.rep = &rep, .rep_size = sizeof(rep),
	};
	const u8 *uuid = AIFS_SB(sb)->session.fs_uuid;
	u32 bsize;
	int err;

	err = aifs_mds_call(sb, &m);
	if (err)
		return err;
	bsize = le32_to_cpu(rep.bsize);
	if (!bsize || !is_power_of_2(bsize) || bsize > AIFS_CHUNK_SIZE_MAX)
		return -EIO;
	buf->f_type = AIFS_SUPER_MAGIC;
	buf->f_bsize = bsize;
	buf->f_frsize = bsize;
	buf->f_blocks = le64_to_cpu(rep.total_bytes) / bsize;
	buf->f_bfree = le64_to_cpu(rep.free_bytes) / bsize;
	buf->f_bavail = le64_to_cpu(rep.avail_bytes) / bsize;
	/* the MDS counts the inodes in use, statfs(2) all there can be */
	buf->f_ffree = le64_to_cpu(rep.files_free);
	buf->f_files = le64_to_cpu(rep.files) + buf->f_ffree;
	if (buf->f_files < buf->f_ffree)
		buf->f_files = U64_MAX;
	buf->f_namelen = AIFS_NAME_MAX;
	buf->f_fsid.val[0] = get_unaligned_le32(uuid) ^
			     get_unaligned_le32(uuid + 8);
	buf->f_fsid.val[1] = get_unaligned_le32(uuid + 4) ^
			     get_unaligned_le32(uuid + 12);
	return 0;
}

/*
 * umount -f, as NFS's: every call that waits for a server, to the MDS or
 * a data server, in flight or between its tries, ends with -EIO, so that
 * the tasks stuck on a dead cluster return and the mount can go. Calls
 * made afterwards wait as before: the mount stays usable if it is busy.
 */
static void aifs_umount_begin(struct super_block *sb)
{
	struct aifs_fs_info *fsi = AIFS_SB(sb);

	atomic_inc(&fsi->aborts);
	wake_up_all(&fsi->abort_wait);
	aifs_session_abort(fsi);
	aifs_data_abort(fsi);
	pr_info("aifs-%d: umount -f: calls waiting for the servers end with EIO\n",
		fsi->id);
}

static const struct super_operations aifs_super_ops = {
	.alloc_inode	= aifs_alloc_inode,
	.free_inode	= aifs_free_inode,
	.write_inode	= aifs_write_inode,
	.statfs		= aifs_statfs,
	.show_options	= aifs_show_options,
	.umount_begin	= aifs_umount_begin,
};

/*
 * The root of the mount: the directory the source names, found from the
 * file system's root (inode 1) one LOOKUP per component.
 */
static int aifs_get_root(struct super_block *sb, struct fs_context *fc)
{
	const char *path = AIFS_SB(sb)->opts.path ?: "/";
	struct aifs_attr attr;
	struct inode *root;
	int err;

	err = aifs_lookup_path(sb, path, &attr);
	if (err == -ENOENT)
		errorfc(fc, "%s: no such directory on the server", path);
	else if (err == -ENOTDIR)
		errorfc(fc, "%s: not a directory on the server", path);
	else if (err)
		errorfc(fc, "%s: cannot look it up on the server: %d", path, err);
	if (err)
		return err;
	root = aifs_iget(sb, &attr);
	if (IS_ERR(root))
		return PTR_ERR(root);
	sb->s_root = d_make_root(root);
	return sb->s_root ? 0 : -ENOMEM;
}

/*
 * On failure the VFS calls aifs_kill_sb(), which undoes whatever was set
 * up here; hence no unwinding in this function.
 */
static int aifs_fill_super(struct super_block *sb, struct fs_context *fc)
{
	struct aifs_fs_info *fsi = AIFS_SB(sb);
	int err;

	fsi->sb = sb;
	sb->s_magic = AIFS_SUPER_MAGIC;
	sb->s_op = &aifs_super_ops;
	sb->s_blocksize = PAGE_SIZE;
	sb->s_blocksize_bits = PAGE_SHIFT;
	sb->s_maxbytes = MAX_LFS_FILESIZE;
	sb->s_time_gran = 1;
	aifs_set_default_d_op(sb, &aifs_dentry_ops);
	sb->s_xattr = aifs_xattr_handlers;
	/* ACLs: the MDS's, checked by the VFS too (acl.c) */
	sb->s_flags |= SB_POSIXACL;
	/*
	 * A write checks for setuid bits and security.capability once, not
	 * at every write(2) (a GETXATTR each): the VFS marks the inode
	 * S_NOSEC, and aifs_inode_update() clears the mark when the server's
	 * change counter moves, as another client may have set either.
	 */
	sb->s_flags |= SB_NOSEC;
	/* a folio under writeback does not change: its payload CRC holds */
	sb->s_iflags |= SB_I_STABLE_WRITES;

	err = ida_alloc(&aifs_ida, GFP_KERNEL);
	if (err < 0)
		return err;
	fsi->id = err;

	err = super_setup_bdi_name(sb, "aifs-%d", fsi->id);
	if (err)
		return err;
	aifs_set_readahead(fsi);

	err = aifs_get_root(sb, fc);
	if (err)
		return err;

	/* last, so that sysfs never shows a half-built mount */
	return aifs_sysfs_register(fsi);
}

static void aifs_free_fs_info(struct aifs_fs_info *fsi)
{
	aifs_data_close(fsi);
	aifs_session_close(fsi);
	aifs_free_options(&fsi->opts);
	aifs_stats_free(fsi);
	mutex_destroy(&fsi->tune_lock);
	kfree(fsi);
}

static int aifs_get_tree(struct fs_context *fc)
{
	struct aifs_fs_context *ctx = fc->fs_private;
	struct aifs_fs_info *fsi;
	int err;

	err = aifs_finish_options(fc);
	if (err)
		return err;

	fsi = kzalloc(sizeof(*fsi), GFP_KERNEL);
	if (!fsi)
		return -ENOMEM;
	fsi->opts = ctx->opts;
	/* fsi owns the strings now */
	ctx->opts.path = NULL;
	ctx->opts.secret = NULL;
	/* auto tries RDMA first (aifs_session_open() falls back to TCP) */
	fsi->transport = fsi->opts.transport;
	if (fsi->transport == AIFS_TRANSPORT_AUTO)
		fsi->transport = aifs_transport_get(AIFS_TRANSPORT_RDMA) ?
				 AIFS_TRANSPORT_RDMA : AIFS_TRANSPORT_TCP;
	fsi->id = -1;
	mutex_init(&fsi->tune_lock);
	init_waitqueue_head(&fsi->abort_wait);
	aifs_mds_init(fsi);

	/*
	 * sget_fc() moves fc->s_fs_info to sb->s_fs_info and clears it; from
	 * then on aifs_kill_sb() frees fsi. If sget_fc() fails, fsi stays in
	 * fc and aifs_free_fc() frees it. Every mount gets its own superblock
	 * until sharing one between mounts of the same cluster is added.
	 */
	fc->s_fs_info = fsi;

	err = aifs_stats_init(fsi);
	if (err)
		return err;

	/*
	 * Connect before there is a superblock, as NFS does: a dead server
	 * then delays this mount only, not sync(2) and others that take the
	 * s_umount of every superblock.
	 */
	err = aifs_session_open(fsi, fc);
	if (err)
		return err;
	err = aifs_data_init(fsi, fc->net_ns);
	if (err)
		return err;
	return get_tree_nodev(fc, aifs_fill_super);
}

/*
 * Remount: the tunables take effect at once; options that cannot change
 * are refused only when their value really differs.
 */
static int aifs_reconfigure(struct fs_context *fc)
{
	struct aifs_fs_context *ctx = fc->fs_private;
	struct aifs_fs_info *fsi = AIFS_SB(fc->root->d_sb);
	int i, err;

	err = aifs_check_remount(fc, &fsi->opts);
	if (err)
		return err;

	mutex_lock(&fsi->tune_lock);
	for (i = 0; i < AIFS_NR_UINT_PARAMS; i++)
		if (aifs_uint_params[i].remount && (ctx->given & BIT(i)))
			aifs_set_tunable(fsi, i, *aifs_uint_ptr(&ctx->opts, i));
	if (ctx->given & (BIT(AIFS_OPT_HARD) | BIT(AIFS_OPT_SOFT)))
		WRITE_ONCE(fsi->opts.soft, ctx->opts.soft);
	mutex_unlock(&fsi->tune_lock);
	return 0;
}

static void aifs_free_fc(struct fs_context *fc)
{
	struct aifs_fs_context *ctx = fc->fs_private;

	if (fc->s_fs_info)
		aifs_free_fs_info(fc->s_fs_info);
	aifs_free_options(&ctx->opts);
	kfree(ctx->source_hosts);
	kfree(ctx);
}

static const struct fs_context_operations aifs_context_ops = {
	.free		= aifs_free_fc,
	.parse_param	= aifs_parse_param,
	.get_tree	= aifs_get_tree,
	.reconfigure	= aifs_reconfigure,
};

/* Called for new mounts and for remounts (FS_CONTEXT_FOR_RECONFIGURE). */
static int aifs_init_fs_context(struct fs_context *fc)
{
	struct aifs_fs_context *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	aifs_default_options(&ctx->opts);

	fc->fs_private = ctx;
	fc->ops = &aifs_context_ops;
	return 0;
}

static void aifs_kill_sb(struct super_block *sb)
{
	struct aifs_fs_info *fsi = AIFS_SB(sb);

	/*
	 * Remove sysfs first: it waits for running show/store calls, and
	 * store dereferences sb->s_bdi, which kill_anon_super() puts.
	 */
	aifs_sysfs_unregister(fsi);
	/*
	 * Dirty data goes to the data servers, and is waited for, while the
	 * connections still work: aifs_data_shutdown() fails them all, and
	 * generic_shutdown_super()'s own sync would come after that.
	 */
	if (sb->s_root)
		sync_filesystem(sb);
	/* reads still running (readahead, killed readers) hold inodes */
	aifs_data_shutdown(fsi);
	kill_anon_super(sb);
	/* the bdi named after the id is unregistered only now */
	if (fsi->id >= 0)
		ida_free(&aifs_ida, fsi->id);
	aifs_free_fs_info(fsi);
}

struct file_system_type aifs_fs_type = {
	.owner			= THIS_MODULE,
	.name			= "aifs",
	.init_fs_context	= aifs_init_fs_context,
	.parameters		= aifs_fs_parameters,
	.kill_sb		= aifs_kill_sb,
};
MODULE_ALIAS_FS("aifs");

static int __init aifs_init(void)
{
	int err;

	err = aifs_auth_init();
	if (err)
		return err;

	err = aifs_inode_cache_init();
	if (err)
		return err;

	err = aifs_sysfs_init();
	if (err)
		goto out_inodes;

	err = aifs_genl_init();
	if (err)
		goto out_sysfs;

	aifs_fail_init();
	/* last: from here on mounts can arrive */
	err = register_filesystem(&aifs_fs_type);
	if (err)
		goto out_fail;
	return 0;

out_fail:
	aifs_fail_exit();
	aifs_genl_exit();
out_sysfs:
	aifs_sysfs_exit();
out_inodes:
	aifs_inode_cache_exit();
	return err;
}

static void __exit aifs_exit(void)
{
	unregister_filesystem(&aifs_fs_type);
	aifs_fail_exit();
	aifs_genl_exit();
	aifs_sysfs_exit();
	aifs_inode_cache_exit();
}

module_init(aifs_init);
module_exit(aifs_exit);

MODULE_DESCRIPTION("aifs distributed file system client");
MODULE_LICENSE("GPL");
/* the handshake's HMAC; both are built in on Debian's kernels */
MODULE_SOFTDEP("pre: hmac sha256");
