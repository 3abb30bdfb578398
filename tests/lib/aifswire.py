# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""The aifs wire format for the Python test peers (tests/servers/aifstest.py
and the VM guest's fake servers in tests/vm/): the constants and structs of
libproto/include/aifs/aifs_proto.h, crc32c, frames, the handshake proofs,
reading whole frames' bytes, a listener on loopback and a proxy that
spoils the replies of a real server.  Python standard library only, and
ISA-L's libisal (through ctypes) for the CRCs.
"""
import ctypes
import hashlib
import hmac
import socket
import struct
import threading

MAGIC = 0x53464941
VERSION = 1
OP_HELLO, OP_AUTH, OP_PING = 1, 2, 3
ROLE_CLIENT = 1
FLAG_REPLY, FLAG_PAYLOAD_CRC = 1, 2
MAX_PAYLOAD = (4 << 20) + (64 << 10)
HDR = struct.Struct("<IHHIIQQIIII")
HELLO_REQ = struct.Struct("<HHHH16s32s")
HELLO_REP = struct.Struct("<H6x16s32s")
AUTH_REP = struct.Struct("<32sQ")


# ISA-L's crc32_iscsi (the library libproto computes CRCs with, a suite
# dependency) rather than a table in Python: the proxy of
# read/06-hostile seals MiBs of replies, which Python's loop took seconds
# per MiB to do in a TCG guest, longer than the mount's timeo under load.
_ISAL = ctypes.CDLL("libisal.so.2")
_ISAL.crc32_iscsi.restype = ctypes.c_uint32
_ISAL.crc32_iscsi.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_uint32]


def crc32c(data):
    """The CRC32C of @data (bytes), as aifs_crc32c() computes it."""
    return _ISAL.crc32_iscsi(bytes(data), len(data), 0xFFFFFFFF) ^ 0xFFFFFFFF


def seal(fields, payload=b"", payload_len=None, payload_crc=None,
         hdr_crc=None):
    """The frame of header @fields (a list as HDR unpacks it) and @payload,
    with its length and CRCs computed unless forced to a value."""
    f = list(fields)
    if payload:
        f[3] |= FLAG_PAYLOAD_CRC
        if payload_crc is None:
            payload_crc = crc32c(payload)
    f[7] = len(payload) if payload_len is None else payload_len
    f[8] = payload_crc or 0
    f[10] = 0
    f[10] = crc32c(HDR.pack(*f)) if hdr_crc is None else hdr_crc
    return HDR.pack(*f) + payload


def frame(opcode, payload=b"", request_id=1, flags=0, status=0,
          version=VERSION, magic=MAGIC, payload_len=None, payload_crc=None,
          hdr_crc=None):
    """A frame; every field can be forced to a wrong value."""
    return seal([magic, version, opcode, flags, status, request_id, 0, 0, 0,
                 0, 0], payload, payload_len, payload_crc, hdr_crc)


def proof(secret, label, first, second, version=VERSION):
    """The HMAC-SHA256 handshake proof of aifs_auth_transcript()."""
    msg = label + first + second + struct.pack("<H", version)
    return hmac.new(secret, msg, hashlib.sha256).digest()


def recv_exact(sock, n):
    """@n bytes from @sock; EOFError when the stream ends before."""
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise EOFError
        buf += chunk
    return buf


def listen_loopback(port):
    """A socket listening on 127.0.0.1:@port; "ready" is printed once it
    is, which the guest tests wait for."""
    lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(("127.0.0.1", port))
    lsock.listen(16)
    print("ready", flush=True)
    return lsock


def _relay(src, dst, spoil):
    """Frames from @src to @dst, each as @spoil(fields, payload) makes it
    (bytes to send, b"" for none) when @spoil is set."""
    try:
        while True:
            f = list(HDR.unpack(recv_exact(src, HDR.size)))
            payload = recv_exact(src, f[7])
            dst.sendall(spoil(f, payload) if spoil else
                        HDR.pack(*f) + payload)
    except (EOFError, OSError):
        pass
    for s in (src, dst):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def spoiling_proxy(port, server, spoil):
    """Relay every connection to 127.0.0.1:@port to @server (host, port);
    the requests pass untouched (the handshake too, so no secret is
    needed), the server's frames through @spoil (see _relay)."""
    lsock = listen_loopback(port)
    while True:
        client, _ = lsock.accept()
        upstream = socket.create_connection(server)
        threading.Thread(target=_relay, args=(client, upstream, None),
                         daemon=True).start()
        threading.Thread(target=_relay, args=(upstream, client, spoil),
                         daemon=True).start()
