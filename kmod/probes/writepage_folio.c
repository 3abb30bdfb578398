// SPDX-License-Identifier: GPL-2.0
/* write_cache_pages() hands its callback folios, not pages (6.3). */
#include <linux/writeback.h>

static int aifs_probe_fill(struct folio *folio, struct writeback_control *wbc,
			   void *data)
{
	return 0;
}

int aifs_probe(struct address_space *mapping, struct writeback_control *wbc)
{
	return write_cache_pages(mapping, wbc, aifs_probe_fill, NULL);
}
