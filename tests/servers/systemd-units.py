#!/usr/bin/env -S python3 -B
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""scripts/systemd/*.service, run by a systemd-like supervisor
(minisystemd.py) as systemd would run them: Type=notify (READY=1 once the
port answers, STOPPING=1 and exit 0 on KillSignal=), Restart=on-failure
(SIGKILL: started again, READY=1 again; a clean stop: not).  Then
systemd-analyze verify of the units, with their binaries at build/bin."""
import http.client
import os
import shutil
import subprocess
import tempfile

from aifstest import BUILD, SLOW, TOP, run_tests
from aifsservers import ClusterNode, free_port
from minisystemd import Service, Unit

UNITS = os.path.join(TOP, "scripts", "systemd")
# RestartSec=2 of the units, scaled down to keep the test short
RESTART_SCALE = 0.05


def answers(node):
    """The aifs port takes a handshake and a PING, the metrics port a
    scrape: at once, without retrying."""
    peer = node.peer()
    try:
        peer.handshake()
        hdr, _ = peer.call(3)
        assert hdr["status"] == 0, hdr
    finally:
        peer.close()
    c = http.client.HTTPConnection("127.0.0.1", node.metrics_port, timeout=5)
    try:
        c.request("GET", "/metrics")
        assert c.getresponse().status == 200
    finally:
        c.close()


def supervised(node, unit_name, instance, installed_conf):
    """@node run by unit @unit_name: its ExecStart= with the installed
    binary and config mapped to the test's."""
    unit = Unit(os.path.join(UNITS, unit_name), instance)
    assert unit.type == "notify" and unit.restart == "on-failure", unit_name
    assert unit.restart_sec == 2, unit.restart_sec
    paths = {f"/usr/sbin/{node.prog}": node.bin, installed_conf: node.conf_path}
    argv = unit.argv(paths)
    assert argv == [node.bin, "-c", node.conf_path], argv
    node.port = int(node.conf["listen_port"])
    node.log = open(node.log_path, "a")
    return Service(unit, paths, node.log, restart_scale=RESTART_SCALE)


def check_service(node, svc):
    assert svc.start(10 * SLOW), "no READY=1:\n" + node.log_text()
    answers(node)
    said, status = svc.stop(10 * SLOW)
    assert said, "no STOPPING=1"
    assert status == 0, f"exit {status}:\n{node.log_text()}"

    # Restart=on-failure: SIGKILL is a failure, a clean stop is not.
    assert svc.start(10 * SLOW), "no READY=1 the second time"
    svc.proc.kill()
    assert svc.wait_readies(3, 10 * SLOW), "not restarted after SIGKILL"
    assert svc.starts == 3, svc.starts
    answers(node)
    said, status = svc.stop(10 * SLOW)
    assert said and status == 0, (said, status)
    svc.monitor.join(5)
    assert svc.starts == 3, "restarted after a clean stop"


def test_mds_unit():
    node = ClusterNode.mds({"listen_port": str(free_port())})
    svc = supervised(node, "aifs-mds.service", None, "/etc/aifs/mds.conf")
    try:
        check_service(node, svc)
    finally:
        svc.close()
        node.close()


def test_ds_unit():
    node = ClusterNode("aifs-ds", {"listen_port": str(free_port()),
                                   "ds_id": "1", "peers": "none"})
    node.conf.update(data_dir=node.path("data"),
                     fs_uuid="2b1f0e8e-4a53-4a8e-9c4b-5d6e7f809102")
    os.mkdir(node.path("data"))
    node.write_conf()
    svc = supervised(node, "aifs-ds@.service", "nvme0",
                     "/etc/aifs/ds-nvme0.conf")
    try:
        check_service(node, svc)
    finally:
        svc.close()
        node.close()


def test_analyze_verify():
    """systemd-analyze verify of copies whose ExecStart= names build/bin
    (this host has no /usr/sbin/aifs-*)."""
    if not shutil.which("systemd-analyze"):
        print("no systemd-analyze: not verified")
        return
    with tempfile.TemporaryDirectory() as d:
        for name in ("aifs-mds.service", "aifs-ds@.service"):
            with open(os.path.join(UNITS, name)) as f:
                text = f.read().replace("/usr/sbin/",
                                        os.path.join(BUILD, "bin") + "/")
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        os.symlink("aifs-ds@.service", os.path.join(d, "aifs-ds@nvme0.service"))
        p = subprocess.run(["systemd-analyze", "verify", "--man=no",
                            os.path.join(d, "aifs-mds.service"),
                            os.path.join(d, "aifs-ds@nvme0.service")],
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 0 and "aifs" not in p.stdout + p.stderr, \
            p.stdout + p.stderr


if __name__ == "__main__":
    run_tests([test_mds_unit, test_ds_unit, test_analyze_verify])
