#!/usr/bin/env -S python3 -B
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Config files and the secret: every mistake is a clear message naming
the file (and line) and a non-zero exit, never a server that runs."""
import os

from aifstest import Server, run_tests


def expect_refusal(lines, *messages, secret_mode=None):
    srv = Server(start=False)
    try:
        with open(srv.conf_path, "a") as f:
            f.write("".join(line + "\n" for line in lines))
        if secret_mode is not None:
            os.chmod(srv.secret_path, secret_mode)
        rc, out = srv.run()
        assert rc != 0, f"exit status 0 for {lines}"
        for message in messages:
            assert message.replace("CONF", srv.conf_path) \
                .replace("SECRET", srv.secret_path) in out, out
    finally:
        srv.close()


# The temporary config holds 6 lines of defaults before what a test adds.
def test_unknown_key():
    expect_refusal(["bogus = 1"], "CONF:7: unknown setting 'bogus'")


def test_out_of_range():
    expect_refusal(["# comment", "max_connections = 0"],
                   "CONF:8: max_connections = 0 is out of range [1, 1000000]")


def test_not_a_number():
    expect_refusal(["max_inflight = many"],
                   "CONF:7: max_inflight = 'many' is not an integer")


def test_bad_enum():
    expect_refusal(["log_level = loud"],
                   "CONF:7: log_level = 'loud': must be one of error warn info debug")


def test_set_twice():
    expect_refusal(["io_timeout = 3"], "CONF:7: io_timeout is set twice")


def test_section():
    expect_refusal(["[server]", "listen_port = 1"],
                   "CONF:8: no sections are used: [server]")


def test_syntax_error():
    expect_refusal(["just words"], "CONF:7: expected 'name = value'")


def test_every_error_reported():
    expect_refusal(["bogus = 1", "max_inflight = 0"],
                   "CONF:7: unknown setting 'bogus'",
                   "CONF:8: max_inflight = 0 is out of range")


def test_missing_file():
    srv = Server(start=False)
    try:
        os.unlink(srv.conf_path)
        rc, out = srv.run()
        assert rc != 0 and f"config file {srv.conf_path}: No such file" in out, out
    finally:
        srv.close()


def test_secret_readable_by_others():
    expect_refusal([], "secret file SECRET is readable by others",
                   secret_mode=0o604)


def test_secret_missing():
    srv = Server(start=False)
    try:
        os.unlink(srv.secret_path)
        rc, out = srv.run()
        assert rc != 0 and "No such file" in out, out
    finally:
        srv.close()


def test_secret_too_short():
    srv = Server(secret=b"short", start=False)
    try:
        rc, out = srv.run()
        assert rc != 0 and "must hold 16 to 256 bytes, not 5" in out, out
    finally:
        srv.close()


def test_port_in_use():
    with Server() as first:
        srv = Server({"listen_port": str(first.port)}, start=False)
        try:
            rc, out = srv.run()
            assert rc != 0 and "cannot listen on 127.0.0.1 port" in out, out
        finally:
            srv.close()


def test_print_config_round_trip():
    srv = Server({"max_connections": "77", "log_level": "debug"},
                 start=False)
    try:
        rc, printed = srv.run("--print-config")
        assert rc == 0 and "max_connections = 77\n" in printed, printed
        assert "log_level = debug\n" in printed and "ping_delay_ms = 0\n" \
            in printed, printed
        with open(srv.conf_path, "w") as f:
            f.write(printed)
        rc, again = srv.run("--print-config")
        assert rc == 0 and again == printed, again
    finally:
        srv.close()


def test_bad_argument():
    srv = Server(start=False)
    try:
        rc, out = srv.run("--no-such-option")
        assert rc != 0 and "usage:" in out, out
    finally:
        srv.close()


run_tests([test_unknown_key, test_out_of_range, test_not_a_number,
           test_bad_enum, test_set_twice, test_section, test_syntax_error,
           test_every_error_reported, test_missing_file,
           test_secret_readable_by_others, test_secret_missing,
           test_secret_too_short, test_port_in_use,
           test_print_config_round_trip, test_bad_argument])
