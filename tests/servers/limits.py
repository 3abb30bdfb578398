#!/usr/bin/env -S python3 -B
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Connection limit, work on the worker pool, and a clean stop on SIGTERM
and SIGINT with connections open and requests in flight."""
import signal
import time

from aifstest import OP_PING, SLOW, Server, frame, run_tests


def test_connection_limit():
    with Server({"max_connections": "4"}) as srv:
        peers = [srv.peer() for _ in range(4)]
        for p in peers:
            p.handshake()
        extra = srv.peer()
        assert extra.closed(2 * SLOW), "connection over the limit kept"
        assert "max_connections (4) reached" in srv.log_text()
        for p in peers:
            assert p.call(OP_PING)[0]["status"] == 0
        peers.pop().close()
        # The server notices the close on its next turn: retry, bounded.
        for _ in range(50):
            p = srv.peer()
            if not p.closed(0.1):
                break
            time.sleep(0.05)
        p.handshake()
        assert p.call(OP_PING)[0]["status"] == 0
        assert srv.stop() == 0


def test_worker_pool_replies_out_of_order():
    """A slow PING overtaken by a fast one: replies go by request id."""
    with Server({"ping_on_worker": "yes", "ping_delay_ms": "200"}) as srv:
        p = srv.peer()
        p.handshake()
        p.send(frame(OP_PING, request_id=1))
        p.send(frame(OP_PING, b"bad", request_id=2))
        first, _ = p.recv_frame()
        second, _ = p.recv_frame()
        assert first["request_id"] == 2 and first["status"] != 0, first
        assert second["request_id"] == 1 and second["status"] == 0, second
        assert srv.stop() == 0


def test_sigterm_idle_connections():
    with Server() as srv:
        peers = [srv.peer() for _ in range(3)]
        for p in peers[:2]:
            p.handshake()
        peers[2].hello()
        start = time.monotonic()
        assert srv.stop() == 0
        assert time.monotonic() - start < 1 * SLOW, "slow to stop"
        for p in peers:
            assert p.closed(1 * SLOW)
        assert "stopped" in srv.log_text()


def test_sigterm_answers_work_in_flight():
    with Server({"ping_on_worker": "yes", "ping_delay_ms": "500",
                 "io_timeout": "5"}) as srv:
        busy, idle = srv.peer(), srv.peer()
        busy.handshake()
        idle.handshake()
        busy.send(frame(OP_PING, request_id=42))
        time.sleep(0.1)
        srv.proc.send_signal(signal.SIGTERM)
        hdr, _ = busy.recv_frame()
        assert hdr["request_id"] == 42 and hdr["status"] == 0, hdr
        assert busy.closed(2 * SLOW) and idle.closed(2 * SLOW)
        assert srv.proc.wait(3 * SLOW) == 0


def test_sigint():
    with Server() as srv:
        p = srv.peer()
        p.handshake()
        assert srv.stop(signal.SIGINT) == 0
        assert p.closed(1 * SLOW)


def test_stuck_peer_does_not_hold_shutdown():
    """A peer that never reads: the stop waits io_timeout at most."""
    with Server({"ping_on_worker": "yes", "ping_delay_ms": "3000",
                 "io_timeout": "1"}) as srv:
        p = srv.peer()
        p.handshake()
        p.send(frame(OP_PING, request_id=1))
        time.sleep(0.1)
        start = time.monotonic()
        assert srv.stop(timeout=10) == 0
        # The handler is let finish (no work is lost), then the exit.
        assert time.monotonic() - start < 5 * SLOW
        assert "still busy" in srv.log_text()


def test_peer_not_reading_replies():
    """Back-pressure stops reading from a peer that leaves its replies
    unread; io_timeout later it is cut off."""
    with Server({"io_timeout": "1", "output_limit_kib": "64"}) as srv:
        p = srv.peer(rcvbuf=4096)
        p.handshake()
        p.sock.setblocking(False)
        pings = frame(OP_PING) * 1000
        pushed_back = False
        for _ in range(2000):           # at most 96 MB of requests
            try:
                p.sock.send(pings)
            except BlockingIOError:
                pushed_back = True
                break
        assert pushed_back, "server kept reading a peer that never reads"
        assert srv.log_says("does not read its replies", 10)
        p.sock.setblocking(True)
        assert p.closed(2 * SLOW)
        assert srv.stop() == 0


run_tests([test_peer_not_reading_replies, test_connection_limit, test_worker_pool_replies_out_of_order,
           test_sigterm_idle_connections, test_sigterm_answers_work_in_flight,
           test_sigint, test_stuck_peer_does_not_hold_shutdown])
