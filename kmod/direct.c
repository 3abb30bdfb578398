// SPDX-License-Identifier: GPL-2.0
/*
 * aifs - O_DIRECT reads and writes, straight between the caller's pages
 * and the data servers.
 *
 * The caller's pages are taken (iov_iter_get_pages2(): a reference each,
 * faulted in, writable for a read) into an array of bio_vecs, so that the
 * I/O can run on the mount's workqueue, away from the caller's mm, and go
 * through the connections as an ITER_BVEC like any page-backed data. The
 * read and write paths of the page cache do the rest with their own
 * machinery: a read is a read request of addr.c whose sub-requests
 * receive into the bio_vecs instead of the page cache, a write is a set
 * of write requests of write.c sent from them. Both split at chunk
 * boundaries and at AIFS_DATA_MAX_IO and run max_inflight at once.
 *
 * Ownership, as the page cache's reads: the pieces of the I/O (read
 * sub-requests, write requests) each hold the request, and so does the
 * caller. The caller waits killably; when it is killed it drops its
 * reference and leaves, and the pieces go on into or from the pages,
 * which the request keeps until the last piece ended (each bounded by
 * timeo per server tried). So nothing ever writes into a page that was
 * given back, and a data call still never returns while its receiver
 * writes into the pages.
 *
 * A large I/O goes in batches of AIFS_DIO_BATCH bytes, so that the pages
 * held and the array describing them stay bounded; a batch that ends
 * short (EOF, an error) ends the I/O with what was done.
 */
#define pr_fmt(fmt) "aifs: " fmt

#include <linux/bvec.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uio.h>

#include "internal.h"

/* Bytes of one batch: 16 pieces of AIFS_DATA_MAX_IO, 4 Ki pages held. */
#define AIFS_DIO_BATCH	(16 * AIFS_DATA_MAX_IO)

static void aifs_dio_release(struct kref *ref)
{
	struct aifs_dio *dio = container_of(ref, struct aifs_dio, ref);
	unsigned int i;

	for (i = 0; i < dio->nr_bvec; i++) {
		/* a read wrote into them behind the page tables' back */
		if (dio->dirty)
			set_page_dirty_lock(dio->bvec[i].bv_page);
		put_page(dio->bvec[i].bv_page);
	}
	kvfree(dio->bvec);
	kfree(dio);
}

static void aifs_dio_put(struct aifs_dio *dio)
{
	kref_put(&dio->ref, aifs_dio_release);
}

/**
 * aifs_dio_iter - an iterator over part of a direct I/O's pages
 * @dio: the I/O
 * @iter: out: @len bytes at @off of the I/O, a destination for a read
 * @off: offset from @dio->pos
 * @len: bytes
 */
void aifs_dio_iter(struct aifs_dio *dio, struct iov_iter *iter, size_t off,
		   size_t len)
{
	iov_iter_bvec(iter, dio->write ? ITER_SOURCE : ITER_DEST, dio->bvec,
		      dio->nr_bvec, dio->len);
	iov_iter_advance(iter, off);
	iov_iter_truncate(iter, len);
}

/**
 * aifs_dio_begin - pieces of the I/O are about to be queued
 * @dio: the I/O
 * @nr: how many; each ends with aifs_dio_end()
 */
void aifs_dio_begin(struct aifs_dio *dio, unsigned int nr)
{
	atomic_add(nr, &dio->pending);
}

/**
 * aifs_dio_fail - part of the I/O failed, or was never sent
 * @dio: the I/O
 * @off: where the part begins, from @dio->pos
 * @err: its negative errno
 *
 * The I/O did the bytes before the lowest such offset.
 */
void aifs_dio_fail(struct aifs_dio *dio, size_t off, int err)
{
	spin_lock(&dio->lock);
	if (off < dio->done) {
		dio->done = off;
		dio->err = err;
	}
	spin_unlock(&dio->lock);
}

/**
 * aifs_dio_end - a piece of the I/O ended
 * @dio: the I/O; may be gone when this returns
 * @off: where the piece begins, from @dio->pos
 * @err: 0, or its negative errno
 */
void aifs_dio_end(struct aifs_dio *dio, size_t off, int err)
{
	if (err)
		aifs_dio_fail(dio, off, err);
	/* orders the failure before the waiter's look at it */
	if (atomic_dec_and_test(&dio->pending)) {
		complete(&dio->ended);
		aifs_dio_put(dio);
	}
}

/*
 * Take the caller's pages of the next @len bytes of @iter, as far as they
 * can be faulted in; @iter moves past them.
 */
static int aifs_dio_get_pages(struct aifs_dio *dio, struct iov_iter *iter,
			      size_t len)
{
	struct page *pages[16];
	unsigned int max, i;
	size_t off, n;
	ssize_t got;

	max = iov_iter_npages_cap(iter, INT_MAX, len);
	dio->bvec = kvcalloc(max, sizeof(*dio->bvec), GFP_KERNEL);
	if (!dio->bvec)
		return -ENOMEM;
	while (dio->len < len && dio->nr_bvec < max) {
		got = iov_iter_get_pages2(iter, pages, len - dio->len,
					  min_t(unsigned int, ARRAY_SIZE(pages),
						max - dio->nr_bvec), &off);
		if (got <= 0) {
			/* what was taken is done; nothing is -EFAULT */
			if (dio->len)
				break;
			return got ?: -EFAULT;
		}
		for (i = 0; got; i++, off = 0) {
			n = min_t(size_t, got, PAGE_SIZE - off);
			bvec_set_page(&dio->bvec[dio->nr_bvec++], pages[i], n,
				      off);
			dio->len += n;
			got -= n;
		}
	}
	return 0;
}

