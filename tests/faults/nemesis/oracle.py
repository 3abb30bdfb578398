#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""The acknowledged-writes oracle of tests/faults/nemesis (issue 29).

A writer owns some files and, for a given time, writes self-describing
4 KiB blocks to them (each names its file, its block and the write that
made it, and the rest of it follows from those), rewrites them,
truncates them and creates them again with O_TRUNC, as checkpoints are;
now and then it reads a range back with O_DIRECT and checks it.  A write
is acknowledged once the fsync after it returned 0.  The model keeps, per
block, the last acknowledged write (0: zeros) and the writes tried on it
since (failed, or not yet known): a read may return any of those, never
zeros where an acknowledged write is, never a block of another file or
place.  The model and every operation go to a history file (JSON lines),
which `check` reads back at the end to check every block of every file.

  oracle.py run --seed S --seconds T --history H FILE...
  oracle.py check --history H
"""

import argparse
import errno
import hashlib
import json
import mmap
import os
import random
import struct
import sys
import time

BLOCK = 4096
MAX_BLOCKS = 2048  # files of up to 8 MiB: several chunks each
MAGIC = b"AIFSNEM1"
HEAD = struct.Struct("<8sIIQ")  # magic, file, block, write id


def block_bytes(file_id, block, wid):
    """The 4 KiB that write @wid puts at @block of file @file_id."""
    head = HEAD.pack(MAGIC, file_id, block, wid)
    seed = hashlib.sha256(head).digest()
    body = (seed * (BLOCK // len(seed) + 1))[: BLOCK - len(head)]
    return head + body


def block_says(data):
    """(file, block, write id) of a block read, 0 for zeros, None if garbage."""
    if data == bytes(len(data)):
        return 0
    if len(data) != BLOCK or not data.startswith(MAGIC):
        return None
    _, file_id, block, wid = HEAD.unpack_from(data)
    if data != block_bytes(file_id, block, wid):
        return None
    return (file_id, block, wid)


class Model:
    """What each block of a file may hold: acked write id, and tried ones."""

    def __init__(self, file_id, path):
        self.file_id = file_id
        self.path = path
        self.acked = {}   # block -> write id (absent: zeros)
        self.tried = {}   # block -> set of write ids (0: a cut) since acked

    def may_hold(self, block):
        return {self.acked.get(block, 0)} | self.tried.get(block, set())

    def try_write(self, first, n, wid):
        for b in range(first, first + n):
            self.tried.setdefault(b, set()).add(wid)

    def ack_write(self, first, n, wid):
        for b in range(first, first + n):
            self.acked[b] = wid
            self.tried.pop(b, None)

    def try_cut(self, blocks):
        for b in set(self.acked) | set(self.tried):
            if b >= blocks:
                self.tried.setdefault(b, set()).add(0)

    def ack_cut(self, blocks):
        for b in list(self.acked):
            if b >= blocks:
                del self.acked[b]
        for b in list(self.tried):
            if b >= blocks:
                del self.tried[b]

    def blocks(self):
        return set(self.acked) | set(self.tried)


def aligned_read(path, first, n):
    """@n blocks from @first of @path with O_DIRECT (past the end: zeros)."""
    buf = mmap.mmap(-1, n * BLOCK)
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    try:
        got = os.preadv(fd, [buf], first * BLOCK)
    finally:
        os.close(fd)
    data = bytes(buf[:got]) + bytes(n * BLOCK - got)
    buf.close()
    return data


def check_blocks(model, first, data, what):
    """Problems of @data read at block @first of @model's file."""
    bad = []
    for i in range(len(data) // BLOCK):
        b = first + i
        said = block_says(data[i * BLOCK:(i + 1) * BLOCK])
        may = model.may_hold(b)
        if said is None:
            bad.append(f"{what}: {model.path} block {b}: garbage, may hold {sorted(may)}")
        elif said == 0:
            if 0 not in may:
                bad.append(f"{what}: {model.path} block {b}: zeros, acknowledged write {model.acked.get(b)} lost (may hold {sorted(may)})")
        elif said[0] != model.file_id or said[1] != b:
            bad.append(f"{what}: {model.path} block {b}: holds block {said[1]} of file {said[0]} (write {said[2]})")
        elif said[2] not in may:
            bad.append(f"{what}: {model.path} block {b}: write {said[2]}, may hold {sorted(may)}")
    return bad


class Writer:
    def __init__(self, seed, paths, history):
        self.rng = random.Random(seed)
        self.models = [Model(seed * 100 + i + 1, p) for i, p in enumerate(paths)]
        self.history = history
        self.wid = seed * 10_000_000
        self.bad = []
        for m in self.models:
            fd = os.open(m.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.fsync(fd)
            os.close(fd)

    def log(self, **rec):
        rec["t"] = round(time.time(), 3)
        self.history.write(json.dumps(rec) + "\n")
        self.history.flush()

    def fsynced(self, fd):
        try:
            os.fsync(fd)
            return None
        except OSError as e:
            return e.errno

    def write(self, m):
        self.wid += 1
        first = self.rng.randrange(MAX_BLOCKS)
        n = min(self.rng.choice([1, 1, 2, 4, 16, 64]), MAX_BLOCKS - first)
        data = b"".join(block_bytes(m.file_id, b, self.wid)
                        for b in range(first, first + n))
        m.try_write(first, n, self.wid)
        err = None
        try:
            fd = os.open(m.path, os.O_WRONLY)
        except OSError as e:
            err = e.errno
        else:
            try:
                os.pwrite(fd, data, first * BLOCK)
                err = self.fsynced(fd)
            except OSError as e:
                err = e.errno
            os.close(fd)
        if err is None:
            m.ack_write(first, n, self.wid)
        self.log(op="write", file=m.path, first=first, n=n, wid=self.wid,
                 err=errno.errorcode.get(err) if err else None)

    def cut(self, m, recreate):
        blocks = 0 if recreate else self.rng.randrange(MAX_BLOCKS)
        m.try_cut(blocks)
        err = None
        try:
            if recreate:
                fd = os.open(m.path, os.O_WRONLY | os.O_TRUNC)
            else:
                os.truncate(m.path, blocks * BLOCK)
                fd = os.open(m.path, os.O_WRONLY)
            err = self.fsynced(fd)
            os.close(fd)
        except OSError as e:
            err = e.errno
        if err is None:
            m.ack_cut(blocks)
        self.log(op="recreate" if recreate else "truncate", file=m.path,
                 blocks=blocks,
                 err=errno.errorcode.get(err) if err else None)

    def read(self, m):
        first = self.rng.randrange(MAX_BLOCKS)
        n = min(64, MAX_BLOCKS - first)
        try:
            data = aligned_read(m.path, first, n)
        except OSError as e:
            self.log(op="read", file=m.path, first=first, n=n,
                     err=errno.errorcode.get(e.errno))
            return
        bad = check_blocks(m, first, data, "read during the run")
        self.bad += bad
        self.log(op="read", file=m.path, first=first, n=n, bad=bad)

    def run(self, seconds):
        end = time.time() + seconds
        while time.time() < end and not self.bad:
            m = self.rng.choice(self.models)
            r = self.rng.random()
            if r < 0.70:
                self.write(m)
            elif r < 0.78:
                self.cut(m, recreate=False)
            elif r < 0.82:
                self.cut(m, recreate=True)
            else:
                self.read(m)
        for m in self.models:
            self.log(op="model", file=m.path, file_id=m.file_id,
                     acked={str(b): w for b, w in m.acked.items()},
                     tried={str(b): sorted(w) for b, w in m.tried.items()})
        return self.bad


def load_models(history):
    models = []
    with open(history) as f:
        for line in f:
            rec = json.loads(line)
            if rec.get("op") != "model":
                continue
            m = Model(rec["file_id"], rec["file"])
            m.acked = {int(b): w for b, w in rec["acked"].items()}
            m.tried = {int(b): set(w) for b, w in rec["tried"].items()}
            models.append(m)
    return models


def check(history, what):
    """Every block of every file against the model: the problems."""
    models = load_models(history)
    if not models:
        return [f"{history}: no model (the writer did not finish)"]
    bad = []
    for m in models:
        size = os.stat(m.path).st_size
        blocks = max(m.blocks() | {0}) + 1
        blocks = max(blocks, (size + BLOCK - 1) // BLOCK)
        data = aligned_read(m.path, 0, blocks)
        bad += check_blocks(m, 0, data, what)
    return bad


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--seed", type=int, required=True)
    r.add_argument("--seconds", type=float, required=True)
    r.add_argument("--history", required=True)
    r.add_argument("files", nargs="+")
    c = sub.add_parser("check")
    c.add_argument("--history", required=True)
    c.add_argument("--what", default="after the run")
    a = p.parse_args()
    if a.cmd == "run":
        with open(a.history, "w") as h:
            bad = Writer(a.seed, a.files, h).run(a.seconds)
    else:
        bad = check(a.history, a.what)
    for line in bad[:20]:
        print("FAIL:", line)
    if len(bad) > 20:
        print(f"FAIL: ... and {len(bad) - 20} more")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
