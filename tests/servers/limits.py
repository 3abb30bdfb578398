#!/usr/bin/env -S python3 -B
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Connection limit, work on the worker pool, and a clean stop on SIGTERM
and SIGINT with connections open and requests in flight.  A request is
"in flight" once the server's log says its PING is on a worker; the waits
for a close or an exit are safety nets (WAIT s, they return at once when
the event comes), time bounds are counted from the signal."""
import signal
import time

from aifstest import OP_PING, SLOW, Closed, Server, frame, run_tests

WAIT = 10 * SLOW        # a loaded machine runs the server late
IN_FLIGHT = "PING on a worker"


def test_connection_limit():
    with Server({"max_connections": "4"}) as srv:
        peers = [srv.peer() for _ in range(4)]
        for p in peers:
            p.handshake()
        extra = srv.peer()
        assert extra.closed(WAIT), "connection over the limit kept"
        assert "max_connections (4) reached" in srv.log_text()
        for p in peers:
            assert p.call(OP_PING)[0]["status"] == 0
        peers.pop().close()
        # The server notices the close on its next turn: until then a new
        # connection is closed (perhaps only after a while), so retry
        # until one completes a handshake.
        deadline = time.monotonic() + 3 * WAIT
        while True:
            try:
                p = srv.peer()
                p.handshake()
                break
            except (Closed, OSError):
                assert time.monotonic() < deadline, "no room after a close"
                time.sleep(0.05)
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
    """Idle peers do not hold the stop: it comes well before their
    io_timeout and handshake_timeout would end them."""
    with Server({"io_timeout": "60", "handshake_timeout": "60"}) as srv:
        peers = [srv.peer() for _ in range(3)]
        for p in peers[:2]:
            p.handshake()
        peers[2].hello()
        start = time.monotonic()
        assert srv.stop(timeout=WAIT) == 0
        assert time.monotonic() - start < WAIT, "slow to stop"
        for p in peers:
            assert p.closed(WAIT)
        assert "info: stopped\n" in srv.log_text(), "no \"stopped\" line"


def test_sigterm_answers_work_in_flight():
    with Server({"ping_on_worker": "yes", "ping_delay_ms": "500",
                 "io_timeout": "5", "log_level": "debug"}) as srv:
        busy, idle = srv.peer(), srv.peer()
        busy.handshake()
        idle.handshake()
        busy.send(frame(OP_PING, request_id=42))
        assert srv.log_says(IN_FLIGHT, WAIT), "the PING never ran"
        srv.proc.send_signal(signal.SIGTERM)
        hdr, _ = busy.recv_frame()
        assert hdr["request_id"] == 42 and hdr["status"] == 0, hdr
        assert busy.closed(WAIT) and idle.closed(WAIT)
        assert srv.proc.wait(WAIT) == 0


def test_sigint():
    with Server() as srv:
        p = srv.peer()
        p.handshake()
        assert srv.stop(signal.SIGINT) == 0
        assert p.closed(WAIT)


def test_stuck_peer_does_not_hold_shutdown():
    """A peer that never reads: the stop gives up on it io_timeout (1 s)
    after the signal, lets its handler finish, and exits.  The handler
    takes 6 s, so that the signal comes well before it ends even on a
    loaded machine (else nothing is still busy when the stop gives up)."""
    delay = 6
    with Server({"ping_on_worker": "yes", "ping_delay_ms": str(delay * 1000),
                 "io_timeout": "1", "log_level": "debug"}) as srv:
        p = srv.peer()
        p.handshake()
        p.send(frame(OP_PING, request_id=1))
        assert srv.log_says(IN_FLIGHT, WAIT), "the PING never ran"
        start = time.monotonic()
        assert srv.stop(timeout=3 * WAIT) == 0
        # The handler is let finish (no work is lost), then the exit.
        assert time.monotonic() - start < delay + 1 + WAIT
        assert "still busy" in srv.log_text(), \
            f"the stop did not give up on the peer:\n{srv.log_text()}"


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
        assert srv.log_says("does not read its replies", WAIT)
        p.sock.setblocking(True)
        assert p.closed(WAIT)
        assert srv.stop() == 0


run_tests([test_peer_not_reading_replies, test_connection_limit, test_worker_pool_replies_out_of_order,
           test_sigterm_idle_connections, test_sigterm_answers_work_in_flight,
           test_sigint, test_stuck_peer_does_not_hold_shutdown])
