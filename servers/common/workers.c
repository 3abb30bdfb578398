// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The worker threads that run blocking handlers (disk, LMDB).  Jobs come in
 * from the loop thread and go back to it through the done list, with an
 * eventfd to wake it.  The queue needs no bound of its own: a connection
 * stops being read at max_inflight requests in flight, so it never holds
 * more than max_connections * max_inflight jobs.
 */
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "internal.h"

static void workers_signal_done(struct aifs_workers *w)
{
	u64 one = 1;

	/* Only fails if the counter would overflow: it is then set anyway. */
	if (write(w->efd, &one, sizeof(one)) < 0)
		return;
}

static void *worker_main(void *arg)
{
	struct aifs_workers *w = arg;
	struct aifs_job *job;
	bool was_empty;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (aifs_list_empty(&w->todo) && !w->exiting)
			pthread_cond_wait(&w->wake, &w->lock);
		/* Exit only once the queue is empty: every job is answered. */
		if (aifs_list_empty(&w->todo))
			break;
		job = aifs_list_first(&w->todo, struct aifs_job, link);
		aifs_list_del(&job->link);
		w->queued--;
		w->busy++;
		pthread_mutex_unlock(&w->lock);

		aifs_fail_pause(AIFS_FAIL_REQUEST_DELAY, job->req.opcode);
		job->ret = job->fn(&job->req);

		pthread_mutex_lock(&w->lock);
		w->busy--;
		was_empty = aifs_list_empty(&w->done);
		aifs_list_add_tail(&job->link, &w->done);
		if (was_empty)
			workers_signal_done(w);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

int aifs_workers_start(struct aifs_workers *w, int nr_threads)
{
	int err;

	aifs_list_init(&w->todo);
	aifs_list_init(&w->done);
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->wake, NULL);
	w->started = true;
	w->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (w->efd < 0)
		return -errno;
	w->threads = calloc(nr_threads, sizeof(*w->threads));
	if (!w->threads)
		return -ENOMEM;
	for (; w->nr_threads < nr_threads; w->nr_threads++) {
		err = pthread_create(&w->threads[w->nr_threads], NULL,
				     worker_main, w);
		if (err)
			return -err;
	}
	return 0;
}

void aifs_workers_submit(struct aifs_workers *w, struct aifs_job *job)
{
	pthread_mutex_lock(&w->lock);
	aifs_list_add_tail(&job->link, &w->todo);
	w->queued++;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
}

void aifs_workers_load(struct aifs_workers *w, unsigned int *queued,
		       unsigned int *busy)
{
	*queued = 0;
	*busy = 0;
	if (!w->started)
		return;
	pthread_mutex_lock(&w->lock);
	*queued = w->queued;
	*busy = w->busy;
	pthread_mutex_unlock(&w->lock);
}

/* Move the finished jobs to @jobs.  Loop thread, on @w->efd readable. */
void aifs_workers_take_done(struct aifs_workers *w, struct aifs_list *jobs)
{
	u64 count;

	/* Clear the wake-up first: a job done after this sets it again. */
	if (read(w->efd, &count, sizeof(count)) < 0 && errno != EAGAIN)
		return;
	pthread_mutex_lock(&w->lock);
	aifs_list_splice_tail(&w->done, jobs);
	pthread_mutex_unlock(&w->lock);
}

/*
 * Let the threads finish every queued job, join them and hand the jobs
 * still to be collected to @leftover.  Copes with a half-started pool.
 */
void aifs_workers_stop(struct aifs_workers *w, struct aifs_list *leftover)
{
	int i;

	if (!w->started)
		return;
	pthread_mutex_lock(&w->lock);
	w->exiting = true;
	pthread_cond_broadcast(&w->wake);
	pthread_mutex_unlock(&w->lock);
	for (i = 0; i < w->nr_threads; i++)
		pthread_join(w->threads[i], NULL);
	aifs_list_splice_tail(&w->done, leftover);
	free(w->threads);
	if (w->efd >= 0)
		close(w->efd);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
	w->started = false;
}
