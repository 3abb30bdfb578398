// SPDX-License-Identifier: GPL-2.0
/*
 * ->write_begin and ->write_end are told the kiocb, not the file (after
 * 6.12).
 */
#include <linux/fs.h>

static int aifs_probe_begin(const struct kiocb *iocb,
			    struct address_space *mapping, loff_t pos,
			    unsigned int len, struct folio **foliop,
			    void **fsdata)
{
	return 0;
}

const struct address_space_operations aifs_probe_aops = {
	.write_begin	= aifs_probe_begin,
};
