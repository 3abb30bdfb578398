// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * aifs-put - put a local file into an aifs file system through libaifs,
 * as tests do until the kernel client can write:
 *
 *   aifs-put -s SECRETFILE -m MDSHOST:PORT -u FSUUID [-r REPLICAS] SRC DEST
 *
 * DESTPATH is walked with LOOKUP from the root (its directories must
 * exist) and created (an existing file is refused); with -r the new file's
 * layout is set to REPLICAS copies in one stripe group. Every chunk of SRC that is not all
 * zeros goes to its primary data server (CHUNK_WRITE, with the rest of
 * its group as replicas, address from MAP_GET); all-zero chunks are left
 * out (holes). CLOSE then commits the size. FSUUID (which the data servers
 * check in every chunk id) is the one aifs-mds --format printed: libaifs
 * does not expose the one of the handshake.
 *
 *   aifs-put -s SECRETFILE -m MDSHOST:PORT -M
 *
 * prints the number of data servers the cluster map has UP instead.
 *
 *   aifs-put -s SECRETFILE -m MDSHOST:PORT -u FSUUID [-r REPLICAS] -b
 *
 * puts every "SRC DESTPATH" line of standard input (no spaces in either)
 * over the same connections and prints how many: one process per file
 * would pay a connection and a handshake per file, which for the ten
 * thousand files of bench/read-bench is most of the time under TCG.
 *
 *   aifs-put -s SECRETFILE -m MDSHOST:PORT -u FSUUID -g PATH
 *
 * gets instead: writes the bytes of the file at PATH to standard output,
 * its size from the MDS and every chunk from its primary (CHUNK_READ),
 * holes as zeros: what the servers hold, without the kernel client.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <aifs/libaifs.h>

#define PUT_MAX_DS	64

struct put {
	struct aifs_secret secret;
	struct aifs_conn *mds;
	struct aifs_cred cred;
	struct aifs_ds_info ds[PUT_MAX_DS];
	struct aifs_conn *ds_conn[PUT_MAX_DS];
	int nr_ds;
	u8 fs_uuid[16];
	char *buf;		/* one chunk, kept across the files of -b */
	u32 buf_size;
};

