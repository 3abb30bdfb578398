/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aifs - one source for every kernel the client builds against: each
 * kernel interface that differs between them gets a wrapper here, named
 * after what it does. Which interface a kernel has is not judged by its
 * version (distributions backport) but by kmod/configure, which compiles
 * one probe per interface (kmod/probes/) against the kernel's headers and
 * writes the HAVE_* defines of aifs_config.h. Only this file reads them.
 * Documentation/kernel-client.md, "Kernels", lists which kernel takes
 * which path.
 */
#ifndef _AIFS_COMPAT_H
#define _AIFS_COMPAT_H

#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/net.h>
#include <linux/pagemap.h>
#include <linux/posix_acl_xattr.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/splice.h>
#include <linux/writeback.h>
#include <linux/xattr.h>

#include "aifs_config.h"

#ifdef HAVE_LINUX_UNALIGNED_H
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/*
 * The mapping of ids of the mount an inode operation comes through:
 * struct mnt_idmap, or before it a user namespace. "struct aifs_idmap *"
 * in a signature is the one the kernel passes; aifs does not idmap
 * mounts (no FS_ALLOW_IDMAP), so it only hands it back to the VFS.
 */
#ifdef HAVE_MNT_IDMAP
#define aifs_idmap		mnt_idmap
#else
#define aifs_idmap		user_namespace
#endif

/* generic_fillattr(), told what the caller asked for where it can be. */
static inline void aifs_fillattr(struct aifs_idmap *idmap, u32 request_mask,
				 struct inode *inode, struct kstat *stat)
{
#ifdef HAVE_FILLATTR_REQUEST_MASK
	generic_fillattr(idmap, request_mask, inode, stat);
#else
	generic_fillattr(idmap, inode, stat);
#endif
}

/*
 * ACLs: the VFS asks ->get_inode_acl for permission checks and ->set_acl
 * names the file by its dentry; before, ->get_acl served both and
 * ->set_acl named the inode. AIFS_ACL_FILE is what ->set_acl names.
 * Where the VFS serves system.posix_acl_* itself, the file system lists
 * no handlers for them.
 */
#ifdef HAVE_GET_INODE_ACL
#define AIFS_ACL_IOPS(get, set)	.get_inode_acl = (get), .set_acl = (set)
#define AIFS_ACL_FILE		dentry
#define aifs_acl_file_inode(f)	d_inode(f)
#else
#define AIFS_ACL_IOPS(get, set)	.get_acl = (get), .set_acl = (set)
#define AIFS_ACL_FILE		inode
#define aifs_acl_file_inode(f)	(f)
#endif

#ifdef HAVE_POSIX_ACL_XATTR_HANDLERS
#define AIFS_ACL_XATTR_HANDLERS	&posix_acl_access_xattr_handler, \
				&posix_acl_default_xattr_handler,
#else
#define AIFS_ACL_XATTR_HANDLERS
#endif

/* An inode's times, through accessors where the kernel has them. */
static inline struct timespec64 aifs_inode_mtime(struct inode *inode)
{
#ifdef HAVE_INODE_TIME_ACCESSORS
	return inode_get_mtime(inode);
#else
	return inode->i_mtime;
#endif
}

/* The times the server says @inode has; @mtime NULL keeps the mtime. */
static inline void aifs_inode_set_times(struct inode *inode,
					struct timespec64 atime,
					const struct timespec64 *mtime,
					struct timespec64 ctime)
{
#ifdef HAVE_INODE_TIME_ACCESSORS
	inode_set_atime_to_ts(inode, atime);
	if (mtime)
		inode_set_mtime_to_ts(inode, *mtime);
	inode_set_ctime_to_ts(inode, ctime);
#else
	inode->i_atime = atime;
	if (mtime)
		inode->i_mtime = *mtime;
	inode->i_ctime = ctime;
#endif
}

