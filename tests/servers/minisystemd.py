# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""A small supervisor that runs a service as systemd would by its unit
file, for the tests of scripts/systemd/ without a systemd to run them:
ExecStart= (with %i, and paths mapped to the test's), Type=notify through
a NOTIFY_SOCKET of its own (sd_notify(3): an AF_UNIX datagram socket in
the abstract namespace; senders checked by SCM_CREDENTIALS, as systemd's
NotifyAccess=main does), KillSignal=, Restart=on-failure and
RestartSec=.  Python standard library only."""
import os
import shlex
import signal
import socket
import struct
import subprocess
import threading
import time

from aifstest import _die_with_parent

# What systemd counts as a clean end by signal (systemd.service(5)).
CLEAN_SIGNALS = {signal.SIGHUP, signal.SIGINT, signal.SIGTERM, signal.SIGPIPE}


def parse_unit(path):
    """{section: {key: [values]}} of a unit file (comments, continued
    lines, repeated keys)."""
    sections, section, line = {}, None, ""
    with open(path) as f:
        for raw in f:
            raw = raw.rstrip("\n")
            if raw.endswith("\\"):
                line += raw[:-1] + " "
                continue
            line, raw = "", line + raw
            text = raw.strip()
            if not text or text[0] in "#;":
                continue
            if text.startswith("[") and text.endswith("]"):
                section = sections.setdefault(text[1:-1], {})
                continue
            key, sep, value = text.partition("=")
            if not sep or section is None:
                raise ValueError(f"{path}: not a unit line: {text}")
            section.setdefault(key.strip(), []).append(value.strip())
    return sections


def seconds(value):
    """A systemd time span of plain seconds ("2", "2s", "500ms")."""
    if value.endswith("ms"):
        return float(value[:-2]) / 1000
    return float(value.rstrip("s"))


class Unit:
    """What a service unit says about starting, stopping and restarting."""

    def __init__(self, path, instance=None):
        self.path = path
        self.sections = parse_unit(path)
        service = self.sections["Service"]
        self.type = self.last("Service", "Type", "simple")
        self.restart = self.last("Service", "Restart", "no")
        self.restart_sec = seconds(self.last("Service", "RestartSec", "0.1"))
        self.kill_signal = getattr(signal, self.last("Service", "KillSignal",
                                                     "SIGTERM"))
        starts = [v for v in service.get("ExecStart", []) if v]
        if len(starts) != 1:
            raise ValueError(f"{path}: a notify service has one ExecStart=")
        self.exec_start = self.specifiers(starts[0].lstrip("-+@!"), instance)

    def last(self, section, key, default):
        return self.sections.get(section, {}).get(key, [default])[-1]

    def specifiers(self, text, instance):
        """%i (the instance) and %% of systemd.unit(5); no others."""
        out, i = "", 0
        while i < len(text):
            if text[i] != "%":
                out += text[i]
                i += 1
                continue
            spec = text[i + 1:i + 2]
            if spec == "%":
                out += "%"
            elif spec == "i" and instance is not None:
                out += instance
            else:
                raise ValueError(f"{self.path}: specifier %{spec} unsupported")
            i += 2
        return out

    def argv(self, paths):
        """ExecStart= as argv, each word that is a key of @paths replaced
        by its value (the installed binary and config by the test's)."""
        return [paths.get(word, word) for word in shlex.split(self.exec_start)]


class NotifySocket:
    """The NOTIFY_SOCKET of a service: sd_notify() datagrams, with the
    sender's pid (SO_PASSCRED)."""

    def __init__(self):
        self.name = f"@aifs-test-notify-{os.getpid()}-{id(self)}"
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        self.sock.bind("\0" + self.name[1:])

    def recv(self, timeout):
        """(pid, {KEY: value}) of the next message, or None in @timeout."""
        self.sock.settimeout(max(timeout, 0.001))
        try:
            data, anc, _, _ = self.sock.recvmsg(4096, socket.CMSG_SPACE(12))
        except socket.timeout:
            return None
        pid = None
        for level, kind, cred in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
                pid = struct.unpack("iII", cred[:12])[0]
        fields = dict(line.split("=", 1)
                      for line in data.decode().splitlines() if "=" in line)
        return pid, fields

    def close(self):
        self.sock.close()


class Service:
    """A unit's main process, supervised: started and restarted by the
    unit's rules.  @log is a file the process writes to."""

    def __init__(self, unit, paths, log, restart_scale=1.0):
        if unit.type != "notify":
            raise ValueError(f"{unit.path}: Type={unit.type}, not notify")
        self.unit, self.paths, self.log = unit, paths, log
        self.restart_delay = unit.restart_sec * restart_scale
        self.notify = NotifySocket()
        self.proc = None
        self.starts = 0
        self.readies = 0                # READY=1 of the main process
        self.stopping = False           # we stop it: no restart
        self.lock = threading.Lock()
        self.monitor = None

    def _spawn(self):
        env = dict(os.environ, NOTIFY_SOCKET=self.notify.name)
        self.proc = subprocess.Popen(self.unit.argv(self.paths), env=env,
                                     stdin=subprocess.DEVNULL,
                                     stdout=self.log, stderr=self.log,
                                     preexec_fn=_die_with_parent)
        self.starts += 1

    def wait_for(self, key, value, timeout):
        """Whether the main process says @key=@value within @timeout;
        messages of other senders are ignored (NotifyAccess=main)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            msg = self.notify.recv(deadline - time.monotonic())
            if msg and msg[0] == self.proc.pid and msg[1].get(key) == value:
                if key == "READY":
                    with self.lock:
                        self.readies += 1
                return True
        return False

    def wait_readies(self, n, timeout):
        """Whether READY=1 has come @n times within @timeout."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if self.readies >= n:
                    return True
            time.sleep(0.02)
        return False

    def start(self, timeout=10):
        """Start and wait for READY=1: True when it came."""
        with self.lock:
            self.stopping = False
        self._spawn()
        if not self.wait_for("READY", "1", timeout):
            return False
        self.monitor = threading.Thread(target=self._watch, daemon=True)
        self.monitor.start()
        return True

    def _failed(self, status):
        """Whether an exit status is a failure, for Restart=on-failure:
        non-zero, or killed by a signal that is not a clean one."""
        if status < 0:
            return -status not in CLEAN_SIGNALS
        return status != 0

    def _watch(self):
        """Restart=on-failure: each failed exit is followed, after
        RestartSec=, by a start that must report READY=1 again."""
        while True:
            status = self.proc.wait()
            with self.lock:
                if self.stopping or self.unit.restart != "on-failure" or \
                        not self._failed(status):
                    self.exit_status = status
                    return
            time.sleep(self.restart_delay)
            with self.lock:
                if self.stopping:
                    return
                self._spawn()
            if not self.wait_for("READY", "1", 10):
                self.exit_status = "restart without READY=1"
                return

    def stop(self, timeout=10):
        """KillSignal=, then STOPPING=1 and the exit: (whether STOPPING=1
        came, exit status or None if it hung)."""
        with self.lock:
            self.stopping = True
            proc = self.proc
        proc.send_signal(self.unit.kill_signal)
        said = self.wait_for("STOPPING", "1", timeout)
        try:
            status = proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            status = None
        return said, status

    def close(self):
        with self.lock:
            self.stopping = True
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.monitor:
            self.monitor.join(5)
        self.notify.close()
