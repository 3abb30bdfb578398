# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Shared pieces of the server tests: an aifs-echo-server in a temporary
directory, a raw peer that can send any frame, good or hostile, and a tiny
test runner.  The wire format (constants, frames, proofs) is
tests/lib/aifswire.py's, exported here too.  Python standard library and
aifswire (ISA-L for CRCs) only.

AIFS_SERVER_WRAPPER (e.g. "valgrind --error-exitcode=99 --leak-check=full")
runs every server under that command.
"""
import ctypes
import errno
import os
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
from aifswire import (AUTH_REP, FLAG_REPLY, HDR, HELLO_REP,  # noqa: E402,F401
                      HELLO_REQ, MAGIC, MAX_PAYLOAD, OP_AUTH, OP_HELLO,
                      OP_PING, ROLE_CLIENT, VERSION, frame, proof,
                      recv_exact)

TOP = os.environ.get("AIFS_TOP",
                     os.path.dirname(os.path.dirname(os.path.dirname(
                         os.path.abspath(__file__)))))
BUILD = os.environ.get("AIFS_BUILD", os.path.join(TOP, "build"))
ECHO_SERVER = os.path.join(BUILD, "bin", "aifs-echo-server")
WRAPPER = shlex.split(os.environ.get("AIFS_SERVER_WRAPPER", ""))
SLOW = 10 if WRAPPER else 1     # time scale under valgrind

SECRET = b"test-secret-of-the-aifs-cluster"


class Closed(Exception):
    pass


class Peer:
    """A raw connection to a server."""

    def __init__(self, port, host="127.0.0.1", timeout=5, rcvbuf=None):
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.sock = socket.socket(family)
        if rcvbuf:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(timeout)
        self.sock.connect((host, port))
        self.timeout = timeout
        self.next_id = 1

    def close(self):
        self.sock.close()

    def send(self, data):
        self.sock.sendall(data)

    def _recv_exact(self, n):
        try:
            return recv_exact(self.sock, n)
        except (EOFError, ConnectionResetError):
            raise Closed() from None

    def recv_frame(self):
        """(header dict, payload); Closed at end of stream."""
        names = ("magic", "version", "opcode", "flags", "status",
                 "request_id", "map_epoch", "payload_len", "payload_crc",
                 "reserved", "hdr_crc")
        hdr = dict(zip(names, HDR.unpack(self._recv_exact(HDR.size))))
        payload = self._recv_exact(hdr["payload_len"])
        return hdr, payload

    def call(self, opcode, payload=b"", **kw):
        request_id = kw.pop("request_id", None)
        if request_id is None:
            request_id = self.next_id
            self.next_id += 1
        self.send(frame(opcode, payload, request_id=request_id, **kw))
        return self.recv_frame()

    def closed(self, timeout=None):
        """Whether the server ends the stream within @timeout seconds
        (anything still sent before the end is dropped)."""
        self.sock.settimeout(timeout or self.timeout)
        try:
            while True:
                self._recv_exact(1)
        except Closed:
            return True
        except socket.timeout:
            return False
        finally:
            self.sock.settimeout(self.timeout)

    def hello(self, min_version=VERSION, max_version=VERSION):
        self.nonce_c = os.urandom(32)
        req = HELLO_REQ.pack(min_version, max_version, ROLE_CLIENT, 0,
                             bytes(16), self.nonce_c)
        hdr, payload = self.call(OP_HELLO, req)
        if hdr["status"] == 0:
            self.version, _, self.nonce_s = HELLO_REP.unpack(payload)
        return hdr, payload

    def auth(self, secret=SECRET):
        p = proof(secret, b"aifs-auth-client", self.nonce_c, self.nonce_s)
        return self.call(OP_AUTH, p)

    def handshake(self, secret=SECRET):
        hdr, _ = self.hello()
        assert hdr["status"] == 0, hdr
        hdr, payload = self.auth(secret)
        assert hdr["status"] == 0, hdr
        proof_s, session = AUTH_REP.unpack(payload)
        assert proof_s == proof(secret, b"aifs-auth-server", self.nonce_s,
                                self.nonce_c), "server proof"
        return session


def _die_with_parent():
    """In the child: be killed when the test dies, however it dies."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGKILL)       # PR_SET_PDEATHSIG


