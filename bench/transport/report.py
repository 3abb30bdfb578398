#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""The table of bench/transport-bench from the fio JSON files and the meta
file that bench/transport/guest.sh left in one results directory:

    bench/transport/report.py build/vm-results/transport-bench
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "common"))
from benchreport import NAMES, load_fio, load_meta, number, print_conditions, ratio, table  # noqa: E402

SYSTEMS = ("aifs-rdma", "aifs-tcp", "nfs-rdma", "nfs-tcp", "tmpfs")
# (numerator, denominator): aifs against NFS on the same transport, what
# RDMA gives aifs, and aifs over RDMA against the local limit
RATIOS = (("aifs-rdma", "nfs-rdma"), ("aifs-tcp", "nfs-tcp"),
          ("aifs-rdma", "aifs-tcp"), ("aifs-rdma", "tmpfs"))


def percentile(r, q):
    return r["clat_ns"]["percentile"]["%f" % q] / 1e3


def rdma_moved(meta, name):
    """What the guest recorded of aifs RDMA's counters over a run."""
    got = meta.get("rdma_%s-aifs-rdma" % name)
    if got is None:
        return "not run"
    return ", ".join(
        "%s %s" % (k, v if v == "n/a" else "%.1f MB" % (int(v) / 1e6))
        for k, v in (kv.split("=") for kv in got.split()))


def main(results):
    meta, peers = load_meta(results, "transport-bench", SYSTEMS)
    size = int(meta["size_mib"])
    quick = meta.get("quick")
    print("    make all && %sbench/transport-bench     # or: make bench "
          "ONLY=transport-bench%s" % ("AIFS_BENCH_QUICK=1 " if quick else "",
                                      " QUICK=1" if quick else ""))
    print()
    print_conditions(results, meta, SYSTEMS)
    print("aifs mounted: %s" % "; ".join(
        "%s: %s" % (NAMES[s], meta.get(s + "_opts", "?"))
        for s in SYSTEMS if s.startswith("aifs")))
    print()

    def row(label, name, ddir, metric, ratios=True):
        got = {s: load_fio(results, "%s-%s" % (name, s), ddir) for s in peers}
        vals = {s: metric(got[s]) if got[s] else None for s in peers}
        return [label] + [number(vals[s]) for s in peers] + [
            ratio(vals.get(a), vals.get(b)) if ratios else ""
            for a, b in RATIOS]

    print("The same work on each system, one system at a time, each from a "
          "cold cache (MB = 10^6 bytes; latency: fio's completion latency; "
          "write: from the first write to the end of the fsync):")
    print()
    table([""] + [NAMES[s] for s in peers] +
          ["%s/%s" % (NAMES[a], NAMES[b]) for a, b in RATIOS], [
        row("sequential 1 MiB reads, MB/s", "seq", "read",
            lambda r: r["bw_bytes"] / 1e6),
        row("sequential 1 MiB writes + fsync, MB/s", "write", "write",
            lambda r: r["bw_bytes"] / 1e6),
        row("4 KiB random reads, IOPS", "rand", "read", lambda r: r["iops"]),
        row("4 KiB random reads, p50 µs", "rand", "read",
            lambda r: percentile(r, 50), False),
        row("4 KiB random reads, p99 µs", "rand", "read",
            lambda r: percentile(r, 99), False),
    ])
    # a rate over part of the file when the time limit came first
    short = []
    for name, ddir in (("seq", "read"), ("write", "write")):
        for s in peers:
            r = load_fio(results, "%s-%s" % (name, s), ddir)
            if r and r["io_bytes"] < size << 20:
                short.append("%s %s %d MiB" % (NAMES[s], name,
                                               r["io_bytes"] >> 20))
    print("One file of %d MiB read, one of %d MiB written%s." % (
        size, size, ", except in the time limit: " + ", ".join(short)
        if short else ""))
    print("What aifs RDMA's own counters (/sys/fs/aifs/aifs-*/stats) moved "
          "by RDMA in its runs: %s." % "; ".join(
              "%s: %s" % (name, rdma_moved(meta, name))
              for name in ("seq", "rand", "write")))


if __name__ == "__main__":
    main(sys.argv[1])
