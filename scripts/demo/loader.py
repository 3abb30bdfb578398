# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""The demo's data loader: WebDataset-style tar shards read as a stream.

ShardStream is a torch IterableDataset. Each DataLoader worker takes its
own share of the shards (get_worker_info: shard i goes to worker
i % workers), reads each front to back with tarfile's streaming mode — the
access pattern of WebDataset, which keeps the kernel's readahead busy with
large sequential reads instead of one small read per sample — groups the
members of a sample by their key, decodes the image and takes a random
64 x 64 crop of it (the usual augmentation, and what makes images of
different sizes one batch).

Everything read is checked: every shard's CRC32 against dataset.json as
it streams by, every image's shape, every label's range, every sample
complete. A mismatch raises in the worker, which fails the training.
"""
import io
import json
import os
import random
import tarfile
import zlib

import numpy as np
import torch
from torch.utils.data import IterableDataset, get_worker_info

CROP = 64
SHUFFLE_BUFFER = 64
# read(2)s of 1 MiB, as a loader that streams shards does: tarfile's own
# reads are of 10 KiB
READ_SIZE = 1 << 20


class CrcReader:
    """A file read through once, front to back, keeping the CRC32 of the
    bytes: the check of a shard costs no second read."""

    def __init__(self, f):
        self.f, self.crc, self.size = f, 0, 0

    def read(self, n=-1):
        data = self.f.read(n)
        self.crc = zlib.crc32(data, self.crc)
        self.size += len(data)
        return data

    def drain(self):
        """The rest (the tar's end blocks), so that the CRC covers the
        whole file."""
        while self.read(1 << 20):
            pass


def decode(key, members, classes):
    """One sample's image and label from its tar members."""
    if set(members) != {"npy", "cls"}:
        raise ValueError("sample %s has members %s" % (key, sorted(members)))
    image = np.load(io.BytesIO(members["npy"]), allow_pickle=False)
    label = int(members["cls"])
    if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3 \
            or min(image.shape[:2]) < CROP:
        raise ValueError("sample %s: image %s %s" % (key, image.dtype,
                                                      image.shape))
    if not 0 <= label < classes:
        raise ValueError("sample %s: label %d" % (key, label))
    return image, label


def random_crop(rng, image):
    """A CROP x CROP window at a random place, channels first, as uint8:
    the conversion to float is the trainer's, so that four times fewer
    bytes cross from the workers to the trainer."""
    h, w = image.shape[:2]
    y, x = rng.randrange(h - CROP + 1), rng.randrange(w - CROP + 1)
    crop = image[y:y + CROP, x:x + CROP].transpose(2, 0, 1)
    return torch.from_numpy(np.ascontiguousarray(crop))


def samples_of(path, shard, classes):
    """(key, image, label) of each sample of one shard, in tar order; the
    shard's size and CRC32 are checked once it has been read."""
    with open(path, "rb", buffering=READ_SIZE) as raw:
        f = CrcReader(raw)
        key, members = None, {}
        with tarfile.open(fileobj=f, mode="r|", bufsize=READ_SIZE) as tar:
            for info in tar:
                base, _, ext = info.name.partition(".")
                if key is not None and base != key:
                    yield (key,) + decode(key, members, classes)
                    members = {}
                key = base
                members[ext] = tar.extractfile(info).read()
        if key is not None:
            yield (key,) + decode(key, members, classes)
        f.drain()
    if f.size != shard["bytes"] or f.crc != shard["crc32"]:
        raise ValueError("%s: read %d bytes with CRC32 %08x, written %d"
                         " with %08x" % (path, f.size, f.crc, shard["bytes"],
                                         shard["crc32"]))


class ShardStream(IterableDataset):
    """The samples of the shards listed in DIRECTORY/dataset.json, each
    shard read by one worker, in an order shuffled by SEED."""

    def __init__(self, directory, seed=0):
        super().__init__()
        self.directory, self.seed = directory, seed
        with open(os.path.join(directory, "dataset.json")) as f:
            self.index = json.load(f)

    def __len__(self):
        return self.index["samples"]

    def shards_for(self, worker, workers):
        """The shards worker WORKER of WORKERS reads: the epoch's shuffled
        order, dealt out round-robin."""
        shards = list(self.index["shards"])
        random.Random(self.seed).shuffle(shards)
        return shards[worker::workers]

    def my_shards(self):
        """This worker's shards and random numbers (the main process
        takes all the shards when there are no workers)."""
        info = get_worker_info()
        if info is None:
            return self.shards_for(0, 1), random.Random(self.seed)
        return self.shards_for(info.id, info.num_workers), \
            random.Random(self.seed * 1000 + info.id)

    def __iter__(self):
        shards, rng = self.my_shards()
        buffer = []
        for shard in shards:
            path = os.path.join(self.directory, shard["name"])
            for _, image, label in samples_of(path, shard,
                                              self.index["classes"]):
                buffer.append((random_crop(rng, image), label))
                # a small shuffle buffer, as WebDataset's shuffle(): the
                # samples of a shard do not come out in tar order
                if len(buffer) >= SHUFFLE_BUFFER:
                    yield buffer.pop(rng.randrange(len(buffer)))
        rng.shuffle(buffer)
        yield from buffer
