// SPDX-License-Identifier: GPL-2.0
/* ->writepages walks the dirty folios with writeback_iter() (6.12 has it). */
#include <linux/pagemap.h>
#include <linux/writeback.h>

int aifs_probe(struct address_space *mapping, struct writeback_control *wbc)
{
	struct folio *folio = NULL;
	int err = 0;

	while ((folio = writeback_iter(mapping, wbc, folio, &err)))
		folio_unlock(folio);
	return err;
}