/* Spreading a slab's pages over NUMA nodes is no flag any more (6.8). */
#ifdef SLAB_MEM_SPREAD
#define AIFS_SLAB_SPREAD	SLAB_MEM_SPREAD
#else
#define AIFS_SLAB_SPREAD	0
#endif

#ifdef HAVE_FILEMAP_SPLICE_READ
#define aifs_splice_read	filemap_splice_read
#else
#define aifs_splice_read	generic_file_splice_read
#endif

/*
 * ->write_begin hands back and ->write_end takes a folio, or before a
 * page of it: "struct aifs_write_page *"; both are told the kiocb of the
 * write, or before its file: "AIFS_WRITE_CALLER *" (aifs uses neither).
 * The callback of write_cache_pages() takes a folio, or a page: "struct
 * aifs_wb_page *". aifs_to_folio() turns either into its folio.
 */
#if defined(HAVE_WRITE_BEGIN_FOLIO) || defined(HAVE_WRITE_BEGIN_KIOCB)
#define aifs_write_page		folio

/* What ->write_begin hands back for @folio, written at @pos. */
static inline struct folio *aifs_write_page_of(struct folio *folio, loff_t pos)
{
	return folio;
}
#else
#define aifs_write_page		page

static inline struct page *aifs_write_page_of(struct folio *folio, loff_t pos)
{
	return folio_file_page(folio, pos >> PAGE_SHIFT);
}
#endif

#ifdef HAVE_WRITE_BEGIN_KIOCB
#define AIFS_WRITE_CALLER	const struct kiocb
#else
#define AIFS_WRITE_CALLER	struct file
#endif

#if defined(HAVE_WRITEPAGE_FOLIO) || defined(HAVE_WRITEBACK_ITER)
#define aifs_wb_page		folio
#else
#define aifs_wb_page		page
#endif

/*
 * @fill on each dirty folio of @mapping that @wbc asks for, locked and
 * to be unlocked by @fill: through writeback_iter() where the kernel has
 * it (write_cache_pages() is gone after 6.12), else write_cache_pages().
 */
static inline int aifs_write_cache_pages(struct address_space *mapping,
					 struct writeback_control *wbc,
					 int (*fill)(struct aifs_wb_page *,
						     struct writeback_control *,
						     void *),
					 void *data)
{
#ifdef HAVE_WRITEBACK_ITER
	struct folio *folio = NULL;
	int err = 0;

	while ((folio = writeback_iter(mapping, wbc, folio, &err)))
		err = fill(folio, wbc, data);
	return err;
#else
	return write_cache_pages(mapping, wbc, fill, data);
#endif
}

#define aifs_to_folio(p)						\
	_Generic((p),							\
		 struct page * : page_folio((struct page *)(p)),	\
		 struct folio * : (struct folio *)(p))

/*
 * @acl in the xattr format, in a buffer for kfree() whose size goes to
 * @sizep; posix_acl_to_xattr() allocates it itself after 6.12.
 */
static inline void *aifs_acl_to_xattr(struct user_namespace *ns,
				      const struct posix_acl *acl,
				      size_t *sizep)
{
	void *value;
#ifdef HAVE_POSIX_ACL_TO_XATTR_ALLOC
	value = posix_acl_to_xattr(ns, acl, sizep, GFP_KERNEL);
	return value ?: ERR_PTR(-ENOMEM);
#else
	int err;

	*sizep = posix_acl_xattr_size(acl->a_count);
	value = kmalloc(*sizep, GFP_KERNEL);
	if (!value)
		return ERR_PTR(-ENOMEM);
	err = posix_acl_to_xattr(ns, acl, value, *sizep);
	if (err < 0) {
		kfree(value);
		return ERR_PTR(err);
	}
	return value;
#endif
}

/*
 * ->mkdir hands back the dentry it made when not the one it was given
 * (after 6.12), NULL for that one; before, an error number.
 * AIFS_MKDIR(op, fn) defines the operation @op over fn(dir, dentry,
 * mode), which returns 0 or an error.
 */
