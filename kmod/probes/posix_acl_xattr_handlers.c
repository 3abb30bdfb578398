// SPDX-License-Identifier: GPL-2.0
/*
 * A file system lists the system.posix_acl_* xattr handlers itself; from
 * 6.2 on the VFS handles those names and the handlers go (6.5).
 */
#include <linux/fs.h>
#include <linux/posix_acl_xattr.h>
#include <linux/xattr.h>

const struct xattr_handler *aifs_probe_handlers[] = {
	&posix_acl_access_xattr_handler,
	NULL,
};
