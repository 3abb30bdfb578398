#!/usr/bin/env -S python3 -B
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""The server's side of the handshake: version negotiation, both proofs,
and nothing at all served before authentication."""
import errno
import time

from aifstest import (OP_AUTH, OP_HELLO, OP_PING, SECRET, SLOW, Server,
                      expect_error_and_close, frame, run_tests)

srv = Server()


def test_handshake_and_ping():
    p = srv.peer()
    p.handshake()
    assert p.version == 1
    hdr, payload = p.call(OP_PING)
    assert hdr["status"] == 0 and payload == b"", hdr
    p.close()


def test_sessions_differ():
    a, b = srv.peer(), srv.peer()
    assert a.handshake() != b.handshake()
    a.close()
    b.close()


def test_wrong_secret():
    p = srv.peer()
    p.hello()
    p.send(frame(OP_AUTH, b"\0" * 32, request_id=7))
    p.send(frame(OP_PING, request_id=8))        # must not be answered
    expect_error_and_close(p, errno.EACCES, request_id=7)


def test_other_secret():
    p = srv.peer()
    p.hello()
    hdr, payload = p.auth(b"not-the-secret-of-this-cluster")
    assert hdr["status"] == errno.EACCES and payload == b"", hdr
    assert p.closed(3 * SLOW)


def test_no_common_version():
    p = srv.peer()
    hdr, payload = p.hello(min_version=2, max_version=9)
    assert hdr["status"] == errno.EPROTONOSUPPORT and payload == b"", hdr
    assert p.closed(3 * SLOW)


def test_inverted_version_range():
    p = srv.peer()
    hdr, _ = p.hello(min_version=1, max_version=0)
    assert hdr["status"] == errno.EPROTONOSUPPORT, hdr
    assert p.closed(3 * SLOW)


def test_newer_peer_gets_our_version():
    p = srv.peer()
    hdr, _ = p.hello(min_version=1, max_version=7)
    assert hdr["status"] == 0 and p.version == 1, hdr
    p.close()


def test_ping_before_hello():
    p = srv.peer()
    p.send(frame(OP_PING, request_id=3))
    expect_error_and_close(p, errno.EACCES, request_id=3)


def test_ping_between_hello_and_auth():
    p = srv.peer()
    p.hello()
    p.send(frame(OP_PING, request_id=4))
    expect_error_and_close(p, errno.EACCES, request_id=4)


def test_unknown_opcode_before_auth():
    p = srv.peer()
    p.send(frame(999, request_id=5))
    expect_error_and_close(p, errno.EACCES, request_id=5)


def test_auth_before_hello():
    p = srv.peer()
    p.send(frame(OP_AUTH, b"\0" * 32, request_id=6))
    expect_error_and_close(p, errno.EACCES, request_id=6)


def test_malformed_hello():
    p = srv.peer()
    p.send(frame(OP_HELLO, b"\1" * 10))
    expect_error_and_close(p, errno.EBADMSG)


def test_hello_twice():
    p = srv.peer()
    p.handshake()
    p.send(frame(OP_HELLO, b"\0" * 56, request_id=9))
    expect_error_and_close(p, errno.EPROTO, request_id=9)


def test_handshake_timeout():
    p = srv.peer()
    start = time.monotonic()
    assert p.closed(6 * SLOW), "silent peer not disconnected"
    took = time.monotonic() - start
    assert 1.5 <= took <= 4 * SLOW, f"closed after {took:.1f} s, want ~2"
    assert "no handshake in time" in srv.log_text()


def test_still_serving():
    p = srv.peer()
    p.handshake()
    assert p.call(OP_PING)[0]["status"] == 0
    p.close()


try:
    run_tests([test_handshake_and_ping, test_sessions_differ,
               test_wrong_secret, test_other_secret, test_no_common_version,
               test_inverted_version_range, test_newer_peer_gets_our_version,
               test_ping_before_hello, test_ping_between_hello_and_auth,
               test_unknown_opcode_before_auth, test_auth_before_hello,
               test_malformed_hello, test_hello_twice,
               test_handshake_timeout, test_still_serving])
finally:
    rc = srv.stop()
    srv.close()
    if rc != 0:
        print(f"server exit status {rc}")
        raise SystemExit(1)
