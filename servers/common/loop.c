// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The event loop (see aifs/loop.h): epoll, level-triggered, with watches
 * kept in a table indexed by descriptor as Valkey's ae does, so that a
 * callback that unwatches another descriptor makes that descriptor's
 * pending events in the same batch harmless.  The few timers a server
 * needs live in an unsorted list.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "aifs/libaifs.h"
#include "aifs/loop.h"

#define LOOP_BATCH	64

struct loop_watch {
	aifs_fd_fn *fn;			/* NULL: not watched */
	void *data;
	unsigned int events;		/* 0: watched, but out of epoll */
	unsigned int ready;		/* aifs_loop_set_ready()'s */
};

struct loop_timer {
	struct loop_timer *next;
	uint64_t when;
	aifs_timer_fn *fn;
	void *data;
};

struct aifs_loop {
	int epfd;
	struct loop_watch *watches;
	int nr_watches;			/* size of the table */
	struct loop_timer *timers;
	int nr_ready;			/* watches with ready bits set */
	bool stop;
};

int aifs_loop_create(struct aifs_loop **loopp)
{
	struct aifs_loop *loop;

	loop = calloc(1, sizeof(*loop));
	if (!loop)
		return -ENOMEM;
	loop->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (loop->epfd < 0) {
		free(loop);
		return -errno;
	}
	*loopp = loop;
	return 0;
}

void aifs_loop_destroy(struct aifs_loop *loop)
{
	struct loop_timer *t;

	while ((t = loop->timers)) {
		loop->timers = t->next;
		free(t);
	}
	close(loop->epfd);
	free(loop->watches);
	free(loop);
}

static int loop_grow(struct aifs_loop *loop, int fd)
{
	struct loop_watch *w;
	int n = loop->nr_watches ? loop->nr_watches : 64;

	while (n <= fd)
		n *= 2;
	w = realloc(loop->watches, n * sizeof(*w));
	if (!w)
		return -ENOMEM;
	memset(w + loop->nr_watches, 0, (n - loop->nr_watches) * sizeof(*w));
	loop->watches = w;
	loop->nr_watches = n;
	return 0;
}

/* Move @fd's epoll registration from @old to @events. */
static int loop_epoll(struct aifs_loop *loop, int fd, unsigned int old,
		      unsigned int events)
{
	struct epoll_event ev = { .data.fd = fd };
	int op;

	/*
	 * A descriptor asked for nothing leaves epoll altogether: epoll
	 * reports errors and hang-ups whatever one asks for, and a paused
	 * connection that hung up would otherwise spin the loop.
	 */
	if (!old && !events)
		return 0;
	if (!events)
		op = EPOLL_CTL_DEL;
	else
		op = old ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
	if (events & AIFS_EV_READ)
		ev.events |= EPOLLIN;
	if (events & AIFS_EV_WRITE)
		ev.events |= EPOLLOUT;
	return epoll_ctl(loop->epfd, op, fd, &ev) < 0 ? -errno : 0;
}

int aifs_loop_watch(struct aifs_loop *loop, int fd, unsigned int events,
		    aifs_fd_fn *fn, void *data)
{
	int err;

	if (fd >= loop->nr_watches) {
		err = loop_grow(loop, fd);
		if (err)
			return err;
	}
	err = loop_epoll(loop, fd, 0, events);
	if (err)
		return err;
	loop->watches[fd] = (struct loop_watch){ fn, data, events, 0 };
	return 0;
}

int aifs_loop_modify(struct aifs_loop *loop, int fd, unsigned int events)
{
	struct loop_watch *w = &loop->watches[fd];
	int err;

	if (w->events == events)
		return 0;
	err = loop_epoll(loop, fd, w->events, events);
	if (!err)
		w->events = events;
	return err;
}

