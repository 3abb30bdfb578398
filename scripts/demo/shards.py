#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Write the demo's training set: WebDataset-style tar shards.

    shards.py DIR SAMPLES SHARDS WRITERS

Each sample is two tar members that share a key, as WebDataset has it:
`000123.npy`, an image of H x W x 3 bytes (H and W from 96 to 192, so
27 to 108 KiB, 62 KiB on average: the order of an ImageNet JPEG, whose
mean MLPerf Storage puts at 112 KiB) saved by numpy.save, and
`000123.cls`, its class (0-9) as text. The image is noise tinted with a
colour of its class, so that a small network can learn the classes in
one epoch: a falling loss shows that the data read back is the data
written.

WRITERS processes each write whole shards straight into DIR (on the aifs
mount), each shard fsynced before it is closed, so that the time counts
the servers' work and not only the page cache's. DIR/dataset.json lists
the shards with their sample counts, sizes and CRC32, which the loader
checks every shard it reads against.
"""
import io
import json
import multiprocessing
import os
import sys
import tarfile
import time
import zlib

import numpy as np

from common import die, log, mib

CLASSES = 10
MIN_SIDE, MAX_SIDE = 96, 192


def palette():
    """A colour (RGB) for each class, far enough apart to be learnt."""
    rng = np.random.default_rng(1234)
    return rng.integers(0, 256, size=(CLASSES, 3), dtype=np.uint8)


def make_sample(rng, colours):
    """One image and its class: half noise, half the class's colour."""
    label = int(rng.integers(CLASSES))
    side = rng.integers(MIN_SIDE, MAX_SIDE + 1, size=2)
    noise = rng.integers(0, 256, size=(side[0], side[1], 3), dtype=np.uint8)
    image = (noise >> 1) + (colours[label] >> 1)
    return image, label


def add_member(tar, name, data):
    """One file of a sample into the tar stream."""
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mtime = 0
    info.mode = 0o644
    tar.addfile(info, io.BytesIO(data))


class CrcWriter:
    """A file that keeps the CRC32 of what went through it: the shard's
    checksum without reading it back."""

    def __init__(self, f):
        self.f, self.crc, self.size = f, 0, 0

    def write(self, data):
        self.crc = zlib.crc32(data, self.crc)
        self.size += len(data)
        return self.f.write(data)

    def tell(self):
        return self.size


def write_shard(job):
    """Shard INDEX with samples FIRST.. (COUNT of them) into PATH; returns
    what dataset.json records of it and the seconds it took."""
    path, index, first, count = job
    rng = np.random.default_rng(index)
    colours = palette()
    start = time.time()
    with open(path, "wb", buffering=1 << 20) as f:
        out = CrcWriter(f)
        with tarfile.open(fileobj=out, mode="w",
                          format=tarfile.USTAR_FORMAT) as tar:
            for key in range(first, first + count):
                image, label = make_sample(rng, colours)
                buf = io.BytesIO()
                np.save(buf, image, allow_pickle=False)
                add_member(tar, "%06d.npy" % key, buf.getvalue())
                add_member(tar, "%06d.cls" % key, b"%d" % label)
        f.flush()
        flushed = time.time()
        os.fsync(f.fileno())
    return {"name": os.path.basename(path), "samples": count,
            "bytes": out.size, "crc32": out.crc,
            "seconds": time.time() - start,
            "fsync_seconds": time.time() - flushed}


def plan(directory, samples, shards):
    """The shards' paths and sample ranges: SAMPLES spread evenly."""
    jobs, first = [], 0
    for i in range(shards):
        count = samples // shards + (1 if i < samples % shards else 0)
        jobs.append((os.path.join(directory, "train-%04d.tar" % i), i,
                     first, count))
        first += count
    return jobs


def write_index(directory, shards):
    """dataset.json, written last and fsynced: a reader that finds it
    finds every shard it names complete."""
    path = os.path.join(directory, "dataset.json")
    with open(path, "w") as f:
        json.dump({"classes": CLASSES,
                   "samples": sum(s["samples"] for s in shards),
                   "shards": shards}, f, indent=1)
        f.flush()
        os.fsync(f.fileno())


def main(argv):
    if len(argv) != 5:
        sys.exit(__doc__)
    directory = argv[1]
    samples, nshards, writers = (int(a) for a in argv[2:])
    if not 0 < nshards <= samples:
        die("need 1 to SAMPLES shards")
    os.makedirs(directory, exist_ok=True)
    log("dataset: %d samples in %d tar shards, %d writer processes -> %s"
        % (samples, nshards, writers, directory))
    start = time.time()
    done = []
    with multiprocessing.Pool(writers) as pool:
        for shard in pool.imap_unordered(write_shard,
                                         plan(directory, samples, nshards)):
            done.append(shard)
            log("  %s: %d samples, %.1f MiB, %.1f s (fsync %.1f s)"
                % (shard["name"], shard["samples"], mib(shard["bytes"]),
                   shard["seconds"], shard["fsync_seconds"]))
    done.sort(key=lambda s: s["name"])
    write_index(directory, done)
    seconds = time.time() - start
    total = sum(s["bytes"] for s in done)
    log("dataset written: %.1f MiB in %.1f s = %.1f MiB/s through the mount"
        " (samples made, tarred, written and fsynced); %.1f KiB a sample"
        % (mib(total), seconds, mib(total) / seconds,
           total / samples / 1024))


if __name__ == "__main__":
    main(sys.argv)
