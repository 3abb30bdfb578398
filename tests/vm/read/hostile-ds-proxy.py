#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A hostile data server: a proxy in front of a real aifs-ds that spoils
every CHUNK_READ reply.

Usage: hostile-ds-proxy.py MODE PORT DS_HOST DS_PORT

Listens on 127.0.0.1:PORT, prints "ready", and relays every connection to
the data server at DS_HOST:DS_PORT (tests/lib/aifswire.py's
spoiling_proxy).  CHUNK_READ replies are rewritten as MODE says:

  long        one byte of data more than asked (data_len too)
  short       one byte of data less (data_len too)
  chunk-len   chunk_len 2^31, above any chunk size
  version0    version 0 for a chunk with data
  opcode      another opcode
  req-id      a request id that was never sent
  crc         a wrong payload CRC
  huge-len    a declared payload of 4 GiB - 16 bytes, none sent
  err-payload status EIO with the payload kept
  errno512    status 512 (the kernel's ERESTARTSYS), no payload
  errno4095   status 4095, no payload
  silent      no reply at all
  none        (any other) nothing spoilt

Python standard library and aifswire (ISA-L for CRCs) only.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "lib"))
from aifswire import FLAG_PAYLOAD_CRC, seal, spoiling_proxy  # noqa: E402

OP_CHUNK_READ = 64
REP = struct.Struct("<QII")	# struct aifs_chunk_read_rep


def spoil_data(mode, payload):
    """The CHUNK_READ reply payload of MODE (None: not a payload mode)."""
    version, chunk_len, data_len = REP.unpack_from(payload)
    data = payload[REP.size:]
    if mode == "long":
        data_len, data = data_len + 1, data + b"x"
    elif mode == "short" and data:
        data_len, data = data_len - 1, data[:-1]
    elif mode == "chunk-len":
        chunk_len = 1 << 31
    elif mode == "version0":
        version = 0
    else:
        return None
    return REP.pack(version, chunk_len, data_len) + data


def spoil(mode, f, payload):
    """The bytes to send for the frame of header fields f and payload."""
    if f[2] != OP_CHUNK_READ:
        return seal(f, payload)
    if f[4] == 0 and payload:
        p = spoil_data(mode, payload)
        if p is not None:
            return seal(f, p)
    kw = {}
    if mode == "opcode":
        f[2] += 1
    elif mode == "req-id":
        f[5] += 1 << 40
    elif mode == "crc":
        kw["payload_crc"] = 0xDEADBEEF
    elif mode == "huge-len":
        return seal(f, b"", payload_len=0xFFFFFFF0)
    elif mode == "err-payload":
        f[4] = 5
    elif mode in ("errno512", "errno4095"):
        f[3] &= ~FLAG_PAYLOAD_CRC
        f[4], payload = int(mode[5:]), b""
    elif mode == "silent":
        return b""
    return seal(f, payload, **kw)


def main():
    mode, port = sys.argv[1], int(sys.argv[2])
    server = (sys.argv[3], int(sys.argv[4]))
    spoiling_proxy(port, server, lambda f, payload: spoil(mode, f, payload))


if __name__ == "__main__":
    main()
