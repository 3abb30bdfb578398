// SPDX-License-Identifier: GPL-2.0
/* splice reads go through filemap_splice_read() (6.5). */
#include <linux/fs.h>

const struct file_operations aifs_probe_fops = {
	.splice_read	= filemap_splice_read,
};
