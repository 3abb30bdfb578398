#!/usr/bin/env -S python3 -B
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""aifs-mds: a retried request (same client, same request id) is answered
from the reply cache and applied once, also on a new connection and after
a restart; a reused id with other content is a new request; HELLO carries
the file system's uuid; starting without a formatted database fails.

A change that writes nothing (an OPEN for reading, its CLOSE) is answered
from the memory cache when retried, commits no LMDB transaction (the last
transaction id, read with mdb_stat, stays), and an OPEN batched after an
UNLINK does not lose the UNLINK."""
import os
import re
import signal
import struct
import subprocess

import aifstest
from aifstest import HELLO_REP, HELLO_REQ, OP_HELLO, ROLE_CLIENT, Server, \
    run_tests

MDS = os.path.join(aifstest.BUILD, "bin", "aifs-mds")
OP_LOOKUP, OP_CREATE, OP_MKDIR, OP_UNLINK = 16, 19, 20, 22
OP_OPEN, OP_CLOSE = 34, 35
OPEN_RDONLY, OPEN_RDWR = 0, 2
ENOENT, EBADF, ESTALE = 2, 9, 116
CRED = struct.pack("<4I16I", 0, 0, 0, 0, *([0] * 16))
CLIENT_UUID = bytes(range(1, 17))


class Mds(Server):
    """An aifs-mds on a database of its own, formatted."""

    def __init__(self, fmt=True, settings=None):
        aifstest.ECHO_SERVER = MDS
        super().__init__({"map_size_mib": "64", **(settings or {})},
                         start=False)
        self.db = os.path.join(self.dir.name, "db")
        with open(self.conf_path, "a") as f:
            f.write(f"db_path = {self.db}\n")
        if fmt:
            assert self.run("--format")[0] == 0

    def db_state(self):
        """(last committed transaction id, entries of the reply cache),
        read by mdb_stat next to the running server."""
        out = subprocess.run(["mdb_stat", "-e", "-s", "replies", self.db],
                             capture_output=True, text=True, check=True,
                             timeout=30).stdout
        txn = re.search(r"Last transaction ID: (\d+)", out)
        entries = re.search(r"Entries: (\d+)", out)
        assert txn and entries, out
        return int(txn.group(1)), int(entries.group(1))


def handshake(peer, uuid=CLIENT_UUID):
    """HELLO with a client uuid, then AUTH: the fs uuid of the reply."""
    peer.nonce_c = os.urandom(32)
    req = HELLO_REQ.pack(1, 1, ROLE_CLIENT, 0, uuid, peer.nonce_c)
    hdr, payload = peer.call(OP_HELLO, req)
    assert hdr["status"] == 0, hdr
    peer.version, fs_uuid, peer.nonce_s = HELLO_REP.unpack(payload)
    assert peer.auth()[0]["status"] == 0
    return fs_uuid


def mkdir_req(name, mode=0o755):
    return CRED + struct.pack("<QIIIIIIH6x", 1, 0o040000 | mode, 0, 0, 0, 0,
                              0, len(name)) + name


def ino_of(payload):
    """The entry's ino in an aifs_entry_rep (dir attr, then entry attr)."""
    return struct.unpack_from("<Q", payload, 136)[0]


def create_req(name):
    return CRED + struct.pack("<QIIIIIIH6x", 1, 0o100644, 0, 0, 0,
                              OPEN_RDWR, 0, len(name)) + name


def name_req(name):
    return CRED + struct.pack("<QH6x", 1, len(name)) + name


def open_req(ino):
    return CRED + struct.pack("<QII", ino, OPEN_RDONLY, 0)


def close_req(ino, handle):
    return CRED + struct.pack("<QQII24x", ino, handle, 0, 0)


def handle_of(open_rep):
    """The handle of an aifs_open_rep (attr, layout, handle)."""
    return struct.unpack_from("<Q", open_rep, 408)[0]


def nlink_of(attr):
    return struct.unpack_from("<I", attr, 108)[0]


def call_ok(peer, opcode, payload, **kw):
    hdr, rep = peer.call(opcode, payload, **kw)
    assert hdr["status"] == 0, hdr
    return rep


def client_of(srv):
    """Start @srv: a connection of the client to it."""
    srv.start()
    p = srv.peer()
    handshake(p)
    return p


def create(peer, name):
    """Create and open @name in the root: (ino, handle)."""
    rep = call_ok(peer, OP_CREATE, create_req(name))
    return ino_of(rep), handle_of(rep[136:])


def test_missing_database():
    with Mds(fmt=False) as srv:
        status, out = srv.run()
        assert status == 1 and "run aifs-mds --format" in out, out


def test_foreign_database():
    with Mds(fmt=False) as srv:
        os.mkdir(os.path.join(srv.dir.name, "db"))
        with open(os.path.join(srv.dir.name, "db", "data.mdb"), "wb") as f:
            f.write(b"\0" * 65536)
        status, out = srv.run()
        assert status == 1, out


