#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""The tables of bench/write-bench from the files that bench/write/guest.sh
left in one results directory (NAME.jsonl: one line of times per writer,
NAME.cpu: where the CPU went, meta):

    bench/write/report.py build/vm-results/write-bench
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "common"))
from benchreport import NAMES, load_meta, number, print_conditions, ratio, table  # noqa: E402


def load(results, name):
    """A run's writers, or None if it did not finish."""
    path = os.path.join(results, name + ".jsonl")
    if not os.path.exists(os.path.join(results, name + ".cpu")):
        return None
    with open(path) as f:
        return [json.loads(line) for line in f]


def cpu(results, name):
    with open(os.path.join(results, name + ".cpu")) as f:
        return dict(kv.split("=") for kv in f.read().split())


def rate(nbytes, seconds):
    return nbytes / seconds / 1e6


def wall(writers):
    """From the first writer's open to the last one's close."""
    return (max(w["closed"] for w in writers) -
            min(w["start"] for w in writers))


def main(results):
    meta, peers = load_meta(results, "write-bench")
    print_conditions(results, meta)
    size = int(meta["size_mib"])
    heads = [NAMES[s] for s in peers] + ["aifs/NFS", "aifs/tmpfs"]

    def row(label, metric, name, ratios=True):
        got = {s: load(results, name(s)) for s in peers}
        vals = {s: metric(got[s]) if got[s] else None for s in peers}
        return [label] + [number(vals[s], "%.1f") for s in peers] + (
            [ratio(vals["aifs"], vals.get("nfs")),
             ratio(vals["aifs"], vals.get("tmpfs"))] if ratios else ["", ""])

    one = lambda s: "w1-" + s  # noqa: E731
    print("One writer: sequential 1 MiB writes of a new %d MiB file, "
          "then fsync and close (MB = 10^6 bytes):" % size)
    print()
    table([""] + heads, [
        row("MB/s, open to close", lambda w: rate(w[0]["bytes"], wall(w)), one),
        row("MB/s of the write(2)s", lambda w: rate(
            w[0]["bytes"], w[0]["written"] - w[0]["start"]), one),
        row("s in fsync", lambda w: w[0]["synced"] - w[0]["written"], one,
            False),
        row("s in close", lambda w: w[0]["closed"] - w[0]["synced"], one,
            False),
    ])

    counts = [int(n) for n in meta["writers"].split()]
    print("N writers at once, each a new file of %d MiB / N in 1 MiB "
          "writes, then fsync and close: MB/s from the first open to the "
          "last close (that time in s in the last columns):" % size)
    print()
    rows = []
    for n in counts:
        name = lambda s: "w%d-%s" % (n, s)  # noqa: E731
        r = row(str(n), lambda w: rate(sum(x["bytes"] for x in w), wall(w)),
                name)
        for s in peers:
            got = load(results, name(s))
            r.append(number(wall(got) if got else None, "%.1f"))
        rows.append(r)
    table(["N"] + heads + [NAMES[s] + " s" for s in peers], rows)

    print("Where the time went: the guest's 2 vCPUs over each run, in CPU "
          "seconds (idle includes I/O wait); aifs: the data servers' and "
          "the MDS's CPU, CHUNK_WRITEs sent and MB sent to the data servers:")
    print()
    rows = []
    for n in counts:
        for s in peers:
            name = "w%d-%s" % (n, s)
            got = load(results, name)
            if not got:
                continue
            c = cpu(results, name)
            aifs = s == "aifs"
            rows.append(["%d %s" % (n, NAMES[s]), "%.1f" % wall(got)] +
                        [c[k] for k in ("user", "system", "idle")] +
                        ([c["ds"], c["mds"], c.get("ds_requests", "0"),
                          "%.0f" % (int(c.get("ds_bytes_sent", 0)) / 1e6)]
                         if aifs else ["-"] * 4))
    table(["N, system", "wall s", "user", "system", "idle", "aifs-ds",
           "aifs-mds", "CHUNK_WRITEs", "MB sent"], rows)
    print("(aifs mounted %s; dirty background/ratio %% of guest memory: %s)"
          % (meta.get("aifs_opts", "?"), meta.get("dirty_ratios", "?")))


if __name__ == "__main__":
    main(sys.argv[1])
