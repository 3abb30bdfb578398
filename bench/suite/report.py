#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""The report of bench/suite-bench from what bench/suite/guest.sh left in
one results directory: a Markdown section on stdout, and on request the
figures as JSON, a PNG plot, and the section written into a document
between its markers.

    bench/suite/report.py RESULTS [--json FILE] [--plot FILE.png]
                          [--update Documentation/performance.md]
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "common"))
from benchreport import NAMES, load_fio, load_meta, number, print_conditions, table  # noqa: E402

SYSTEMS = ("aifs-rdma", "aifs-tcp", "nfs-rdma", "nfs-tcp", "tmpfs")
PEERS = ("nfs-rdma", "nfs-tcp")
AIFS = ("aifs-rdma", "aifs-tcp")
BEGIN = "<!-- suite-bench begin: written by bench/suite-bench -->"
END = "<!-- suite-bench end -->"


def load_json(results, name):
    """A tool's JSON output, or None if the run did not happen."""
    path = os.path.join(results, name + ".json")
    if not os.path.exists(path) or not os.path.getsize(path):
        return None
    with open(path) as f:
        return json.load(f)


def phase_rate(results, name, phase, key="files_per_s"):
    got = load_json(results, name)
    if not got or phase not in got["phases"]:
        return None
    return got["phases"][phase][key]


def percentile(results, name, q):
    r = load_fio(results, name)
    return r["clat_ns"]["percentile"]["%f" % q] / 1e3 if r else None


def fio_mb(results, name, ddir):
    r = load_fio(results, name, ddir)
    return r["bw_bytes"] / 1e6 if r else None


def checkpoint_gbps(results, name):
    """Bytes of all writers over the time from the first one's start to
    the last one's fsync: what a training job waits for."""
    path = os.path.join(results, name + ".jsonl")
    if not os.path.exists(path):
        return None
    runs = [json.loads(line) for line in open(path) if line.strip()]
    if not runs:
        return None
    start = min(r["start"] for r in runs)
    synced = max(r["synced"] for r in runs)
    return sum(r["bytes"] for r in runs) / (synced - start) / 1e9


def loader_best(results, sys_name):
    """The loader's largest number of accelerators kept at the minimum
    utilisation, and the trial that kept them (the first if none did)."""
    got = load_json(results, "loader-" + sys_name)
    if not got or not got["trials"]:
        return None, None
    kept = [t for t in got["trials"] if t["au"] >= got["min_au"]]
    return got["max_accelerators"], (kept[-1] if kept else got["trials"][0])


# key, label, unit, better, how to get it for one system
def figures(results, meta):
    n = meta["ckpt_writers"]
    return [
        ("seq_read", "sequential 1 MiB reads", "MB/s", "higher",
         lambda s: fio_mb(results, "seq-" + s, "read")),
        ("seq_write", "sequential 1 MiB writes + fsync", "MB/s", "higher",
         lambda s: fio_mb(results, "write-" + s, "write")),
        ("rand_iops", "4 KiB random reads", "IOPS", "higher",
         lambda s: (load_fio(results, "rand-" + s) or {}).get("iops")),
        ("rand_p95", "4 KiB random reads, p95", "µs", "lower",
         lambda s: percentile(results, "rand-" + s, 95)),
        ("rand_p99", "4 KiB random reads, p99", "µs", "lower",
         lambda s: percentile(results, "rand-" + s, 99)),
        ("md_create", "create, %s clients" % meta["md_clients"], "files/s",
         "higher", lambda s: phase_rate(results, "md-" + s, "create")),
        ("md_stat", "stat, %s clients" % meta["md_clients"], "files/s",
         "higher", lambda s: phase_rate(results, "md-" + s, "stat")),
        ("md_unlink", "unlink, %s clients" % meta["md_clients"], "files/s",
         "higher", lambda s: phase_rate(results, "md-" + s, "unlink")),
        ("small_read", "small files read, 4 readers", "files/s", "higher",
         lambda s: phase_rate(results, "small-" + s, "read")),
        ("loader_accel", "loader: accelerators kept ≥ 90 % busy", "",
         "higher", lambda s: loader_best(results, s)[0]),
        ("loader_rate", "loader: rate at that count", "samples/s",
         "higher", lambda s: (loader_best(results, s)[1] or {}).get(
             "samples_per_s")),
        ("ckpt_n", "checkpoint, %s writers + fsync" % n, "GB/s", "higher",
         lambda s: checkpoint_gbps(results, "ckpt%s-%s" % (n, s))),
        ("ckpt_1", "checkpoint, 1 streaming writer + fsync", "GB/s",
         "higher", lambda s: checkpoint_gbps(results, "ckpt1-" + s)),
    ]


