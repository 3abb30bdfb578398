# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""What the demo's Python programs share: one clock for the progress lines
and the mount's counters.

Every line of progress starts with the seconds since the demo began
(DEMO_T0, set by scripts/demo/guest.sh), so that the lines of the shell
and of each Python program read as one timeline.
"""
import os
import sys
import time

_T0 = float(os.environ.get("DEMO_T0", time.time()))


def log(msg):
    """One progress line, flushed at once: the host shows the guest's
    output as it is written, and a buffered line would arrive late."""
    print("[%6.1fs] %s" % (time.time() - _T0, msg), flush=True)


def die(msg):
    """Stop the demo with a reason; the non-zero exit fails make demo."""
    log("FAIL: " + msg)
    sys.exit(1)


def mount_stats(sysdir):
    """The mount's counters (the `stats` file: one 'key value' a line),
    read in one go so that they are taken at one instant."""
    with open(os.path.join(sysdir, "stats")) as f:
        return {k: int(v) for k, v in (line.split() for line in f)}


def stats_delta(before, after, *keys):
    """What KEYS moved between two readings of mount_stats()."""
    return {k: after[k] - before[k] for k in keys}


def drop_caches():
    """Write back and drop the page cache, so that what is read next comes
    from the servers and not from memory (the demo runs as root)."""
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def mib(nbytes):
    return nbytes / (1 << 20)


def phase(msg):
    """The heading of one part of the demo, as scripts/demo/guest.sh
    prints its own."""
    log("== " + msg)
