// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The shared secret every node of a cluster holds (as BeeGFS's connection
 * auth file): any readable file, conventionally /etc/aifs/secret, mode 0600
 * or 0640.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "aifs/libaifs.h"

static int secret_fail(int err, char *why, size_t why_len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int secret_fail(int err, char *why, size_t why_len, const char *fmt, ...)
{
	va_list ap;

	if (why) {
		va_start(ap, fmt);
		vsnprintf(why, why_len, fmt, ap);
		va_end(ap);
	}
	return err;
}

/* Read at most sizeof(secret->key) + 2 bytes: enough to see "too long". */
static ssize_t secret_read(int fd, u8 *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = read(fd, buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		got += n;
	}
	return got;
}

int aifs_secret_load(struct aifs_secret *secret, const char *path,
		     char *why, size_t why_len)
{
	u8 buf[AIFS_SECRET_MAX + 2];
	struct stat st;
	ssize_t len;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return secret_fail(-errno, why, why_len, "secret file %s: %m",
				   path);
	if (fstat(fd, &st) < 0) {
		err = secret_fail(-errno, why, why_len, "secret file %s: %m",
				  path);
		goto out_close;
	}
	if (st.st_mode & S_IROTH) {
		err = secret_fail(-EPERM, why, why_len,
				  "secret file %s is readable by others: chmod o-r it",
				  path);
		goto out_close;
	}
	len = secret_read(fd, buf, sizeof(buf));
	if (len < 0) {
		err = secret_fail(len, why, why_len, "secret file %s: %s",
				  path, strerror(-len));
		goto out_wipe;
	}
	if (len > 0 && buf[len - 1] == '\n')
		len--;
	if (len < AIFS_SECRET_MIN || len > AIFS_SECRET_MAX) {
		err = secret_fail(-EINVAL, why, why_len,
				  "secret file %s must hold %d to %d bytes, not %s%zd",
				  path, AIFS_SECRET_MIN, AIFS_SECRET_MAX,
				  len > AIFS_SECRET_MAX ? "more than " : "",
				  len > AIFS_SECRET_MAX ? AIFS_SECRET_MAX : len);
		goto out_wipe;
	}
	memcpy(secret->key, buf, len);
	secret->len = len;
	err = 0;
out_wipe:
	OPENSSL_cleanse(buf, sizeof(buf));
out_close:
	close(fd);
	return err;
}

void aifs_secret_wipe(struct aifs_secret *secret)
{
	OPENSSL_cleanse(secret, sizeof(*secret));
}