def measure(results, meta, systems):
    out = {}
    for key, label, unit, better, get in figures(results, meta):
        out[key] = {"label": label, "unit": unit, "better": better,
                    "values": {s: get(s) for s in systems}}
    return out


def as_good(fig, a, b):
    """How aifs's a does against b, as a share where 100 % is as good and
    more is better, whichever way the figure counts."""
    va, vb = fig["values"].get(a), fig["values"].get(b)
    if va is None or vb is None or not va or not vb:
        return None
    return va / vb if fig["better"] == "higher" else vb / va


def best(fig, names):
    vals = [(fig["values"][s], s) for s in names
            if fig["values"].get(s) is not None]
    if not vals:
        return None
    return (max if fig["better"] == "higher" else min)(vals)[1]


def cell(x):
    """Three significant digits, whole numbers from 100 on."""
    if x is None:
        return "-"
    return number(x, "%.0f" if x >= 100 or x == int(x) else "%.3g")


def share(x):
    if x is None:
        return "-"
    return ("%.1f %%" if x < 0.1 else "%.0f %%") % (100 * x)


def ratio_rows(figs, systems):
    rows = []
    for fig in figs.values():
        peer = best(fig, [s for s in PEERS if s in systems])
        top = best(fig, [s for s in AIFS if s in systems])
        rows.append(["%s, %s" % (fig["label"], fig["unit"]) if fig["unit"]
                     else fig["label"]] +
                    [cell(fig["values"][s]) for s in systems] +
                    [NAMES[peer] if peer else "-"] +
                    [share(as_good(fig, a, peer)) if peer else "-"
                     for a in AIFS] +
                    [share(as_good(fig, top, "tmpfs")) if top else "-"])
        fig["best_peer"] = peer
        fig["vs_best_peer"] = {a: as_good(fig, a, peer) if peer else None
                               for a in AIFS}
        fig["best_aifs_vs_tmpfs"] = as_good(fig, top, "tmpfs") if top \
            else None
    return rows


def command(meta):
    return "make bench%s" % (" QUICK=1" if meta.get("quick") else "")


def print_section(results, meta, systems, figs):
    print("    %s          # bench/suite-bench, one guest boot" %
          command(meta))
    print()
    print("Machine: %s, %s, kernel %s; commit %s, %s." % (
        meta.get("host_cpu", "?"), meta.get("host_mem", "?"),
        meta.get("host_kernel", "?"), meta.get("commit", "?"),
        meta.get("date", "?")))
    print_conditions(results, meta, systems)
    print("aifs mounted: %s" % "; ".join(
        "%s: %s" % (NAMES[s], meta.get(s + "_opts", "?"))
        for s in AIFS if s in systems))
    print()
    table([""] + [NAMES[s] for s in systems] +
          ["best peer"] + ["%s vs best peer" % NAMES[a] for a in AIFS] +
          ["best aifs vs tmpfs"], ratio_rows(figs, systems))
    print("Ratios: how aifs does against the other, 100 %% = as good, more "
          "= better (for latencies the other's time over aifs's); the best "
          "peer is the better of NFS RDMA and NFS TCP in that row. Work: "
          "a %s MiB file read (1 MiB, cold cache), 4 KiB random reads of it "
          "for %s s, a file of that size written; %s clients x %s files "
          "created, stated (cold) and removed, each phase bounded to %s s; "
          "%s files of %s bytes read by 4 readers from a cold cache; the "
          "loader: batches of %s of those files, %s reader threads and %s "
          "batches of prefetch per accelerator, each batch 'computed' by sleeping %s ms, %s s per "
          "trial, accelerators doubled until one trial's utilisation "
          "(compute time / run time, MLPerf Storage's AU) falls below "
          "90 %%; checkpoints of %s MiB in all, each writer a file with "
          "fsync, the time from the first write to the last fsync." % (
              meta["size_mib"], meta.get("rand_s", "20"), meta["md_clients"],
              meta["md_files"], meta.get("md_s", "?"), meta["small_files"],
              meta["small_bytes"], meta["loader_batch"],
              meta["loader_readers"], meta["loader_prefetch"],
              meta["loader_compute_ms"],
              meta.get("loader_s", "?"), meta["size_mib"]))
    print()
    moved = ["%s: %s" % (k[5:-10], ", ".join(
        "%s %.1f MB" % (name, int(n) / 1e6) for name, n in
        (kv.split("=") for kv in v.split())))
        for k, v in sorted(meta.items())
        if k.startswith("rdma_") and k.endswith("-aifs-rdma")]
    print("What aifs RDMA's own counters moved by RDMA in its runs: %s." %
          "; ".join(moved))
    print()


