// SPDX-License-Identifier: GPL-2.0
/*
 * aifs - mapped files. Faults fill the page cache as reads do
 * (filemap_fault, filemap_map_pages: readahead through addr.c); the first
 * store into a page of a shared mapping makes it dirty in page_mkwrite,
 * and writepages sends it as any dirty page (write.c). Private mappings
 * never reach page_mkwrite: their stores go to copies.
 *
 * Shared writable mappings are tracked through write-protected ptes
 * (the mount's bdi can write back, and there is a page_mkwrite), and
 * writeback write-protects a page again before it sends it
 * (folio_clear_dirty_for_io()): every store after a writeback goes
 * through page_mkwrite once more, which waits for stable pages, so the
 * bytes sent are the bytes their CRC32C covered, as for write(2).
 *
 * Truncation: setattr holds the mapping's invalidate_lock across its
 * writeback, the SETATTR and truncate_pagecache() (inode.c), and
 * page_mkwrite takes it shared: no page is dirtied through a mapping
 * between the writeback and the cut, where its CHUNK_WRITE could land
 * after the MDS cut the chunks. A page that is not the file's any more
 * or wholly past EOF is left to the fault to find again
 * (VM_FAULT_NOPAGE), where filemap_fault answers SIGBUS past EOF.
 */
#include <linux/mm.h>
#include <linux/pagemap.h>

#include "internal.h"

static vm_fault_t aifs_page_mkwrite(struct vm_fault *vmf)
{
	struct file *file = vmf->vma->vm_file;
	struct inode *inode = file_inode(file);
	struct address_space *mapping = inode->i_mapping;
	struct folio *folio = page_folio(vmf->page);
	struct aifs_layout layout;
	vm_fault_t ret = VM_FAULT_LOCKED;
	int err;

	/* no data server to write to: as write(2), before anything is dirty */
	err = aifs_layout_get(inode, &layout);
	if (err)
		return vmf_error(err);
	sb_start_pagefault(inode->i_sb);
	filemap_invalidate_lock_shared(mapping);
	/* before file_update_time(): a reply must not undo the new mtime */
	aifs_inode_written(inode, 0);
	file_update_time(file);
	folio_lock(folio);
	if (folio->mapping != mapping ||
	    folio_pos(folio) >= i_size_read(inode)) {
		folio_unlock(folio);
		ret = VM_FAULT_NOPAGE;
		goto out;
	}
	/*
	 * A store may land anywhere in it. Dirty before the wait, so that a
	 * freeze's writeback finds it.
	 */
	aifs_folio_set_range(folio, 0, folio_size(folio));
	folio_mark_dirty(folio);
	folio_wait_stable(folio);
out:
	filemap_invalidate_unlock_shared(mapping);
	sb_end_pagefault(inode->i_sb);
	return ret;
}

static const struct vm_operations_struct aifs_file_vm_ops = {
	.fault		= filemap_fault,
	.map_pages	= filemap_map_pages,
	.page_mkwrite	= aifs_page_mkwrite,
};

int aifs_file_mmap(struct file *file, struct vm_area_struct *vma)
{
	file_accessed(file);
	vma->vm_ops = &aifs_file_vm_ops;
	return 0;
}
