# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""aifs-mds and aifs-ds for the Python server tests: each in a temporary
directory with its config, secret and log, on loopback, with its metrics
served on a free port (metrics_port).  Python standard library only."""
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import time

from aifstest import BUILD, SECRET, SLOW, WRAPPER, ServerProcess, \
    _die_with_parent


def skip(reason):
    """Exit 77: the test is skipped, for the reason on the last line."""
    print(reason)
    sys.exit(77)


def free_port():
    """A TCP port of loopback free now, as testutil.c's test_free_port():
    below the kernel's ephemeral range (no connection made before the
    server starts is given it), at random (tests at once seldom collide)."""
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        low = int(f.read().split()[0])
    for _ in range(100):
        port = random.randrange(10000, low)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port below %d" % low)


class ClusterNode(ServerProcess):
    """One server program with a config of its own; not started."""

    def __init__(self, prog, settings):
        self.prog = prog
        self.bin = os.path.join(BUILD, "bin", prog)
        self.dir = tempfile.TemporaryDirectory(prefix=f"{prog}-test-")
        self.secret_path = self.path("secret")
        with open(self.secret_path, "wb") as f:
            f.write(SECRET + b"\n")
        os.chmod(self.secret_path, 0o600)
        self.metrics_port = free_port()
        self.conf = {"listen_address": "127.0.0.1", "listen_port": "0",
                     "rdma": "no", "secret_file": self.secret_path,
                     "io_timeout": "2", "handshake_timeout": "2",
                     "worker_threads": "4", "metrics_address": "127.0.0.1",
                     "metrics_port": str(self.metrics_port)}
        self.conf.update(settings)
        self.conf_path = self.path("server.conf")
        self.write_conf()
        self.log_path = self.path("server.log")
        self.log = None
        self.proc = None
        self.port = None

    @classmethod
    def mds(cls, settings=None):
        """A formatted aifs-mds (its file system's uuid in .fs_uuid)."""
        node = cls("aifs-mds", {"map_size_mib": "64", **(settings or {})})
        node.conf["db_path"] = node.path("db")
        node.write_conf()
        p = subprocess.run(node.command() + ["--format"], text=True,
                           capture_output=True, timeout=30 * SLOW)
        m = re.search(r"formatted file system ([0-9a-f-]{36})",
                      p.stdout + p.stderr)
        if p.returncode or not m:
            raise RuntimeError("aifs-mds --format:\n" + p.stdout + p.stderr)
        node.fs_uuid = m.group(1)
        return node

    @classmethod
    def ds(cls, mds, settings=None):
        """An aifs-ds joining the started @mds."""
        node = cls("aifs-ds", settings or {})
        node.conf.update({"data_dir": node.path("data"),
                          "fs_uuid": mds.fs_uuid, "ds_id": "0",
                          "peers": "none", "mds": f"127.0.0.1:{mds.port}"})
        os.mkdir(node.path("data"))
        node.write_conf()
        return node

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def write_conf(self):
        with open(self.conf_path, "w") as f:
            for key, value in self.conf.items():
                f.write(f"{key} = {value}\n")

    def command(self):
        return WRAPPER + [self.bin, "-c", self.conf_path]

    def wait_started(self, timeout=10):
        """Wait for the log's "listening on" (the port) and "metrics on"
        lines; raise if the server exits first."""
        deadline = time.monotonic() + timeout * SLOW
        while time.monotonic() < deadline:
            text = self.log_text()
            m = re.search(r"listening on \S+:(\d+) ", text)
            if m and "metrics on http://" in text:
                self.port = int(m.group(1))
                return
            if self.proc and self.proc.poll() is not None:
                break
            time.sleep(0.02)
        raise RuntimeError(f"{self.prog} did not start:\n" + self.log_text())

    def start(self):
        self.log = open(self.log_path, "a")
        self.proc = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL,
                                     stdout=self.log, stderr=self.log,
                                     preexec_fn=_die_with_parent)
        self.wait_started()
        return self

    def __enter__(self):
        if not self.proc:
            self.start()
        return self