static void die(const char *what, int err)
{
	fprintf(stderr, "aifs-put: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

static struct aifs_conn *put_connect(struct put *p, const char *host,
				     const char *port)
{
	struct aifs_connect_opts o = {
		.host = host, .port = port, .secret = &p->secret,
		.role = AIFS_ROLE_CLIENT,
	};
	struct aifs_conn *conn;
	int err;

	err = aifs_connect(&o, &conn);
	if (err)
		die(host, err);
	return conn;
}

static void put_map(struct put *p)
{
	struct aifs_map_rep rep;
	int err;

	err = aifs_map_get(p->mds, 0, &rep, p->ds, PUT_MAX_DS);
	if (err)
		die("MAP_GET", err);
	p->nr_ds = le32_to_cpu(rep.count);
}

static int put_print_up(struct put *p)
{
	int i, up = 0;

	put_map(p);
	for (i = 0; i < p->nr_ds; i++)
		up += le32_to_cpu(p->ds[i].state) == AIFS_DS_UP;
	printf("%d\n", up);
	return 0;
}

static int put_ds_index(struct put *p, u32 id)
{
	int i;

	for (i = 0; i < p->nr_ds && le32_to_cpu(p->ds[i].id) != id; i++)
		;
	return i;
}

/* The connection to data server @id, opened on first use. */
static struct aifs_conn *put_ds(struct put *p, u32 id)
{
	char host[INET6_ADDRSTRLEN], port[8];
	const struct aifs_addr *a;
	int i;

	i = put_ds_index(p, id);
	if (i == p->nr_ds) {
		/* a server that joined since: the map again, from scratch */
		for (i = 0; i < p->nr_ds; i++)
			if (p->ds_conn[i])
				aifs_close(p->ds_conn[i]);
		memset(p->ds_conn, 0, sizeof(p->ds_conn));
		put_map(p);
		i = put_ds_index(p, id);
	}
	if (i == p->nr_ds) {
		fprintf(stderr, "aifs-put: data server %u of a layout is not "
			"in the map of %d\n", id, p->nr_ds);
		exit(1);
	}
	if (p->ds_conn[i])
		return p->ds_conn[i];
	a = &p->ds[i].addr;
	aifs_wire_addr_host(a, host, sizeof(host), port, sizeof(port));
	p->ds_conn[i] = put_connect(p, host, port);
	return p->ds_conn[i];
}

/* The directory holding @path's last component; @name gets that. */
static u64 put_walk(struct put *p, char *path, char **name)
{
	struct aifs_entry_rep e;
	u64 dir = AIFS_ROOT_INO;
	char *s, *comp;
	int err;

	for (s = path; *s == '/'; s++)
		;
	while ((comp = strsep(&s, "/"))) {
		if (!*comp)
			continue;
		if (!s || !*s) {
			*name = comp;
			return dir;
		}
		err = aifs_lookup(p->mds, &p->cred, dir, comp, &e);
		if (err)
			die(comp, err);
		dir = le64_to_cpu(e.attr.ino);
	}
	die("empty destination path", EINVAL);
	return 0;
}

static bool all_zero(const char *buf, size_t len)
{
	return !len || (!buf[0] && !memcmp(buf, buf + 1, len - 1));
}

/* The first entry of chunk @index's group in @l->targets, and its width. */
static u32 put_group(const struct aifs_layout *l, u32 index, u32 *width)
{
	u32 stripes = le16_to_cpu(l->stripe_count);

	*width = stripes ? le16_to_cpu(l->target_count) / stripes : 0;
	return stripes ? index % stripes * *width : 0;
}

/* Chunk @index (@len bytes at @buf) to its primary, retried on EAGAIN. */
static void put_chunk(struct put *p, const struct aifs_layout *l, u64 ino,
		      u32 index, const char *buf, u32 len)
{
	u32 width, g = put_group(l, index, &width), r, done, n;
	struct aifs_chunk_id id = { .ino = cpu_to_le64(ino),
				    .index = cpu_to_le32(index) };
	struct aifs_chunk_write w = { .chunk_size = le32_to_cpu(l->chunk_size),
				      .flags = AIFS_IO_SYNC };
	struct aifs_chunk_rep rep;
	int err, tries;

	/* the MDS leaves a file without targets while no data server is up */
	if (!width)
		die("no data server to place the file on", -ENOSPC);
	memcpy(id.fs_uuid, p->fs_uuid, sizeof(id.fs_uuid));
	for (r = 1; r < width; r++)
		w.replicas[r - 1] = le32_to_cpu(l->targets[g + r]);
	w.nr_replicas = width - 1;
	for (done = 0; done < len; done += n) {
		n = len - done < AIFS_MAX_IO ? len - done : AIFS_MAX_IO;
		w.offset = done;
		tries = 0;
		do {
			if (tries)
				usleep(50000);
			err = aifs_chunk_write(put_ds(p,
					le32_to_cpu(l->targets[g])), &id, &w,
					buf + done, n, &rep);
		} while (err == -EAGAIN && ++tries < 100);
		if (err)
			die("CHUNK_WRITE", err);
	}
}

static u64 put_create(struct put *p, char *dest, struct aifs_layout *l,
		      u64 *handle, int replicas)
{
	struct aifs_create_rep rep;
	struct aifs_layout want;
	char *name;
	u64 dir, ino;
	int err;

	dir = put_walk(p, dest, &name);
	err = aifs_create(p->mds, &p->cred, dir, name, 0644, 022,
			  AIFS_OPEN_RDWR | AIFS_OPEN_EXCL, &rep);
	if (err)
		die(name, err);
	ino = le64_to_cpu(rep.open.attr.ino);
	*handle = le64_to_cpu(rep.open.handle);
	*l = rep.open.layout;
	if (replicas) {
		want = *l;
		want.replicas = replicas;
		want.stripe_count = cpu_to_le16(1);
		want.target_count = 0;
		memset(want.targets, 0, sizeof(want.targets));
		err = aifs_layout_set(p->mds, &p->cred, ino, &want, l);
		if (err)
			die("LAYOUT_SET", err);
	}
	return ino;
}

/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" into @p->fs_uuid. */
static void put_uuid(struct put *p, const char *text)
{
	unsigned int i, byte;

	for (i = 0; i < 16; i++) {
		if (*text == '-')
			text++;
		if (sscanf(text, "%2x", &byte) != 1)
			die("bad file system uuid", EINVAL);
		p->fs_uuid[i] = byte;
		text += 2;
	}
}

/* Room for a chunk of @chunk bytes at @p->buf. */
static void put_buf(struct put *p, u32 chunk)
{
	if (chunk <= p->buf_size)
		return;
	free(p->buf);
	p->buf = malloc(chunk);
	if (!p->buf)
		die("malloc", ENOMEM);
	p->buf_size = chunk;
}

/* Put the file @src at @dest; returns its inode number. */
static u64 put_file(struct put *p, const char *src, char *dest, int replicas)
{
	struct aifs_layout l;
	struct timespec now;
	struct aifs_attr attr;
	u64 ino, handle, size = 0;
	u32 chunk, index;
	ssize_t n = 0;
	int fd, err;

	fd = open(src, O_RDONLY);
	if (fd < 0)
		die(src, errno);
	ino = put_create(p, dest, &l, &handle, replicas);
	chunk = le32_to_cpu(l.chunk_size);
	put_buf(p, chunk);
	for (index = 0;; index++) {
		size_t got = 0;

		while (got < chunk &&
		       (n = read(fd, p->buf + got, chunk - got)) > 0)
			got += n;
		if (n < 0 && got < chunk)
			die(src, errno);
		if (!got)
			break;
		if (!all_zero(p->buf, got))
			put_chunk(p, &l, ino, index, p->buf, got);
		size += got;
		if (got < chunk)
			break;
	}
	close(fd);
	clock_gettime(CLOCK_REALTIME, &now);
	err = aifs_release(p->mds, &p->cred, ino, handle, size, &now, &attr);
	if (err)
		die("CLOSE", err);
	return ino;
}

/* @len bytes of chunk @index from its primary into @buf; holes are zeros. */
static void get_chunk(struct put *p, const struct aifs_layout *l, u64 ino,
		      u32 index, char *buf, u32 len)
{
	struct aifs_chunk_id id = { .ino = cpu_to_le64(ino),
				    .index = cpu_to_le32(index) };
	u32 width, g = put_group(l, index, &width);
	struct aifs_chunk_read_rep rep;
	int ret;

	memset(buf, 0, len);
	/* no targets: nothing was ever written */
	if (!width)
		return;
	memcpy(id.fs_uuid, p->fs_uuid, sizeof(id.fs_uuid));
	ret = aifs_chunk_read(put_ds(p, le32_to_cpu(l->targets[g])), &id, 0,
			      0, buf, len, &rep);
	if (ret < 0 && ret != -ENOENT)
		die("CHUNK_READ", ret);
}

/* The bytes of the file at @path to standard output. */
static int get_file(struct put *p, char *path)
{
	struct aifs_entry_rep e;
	struct aifs_layout l;
	u64 dir, ino, size, off;
	u32 chunk, n;
	char *name;
	int err;

	dir = put_walk(p, path, &name);
	err = aifs_lookup(p->mds, &p->cred, dir, name, &e);
	if (err)
		die(name, err);
	ino = le64_to_cpu(e.attr.ino);
	size = le64_to_cpu(e.attr.size);
	err = aifs_layout_get(p->mds, &p->cred, ino, &l);
	if (err)
		die("LAYOUT_GET", err);
	chunk = le32_to_cpu(l.chunk_size);
	put_buf(p, chunk);
	for (off = 0; off < size; off += n) {
		n = size - off < chunk ? size - off : chunk;
		get_chunk(p, &l, ino, off / chunk, p->buf, n);
		if (fwrite(p->buf, 1, n, stdout) != n)
			die("standard output", errno);
	}
	return fflush(stdout) ? 1 : 0;
}

/* Every "SRC DESTPATH" line of standard input; prints how many. */
static int put_batch(struct put *p, int replicas)
{
	char line[2 * 4096], src[4096], dest[4096];
	unsigned long count = 0;

	while (fgets(line, sizeof(line), stdin)) {
		if (sscanf(line, "%4095s %4095s", src, dest) != 2)
			die("batch line is not SRC DESTPATH", EINVAL);
		put_file(p, src, dest, replicas);
		count++;
	}
	printf("%lu\n", count);
	return 0;
}

int main(int argc, char **argv)
{
	static struct put p;
	const char *secret = NULL, *mds = NULL, *uuid = NULL;
	char why[256], host[256], *port;
	int opt, replicas = 0, map_only = 0, batch = 0, get = 0;

	while ((opt = getopt(argc, argv, "s:m:u:r:Mbg")) != -1) {
		if (opt == 's')
			secret = optarg;
		else if (opt == 'm')
			mds = optarg;
		else if (opt == 'u')
			uuid = optarg;
		else if (opt == 'M')
			map_only = 1;
		else if (opt == 'b')
			batch = 1;
		else if (opt == 'g')
			get = 1;
		else if (opt == 'r')
			replicas = atoi(optarg);
		else
			return 2;
	}
	if (!secret || !mds ||
	    (!map_only && (!uuid ||
			   argc - optind != (batch ? 0 : get ? 1 : 2)))) {
		fprintf(stderr, "usage: aifs-put -s SECRETFILE -m MDSHOST:PORT "
			"-u FSUUID [-r REPLICAS] SRC DESTPATH | -b | -g PATH\n");
		return 2;
	}
	if (aifs_secret_load(&p.secret, secret, why, sizeof(why))) {
		fprintf(stderr, "aifs-put: %s\n", why);
		return 1;
	}
	snprintf(host, sizeof(host), "%s", mds);
	port = strrchr(host, ':');
	if (!port)
		die(mds, EINVAL);
	*port++ = 0;
	p.mds = put_connect(&p, host, port);
	if (map_only)
		return put_print_up(&p);
	if (aifs_cred_self(&p.cred))
		die("credentials", EINVAL);
	put_uuid(&p, uuid);
	put_map(&p);
	if (batch)
		return put_batch(&p, replicas);
	if (get)
		return get_file(&p, argv[optind]);
	printf("%llu\n", (unsigned long long)put_file(&p, argv[optind],
						      argv[optind + 1], replicas));
	return 0;
}
