#!/usr/bin/env python3
# Writes through a shared mapping of an aifs file, mirrored into a local
# copy, for 08-mmap.sh:
#
#   mmap-writes.py msync SEED FILE COPY    random stores across the chunk
#       boundaries, msync, print "synced" and wait to be killed
#   mmap-writes.py nosync SEED FILE COPY   random stores, munmap, close; and
#       stores through a private mapping, which the file must not take
#   mmap-writes.py cut FILE COPY           dirty pages on both sides of a
#       chunk boundary, a truncation while they are mapped (SIGBUS past
#       EOF, zeros past it in the page across EOF), a store past EOF, an
#       extension (the store is not the file's)
import mmap
import os
import random
import signal
import sys
import time

CHUNK = 4 << 20
PAGE = mmap.PAGESIZE


def fail(what):
    sys.exit("mmap-writes: " + what)


def stores(seed, m, copy):
    """Random stores, and one across each chunk boundary of the file."""
    rng = random.Random(seed)
    size = len(copy)
    spots = [(b - rng.randrange(1, 3 * PAGE), rng.randrange(2 * PAGE, 9 * PAGE))
             for b in range(CHUNK, size, CHUNK)]
    for _ in range(40):
        off = rng.randrange(size)
        spots.append((off, rng.randrange(1, 70000)))
    for off, n in spots:
        n = min(n, size - off)
        data = rng.randbytes(n)
        m[off:off + n] = data
        copy[off:off + n] = data


def save(path, copy):
    with open(path, "wb") as f:
        f.write(copy)


def mapped(path):
    fd = os.open(path, os.O_RDWR)
    size = os.fstat(fd).st_size
    return fd, mmap.mmap(fd, size, mmap.MAP_SHARED), size


def msync(seed, path, copy_path):
    fd, m, size = mapped(path)
    copy = bytearray(open(copy_path, "rb").read())
    stores(seed, m, copy)
    m.flush()               # msync(MS_SYNC)
    save(copy_path, copy)
    print("synced", flush=True)
    time.sleep(600)


def nosync(seed, path, copy_path):
    fd, m, size = mapped(path)
    copy = bytearray(open(copy_path, "rb").read())
    stores(seed, m, copy)
    m.close()
    os.close(fd)
    save(copy_path, copy)
    # a private mapping's stores are its own
    fd = os.open(path, os.O_RDONLY)
    p = mmap.mmap(fd, size, mmap.MAP_PRIVATE, mmap.PROT_READ | mmap.PROT_WRITE)
    p[0:PAGE] = bytes(PAGE)
    p[CHUNK - 10:CHUNK + 10] = b"\xff" * 20
    p.close()
    os.close(fd)
    if open(path, "rb").read() != copy:
        fail("the stores of a private mapping reached the file")


def sigbus_at(m, off):
    """Whether reading m[off] kills a child with SIGBUS."""
    pid = os.fork()
    if not pid:
        m[off]
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    return os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGBUS


def cut(path, copy_path):
    fd, m, size = mapped(path)
    copy = bytearray(open(copy_path, "rb").read())
    start, end = CHUNK - 2 * PAGE, size
    data = random.Random(5).randbytes(end - start)
    m[start:end] = data
    copy[start:end] = data
    new = CHUNK + PAGE + 1000
    os.ftruncate(fd, new)
    del copy[new:]
    if not sigbus_at(m, CHUNK + 2 * PAGE):
        fail("a page past the new EOF is still mapped")
    if m[new:CHUNK + 2 * PAGE] != bytes(CHUNK + 2 * PAGE - new):
        fail("the page across the new EOF kept bytes past it")
    # not the file's: gone when the file grows again
    m[new + 100:new + 200] = b"\xff" * 100
    os.ftruncate(fd, size)
    copy += bytes(size - new)
    if os.pread(fd, size, 0) != copy:
        fail("read after the extension differs")
    if m[:size] != copy:
        fail("the mapping after the extension differs")
    m.close()
    os.close(fd)
    save(copy_path, copy)


def main():
    mode = sys.argv[1]
    if mode == "cut":
        cut(sys.argv[2], sys.argv[3])
    elif mode in ("msync", "nosync"):
        globals()[mode](int(sys.argv[2]), sys.argv[3], sys.argv[4])
    else:
        fail("unknown mode " + mode)


if __name__ == "__main__":
    main()
