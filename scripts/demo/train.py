#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""The demo's training job: one epoch of a small CNN on the tar shards,
then a checkpoint written, read back and checked, all through the mount.

    train.py --data DIR --ckpt DIR --sysfs /sys/fs/aifs/aifs-N --results FILE

Each step is timed in two parts, as MLPerf Storage does: the wait for
the next batch from the DataLoader (data wait), and the forward pass,
backward pass and optimizer step (compute). Accelerator utilisation is
the total compute time over the epoch's wall time (from the start of the
DataLoader's iteration, its workers' start-up included, to the last
step's end): the share of the time the accelerator — here the CPU the
trainer runs on — would have been busy rather than waiting for data.
The numbers go to FILE as JSON for the demo's summary.
"""
import argparse
import json
import sys
import time

from common import die, drop_caches, log, mib, mount_stats, phase, stats_delta

# PyTorch takes tens of seconds to import under emulation: say so first.
_import_start = time.time()
log("importing PyTorch")
import torch  # noqa: E402
from torch import nn  # noqa: E402
from torch.utils.data import DataLoader  # noqa: E402

import checkpoint  # noqa: E402
from loader import ShardStream  # noqa: E402

CLASSES = 10


def arguments(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", required=True, help="the shards' directory")
    p.add_argument("--ckpt", required=True, help="the checkpoint's directory")
    p.add_argument("--sysfs", required=True,
                   help="the mount's /sys/fs/aifs/aifs-N directory")
    p.add_argument("--results", required=True, help="JSON file to write")
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--workers", type=int, default=2,
                   help="DataLoader worker processes")
    p.add_argument("--threads", type=int, default=1,
                   help="torch threads of the trainer")
    p.add_argument("--progress", type=int, default=8,
                   help="a progress line every this many steps")
    p.add_argument("--ckpt-writers", type=int, default=4)
    p.add_argument("--ckpt-mib", type=int, default=256,
                   help="MiB of synthetic tensors in the checkpoint")
    return p.parse_args(argv)


def small_cnn():
    """Three strided convolutions and a linear layer, 24,234 parameters:
    small enough that a step of 32 images takes about 1.7 s of one CPU
    under emulation, so that an epoch of a few thousand samples fits the
    demo's few minutes."""
    return nn.Sequential(
        nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, CLASSES))


class Meter:
    """The epoch's per-step times and what the steps learnt."""

    def __init__(self):
        self.wait, self.compute, self.loss, self.correct, self.size = \
            [], [], [], [], []

    def add(self, wait, compute, loss, correct, size):
        self.wait.append(wait)
        self.compute.append(compute)
        self.loss.append(loss)
        self.correct.append(correct)
        self.size.append(size)

    def samples(self):
        return sum(self.size)

    def accuracy(self, last):
        """Share of the samples of the LAST steps classified right."""
        return sum(self.correct[-last:]) / max(1, sum(self.size[-last:]))

    def mean_loss(self, steps):
        return sum(self.loss[steps]) / max(1, len(self.loss[steps]))


def step(model, optimizer, images, labels):
    """One training step: the batch to float (the accelerator's side of
    the input pipeline), forward, loss, backward, optimizer step."""
    x = images.float().div_(255)
    logits = model(x)
    loss = nn.functional.cross_entropy(logits, labels)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    return loss.item(), int((logits.argmax(1) == labels).sum())


def progress(meter, steps, start, now):
    """The line shown every few steps: throughput and the split of the
    time so far."""
    wall = now - start
    log("  step %3d/%d  %5d samples  %5.1f samples/s  data wait %4.1f%%"
        "  accelerator utilisation %5.1f%%  loss %.3f"
        % (len(meter.wait), steps, meter.samples(), meter.samples() / wall,
           100 * sum(meter.wait) / wall, 100 * sum(meter.compute) / wall,
           meter.mean_loss(slice(-8, None))))