class ServerProcess:
    """What every test server process has: a port on loopback, a
    process, a log and a temporary directory, removed by close()."""

    def log_text(self):
        with open(self.log_path) as f:
            return f.read()

    def peer(self, **kw):
        return Peer(self.port, **kw)

    def stop(self, sig=signal.SIGTERM, timeout=5):
        """Signal the server; its exit status, or None if it hung."""
        self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout * SLOW)
        except subprocess.TimeoutExpired:
            return None

    def close(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.log:
            self.log.close()
        self.dir.cleanup()

    def __exit__(self, *exc):
        self.close()


class Server(ServerProcess):
    """An aifs-echo-server on loopback with a config of its own."""

    def __init__(self, settings=None, secret=SECRET, start=True):
        self.dir = tempfile.TemporaryDirectory(prefix="aifs-test-")
        self.secret_path = os.path.join(self.dir.name, "secret")
        with open(self.secret_path, "wb") as f:
            f.write(secret + b"\n")
        os.chmod(self.secret_path, 0o600)
        conf = {"listen_address": "127.0.0.1", "listen_port": "0",
                "secret_file": self.secret_path, "io_timeout": "2",
                "handshake_timeout": "2", "worker_threads": "4"}
        conf.update(settings or {})
        self.conf_path = os.path.join(self.dir.name, "echo.conf")
        self.write_conf(conf)
        self.log_path = os.path.join(self.dir.name, "server.log")
        self.log = None
        self.proc = None
        if start:
            self.start()

    def write_conf(self, conf):
        with open(self.conf_path, "w") as f:
            for key, value in conf.items():
                f.write(f"{key} = {value}\n")

    def run(self, *args):
        """Run the server program to completion: (exit status, output)."""
        p = subprocess.run(WRAPPER + [ECHO_SERVER, "-c", self.conf_path]
                           + list(args), capture_output=True, text=True,
                           timeout=60 * SLOW, preexec_fn=_die_with_parent)
        return p.returncode, p.stdout + p.stderr

    def start(self):
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            WRAPPER + [ECHO_SERVER, "-c", self.conf_path],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
            preexec_fn=_die_with_parent)
        deadline = time.monotonic() + 10 * SLOW
        while time.monotonic() < deadline:
            for line in self.log_text().splitlines():
                if "listening on" in line:
                    self.port = int(line.split()[-2].rsplit(":", 1)[1])
                    return
            if self.proc.poll() is not None:
                break
            time.sleep(0.02)
        raise RuntimeError("server did not start:\n" + self.log_text())

    def log_says(self, text, timeout):
        """Whether @text comes in the log within @timeout seconds (×SLOW):
        a loaded machine runs the server's timers late."""
        deadline = time.monotonic() + timeout * SLOW
        while text not in self.log_text():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True

    def __enter__(self):
        return self


def run_tests(tests):
    """Run test functions in order; exit 0 when all passed."""
    failed = 0
    for test in tests:
        try:
            test()
            print(f"ok   {test.__name__}")
        except Exception:
            failed += 1
            print(f"FAIL {test.__name__}")
            traceback.print_exc(file=sys.stdout)
        sys.stdout.flush()
    print(f"{len(tests) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


def expect_error_and_close(peer, status, request_id=None, timeout=3):
    """The next frame is an error reply with @status, then the end."""
    hdr, payload = peer.recv_frame()
    assert hdr["flags"] & FLAG_REPLY, hdr
    assert hdr["status"] == status, \
        f"status {errno.errorcode.get(hdr['status'])}, want {errno.errorcode[status]}"
    if request_id is not None:
        assert hdr["request_id"] == request_id, hdr
    assert payload == b"", payload
    assert peer.closed(timeout * SLOW), "connection not closed"
