// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Whole frames over a stream (stream.c), each bounded by a deadline.
 */
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include "internal.h"

/* A request's iovecs plus the header in front. */
#define FRAME_MAX_IOV	16

u64 aifs_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void aifs_time_after_ms(clockid_t clock, u64 ms, struct timespec *ts)
{
	clock_gettime(clock, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

int aifs_ms_left(s64 deadline)
{
	s64 left;

	if (deadline < 0)
		return -1;
	left = deadline - (s64)aifs_now_ms();
	if (left <= 0)
		return 0;
	return left > INT_MAX ? INT_MAX : left;
}

int aifs_fd_wait(int fd, short events, s64 deadline)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	int n;

	do {
		n = poll(&pfd, 1, aifs_ms_left(deadline));
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n ? 0 : -ETIMEDOUT;
}

static void iov_advance(struct iovec **iov, int *iovcnt, size_t n)
{
	while (*iovcnt && n >= (*iov)->iov_len) {
		n -= (*iov)->iov_len;
		(*iov)++;
		(*iovcnt)--;
	}
	if (*iovcnt) {
		(*iov)->iov_base = (u8 *)(*iov)->iov_base + n;
		(*iov)->iov_len -= n;
	}
}

static int frame_send_all(struct aifs_stream *s, struct iovec *iov,
			  int iovcnt, s64 deadline, bool *partial)
{
	ssize_t n;
	int err;

	while (iovcnt) {
		n = aifs_stream_sendv(s, iov, iovcnt);
		if (n > 0) {
			*partial = true;
			iov_advance(&iov, &iovcnt, n);
			continue;
		}
		if (n != -EAGAIN)
			return n;
		err = aifs_stream_wait(s, true, deadline);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Send one frame: @hdr, initialised by the caller, gets payload_len, the
 * payload CRC and its seal here.  *@partial tells whether any byte left,
 * i.e. whether a failure has torn the stream.
 */
int aifs_frame_send(struct aifs_stream *s, struct aifs_frame_hdr *hdr, const struct iovec *iov,
		    int iovcnt, s64 deadline, bool *partial)
{
	struct iovec all[FRAME_MAX_IOV + 1];
	u32 crc = ~0U;
	size_t len = 0;
	int i;

	*partial = false;
	if (iovcnt < 0 || iovcnt > FRAME_MAX_IOV)
		return -EINVAL;
	all[0].iov_base = hdr;
	all[0].iov_len = sizeof(*hdr);
	for (i = 0; i < iovcnt; i++) {
		len += iov[i].iov_len;
		if (len > AIFS_MAX_PAYLOAD)
			return -EMSGSIZE;
		crc = crc32c(crc, iov[i].iov_base, iov[i].iov_len);
		all[i + 1] = iov[i];
	}
	hdr->payload_len = cpu_to_le32(len);
	if (len) {
		hdr->flags |= cpu_to_le32(AIFS_FLAG_PAYLOAD_CRC);
		hdr->payload_crc = cpu_to_le32(~crc);
	}
	aifs_frame_hdr_seal(hdr);
	return frame_send_all(s, all, iovcnt + 1, deadline, partial);
}

static int frame_recv_all(struct aifs_stream *s, void *buf, size_t len,
			  s64 deadline)
{
	u8 *p = buf;
	ssize_t n;
	int err;

	while (len) {
		n = aifs_stream_recv(s, p, len);
		if (n > 0) {
			p += n;
			len -= n;
			continue;
		}
		if (n == 0)
			return -ECONNRESET;
		if (n != -EAGAIN)
			return n;
		err = aifs_stream_wait(s, false, deadline);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Receive one frame; the payload (NULL when empty) is the caller's to free.
 * Nothing is allocated before the header has been checked.
 */
int aifs_frame_recv(struct aifs_stream *s, struct aifs_frame_hdr *hdr,
		    void **payload, s64 deadline)
{
	u32 len;
	void *buf = NULL;
	int err;

	err = frame_recv_all(s, hdr, sizeof(*hdr), deadline);
	if (err)
		return err;
	err = aifs_frame_hdr_check(hdr, AIFS_MAX_PAYLOAD);
	if (err)
		return err;
	len = le32_to_cpu(hdr->payload_len);
	if (len) {
		buf = malloc(len);
		if (!buf)
			return -ENOMEM;
		err = frame_recv_all(s, buf, len, deadline);
		if (!err)
			err = aifs_frame_payload_check(hdr, buf);
		if (err) {
			free(buf);
			return err;
		}
	}
	*payload = buf;
	return 0;
}
