#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""One checkpoint writer of bench/write/guest.sh, and the check of its file.

    writer.py write PATH MIB           create PATH, write MIB blocks of 1 MiB,
                                       fsync, close; print the times as JSON
    writer.py check PATH MIB SAMPLES   the size, then the first, the last and
                                       SAMPLES random blocks read back

A block is 1 MiB of pseudo-random bytes seeded by the path, with the seed
and the block's index in its first 16 bytes: a block that is stale, from
another place of the file or from another file fails the check. The times
are taken here rather than around the process, so that the start-up of
Python under TCG is not counted, and the writes, the fsync and the close
are told apart (dd's rate would hide where the time goes).
"""
import hashlib
import json
import os
import random
import struct
import sys
import time

BLOCK = 1 << 20
HEAD = 16


def pattern(path):
    seed = int.from_bytes(hashlib.sha256(path.encode()).digest()[:8], "little")
    return seed, memoryview(random.Random(seed).randbytes(BLOCK))[HEAD:]


def head(seed, index):
    return struct.pack("<QQ", seed, index)


def write(path, mib):
    seed, body = pattern(path)
    start = time.time()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    for i in range(mib):
        # one write(2) of 1 MiB, as dd bs=1M, with no copy in Python
        if os.writev(fd, [head(seed, i), body]) != BLOCK:
            sys.exit("%s: short write of block %d" % (path, i))
    written = time.time()
    os.fsync(fd)
    synced = time.time()
    os.close(fd)
    print(json.dumps({"start": start, "written": written, "synced": synced,
                      "closed": time.time(), "bytes": mib * BLOCK}))


def check(path, mib, samples):
    size = os.stat(path).st_size
    if size != mib * BLOCK:
        sys.exit("%s: %d bytes, wrote %d" % (path, size, mib * BLOCK))
    seed, body = pattern(path)
    pick = random.Random(seed + 1)
    blocks = {0, mib - 1} | {pick.randrange(mib) for _ in range(samples)}
    fd = os.open(path, os.O_RDONLY)
    # no readahead: only the blocks checked come over the network
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
    for i in sorted(blocks):
        if os.pread(fd, BLOCK, i * BLOCK) != head(seed, i) + body:
            sys.exit("%s: block %d reads back wrong" % (path, i))
    os.close(fd)


def main(argv):
    if len(argv) == 4 and argv[1] == "write":
        write(argv[2], int(argv[3]))
    elif len(argv) == 5 and argv[1] == "check":
        check(argv[2], int(argv[3]), int(argv[4]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
