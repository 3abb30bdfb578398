#!/usr/bin/env -S python3 -B
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Hostile and broken frames: each gets an error reply and a closed
connection, while the server keeps serving everyone else; an unknown
opcode after authentication is only an error."""
import errno
import time

from aifstest import (FLAG_REPLY, HDR, MAGIC, MAX_PAYLOAD, OP_PING, SLOW,
                      Server, expect_error_and_close, frame, run_tests)

srv = Server({"io_timeout": "1"})
bystander = srv.peer()
bystander.handshake()


def authed():
    p = srv.peer()
    p.handshake()
    return p


def test_bad_magic():
    p = authed()
    p.send(frame(OP_PING, magic=MAGIC ^ 1, request_id=11))
    # Nothing of a frame that fails its magic can be trusted: request id 0.
    expect_error_and_close(p, errno.EBADMSG, request_id=0)


def test_bad_magic_before_auth():
    p = srv.peer()
    p.send(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n" + b"\0" * 32)
    expect_error_and_close(p, errno.EBADMSG, request_id=0)


def test_bad_version():
    p = authed()
    p.send(frame(OP_PING, version=9, request_id=12))
    expect_error_and_close(p, errno.EPROTONOSUPPORT, request_id=12)


def test_bad_header_crc():
    p = authed()
    p.send(frame(OP_PING, request_id=13, hdr_crc=0x12345678))
    expect_error_and_close(p, errno.EBADMSG, request_id=0)


def test_bad_payload_crc():
    p = authed()
    p.send(frame(OP_PING, b"payload", request_id=14, payload_crc=1))
    expect_error_and_close(p, errno.EBADMSG, request_id=14)


def test_oversize():
    p = authed()
    p.send(frame(OP_PING, request_id=15, payload_len=MAX_PAYLOAD + 1))
    p.send(b"x" * 65536)            # the start of it, never read
    expect_error_and_close(p, errno.EMSGSIZE, request_id=15)


def test_oversize_before_auth():
    """Before AUTH, nothing bigger than a handshake message is taken."""
    p = srv.peer()
    p.send(frame(OP_PING, request_id=16, payload_len=4096))
    expect_error_and_close(p, errno.EMSGSIZE, request_id=16)


def test_reply_from_client():
    p = authed()
    p.send(frame(OP_PING, flags=FLAG_REPLY, request_id=17))
    expect_error_and_close(p, errno.EPROTO, request_id=17)


def test_unknown_opcode_keeps_connection():
    p = authed()
    for opcode in (999, 4242, 65535):
        hdr, payload = p.call(opcode, b"whatever", request_id=opcode)
        assert hdr["status"] == errno.EOPNOTSUPP, hdr
        assert hdr["request_id"] == opcode and hdr["opcode"] == opcode, hdr
    hdr, _ = p.call(OP_PING)
    assert hdr["status"] == 0, hdr
    p.close()


def test_ping_with_payload():
    p = authed()
    hdr, _ = p.call(OP_PING, b"PING has no payload")
    assert hdr["status"] == errno.EINVAL, hdr
    assert p.call(OP_PING)[0]["status"] == 0
    p.close()


def stalled(data):
    p = authed()
    p.send(data)
    start = time.monotonic()
    assert p.closed(5 * SLOW), "stalled peer not disconnected"
    took = time.monotonic() - start
    assert 0.8 <= took <= 3 * SLOW, f"closed after {took:.1f} s, want ~1"


def test_truncated_header():
    stalled(frame(OP_PING)[:20])
    assert "stalled in the middle of a frame" in srv.log_text()


def test_truncated_payload():
    stalled(frame(OP_PING, b"x" * 1000)[:HDR.size + 10])


def test_split_frame_is_fine():
    """A frame sent in pieces, each well within io_timeout, is served."""
    p = authed()
    data = frame(OP_PING, request_id=77)
    for i in range(0, len(data), 7):
        p.send(data[i:i + 7])
        time.sleep(0.05)
    hdr, _ = p.recv_frame()
    assert hdr["status"] == 0 and hdr["request_id"] == 77, hdr
    p.close()


def test_pipelined_requests():
    p = authed()
    p.send(b"".join(frame(OP_PING, request_id=100 + i) for i in range(200)))
    ids = [p.recv_frame()[0]["request_id"] for _ in range(200)]
    assert ids == list(range(100, 300)), ids[:10]
    p.close()


def test_bystander_still_served():
    hdr, _ = bystander.call(OP_PING)
    assert hdr["status"] == 0, hdr
    p = authed()
    assert p.call(OP_PING)[0]["status"] == 0
    p.close()


try:
    run_tests([test_bad_magic, test_bad_magic_before_auth, test_bad_version,
               test_bad_header_crc, test_bad_payload_crc, test_oversize,
               test_oversize_before_auth, test_reply_from_client,
               test_unknown_opcode_keeps_connection, test_ping_with_payload,
               test_truncated_header, test_truncated_payload,
               test_split_frame_is_fine, test_pipelined_requests,
               test_bystander_still_served])
finally:
    bystander.close()
    rc = srv.stop()
    srv.close()
    if rc != 0:
        print(f"server exit status {rc}")
        raise SystemExit(1)