def plot(figs, systems, meta, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # the main figures: p99 stands for the latency rows
    keys = [k for k in figs if k != "rand_p95" and any(
        figs[k]["values"].get(s) is not None for s in systems)]
    cols = 4
    rows = (len(keys) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 3.2 * rows))
    colors = ["#1f77b4", "#6baed6", "#d62728", "#ff9896", "#7f7f7f"]
    for ax, key in zip(axes.flat, keys):
        f = figs[key]
        vals = [f["values"].get(s) or 0 for s in systems]
        ax.bar(range(len(systems)), vals, color=colors[:len(systems)])
        ax.set_xticks(range(len(systems)))
        ax.set_xticklabels([NAMES[s] for s in systems], rotation=30,
                           fontsize=7)
        ax.set_title("%s%s%s" % (f["label"], "\n" if f["unit"] else "",
                                 f["unit"] + (" (lower is better)"
                                              if f["better"] == "lower"
                                              else "")), fontsize=8)
        if max(vals) > 0 and min(v for v in vals if v > 0) * 20 < max(vals):
            ax.set_yscale("log")
        for i, v in enumerate(vals):
            ax.annotate(cell(v), (i, v), ha="center", va="bottom",
                        fontsize=6)
    for ax in list(axes.flat)[len(keys):]:
        ax.axis("off")
    fig.suptitle("%s, %s, kernel %s (guest)" % (
        command(meta), meta.get("date", "?"), meta.get("kernel", "?")))
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def update(doc, section):
    text = open(doc).read()
    if BEGIN not in text or END not in text:
        sys.exit("%s: no markers %s ... %s" % (doc, BEGIN, END))
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    with open(doc, "w") as f:
        f.write(head + BEGIN + "\n\n" + section + END + tail)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("results")
    p.add_argument("--json")
    p.add_argument("--plot")
    p.add_argument("--update")
    args = p.parse_args()
    meta, systems = load_meta(args.results, "suite-bench", SYSTEMS)
    figs = measure(args.results, meta, systems)

    from io import StringIO
    out, sys.stdout = sys.stdout, StringIO()
    try:
        print_section(args.results, meta, systems, figs)
        if args.plot:
            print("![The suite's main figures](bench/%s)" %
                  os.path.basename(args.plot))
            print()
        section = sys.stdout.getvalue()
    finally:
        sys.stdout = out
    print(section, end="")
    if args.json:
        trials = {s: (load_json(args.results, "loader-" + s) or {}).get(
            "trials") for s in systems}
        with open(args.json, "w") as f:
            json.dump({"command": command(meta), "meta": meta,
                       "systems": systems, "figures": figs,
                       "loader_trials": trials}, f, indent=1)
    if args.plot:
        plot(figs, systems, meta, args.plot)
    if args.update:
        update(args.update, section)


if __name__ == "__main__":
    main()
