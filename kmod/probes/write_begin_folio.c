// SPDX-License-Identifier: GPL-2.0
/* ->write_begin hands back a folio, not a page (6.12). */
#include <linux/fs.h>

static int aifs_probe_begin(struct file *file, struct address_space *mapping,
			    loff_t pos, unsigned int len, struct folio **foliop,
			    void **fsdata)
{
	return 0;
}

const struct address_space_operations aifs_probe_aops = {
	.write_begin	= aifs_probe_begin,
};