#ifdef HAVE_MKDIR_DENTRY
#define AIFS_MKDIR(op, fn)						\
static struct dentry *op(struct mnt_idmap *idmap, struct inode *dir,	\
			 struct dentry *dentry, umode_t mode)		\
{									\
	return ERR_PTR(fn(dir, dentry, mode));				\
}
#else
#define AIFS_MKDIR(op, fn)						\
static int op(struct aifs_idmap *idmap, struct inode *dir,		\
	      struct dentry *dentry, umode_t mode)			\
{									\
	return fn(dir, dentry, mode);					\
}
#endif

/*
 * ->create is told whether the open asked for O_EXCL; after 6.12 it is
 * not, and the create is exclusive (Documentation/kernel-client.md,
 * "Kernels"). AIFS_CREATE(op, fn) defines the operation @op over
 * fn(dir, dentry, mode, excl).
 */
#ifdef HAVE_CREATE_WITHOUT_EXCL
#define AIFS_CREATE(op, fn)						\
static int op(struct mnt_idmap *idmap, struct inode *dir,		\
	      struct dentry *dentry, umode_t mode)			\
{									\
	return fn(dir, dentry, mode, true);				\
}
#else
#define AIFS_CREATE(op, fn)						\
static int op(struct aifs_idmap *idmap, struct inode *dir,		\
	      struct dentry *dentry, umode_t mode, bool excl)		\
{									\
	return fn(dir, dentry, mode, excl);				\
}
#endif

/* Whether @inode, from iget5_locked(), is new and still to be filled. */
static inline bool aifs_inode_is_new(struct inode *inode)
{
#ifdef HAVE_INODE_STATE_ACCESSORS
	return inode_state_read_once(inode) & I_NEW;
#else
	return inode->i_state & I_NEW;
#endif
}

static inline void aifs_set_default_d_op(struct super_block *sb,
					 const struct dentry_operations *ops)
{
#ifdef HAVE_SET_DEFAULT_D_OP
	set_default_d_op(sb, ops);
#else
	sb->s_d_op = ops;
#endif
}

/* The address kernel_connect() takes. */
#ifdef HAVE_SOCKADDR_UNSIZED
#define aifs_sockaddr		sockaddr_unsized
#else
#define aifs_sockaddr		sockaddr
#endif

/*
 * ->d_revalidate is told the directory and a name a rename cannot change
 * under it (after 6.12); before, only the dentry, whose parent it takes
 * and whose name it copies. AIFS_D_REVALIDATE(op, known, ask) defines
 * the operation @op over two steps: known(dentry, flags) answers what it
 * can without the server (1 valid, 0 not, -ECHILD for a walk under RCU)
 * or AIFS_D_ASK; ask(dentry, dir_ino, name) asks the server.
 */
#define AIFS_D_ASK		2

#ifdef HAVE_D_REVALIDATE_DIR
#define AIFS_D_REVALIDATE(op, known, ask)				\
static int op(struct inode *dir, const struct qstr *name,		\
	      struct dentry *dentry, unsigned int flags)		\
{									\
	int ret = known(dentry, flags);					\
									\
	return ret != AIFS_D_ASK ? ret : ask(dentry, dir->i_ino, name);	\
}
#else
#define AIFS_D_REVALIDATE(op, known, ask)				\
static int op(struct dentry *dentry, unsigned int flags)		\
{									\
	struct name_snapshot name;					\
	struct dentry *parent;						\
	int ret = known(dentry, flags);					\
									\
	if (ret != AIFS_D_ASK)						\
		return ret;						\
	parent = dget_parent(dentry);					\
	take_dentry_name_snapshot(&name, dentry);			\
	ret = ask(dentry, d_inode(parent)->i_ino, &name.name);		\
	release_dentry_name_snapshot(&name);				\
	dput(parent);							\
	return ret;							\
}
#endif
#endif /* _AIFS_COMPAT_H */
