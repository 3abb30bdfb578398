#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""bench/suite/report.py on a results directory made here, as
bench/suite/guest.sh leaves one: the figures it reads from fio, aifs-mdtest,
aifs-loader and the checkpoint writers, the best peer of a row (the
lowest for a latency), the ratios, the JSON, and the section written
between a document's markers (again: the same document)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
REPORT = os.path.join(TOP, "bench", "suite", "report.py")
SYSTEMS = ["aifs-rdma", "aifs-tcp", "nfs-rdma", "nfs-tcp", "tmpfs"]
# per system: seq MB/s, write MB/s, IOPS, p95 us, p99 us, creates/s,
# small files/s, accelerators kept, checkpoint seconds
GIVEN = {
    "aifs-rdma": (60, 50, 500, 3000, 5000, 300, 120, 2, 4.0),
    "aifs-tcp": (70, 52, 600, 2500, 4000, 310, 130, 2, 3.0),
    "nfs-rdma": (59, 49, 1700, 1000, 1800, 900, 200, 4, 5.0),
    "nfs-tcp": (200, 84, 2100, 800, 1500, 1000, 250, 4, 2.0),
    "tmpfs": (600, 290, 67000, 10, 21, 50000, 5000, 32, 0.5),
}


def fio(path, ddir, mbps, iops=0, p95=0, p99=0):
    job = {ddir: {"bw_bytes": mbps * 1e6, "iops": iops, "io_bytes": 1 << 26,
                  "clat_ns": {"percentile": {"95.000000": p95 * 1e3,
                                             "99.000000": p99 * 1e3}}}}
    with open(path, "w") as f:
        # fio may print a note before its JSON
        f.write("note: opendir added\n" + json.dumps({"jobs": [job]}))