/*
 * The page cache and a direct I/O of [pos, pos + len): dirty pages go to
 * the servers first, so that a read sees them and a later writeback does
 * not overwrite a write; cached pages of a write's range are dropped, as
 * they no longer hold the file's bytes. A page that cannot be dropped (it
 * is dirtied again meanwhile) is left: direct and buffered writes of the
 * same bytes at the same time have no order.
 */
static int aifs_dio_sync_cache(struct inode *inode, loff_t pos, size_t len,
			       bool write)
{
	struct address_space *mapping = inode->i_mapping;
	pgoff_t first = pos >> PAGE_SHIFT, last = (pos + len - 1) >> PAGE_SHIFT;
	int err;

	err = filemap_write_and_wait_range(mapping, pos, pos + len - 1);
	if (!err && write)
		invalidate_inode_pages2_range(mapping, first, last);
	return err;
}

static struct aifs_dio *aifs_dio_alloc(loff_t pos, struct iov_iter *iter,
				       bool write)
{
	struct aifs_dio *dio = kzalloc(sizeof(*dio), GFP_KERNEL);

	if (!dio)
		return NULL;
	kref_init(&dio->ref);
	init_completion(&dio->ended);
	/* the submitter's piece, ended when every piece is queued */
	atomic_set(&dio->pending, 1);
	spin_lock_init(&dio->lock);
	dio->pos = pos;
	dio->write = write;
	dio->dirty = !write && user_backed_iter(iter);
	return dio;
}

/*
 * One batch: up to @len bytes of @iter at @pos. Return: the bytes done,
 * @iter moved past them, or a negative errno.
 */
static ssize_t aifs_dio_batch(struct inode *inode, struct iov_iter *iter,
			      loff_t pos, size_t len, bool write)
{
	struct aifs_dio *dio;
	ssize_t ret;

	dio = aifs_dio_alloc(pos, iter, write);
	if (!dio)
		return -ENOMEM;
	ret = aifs_dio_get_pages(dio, iter, len);
	if (ret) {
		aifs_dio_put(dio);
		return ret;
	}
	dio->done = dio->len;
	/* the I/O's own reference, dropped by its last piece */
	kref_get(&dio->ref);
	ret = write ? aifs_write_direct(inode, dio) :
		      aifs_read_direct(inode, dio);
	/* the submitter's piece; its error: nothing could be queued */
	aifs_dio_end(dio, 0, ret);
	if (wait_for_completion_killable(&dio->ended)) {
		ret = -EINTR;
		goto out;
	}
	ret = dio->done ?: dio->err;
	iov_iter_revert(iter, dio->len - dio->done);
out:
	aifs_dio_put(dio);
	return ret;
}

/* Direct I/O of @count bytes at the kiocb's position, batch by batch. */
static ssize_t aifs_dio_run(struct kiocb *iocb, struct iov_iter *iter,
			    size_t count, bool write)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	size_t done = 0, len;
	ssize_t ret = 0;

	while (done < count) {
		len = min_t(size_t, count - done, AIFS_DIO_BATCH);
		ret = aifs_dio_sync_cache(inode, iocb->ki_pos, len, write);
		if (ret)
			break;
		ret = aifs_dio_batch(inode, iter, iocb->ki_pos, len, write);
		if (ret <= 0)
			break;
		if (write) {
			/* pages a reader brought in meanwhile are stale */
			aifs_dio_sync_cache(inode, iocb->ki_pos, ret, true);
			aifs_inode_written(inode, iocb->ki_pos + ret);
		}
		iocb->ki_pos += ret;
		done += ret;
		if (ret < len)
			break;
	}
	return done ?: ret;
}

/**
 * aifs_direct_read - read_iter of an O_DIRECT file
 * @iocb: the read
 * @to: the caller's buffer
 *
 * Stops at i_size (a short read); holes read as zeros.
 *
 * Return: bytes read, or a negative errno when none were.
 */
ssize_t aifs_direct_read(struct kiocb *iocb, struct iov_iter *to)
{
	loff_t size = i_size_read(file_inode(iocb->ki_filp));
	size_t count = iov_iter_count(to);

	if (!count || iocb->ki_pos >= size)
		return 0;
	if (iocb->ki_flags & IOCB_NOWAIT)
		return -EAGAIN;	/* it always waits for the servers */
	file_accessed(iocb->ki_filp);
	return aifs_dio_run(iocb, to, min_t(loff_t, count, size - iocb->ki_pos),
			    false);
}

/**
 * aifs_direct_write - the O_DIRECT part of write_iter
 * @iocb: the write
 * @from: the caller's data
 * @count: bytes of it generic_write_checks() allowed
 *
 * Under i_rwsem, after the checks, as a buffered write: privileges,
 * mtime; i_size grows past what was written, to be committed by fsync or
 * close.
 *
 * Return: bytes written, or a negative errno when none were.
 */
ssize_t aifs_direct_write(struct kiocb *iocb, struct iov_iter *from,
			  size_t count)
{
	struct file *file = iocb->ki_filp;

	if (iocb->ki_flags & IOCB_NOWAIT)
		return -EAGAIN;
	return file_remove_privs(file) ?: file_update_time(file) ?:
	       aifs_dio_run(iocb, from, count, true);
}