def expected_steps(dataset, batch, workers):
    """The epoch's steps: each worker makes batches of its own shards'
    samples, its last batch short."""
    n = max(1, workers)
    return sum(-(-sum(s["samples"] for s in dataset.shards_for(w, n)) // batch)
               for w in range(n))


def train_epoch(args, model, optimizer, dataset):
    """One pass over the data set; returns the Meter and the wall time."""
    loader = DataLoader(dataset, batch_size=args.batch,
                        num_workers=args.workers)
    steps = expected_steps(dataset, args.batch, args.workers)
    meter = Meter()
    start = time.perf_counter()
    batches = iter(loader)
    while True:
        t0 = time.perf_counter()
        try:
            images, labels = next(batches)
        except StopIteration:
            break
        t1 = time.perf_counter()
        loss, correct = step(model, optimizer, images, labels)
        t2 = time.perf_counter()
        meter.add(t1 - t0, t2 - t1, loss, correct, len(labels))
        if len(meter.wait) % args.progress == 0:
            progress(meter, steps, start, t2)
    return meter, time.perf_counter() - start


def report_epoch(args, meter, wall, moved, dataset):
    """The epoch's numbers, logged and returned for the summary."""
    if meter.samples() != len(dataset):
        die("the epoch saw %d samples, the data set has %d"
            % (meter.samples(), len(dataset)))
    steps = len(meter.wait)
    r = {"samples": meter.samples(), "steps": steps, "epoch_s": wall,
         "samples_per_s": meter.samples() / wall,
         "data_wait_s": sum(meter.wait), "compute_s": sum(meter.compute),
         "accelerator_utilisation": sum(meter.compute) / wall,
         "first_wait_s": meter.wait[0],
         "loss_first": meter.mean_loss(slice(0, 8)),
         "loss_last": meter.mean_loss(slice(-8, None)),
         "accuracy_last": meter.accuracy(8),
         "read_from_servers": moved["chunk_read_bytes"],
         "read_by_rdma": moved["rdma_read_bytes"]}
    log("epoch done: %d samples in %d steps of %d, %.1f s: %.1f samples/s"
        % (r["samples"], steps, args.batch, wall, r["samples_per_s"]))
    log("  per step: data wait %.3f s, compute %.3f s (mean); the first"
        " batch waited %.1f s (workers starting, first shards opening)"
        % (r["data_wait_s"] / steps, r["compute_s"] / steps,
           r["first_wait_s"]))
    log("  accelerator utilisation %.1f%% (compute %.1f s of %.1f s)"
        % (100 * r["accelerator_utilisation"], r["compute_s"], wall))
    log("  loss %.3f over the first 8 steps, %.3f over the last 8;"
        " accuracy %.0f%% on the last 8 batches (chance: %.0f%%)"
        % (r["loss_first"], r["loss_last"], 100 * r["accuracy_last"],
           100 / CLASSES))
    log("  read from the data servers meanwhile: %.1f MiB, %.1f MiB of it"
        " placed by RDMA WRITE; every shard's CRC32 matched"
        % (mib(r["read_from_servers"]), mib(r["read_by_rdma"])))
    return r


def describe_state(state):
    """What the checkpoint holds, by part: the output must not pass the
    synthetic tensors off as a trained model."""
    parts = {}
    for name, t in state.items():
        part = name.split(".")[0]
        n, b = parts.get(part, (0, 0))
        parts[part] = (n + 1, b + checkpoint.nbytes(t))
    return ", ".join("%s %d tensors %.2f MiB" % (p, n, mib(b))
                     for p, (n, b) in parts.items())


def do_checkpoint(args, model, optimizer, sysfs):
    """Write the checkpoint, drop the page cache, read it back, check it;
    returns its numbers."""
    phase("4/5 checkpoint: %d parallel writers, then read back and checked"
          % args.ckpt_writers)
    start = time.time()
    state, metadata = checkpoint.state_of(model, optimizer, args.ckpt_mib)
    log("checkpoint state made in %.1f s: %s" % (time.time() - start,
                                                describe_state(state)))
    log("  (the model and Adam's state are this CNN's; the synthetic"
        " tensors are random, standing in for a larger model's weights)")
    before = mount_stats(sysfs)
    w = checkpoint.save(args.ckpt, state, metadata, args.ckpt_writers)
    moved = stats_delta(before, mount_stats(sysfs), "chunk_write_bytes",
                        "rdma_write_bytes")
    log("checkpoint written: %.1f MiB in %d shards by %d parallel writers"
        " (each open, write, fsync, close) in %.2f s = %.3f GB/s"
        % (mib(w["bytes"]), len(w["writers"]), args.ckpt_writers,
           w["seconds"], w["bytes"] / w["seconds"] / 1e9))
    for d in w["writers"]:
        log("    %s: %.1f MiB, %d tensors, write %.2f s, fsync %.2f s"
            % (d["file"], mib(d["bytes"]), d["tensors"],
               d["written"] - d["open"], d["synced"] - d["written"]))
    log("  sent to the data servers: %.1f MiB, %.1f MiB of it fetched by"
        " the servers' RDMA READs" % (mib(moved["chunk_write_bytes"]),
                                      mib(moved["rdma_write_bytes"])))
    drop_caches()
    log("page cache dropped; reading the checkpoint back")
    before = mount_stats(sysfs)
    tensors, metadata_read, r = checkpoint.load(args.ckpt)
    moved = stats_delta(before, mount_stats(sysfs), "chunk_read_bytes",
                        "rdma_read_bytes")
    log("checkpoint read back: %.1f MiB by %d parallel readers in %.2f s"
        " = %.3f GB/s (%.1f MiB from the data servers, %.1f MiB by RDMA)"
        % (mib(r["bytes"]), len(w["writers"]), r["seconds"],
           r["bytes"] / r["seconds"] / 1e9, mib(moved["chunk_read_bytes"]),
           mib(moved["rdma_read_bytes"])))
    start = time.time()
    n = checkpoint.verify(state, metadata, tensors, metadata_read)
    log("checkpoint verified: all %d tensors torch.equal to what was"
        " written, and the optimizer's hyper-parameters (%.1f s)"
        % (n, time.time() - start))
    return {"ckpt_bytes": w["bytes"], "ckpt_write_s": w["seconds"],
            "ckpt_write_gbs": w["bytes"] / w["seconds"] / 1e9,
            "ckpt_read_s": r["seconds"],
            "ckpt_read_gbs": r["bytes"] / r["seconds"] / 1e9,
            "ckpt_tensors": n, "ckpt_writers": args.ckpt_writers}


def main(argv):
    args = arguments(argv)
    log("PyTorch %s imported in %.1f s; %d trainer thread(s), %d loader"
        " workers, batch %d" % (torch.__version__, time.time() - _import_start,
                                args.threads, args.workers, args.batch))
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    model = small_cnn()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    dataset = ShardStream(args.data, seed=0)
    log("model: small CNN, %d parameters; data: %d samples in %d shards"
        % (sum(p.numel() for p in model.parameters()), len(dataset),
           len(dataset.index["shards"])))
    phase("3/5 training: one epoch, read through a %d-worker DataLoader"
          % args.workers)
    drop_caches()
    log("page cache dropped: the epoch reads the shards from the servers")
    before = mount_stats(args.sysfs)
    meter, wall = train_epoch(args, model, optimizer, dataset)
    moved = stats_delta(before, mount_stats(args.sysfs), "chunk_read_bytes",
                        "rdma_read_bytes")
    results = report_epoch(args, meter, wall, moved, dataset)
    results.update(do_checkpoint(args, model, optimizer, args.sysfs))
    with open(args.results, "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except (ValueError, OSError) as e:
        die("%s: %s" % (type(e).__name__, e))