def write_results(d):
    meta = {"systems": " ".join(SYSTEMS), "guest": "2 CPUs, 4 GiB, TCG",
            "kernel": "6.1.0-test", "size_mib": "64", "rand_s": "5",
            "small_files": "1000", "small_bytes": "112640",
            "md_clients": "4", "md_files": "250", "md_s": "10",
            "loader_batch": "8", "loader_compute_ms": "100",
            "loader_readers": "4", "loader_prefetch": "2", "loader_s": "8",
            "ckpt_writers": "4", "quick": "1", "host_cpu": "2 CPUs, test",
            "host_mem": "24 GiB", "host_kernel": "6.18-test",
            "commit": "abc", "date": "2026-12-02",
            "rdma_seq-aifs-rdma":
            "rdma_read_bytes=67108864 rdma_write_bytes=0"}
    with open(os.path.join(d, "meta"), "w") as f:
        f.writelines("%s=%s\n" % kv for kv in meta.items())
    for s, (seq, wr, iops, p95, p99, cr, small, acc, secs) in GIVEN.items():
        fio(os.path.join(d, "seq-%s.json" % s), "read", seq)
        fio(os.path.join(d, "write-%s.json" % s), "write", wr)
        fio(os.path.join(d, "rand-%s.json" % s), "read", 0, iops, p95, p99)
        phases = {p: {"files": 1000, "seconds": 1000 / cr,
                      "files_per_s": cr, "mb_per_s": 0}
                  for p in ("create", "stat", "unlink")}
        with open(os.path.join(d, "md-%s.json" % s), "w") as f:
            json.dump({"phases": phases}, f)
        with open(os.path.join(d, "small-%s.json" % s), "w") as f:
            json.dump({"phases": {"read": {"files_per_s": small}}}, f)
        trials = [{"accelerators": a, "au": 0.95 if a <= acc else 0.5,
                   "samples_per_s": 10 * a} for a in (1, 2, 4, 8, 16, 32, 64)
                  if a <= 2 * acc]
        with open(os.path.join(d, "loader-%s.json" % s), "w") as f:
            json.dump({"min_au": 0.9, "max_accelerators": acc,
                       "trials": trials}, f)
        for n in (4, 1):
            with open(os.path.join(d, "ckpt%d-%s.jsonl" % (n, s)), "w") as f:
                for i in range(n):
                    f.write(json.dumps({"start": 100 + i * 0.1,
                                        "synced": 100 + secs,
                                        "bytes": 2 ** 30 // n}) + "\n")


def check(cond, what):
    if not cond:
        sys.exit("FAIL: " + what)


def plot_png(d):
    """The plot, where matplotlib is installed (make deps-demo)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("bench-report: no matplotlib, the plot not checked")
        return
    png = os.path.join(d, "suite.png")
    text = subprocess.run([REPORT, d, "--plot", png], check=True,
                          capture_output=True, text=True).stdout
    check(open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n", "a PNG")
    check("![The suite's main figures](bench/suite.png)" in text,
          "the section links the plot")


def main():
    d = tempfile.mkdtemp()
    try:
        write_results(d)
        doc = os.path.join(d, "doc.md")
        with open(doc, "w") as f:
            f.write("# head\n<!-- suite-bench begin: written by "
                    "bench/suite-bench -->\nold\n<!-- suite-bench end -->\n"
                    "tail\n")
        args = [REPORT, d, "--json", os.path.join(d, "out.json"),
                "--update", doc]
        text = subprocess.run(args, check=True, capture_output=True,
                              text=True).stdout
        got = json.load(open(os.path.join(d, "out.json")))
        figs = got["figures"]
        check(got["command"] == "make bench QUICK=1", "command")
        check(figs["seq_read"]["values"]["nfs-tcp"] == 200, "seq MB/s")
        check(figs["seq_read"]["best_peer"] == "nfs-tcp", "best seq peer")
        check(abs(figs["seq_read"]["vs_best_peer"]["aifs-rdma"] - 0.3) <
              1e-9, "aifs RDMA vs the best peer")
        # latency: the best peer is the lowest, the ratio peer over aifs
        check(figs["rand_p99"]["best_peer"] == "nfs-tcp", "best p99 peer")
        check(abs(figs["rand_p99"]["vs_best_peer"]["aifs-tcp"] - 1500 / 4000)
              < 1e-9, "p99 ratio")
        check(abs(figs["rand_p99"]["best_aifs_vs_tmpfs"] - 21 / 4000) < 1e-9,
              "the best aifs p99 against tmpfs")
        check(figs["loader_accel"]["values"]["tmpfs"] == 32, "accelerators")
        check(figs["loader_rate"]["values"]["aifs-rdma"] == 20,
              "samples/s of the trial that kept the most")
        check(abs(figs["ckpt_n"]["values"]["aifs-tcp"] - 2 ** 30 / 3e9) <
              1e-9, "checkpoint GB/s from the first start to the last sync")
        check("| 4 KiB random reads, p99, µs | 5000 | 4000 | 1800 | 1500 | "
              "21 | NFS TCP | 30 % | 38 % | 0.5 % |" in text,
              "the p99 row of the table:\n" + text)
        once = open(doc).read()
        check(once.startswith("# head\n<!-- suite-bench begin") and
              once.endswith("<!-- suite-bench end -->\ntail\n") and
              "\nold\n" not in once and "Machine: 2 CPUs, test" in once,
              "the section between the markers:\n" + once)
        subprocess.run(args, check=True, capture_output=True)
        check(open(doc).read() == once, "a second update changed more")
        os.remove(os.path.join(d, "loader-nfs-rdma.json"))
        text = subprocess.run(args, check=True, capture_output=True,
                              text=True).stdout
        check("| loader: accelerators kept ≥ 90 % busy | 2 | 2 | - | 4 |"
              in text, "a run that did not happen is '-':\n" + text)
        plot_png(d)
    finally:
        shutil.rmtree(d)
    print("bench-report: ok")


if __name__ == "__main__":
    main()