void aifs_loop_unwatch(struct aifs_loop *loop, int fd)
{
	struct loop_watch *w = &loop->watches[fd];

	aifs_loop_set_ready(loop, fd, 0);
	loop_epoll(loop, fd, w->events, 0);
	*w = (struct loop_watch){ 0 };
}

void aifs_loop_set_ready(struct aifs_loop *loop, int fd, unsigned int events)
{
	struct loop_watch *w = &loop->watches[fd];

	loop->nr_ready += !w->ready - !events;
	w->ready = events;
}

int aifs_loop_timer(struct aifs_loop *loop, int64_t ms, aifs_timer_fn *fn,
		    void *data)
{
	struct loop_timer *t;

	t = malloc(sizeof(*t));
	if (!t)
		return -ENOMEM;
	*t = (struct loop_timer){ loop->timers, aifs_now_ms() + ms, fn, data };
	loop->timers = t;
	return 0;
}

/* epoll_wait's timeout: none with events ready, the earliest timer, or forever. */
static int loop_timeout(const struct aifs_loop *loop)
{
	uint64_t now = aifs_now_ms(), first = UINT64_MAX;
	const struct loop_timer *t;

	if (loop->nr_ready)
		return 0;
	for (t = loop->timers; t; t = t->next)
		if (t->when < first)
			first = t->when;
	if (first == UINT64_MAX)
		return -1;
	return first <= now ? 0 : (int)(first - now);
}

static void loop_run_timers(struct aifs_loop *loop)
{
	struct loop_timer **pp = &loop->timers, *due = NULL, *t;
	uint64_t now = aifs_now_ms();
	int64_t again;

	/* Take the due ones out first: callbacks may add timers. */
	while ((t = *pp)) {
		if (t->when > now) {
			pp = &t->next;
			continue;
		}
		*pp = t->next;
		t->next = due;
		due = t;
	}
	while ((t = due)) {
		due = t->next;
		again = t->fn(loop, t->data);
		if (again == AIFS_TIMER_DONE) {
			free(t);
			continue;
		}
		t->when = aifs_now_ms() + again;
		t->next = loop->timers;
		loop->timers = t;
	}
}

static void loop_fire(struct aifs_loop *loop, const struct epoll_event *ev)
{
	unsigned int ready = 0;
	struct loop_watch *w;
	int fd = ev->data.fd;

	if (fd >= loop->nr_watches)
		return;
	w = &loop->watches[fd];
	if (ev->events & (EPOLLIN | EPOLLERR | EPOLLHUP))
		ready |= AIFS_EV_READ;
	if (ev->events & (EPOLLOUT | EPOLLERR | EPOLLHUP))
		ready |= AIFS_EV_WRITE;
	ready &= w->events;
	if (ready && w->fn)
		w->fn(loop, fd, ready, w->data);
}

/* Events set ready by their owners, as if epoll had reported them. */
static void loop_fire_ready(struct aifs_loop *loop)
{
	unsigned int ready;
	struct loop_watch *w;
	int fd, left = loop->nr_ready;

	for (fd = 0; left && fd < loop->nr_watches && !loop->stop; fd++) {
		w = &loop->watches[fd];
		if (!w->ready)
			continue;
		left--;
		ready = w->ready & w->events;
		if (ready && w->fn)
			w->fn(loop, fd, ready, w->data);
	}
}

int aifs_loop_run(struct aifs_loop *loop)
{
	struct epoll_event events[LOOP_BATCH];
	int i, n;

	loop->stop = false;
	while (!loop->stop) {
		n = epoll_wait(loop->epfd, events, LOOP_BATCH,
			       loop_timeout(loop));
		if (n < 0 && errno != EINTR)
			return -errno;
		for (i = 0; i < n && !loop->stop; i++)
			loop_fire(loop, &events[i]);
		loop_fire_ready(loop);
		if (!loop->stop)
			loop_run_timers(loop);
	}
	return 0;
}

void aifs_loop_stop(struct aifs_loop *loop)
{
	loop->stop = true;
}
