# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""A sharded checkpoint written by parallel writers, read back and checked.

The state (model, optimizer, and the synthetic tensors that give it the
size of a real job's checkpoint: see state_of()) is split into WRITERS
shards of about equal size. Each shard is one file in the safetensors
format — an 8-byte little-endian header length, a JSON header naming each
tensor's dtype, shape and byte range, then the tensors' raw bytes — so
that a writer sends the tensors' own memory to write(2), with no
serialisation copy (torch.save would pickle and zip them first; under
emulation that costs more than the I/O), and a reader gets tensors that
are views of the bytes it read. An index.json, written after every shard
is fsynced, maps each tensor to its shard, as the sharded checkpoints of
Hugging Face do; the checkpoint is complete once the index exists.

Each writer is a thread (os.write and os.fsync release the GIL, so the
threads' I/O runs in parallel in the kernel): open, write, fsync, close.
The write rate is the shards' bytes over the wall time from the first
open to the last fsync's return; the read rate, the same bytes over the
time from the first open to the last byte read, with the page cache
dropped first, so that every byte comes from the data servers.
"""
import concurrent.futures
import json
import os
import struct
import threading
import time

import numpy as np
import torch

DTYPES = {torch.float32: "F32", torch.float64: "F64", torch.float16: "F16",
          torch.int64: "I64", torch.int32: "I32", torch.uint8: "U8",
          torch.bool: "BOOL"}
NUMPY = {"F32": np.float32, "F64": np.float64, "F16": np.float16,
         "I64": np.int64, "I32": np.int32, "U8": np.uint8, "BOOL": np.bool_}
# a synthetic tensor: 16 MiB of float32, a large layer's weight
SYNTHETIC_SHAPE = (4096, 1024)


def state_of(model, optimizer, synthetic_mib, seed=0):
    """The tensors to save, by name, and the metadata that is not a
    tensor (the optimizer's hyper-parameters). The demo's CNN and its Adam
    state are small; SYNTHETIC_MIB of random float32 tensors stand in for
    the weights of a model of the size checkpoints are written for (they
    are not trained, and the output says so)."""
    state = {"model." + k: v.detach() for k, v in model.state_dict().items()}
    opt = optimizer.state_dict()
    for index, slots in opt["state"].items():
        for slot, value in slots.items():
            state["optimizer.state.%d.%s" % (index, slot)] = \
                torch.as_tensor(value)
    rng = np.random.default_rng(seed)
    per = int(np.prod(SYNTHETIC_SHAPE)) * 4
    for i in range(synthetic_mib * (1 << 20) // per):
        state["synthetic.layer%02d.weight" % i] = torch.from_numpy(
            rng.standard_normal(SYNTHETIC_SHAPE, dtype=np.float32))
    metadata = {"optimizer.param_groups": json.dumps(opt["param_groups"])}
    return state, metadata


def nbytes(t):
    return t.numel() * t.element_size()


def split(state, n):
    """N lists of names of about equal bytes: largest first, each to the
    lightest shard so far."""
    shards = [[] for _ in range(n)]
    load = [0] * n
    for name in sorted(state, key=lambda k: -nbytes(state[k])):
        i = load.index(min(load))
        shards[i].append(name)
        load[i] += nbytes(state[name])
    return [sorted(s) for s in shards]


def raw(t):
    """A tensor's bytes, without a copy."""
    return memoryview(t.contiguous().numpy().reshape(-1).view(np.uint8))


def header_of(state, names, metadata):
    """The safetensors header of a shard of NAMES: length and JSON, the
    JSON padded with spaces to 8 bytes so that the data is aligned."""
    entries, offset = {}, 0
    for name in names:
        t = state[name]
        entries[name] = {"dtype": DTYPES[t.dtype], "shape": list(t.shape),
                         "data_offsets": [offset, offset + nbytes(t)]}
        offset += nbytes(t)
    if metadata:
        entries["__metadata__"] = metadata
    text = json.dumps(entries).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text, offset


def write_all(fd, data):
    """write(2) until all of DATA is written (a write may be short)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def write_shard(path, state, names, metadata, start):
    """One writer: the shard's file, fsynced. Returns its times."""
    header, size = header_of(state, names, metadata)
    start.wait()
    t0 = time.time()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        write_all(fd, header)
        for name in names:
            write_all(fd, raw(state[name]))
        t1 = time.time()
        os.fsync(fd)
        t2 = time.time()
    finally:
        os.close(fd)
    return {"file": os.path.basename(path), "bytes": len(header) + size,
            "tensors": len(names), "open": t0, "written": t1, "synced": t2}


def in_parallel(fn, jobs):
    """FN(*job, barrier) for every job, each in its own thread, all
    released together by the barrier so that none starts early; the
    results in the jobs' order (an exception in one raises here)."""
    start = threading.Barrier(len(jobs))
    with concurrent.futures.ThreadPoolExecutor(len(jobs)) as pool:
        futures = [pool.submit(fn, *job, start) for job in jobs]
        return [f.result() for f in futures]


def save(directory, state, metadata, writers):
    """The checkpoint into DIRECTORY by WRITERS parallel writers; returns
    the bytes of the shards, the wall seconds and each writer's times."""
    os.makedirs(directory, exist_ok=True)
    shards = split(state, writers)
    jobs = [(os.path.join(directory, "shard-%02d-of-%02d.safetensors"
                          % (i, writers)), state, names,
             metadata if i == 0 else None)
            for i, names in enumerate(shards)]
    done = in_parallel(write_shard, jobs)
    total = sum(nbytes(t) for t in state.values())
    index = {"metadata": {"total_size": total},
             "weight_map": {n: d["file"] for d, s in zip(done, shards)
                            for n in s},
             "files": {d["file"]: d["bytes"] for d in done}}
    path = os.path.join(directory, "index.json")
    with open(path, "w") as f:
        json.dump(index, f, indent=1)
        f.flush()
        os.fsync(f.fileno())
    return {"bytes": sum(d["bytes"] for d in done),
            "seconds": max(d["synced"] for d in done)
            - min(d["open"] for d in done),
            "writers": done}


def read_shard(path, size, start):
    """One reader: the whole file into a new buffer of SIZE bytes (not
    zeroed first: that would cost time outside the I/O)."""
    buf = np.empty(size, dtype=np.uint8)
    view = memoryview(buf)
    start.wait()
    t0 = time.time()
    with open(path, "rb", buffering=0) as f:
        got = 0
        while got < size:
            n = f.readinto(view[got:])
            if not n:
                raise ValueError("%s: %d bytes, the index says %d"
                                 % (path, got, size))
            got += n
        if f.read(1):
            raise ValueError("%s: longer than the index says (%d)"
                             % (path, size))
    return {"file": os.path.basename(path), "buf": buf, "open": t0,
            "read": time.time()}


def parse(buf):
    """The tensors of one safetensors shard, views of BUF, and its
    metadata."""
    (length,) = struct.unpack("<Q", buf[:8].tobytes())
    header = json.loads(buf[8:8 + length].tobytes())
    metadata = header.pop("__metadata__", {})
    base = 8 + length
    tensors = {}
    for name, e in header.items():
        b, end = e["data_offsets"]
        array = buf[base + b:base + end].view(NUMPY[e["dtype"]])
        tensors[name] = torch.from_numpy(array.reshape(e["shape"]))
    return tensors, metadata


def load(directory):
    """The checkpoint in DIRECTORY read back, one reader thread per shard;
    returns the tensors, the metadata, the bytes and the wall seconds of
    the reads."""
    with open(os.path.join(directory, "index.json")) as f:
        index = json.load(f)
    files = sorted(index["files"])
    jobs = [(os.path.join(directory, name), index["files"][name])
            for name in files]
    done = in_parallel(read_shard, jobs)
    seconds = max(d["read"] for d in done) - min(d["open"] for d in done)
    tensors, metadata = {}, {}
    for d in done:
        t, m = parse(d["buf"])
        for name in t:
            if index["weight_map"].get(name) != d["file"]:
                raise ValueError("%s in %s, the index says %s" % (
                    name, d["file"], index["weight_map"].get(name)))
        tensors.update(t)
        metadata.update(m)
    return tensors, metadata, {"bytes": sum(index["files"].values()),
                               "seconds": seconds}


def verify(state, metadata, tensors, metadata_read):
    """Every tensor read back equals the one written (torch.equal: same
    dtype, shape and every element), none missing, none extra; returns
    the number checked, raises on a difference."""
    if set(tensors) != set(state):
        raise ValueError("tensors missing: %s, extra: %s" % (
            sorted(set(state) - set(tensors))[:5],
            sorted(set(tensors) - set(state))[:5]))
    for name, t in state.items():
        if t.dtype != tensors[name].dtype or not torch.equal(t, tensors[name]):
            raise ValueError("tensor %s reads back different" % name)
    if metadata_read != metadata:
        raise ValueError("the metadata reads back different")
    return len(state)
