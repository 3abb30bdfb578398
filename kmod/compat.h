/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aifs - wrappers for kernel interfaces that changed after 6.1, the
 * kernel the client is written for. Each names the kernel that changed.
 */
#ifndef _AIFS_COMPAT_H
#define _AIFS_COMPAT_H

#include <linux/fs.h>
#include <linux/splice.h>

/*
 * 6.5 added filemap_splice_read() and later removed
 * generic_file_splice_read(); 6.1 has only the latter. HAVE_FILEMAP_SPLICE_READ
 * is for a feature-detect script to define.
 */
#ifdef HAVE_FILEMAP_SPLICE_READ
#define aifs_splice_read	filemap_splice_read
#else
#define aifs_splice_read	generic_file_splice_read
#endif

#endif /* _AIFS_COMPAT_H */
