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

Python standard library only.
"""
import hashlib
import hmac
import os
import socket
import struct
import sys

MAGIC = 0x53464941
VERSION = 1
OP_HELLO, OP_AUTH, OP_PING = 1, 2, 3
FLAG_REPLY, FLAG_PAYLOAD_CRC = 1, 2
EPROTONOSUPPORT, EIO = 93, 5
HDR = struct.Struct("<IHHIIQQIIII")
HELLO_REQ = struct.Struct("<HHHH16s32s")
HELLO_REP = struct.Struct("<H6x16s32s")
AUTH_REP = struct.Struct("<32sQ")


def _crc_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


CRC_TABLE = _crc_table()


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = CRC_TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def frame(opcode, payload=b"", request_id=0, flags=FLAG_REPLY, status=0,
          payload_len=None, payload_crc=None, hdr_crc=None):
    if payload:
        flags |= FLAG_PAYLOAD_CRC
        if payload_crc is None:
            payload_crc = crc32c(payload)
    fields = [MAGIC, VERSION, opcode, flags, status, request_id, 0,
              len(payload) if payload_len is None else payload_len,
              payload_crc or 0, 0, 0]
    fields[-1] = crc32c(HDR.pack(*fields)) if hdr_crc is None else hdr_crc
    return HDR.pack(*fields) + payload


def recv_exact(conn, n):
    buf = b""
    while len(buf) < n:
        chunk = conn.recv(n - len(buf))
        if not chunk:
            raise EOFError
        buf += chunk
    return buf


def recv_frame(conn):
    hdr = HDR.unpack(recv_exact(conn, HDR.size))
    return hdr[2], hdr[5], recv_exact(conn, hdr[7])     # opcode, id, payload


def proof(secret, label, first, second):
    msg = label + first + second + struct.pack("<H", VERSION)
    return hmac.new(secret, msg, hashlib.sha256).digest()


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
        "oversize": lambda: frame(OP_HELLO, request_id=rid,
                                  payload_len=0xFFFFFFF0),
        "too-long": lambda: frame(OP_HELLO, good + bytes(1000 - len(good)),
                                  request_id=rid),
        "bad-crc": lambda: frame(OP_HELLO, good, request_id=rid,
                                 payload_crc=crc32c(good) ^ 1),
        "bad-hdr-crc": lambda: frame(OP_HELLO, good, request_id=rid,
                                     hdr_crc=0xDEADBEEF),
        "not-reply": lambda: frame(OP_HELLO, good, request_id=rid, flags=0),
        "unknown-id": lambda: frame(OP_HELLO, good, request_id=rid + 1000),
        "wrong-opcode": lambda: frame(OP_PING, good, request_id=rid),
        "status-payload": lambda: frame(OP_HELLO, good, request_id=rid,
                                        status=EIO),
        "truncated": lambda: frame(OP_HELLO, good, request_id=rid)[:60],
        "short-hello": lambda: frame(OP_HELLO, good[:40], request_id=rid),
        "bad-version": lambda: frame(OP_HELLO,
                                     HELLO_REP.pack(7, bytes(16), nonce_s),
                                     request_id=rid),
        "no-version": lambda: frame(OP_HELLO, request_id=rid,
                                    status=EPROTONOSUPPORT),
    }
    if mode in bad:
        conn.sendall(bad[mode]())
        if mode != "truncated":
            while conn.recv(4096):      # keep the stream open until closed
                pass
        return
    conn.sendall(frame(OP_HELLO, good, request_id=rid))

    op, rid, payload = recv_frame(conn)
    assert op == OP_AUTH and len(payload) == 32
    if payload != proof(secret, b"aifs-auth-client", nonce_c, nonce_s):
        conn.sendall(frame(OP_AUTH, request_id=rid, status=13))   # EACCES
        return
    proof_s = proof(secret, b"aifs-auth-server", nonce_s, nonce_c)
    if mode == "wrong-proof":
        proof_s = bytes(b ^ 0x55 for b in proof_s)
    conn.sendall(frame(OP_AUTH, AUTH_REP.pack(proof_s, 0x5eed),
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
    lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(("127.0.0.1", port))
    lsock.listen(16)
    print("ready", flush=True)
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
