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

#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/posix_acl_xattr.h>
#include <linux/slab.h>
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
 * page of it: "struct aifs_write_page *". write_cache_pages() hands its
 * callback a folio, or a page: "struct aifs_wb_page *". aifs_to_folio()
 * turns either into its folio.
 */
#ifdef HAVE_WRITE_BEGIN_FOLIO
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

#ifdef HAVE_WRITEPAGE_FOLIO
#define aifs_wb_page		folio
#else
#define aifs_wb_page		page
#endif

#define aifs_to_folio(p)						\
	_Generic((p),							\
		 struct page * : page_folio((struct page *)(p)),	\
		 struct folio * : (struct folio *)(p))
#endif /* _AIFS_COMPAT_H */
