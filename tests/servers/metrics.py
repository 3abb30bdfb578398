#!/usr/bin/env -S python3 -B
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""GET /metrics of an aifs-mds and an aifs-ds (Documentation/metrics.md):
the text parses as the Prometheus exposition format (prometheus_client's
own parser), counters move by exactly the requests the test sends,
histograms are whole (cumulative buckets ending in +Inf, _count equal to
aifs_requests_total), gauges are sane, other paths are 404 (other methods
405), a server stops cleanly on SIGTERM while scrapes are in progress,
and a metrics port in use stops a server at start."""
import http.client
import os
import signal
import socket
import struct
import sys
import threading
import time

from aifstest import HDR, SLOW, Server, run_tests
from aifsservers import ClusterNode, skip

try:
    from prometheus_client.parser import text_string_to_metric_families
except ImportError:
    # Debian's python3-prometheus-client, for a python3 that is not
    # Debian's own (pyenv, a venv)
    sys.path.append("/usr/lib/python3/dist-packages")
    try:
        from prometheus_client.parser import text_string_to_metric_families
    except ImportError:
        skip("python3 cannot import prometheus_client "
             "(Debian package python3-prometheus-client)")

OP_MAP_GET, OP_DS_STATFS, OP_DS_SCRUB = 48, 70, 71
PINGS, STATFS, SCRUBS = 7, 5, 3
OK, EINVAL = 0, 22


def scrape(node, path="/metrics", method="GET"):
    """(status, content type, body) of a GET (or @method)."""
    c = http.client.HTTPConnection("127.0.0.1", node.metrics_port,
                                   timeout=5 * SLOW)
    try:
        c.request(method, path)
        r = c.getresponse()
        return r.status, r.getheader("Content-Type"), r.read().decode()
    finally:
        c.close()


def samples(node):
    """{(sample name, frozenset of labels): value}, parsed by
    prometheus_client; every family has its HELP and TYPE."""
    status, ctype, text = scrape(node)
    assert status == 200, status
    assert ctype.startswith("text/plain; version=0.0.4"), ctype
    out = {}
    for family in text_string_to_metric_families(text):
        assert family.documentation, f"{family.name} has no HELP"
        assert family.type != "unknown", f"{family.name} has no TYPE"
        for s in family.samples:
            key = (s.name, frozenset(s.labels.items()))
            assert key not in out, f"{key} twice"
            out[key] = s.value
    return out


def value(m, name, **labels):
    return m[(name, frozenset(labels.items()))]


def check_histograms(m):
    """Every request histogram: cumulative, +Inf last, the count equal to
    the +Inf bucket and to aifs_requests_total."""
    ops = {dict(k[1])["op"] for k in m
           if k[0] == "aifs_request_duration_seconds_count"}
    assert ops
    for op in ops:
        buckets = sorted((float(dict(k[1])["le"]), v) for k, v in m.items()
                         if k[0] == "aifs_request_duration_seconds_bucket"
                         and dict(k[1])["op"] == op)
        assert buckets[-1][0] == float("inf"), (op, buckets)
        counts = [v for _, v in buckets]
        assert counts == sorted(counts), (op, buckets)
        count = value(m, "aifs_request_duration_seconds_count", op=op)
        assert counts[-1] == count, (op, counts[-1], count)
        assert value(m, "aifs_requests_total", op=op) == count, op
        assert value(m, "aifs_request_duration_seconds_sum", op=op) >= 0


def check_common(m, node):
    check_histograms(m)
    assert value(m, "aifs_build_info", server=node.prog, protocol_min="1",
                 protocol_max="1") == 1
    assert value(m, "aifs_uptime_seconds") > 0
    assert abs(value(m, "aifs_start_time_seconds") - time.time()) < 600
    assert value(m, "aifs_worker_threads", pool="workers") == 4
    for pool in ("workers", "peer"):
        assert value(m, "aifs_work_queue_depth", pool=pool) >= 0
        assert 0 <= value(m, "aifs_workers_busy", pool=pool) <= \
            value(m, "aifs_worker_threads", pool=pool)


def delta(before, after, name, **labels):
    return value(after, name, **labels) - value(before, name, **labels)


def work(node, extra):
    """PINGS good PINGs, one bad one (EINVAL), and @extra calls
    [(opcode, payload, status)] on one connection; its bytes."""
    peer = node.peer()
    sent = 0
    calls = [(3, b"", OK)] * PINGS + [(3, b"x", EINVAL)] + extra
    try:
        peer.handshake()
        for opcode, payload, status in calls:
            hdr, _ = peer.call(opcode, payload)
            assert hdr["status"] == status, (opcode, hdr)
            sent += HDR.size + len(payload)
    finally:
        peer.close()
    return sent


def check_counters(before, after, op, requests, errors):
    assert delta(before, after, "aifs_requests_total", op=op) == requests
    assert delta(before, after, "aifs_request_errors_total", op=op) == errors
    assert delta(before, after, "aifs_request_duration_seconds_count",
                 op=op) == requests


def test_mds_metrics():
    mds = NODES["mds"]
    before = samples(mds)
    work(mds, [(OP_MAP_GET, struct.pack("<Q", 0), OK)])
    after = samples(mds)
    check_common(after, mds)
    check_counters(before, after, "PING", PINGS + 1, 1)
    assert delta(before, after, "aifs_received_bytes_total") > 0
    assert delta(before, after, "aifs_sent_bytes_total") > 0
    assert value(after, "aifs_map_epoch") >= 1
    assert value(after, "aifs_mds_data_servers", state="UP") == 1
    assert value(after, "aifs_mds_data_servers", state="OFFLINE") == 0
    assert value(after, "aifs_mds_inodes") >= 1         # the root
    assert value(after, "aifs_mds_archive_queue") == 0
    used = value(after, "aifs_mds_lmdb_used_bytes")
    assert 0 < used <= value(after, "aifs_mds_lmdb_map_size_bytes")
    assert value(after, "aifs_mds_lmdb_file_bytes") > 0


def test_ds_metrics():
    ds = NODES["ds"]
    before = samples(ds)
    extra = [(OP_DS_STATFS, b"", OK)] * STATFS + \
        [(OP_DS_SCRUB, struct.pack("<II", 0, 0), OK)] * SCRUBS
    sent = work(ds, extra)
    after = samples(ds)
    check_common(after, ds)
    check_counters(before, after, "PING", PINGS + 1, 1)
    check_counters(before, after, "DS_STATFS", STATFS, 0)
    check_counters(before, after, "DS_SCRUB", SCRUBS, 0)
    assert delta(before, after, "aifs_received_bytes_total") >= sent
    assert delta(before, after, "aifs_connections_accepted_total") >= 1
    cap = value(after, "aifs_ds_capacity_bytes")
    free = value(after, "aifs_ds_free_bytes")
    assert cap > 0 and 0 <= value(after, "aifs_ds_available_bytes") <= \
        free <= cap, (cap, free)
    assert value(after, "aifs_ds_chunks") == 0
    assert value(after, "aifs_ds_scrub_running") in (0, 1)
    assert value(after, "aifs_ds_scrub_passes_total") >= 0
    assert value(after, "aifs_ds_resync_queue") == 0
    assert value(after, "aifs_ds_serving") == 1
    assert value(after, "aifs_ds_forwards_total") == 0
    # the map it fetched when it registered
    assert value(after, "aifs_map_epoch") >= 1


def test_not_found():
    for node in NODES.values():
        status, _, _ = scrape(node, "/")
        assert status == 404, status
        status, _, _ = scrape(node, "/metrics/x")
        assert status == 404, status
        status, _, _ = scrape(node, method="POST")
        assert status == 405, status


def scraping(node, stop, errors):
    """Scrape until @stop; a refused or cut connection ends it too."""
    while not stop.is_set():
        try:
            scrape(node)
        except (OSError, http.client.HTTPException):
            return
        except Exception as e:          # noqa: BLE001 (reported)
            errors.append(e)
            return


def test_stop_while_scraping():
    """SIGTERM with one scrape half-sent and others running: exit 0,
    in time, and the half-sent one is closed."""
    for name in ("ds", "mds"):
        node = NODES[name]
        half = socket.create_connection(("127.0.0.1", node.metrics_port))
        half.sendall(b"GET /metrics HTTP/1.1\r\nHost: aifs\r\n")
        stop, errors = threading.Event(), []
        threads = [threading.Thread(target=scraping,
                                    args=(node, stop, errors))
                   for _ in range(2)]
        for t in threads:
            t.start()
        time.sleep(0.2)
        status = node.stop(signal.SIGTERM, timeout=10)
        stop.set()
        for t in threads:
            t.join()
        assert status == 0, f"{name}: exit {status}\n{node.log_text()}"
        half.settimeout(2)
        assert half.recv(1) == b"", "the half-sent scrape is still open"
        half.close()
        assert not errors, errors


def test_port_taken():
    """A metrics port in use stops the server at start, as a listen_port
    would (the echo server: the runtime alone)."""
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        srv = Server({"metrics_address": "127.0.0.1",
                      "metrics_port": str(port)}, start=False)
        try:
            rc, out = srv.run()
        finally:
            srv.close()
    assert rc != 0, out
    assert f"metrics: cannot listen on 127.0.0.1 port {port}" in out, out


NODES = {}


def main():
    with ClusterNode.mds({"heartbeat_ms": "100"}) as mds, \
         ClusterNode.ds(mds, {"worker_threads": "4"}) as ds:
        NODES.update(mds=mds, ds=ds)
        deadline = time.monotonic() + 10 * SLOW
        while value(samples(mds), "aifs_mds_data_servers", state="UP") != 1:
            assert time.monotonic() < deadline, "the DS did not come up"
            time.sleep(0.05)
        run_tests([test_mds_metrics, test_ds_metrics, test_not_found,
                   test_stop_while_scraping, test_port_taken])


if __name__ == "__main__":
    main()
