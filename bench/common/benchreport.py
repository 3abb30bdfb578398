# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""What the reports of the guest benchmarks (bench/read/report.py,
bench/write/report.py, bench/suite/report.py) share: the meta file
that bench/common/guest.sh writes, the systems measured, the host's load,
and Markdown tables."""
import json
import os
import sys

NAMES = {"aifs": "aifs", "nfs": "NFS", "tmpfs": "tmpfs",
         "aifs-rdma": "aifs RDMA", "aifs-tcp": "aifs TCP",
         "nfs-rdma": "NFS RDMA", "nfs-tcp": "NFS TCP"}
# the systems of a benchmark, in table order, unless it names its own
SYSTEMS = ("aifs", "nfs", "tmpfs")


def ratio(a, b):
    return "%.0f %%" % (100 * a / b) if a is not None and b else "-"


def number(x, fmt="%.0f"):
    return fmt % x if x is not None else "-"


def table(head, rows):
    print("| " + " | ".join(head) + " |")
    print("|" + " --- |" * len(head))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print()


def load_fio(results, name, ddir="read"):
    """The ddir ("read", "write") results of the first job of fio's
    NAME.json, or None if the run did not happen."""
    path = os.path.join(results, name + ".json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        text = f.read()
    # fio may print notes ("opendir added ...") before the JSON
    return json.loads(text[text.index("{"):])["jobs"][0][ddir]


def load_meta(results, bench, systems=SYSTEMS):
    """The meta file as a dict, and those of systems measured, in their
    order; exits when the guest stopped before it knew them."""
    path = os.path.join(results, "meta")
    meta = dict(line.rstrip("\n").split("=", 1)
                for line in open(path)) if os.path.exists(path) else {}
    if "systems" not in meta:
        sys.exit("%s: the guest stopped before any run; see %s"
                 % (bench, os.path.join(results, "1.out")))
    measured = meta["systems"].split()
    return meta, [s for s in systems if s in measured]


def print_conditions(results, meta, systems=SYSTEMS):
    """The guest, its kernel, how each NFS of systems was mounted, and the
    host's load while the guest ran (bench/common/host.sh): other guests
    share the host's CPUs."""
    nfs = ["%s: %s" % (NAMES[s], meta.get(s + "_opts") or
                       "not measured (%s)" % meta.get(s + "_missing", "?"))
           for s in systems if s.startswith("nfs")]
    print("guest: %s, kernel %s, kernel crc32c: %s; %s" % (
        meta["guest"], meta["kernel"], meta.get("crc32c", "?"),
        "; ".join(nfs)))
    path = os.path.join(results, "host-load")
    if os.path.exists(path):
        loads = [line.split() for line in open(path) if line.strip()]
        print("host load average (1, 5, 15 min): %s at the guest's start "
              "(%s), %s at its end (%s), highest 1-min %s" % (
                  " ".join(loads[0][1:]), loads[0][0],
                  " ".join(loads[-1][1:]), loads[-1][0],
                  max(loads, key=lambda x: float(x[1]))[1]))
    print()