def test_retry_answered_from_cache():
    with Mds() as srv:
        srv.start()
        p = srv.peer()
        fs_uuid = handshake(p)
        assert fs_uuid != bytes(16), "no fs uuid in HELLO"
        first, rep1 = p.call(OP_MKDIR, mkdir_req(b"d"), request_id=77)
        assert first["status"] == 0, first
        assert first["map_epoch"] >= 1, first
        again, rep2 = p.call(OP_MKDIR, mkdir_req(b"d"), request_id=77)
        assert again["status"] == 0 and rep2 == rep1, again
        # A new connection of the same client: still the same reply.
        q = srv.peer()
        handshake(q)
        hdr, rep3 = q.call(OP_MKDIR, mkdir_req(b"d"), request_id=77)
        assert hdr["status"] == 0 and rep3 == rep1, hdr
        # After a restart the cache is still there (same transaction).
        assert srv.stop() == 0
        srv.start()
        r = srv.peer()
        assert handshake(r) == fs_uuid
        hdr, rep5 = r.call(OP_MKDIR, mkdir_req(b"d"), request_id=77)
        assert hdr["status"] == 0 and rep5 == rep1, hdr
        # The same id with other content is a new request.
        hdr, rep4 = r.call(OP_MKDIR, mkdir_req(b"e"), request_id=77)
        assert hdr["status"] == 0 and ino_of(rep4) != ino_of(rep1), hdr
        # A new id for the same name is applied: EEXIST.
        hdr, _ = r.call(OP_MKDIR, mkdir_req(b"d"), request_id=78)
        assert hdr["status"] == 17, hdr
        assert srv.stop() == 0
        status, out = srv.run("--check")
        assert status == 0, out


def test_read_open_commits_nothing():
    with Mds() as srv:
        p = client_of(srv)
        ino, handle = create(p, b"f")
        call_ok(p, OP_CLOSE, close_req(ino, handle))
        before = srv.db_state()
        handles = set()
        for _ in range(50):
            handle = handle_of(call_ok(p, OP_OPEN, open_req(ino)))
            handles.add(handle)
            call_ok(p, OP_CLOSE, close_req(ino, handle))
        assert len(handles) == 50, handles
        assert srv.db_state() == before, (srv.db_state(), before)
        # The same reading of a change that does write.
        call_ok(p, OP_MKDIR, mkdir_req(b"d"))
        txn, entries = srv.db_state()
        assert txn > before[0] and entries == before[1] + 1, \
            (txn, entries, before)
        assert srv.stop() == 0


def test_read_open_retried():
    with Mds() as srv:
        p = client_of(srv)
        ino, created = create(p, b"g")
        rep1 = call_ok(p, OP_OPEN, open_req(ino), request_id=1000)
        assert call_ok(p, OP_OPEN, open_req(ino), request_id=1000) == rep1
        q = srv.peer()
        handshake(q)
        assert call_ok(q, OP_OPEN, open_req(ino), request_id=1000) == rep1
        other = call_ok(q, OP_OPEN, open_req(ino), request_id=1001)
        assert handle_of(other) != handle_of(rep1)
        # A retried CLOSE gets its reply again, not EBADF.
        closed = call_ok(q, OP_CLOSE, close_req(ino, handle_of(rep1)),
                         request_id=1002)
        assert call_ok(q, OP_CLOSE, close_req(ino, handle_of(rep1)),
                       request_id=1002) == closed
        hdr, _ = q.call(OP_CLOSE, close_req(ino, handle_of(rep1)))
        assert hdr["status"] == EBADF, hdr
        # No open of the retries is left: unlinked, the file goes.
        call_ok(q, OP_CLOSE, close_req(ino, handle_of(other)))
        call_ok(q, OP_CLOSE, close_req(ino, created))
        call_ok(q, OP_UNLINK, name_req(b"g"))
        hdr, _ = q.call(OP_OPEN, open_req(ino))
        assert hdr["status"] == ESTALE, hdr
        assert srv.stop() == 0


def test_memory_cache_bounded():
    """reply_memory_mib = 1 holds about 2000 OPEN replies: the oldest go."""
    with Mds(settings={"reply_memory_mib": "1"}) as srv:
        p = client_of(srv)
        ino, _ = create(p, b"h")
        first = call_ok(p, OP_OPEN, open_req(ino), request_id=10000)
        for i in range(1, 3000):
            last = call_ok(p, OP_OPEN, open_req(ino), request_id=10000 + i)
        assert call_ok(p, OP_OPEN, open_req(ino), request_id=12999) == last
        again = call_ok(p, OP_OPEN, open_req(ino), request_id=10000)
        assert handle_of(again) != handle_of(first), "not dropped"
        assert srv.stop() == 0


def test_open_after_unlink_in_a_batch():
    """OPENs of files just unlinked (kept open: orphans), pipelined with
    the UNLINKs so that batches mix both: once the replies are in, every
    UNLINK is on disk, whatever op ended its batch."""
    names = [b"u%d" % i for i in range(32)]
    with Mds() as srv:
        p = client_of(srv)
        inos = [create(p, name)[0] for name in names]
        burst = b""
        for i, name in enumerate(names):
            burst += aifstest.frame(OP_UNLINK, name_req(name),
                                    request_id=2000 + 2 * i)
            burst += aifstest.frame(OP_OPEN, open_req(inos[i]),
                                    request_id=2001 + 2 * i)
        p.send(burst)
        orphans_opened = 0
        for _ in range(2 * len(names)):
            hdr, rep = p.recv_frame()
            assert hdr["status"] == 0, hdr
            if hdr["opcode"] == OP_OPEN and nlink_of(rep) == 0:
                orphans_opened += 1
        assert orphans_opened, "no OPEN came after its UNLINK"
        assert srv.stop(signal.SIGKILL) == -signal.SIGKILL
        srv.start()
        q = srv.peer()
        handshake(q)
        for name in names:
            hdr, _ = q.call(OP_LOOKUP, name_req(name))
            assert hdr["status"] == ENOENT, (name, hdr)
        assert srv.stop() == 0
        status, out = srv.run("--check")
        assert status == 0, out


run_tests([test_missing_database, test_foreign_database,
           test_retry_answered_from_cache, test_read_open_commits_nothing,
           test_read_open_retried, test_memory_cache_bounded,
           test_open_after_unlink_in_a_batch])
