#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A hostile aifs metadata server for the module's VM tests.

Usage: fake-server.py MODE PORT [SECRET]

Listens on 127.0.0.1:PORT, prints "ready" once listening, and answers every
connection the way MODE says: a correct handshake followed by something
wrong, or something wrong from the start.  Modes:

  silent          read everything, never answer
  mute-after-auth correct handshake, then never answer (a PING times out)
  garbage         48 random bytes in reply to HELLO
  oversize        a valid header announcing a 4 GiB payload
  too-long        a valid HELLO reply with 1000 bytes of payload
  bad-crc         a HELLO reply whose payload CRC is wrong
  bad-hdr-crc     a HELLO reply whose header CRC is wrong
  not-reply       a HELLO "reply" without the reply flag
  unknown-id      a HELLO reply to a request id never sent
  wrong-opcode    a PING reply to HELLO
  status-payload  an error status with a payload
  truncated       half a HELLO reply, then the end of the stream
  short-hello     a well-framed HELLO reply of 40 bytes
  bad-version     a HELLO reply choosing protocol version 7
  no-version      HELLO answered with EPROTONOSUPPORT
  wrong-proof     correct HELLO, an AUTH reply with a wrong server proof

Python standard library and aifswire (ISA-L for CRCs) only.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "lib"))
from aifswire import (AUTH_REP, FLAG_REPLY, HDR, HELLO_REP,  # noqa: E402
                      HELLO_REQ, OP_AUTH, OP_HELLO, OP_PING, VERSION, crc32c,
                      frame, listen_loopback, proof, recv_exact)

EPROTONOSUPPORT, EIO = 93, 5


def reply(opcode, payload=b"", flags=FLAG_REPLY, **kw):
    """A reply frame to send: aifswire.frame() flagged as a reply."""
    return frame(opcode, payload, flags=flags, **kw)


def recv_frame(conn):
    hdr = HDR.unpack(recv_exact(conn, HDR.size))
    return hdr[2], hdr[5], recv_exact(conn, hdr[7])     # opcode, id, payload


def hello_reply(nonce_s):
    return HELLO_REP.pack(VERSION, bytes(16), nonce_s)


def serve(conn, mode, secret):
    if mode == "silent":
        while conn.recv(4096):
            pass
        return
    op, rid, payload = recv_frame(conn)
    assert op == OP_HELLO and len(payload) == HELLO_REQ.size
    nonce_c = HELLO_REQ.unpack(payload)[5]
    nonce_s = os.urandom(32)
    good = hello_reply(nonce_s)
    bad = {
        "garbage": lambda: os.urandom(HDR.size),
        "oversize": lambda: reply(OP_HELLO, request_id=rid,
                                  payload_len=0xFFFFFFF0),
        "too-long": lambda: reply(OP_HELLO, good + bytes(1000 - len(good)),
                                  request_id=rid),
        "bad-crc": lambda: reply(OP_HELLO, good, request_id=rid,
                                 payload_crc=crc32c(good) ^ 1),
        "bad-hdr-crc": lambda: reply(OP_HELLO, good, request_id=rid,
                                     hdr_crc=0xDEADBEEF),
        "not-reply": lambda: reply(OP_HELLO, good, request_id=rid, flags=0),
        "unknown-id": lambda: reply(OP_HELLO, good, request_id=rid + 1000),
        "wrong-opcode": lambda: reply(OP_PING, good, request_id=rid),
        "status-payload": lambda: reply(OP_HELLO, good, request_id=rid,
                                        status=EIO),
        "truncated": lambda: reply(OP_HELLO, good, request_id=rid)[:60],
        "short-hello": lambda: reply(OP_HELLO, good[:40], request_id=rid),
        "bad-version": lambda: reply(OP_HELLO,
                                     HELLO_REP.pack(7, bytes(16), nonce_s),
                                     request_id=rid),
        "no-version": lambda: reply(OP_HELLO, request_id=rid,
                                    status=EPROTONOSUPPORT),
    }
    if mode in bad:
        conn.sendall(bad[mode]())
        if mode != "truncated":
            while conn.recv(4096):      # keep the stream open until closed
                pass
        return
    conn.sendall(reply(OP_HELLO, good, request_id=rid))

    op, rid, payload = recv_frame(conn)
    assert op == OP_AUTH and len(payload) == 32
    if payload != proof(secret, b"aifs-auth-client", nonce_c, nonce_s):
        conn.sendall(reply(OP_AUTH, request_id=rid, status=13))   # EACCES
        return
    proof_s = proof(secret, b"aifs-auth-server", nonce_s, nonce_c)
    if mode == "wrong-proof":
        proof_s = bytes(b ^ 0x55 for b in proof_s)
    conn.sendall(reply(OP_AUTH, AUTH_REP.pack(proof_s, 0x5eed),
                       request_id=rid))
    if mode == "wrong-proof":
        while conn.recv(4096):
            pass
        return
    assert mode == "mute-after-auth", mode
    while conn.recv(4096):
        pass


def main():
    mode, port = sys.argv[1], int(sys.argv[2])
    secret = (sys.argv[3] if len(sys.argv) > 3 else "secret").encode()
    lsock = listen_loopback(port)
    while True:
        conn, _ = lsock.accept()
        try:
            serve(conn, mode, secret)
        except (EOFError, ConnectionError):
            pass
        finally:
            conn.close()


if __name__ == "__main__":
    main()
