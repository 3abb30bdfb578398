#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A metadata server whose connection breaks after a change: a proxy in
front of a real aifs-mds that, for every Nth reply to a request changing
the namespace, drops the reply and closes both connections.  The MDS has
applied and committed the change; the client has not heard of it, and
must send the request again on a new connection with the same request id
so that the MDS's reply cache answers it (a second mkdir would be EEXIST,
a second unlink ENOENT).

Usage: cutting-proxy.py N PORT MDS_HOST MDS_PORT

Listens on 127.0.0.1:PORT, prints "ready", relays every connection to the
MDS at MDS_HOST:MDS_PORT over TCP untouched (the handshake too: no secret
needed) and prints "cut OPCODE ID" for every reply it drops.

Python standard library and aifswire (ISA-L for CRCs) only.
"""
import os
import socket
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "lib"))
from aifswire import HDR, listen_loopback, recv_exact  # noqa: E402

# CREATE, MKDIR, UNLINK, RMDIR, RENAME
CHANGES = {19, 20, 22, 23, 24}
lock = threading.Lock()
replies = 0


def cut_here(opcode):
    """Whether to drop this reply: every Nth change."""
    global replies
    if opcode not in CHANGES:
        return False
    with lock:
        replies += 1
        return replies % int(sys.argv[1]) == 0


def close(*socks):
    for s in socks:
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def relay(src, dst, replies_from_mds):
    try:
        while True:
            hdr = recv_exact(src, HDR.size)
            f = HDR.unpack(hdr)
            payload = recv_exact(src, f[7])
            if replies_from_mds and cut_here(f[2]):
                print("cut", f[2], f[5], flush=True)
                break
            dst.sendall(hdr + payload)
    except (EOFError, OSError):
        pass
    close(src, dst)


def main():
    port, mds_addr = int(sys.argv[2]), (sys.argv[3], int(sys.argv[4]))
    lsock = listen_loopback(port)
    while True:
        client, _ = lsock.accept()
        try:
            mds = socket.create_connection(mds_addr)
        except OSError:
            client.close()
            continue
        threading.Thread(target=relay, args=(client, mds, False),
                         daemon=True).start()
        threading.Thread(target=relay, args=(mds, client, True),
                         daemon=True).start()


if __name__ == "__main__":
    main()
