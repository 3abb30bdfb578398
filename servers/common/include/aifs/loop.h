/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A small event loop in the manner of Valkey's ae.h, over epoll: callbacks
 * on file descriptor readiness and on timers, all run by the one thread
 * that calls aifs_loop_run().  Nothing here is thread-safe; other threads
 * wake the loop through a descriptor it watches (an eventfd).
 */
#ifndef AIFS_LOOP_H
#define AIFS_LOOP_H

#include <stdint.h>

#define AIFS_EV_READ	0x1U
#define AIFS_EV_WRITE	0x2U

struct aifs_loop;

/*
 * @events: what is ready, within what was asked for; an error or hang-up
 * shows as readable and writable, so that the next I/O call reports it.
 */
typedef void aifs_fd_fn(struct aifs_loop *loop, int fd, unsigned int events,
			void *data);

/* Returns the milliseconds until it runs again, or AIFS_TIMER_DONE. */
typedef int64_t aifs_timer_fn(struct aifs_loop *loop, void *data);
#define AIFS_TIMER_DONE	(-1)

int aifs_loop_create(struct aifs_loop **loopp);

/* Frees the loop and its timers; watched descriptors stay open. */
void aifs_loop_destroy(struct aifs_loop *loop);

/* Watch @fd for @events (possibly none yet) with @fn. */
int aifs_loop_watch(struct aifs_loop *loop, int fd, unsigned int events,
		    aifs_fd_fn *fn, void *data);

/* Change what a watched @fd is watched for. */
int aifs_loop_modify(struct aifs_loop *loop, int fd, unsigned int events);

/* Stop watching @fd; call it before closing @fd. */
void aifs_loop_unwatch(struct aifs_loop *loop, int fd);

/*
 * Events that are ready on @fd though epoll cannot see them (a transport
 * holding received bytes): @fd's callback gets them on every turn of the
 * loop, as far as they are watched, until they are set to 0.
 */
void aifs_loop_set_ready(struct aifs_loop *loop, int fd, unsigned int events);

/* Run @fn in @ms milliseconds (of aifs_now_ms(), libaifs's clock). */
int aifs_loop_timer(struct aifs_loop *loop, int64_t ms, aifs_timer_fn *fn,
		    void *data);

/* Run until aifs_loop_stop(); returns 0 or the epoll error that ended it. */
int aifs_loop_run(struct aifs_loop *loop);

/* Return from aifs_loop_run() once the current callback is done. */
void aifs_loop_stop(struct aifs_loop *loop);

#endif /* AIFS_LOOP_H */
