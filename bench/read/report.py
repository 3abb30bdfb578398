#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""The tables of bench/read-bench from the fio JSON files and the meta file
that bench/read/guest.sh left in one results directory:

    bench/read/report.py build/vm-results/read-bench
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "common"))
from benchreport import NAMES, load_fio, load_meta, number, print_conditions, ratio, table  # noqa: E402


def main(results):
    meta, peers = load_meta(results, "read-bench")
    size = int(meta["small_size"])
    print_conditions(results, meta)

    def cells(metric, names):
        got = {s: load_fio(results, names(s)) for s in peers}
        vals = {s: metric(got[s]) if got[s] else None for s in peers}
        return ([number(vals[s]) for s in peers] +
                [ratio(vals["aifs"], vals.get("nfs")),
                 ratio(vals["aifs"], vals.get("tmpfs"))])

    heads = [NAMES[s] for s in peers] + ["aifs/NFS", "aifs/tmpfs"]
    print("Sequential 1 MiB reads of one %s MiB file, cold cache, MB/s "
          "(tmpfs: no readahead, its data is the page cache):" % meta["size_mib"])
    print()
    ra_kbs = [int(kb) for kb in meta["ra_kbs"].split()]
    rows = []
    for ra in ra_kbs:
        name = lambda s: "seq-%s-%d" % (s, 0 if s == "tmpfs" else ra)
        row = [str(ra)] + cells(lambda r: r["bw_bytes"] / 1e6, name)
        got = {s: load_fio(results, name(s)) for s in peers}
        short = ["%s %d MiB" % (NAMES[s], got[s]["io_bytes"] >> 20)
                 for s in peers if got[s] and
                 got[s]["io_bytes"] < int(meta["size_mib"]) << 20]
        rows.append(row + [", ".join(short) or "-"])
    table(["read_ahead_kb"] + heads + ["read in the time limit"], rows)

    print("4 KiB random reads from a cold cache, IOPS, then latency "
          "p95 / p99 in microseconds:")
    print()
    rows = []
    for jobs in (1, 4):
        row = [str(jobs)] + cells(lambda r: r["iops"], lambda s: "rand-%s-%d" % (s, jobs))
        for s in peers:
            r = load_fio(results, "rand-%s-%d" % (s, jobs))
            p = r["clat_ns"]["percentile"] if r else {}
            row.append(" / ".join(number(p[q] / 1e3) if q in p else "-"
                                  for q in ("95.000000", "99.000000")))
        rows.append(row)
    table(["jobs"] + heads + [NAMES[s] + " p95 / p99" for s in peers], rows)

    print("%s files of %d KiB, cold cache: files/s (MB/s in the last "
          "columns):" % (meta["files"], size // 1024))
    print()
    rows = []
    for jobs in (1, 4):
        name = lambda s: "small-%s-%d" % (s, jobs)
        row = [str(jobs)] + cells(lambda r: r["bw_bytes"] / size, name)
        for s in peers:
            r = load_fio(results, name(s))
            row.append(number(r["bw_bytes"] / 1e6 if r else None))
            if r and r["io_bytes"] < int(meta["files"]) * size:
                row[-1] += " (%d files: time limit)" % (r["io_bytes"] // size)
        rows.append(row)
    table(["jobs"] + heads + [NAMES[s] + " MB/s" for s in peers], rows)
    if "aifs_put_files_per_s" in meta:
        print("(aifs-put -b put %s files/s into aifs before the runs)"
              % meta["aifs_put_files_per_s"])


if __name__ == "__main__":
    main(sys.argv[1])
