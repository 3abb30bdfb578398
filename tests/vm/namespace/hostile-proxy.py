#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A hostile metadata server for the namespace: a proxy in front of a real
aifs-mds that spoils one kind of reply.

Usage: hostile-proxy.py MODE PORT MDS_HOST MDS_PORT

Listens on 127.0.0.1:PORT, prints "ready", and relays every connection to
the MDS at MDS_HOST:MDS_PORT over TCP; the handshake passes untouched, so
the proxy needs no secret.  Replies are rewritten (CRCs recomputed) as MODE
says:

  root-notype   GETATTR of the root: a mode without a file type
  root-ino0     GETATTR of the root: inode number 0
  nlink         LOOKUP: the entry's nlink 0xffffffff
  retype        GETATTR of any other inode: a regular file becomes a FIFO
  errno512      LOOKUP: status 512 (the kernel's ERESTARTSYS)
  errno4095     LOOKUP: status 4095
  short         LOOKUP: the payload cut by 8 bytes
  rd-noeof      READDIR: the EOF flag cleared
  rd-cookie     READDIR: every cookie 1, EOF cleared (would loop forever)
  rd-slash      READDIR: a '/' in the first name
  link-nul      READLINK: a NUL in the target
  xattr-size    GETXATTR: size larger than the value sent
  acl-perm      GETXATTR of a POSIX ACL: permissions 0x100 in its first entry

Python standard library and aifswire (ISA-L for CRCs) only.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "lib"))
from aifswire import FLAG_PAYLOAD_CRC, seal, spoiling_proxy  # noqa: E402

OP_LOOKUP, OP_GETATTR, OP_READLINK, OP_READDIR, OP_GETXATTR = 16, 17, 27, 28, 30
ATTR_SIZE, DIRENT_SIZE = 136, 152
# offsets in struct aifs_attr
A_INO, A_MODE, A_NLINK = 0, 104, 108


def put32(buf, off, value):
    struct.pack_into("<I", buf, off, value)


def spoil(mode, op, status, payload):
    """The (status, payload) to send instead."""
    p = bytearray(payload)
    if status or not p:
        return status, payload
    ino = struct.unpack_from("<Q", p, 0)[0] if len(p) >= 8 else 0
    if op == OP_GETATTR and ino == 1:
        if mode == "root-notype":
            put32(p, A_MODE, 0o755)
        elif mode == "root-ino0":
            struct.pack_into("<Q", p, A_INO, 0)
    elif op == OP_GETATTR and mode == "retype":
        m = struct.unpack_from("<I", p, A_MODE)[0]
        if m & 0o170000 == 0o100000:
            put32(p, A_MODE, 0o010000 | (m & 0o7777))
    elif op == OP_LOOKUP:
        if mode == "nlink":
            put32(p, ATTR_SIZE + A_NLINK, 0xFFFFFFFF)
        elif mode == "errno512":
            return 512, b""
        elif mode == "errno4095":
            return 4095, b""
        elif mode == "short":
            del p[-8:]
    elif op == OP_READDIR:
        count, flags = struct.unpack_from("<II", p, 0)
        if mode == "rd-noeof":
            put32(p, 4, 0)
        elif mode == "rd-cookie":
            put32(p, 4, 0)
            off = 16
            for _ in range(count):
                struct.pack_into("<Q", p, off, 1)
                name_len = struct.unpack_from("<H", p, off + 8 + ATTR_SIZE)[0]
                off += DIRENT_SIZE + name_len
        elif mode == "rd-slash" and count:
            p[16 + DIRENT_SIZE] = ord("/")
    elif op == OP_READLINK and mode == "link-nul":
        p[8] = 0
    elif op == OP_GETXATTR and mode == "xattr-size":
        put32(p, 0, struct.unpack_from("<I", p, 0)[0] + 1)
    elif op == OP_GETXATTR and mode == "acl-perm" and len(p) >= 20 and \
            p[8:12] == b"\x02\0\0\0":
        struct.pack_into("<H", p, 14, 0x100)
    return status, bytes(p)


def main():
    mode, port = sys.argv[1], int(sys.argv[2])
    mds_addr = (sys.argv[3], int(sys.argv[4]))

    def spoil_frame(f, payload):
        f[4], payload = spoil(mode, f[2], f[4], payload)
        f[3] &= ~FLAG_PAYLOAD_CRC
        return seal(f, payload)

    spoiling_proxy(port, mds_addr, spoil_frame)


if __name__ == "__main__":
    main()
