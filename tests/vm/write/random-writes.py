#!/usr/bin/env python3
"""Random writes, truncations and fsyncs applied alike to a file on aifs
and to its shadow on a local file system, for the caller to compare.

    random-writes.py SEED OPS MAXSIZE AIFSFILE SHADOW

Both files are opened as they are (create them first, empty or equal).
Half the writes start within 64 KiB of a chunk boundary (4 MiB), so that
they span two chunks and two data servers; their sizes go from one byte
to 3 MiB, page-aligned or not. Writes past the end leave holes, and
truncations shrink and grow the file."""
import os
import random
import sys

CHUNK = 4 << 20


def offset(rnd, maxsize):
    if maxsize > CHUNK and rnd.random() < 0.5:
        boundary = rnd.randrange(CHUNK, maxsize, CHUNK)
        return max(0, boundary + rnd.randint(-65536, 65536))
    return rnd.randrange(maxsize)


def main():
    seed, ops, maxsize = (int(a) for a in sys.argv[1:4])
    rnd = random.Random(seed)
    fds = [os.open(path, os.O_RDWR) for path in sys.argv[4:6]]
    for _ in range(ops):
        kind = rnd.random()
        if kind < 0.8:
            off = offset(rnd, maxsize)
            size = rnd.choice([1, 100, 4095, 4096, 4097, 65536,
                               rnd.randrange(1, 3 << 20)])
            data = rnd.randbytes(max(1, min(size, maxsize - off)))
            for fd in fds:
                assert os.pwrite(fd, data, off) == len(data)
        elif kind < 0.9:
            size = rnd.randrange(maxsize)
            for fd in fds:
                os.ftruncate(fd, size)
        else:
            for fd in fds:
                os.fsync(fd)
    for fd in fds:
        os.close(fd)


main()
