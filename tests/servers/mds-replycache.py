#!/usr/bin/env -S python3 -B
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""aifs-mds: a retried request (same client, same request id) is answered
from the reply cache and applied once, also on a new connection and after
a restart; a reused id with other content is a new request; HELLO carries
the file system's uuid; starting without a formatted database fails."""
import os
import struct
import subprocess

import aifstest
from aifstest import HELLO_REP, HELLO_REQ, OP_HELLO, ROLE_CLIENT, Server, \
    run_tests

MDS = os.path.join(aifstest.BUILD, "bin", "aifs-mds")
OP_MKDIR, OP_LOOKUP = 20, 16
CRED = struct.pack("<4I16I", 0, 0, 0, 0, *([0] * 16))
CLIENT_UUID = bytes(range(1, 17))


class Mds(Server):
    """An aifs-mds on a database of its own, formatted."""

    def __init__(self, fmt=True):
        aifstest.ECHO_SERVER = MDS
        super().__init__({"map_size_mib": "64"}, start=False)
        with open(self.conf_path, "a") as f:
            f.write(f"db_path = {self.dir.name}/db\n")
        if fmt:
            assert self.run("--format")[0] == 0


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


run_tests([test_missing_database, test_foreign_database,
           test_retry_answered_from_cache])
