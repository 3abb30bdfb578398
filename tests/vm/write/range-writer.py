#!/usr/bin/env python3
"""One writer of a parallel checkpoint: writes its range of a source file
into the same range of a shared file, then fsyncs and closes it.

    range-writer.py SOURCE FILE START END [GO]

The shared file is opened with O_CREAT and without O_TRUNC, as every
writer of a checkpoint does, in pieces of 192 KiB + 1 byte so that the
writes straddle pages. With GO, the writer prints "written" after its
writes and waits for the file GO to exist before fsync: the caller picks
the order in which the writers' sizes reach the MDS."""
import os
import sys
import time

PIECE = (192 << 10) + 1


def main():
    source, path = sys.argv[1:3]
    start, end = int(sys.argv[3]), int(sys.argv[4])
    with open(source, "rb") as f:
        f.seek(start)
        data = f.read(end - start)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    for off in range(0, len(data), PIECE):
        os.pwrite(fd, data[off:off + PIECE], start + off)
    if len(sys.argv) > 5:
        print("written", flush=True)
        while not os.path.exists(sys.argv[5]):
            time.sleep(0.05)
    os.fsync(fd)
    os.close(fd)


main()
