# SPDX-License-Identifier: GPL-2.0
"""Helpers of the namespace VM tests: renameat2(2) with flags, and errno
checks.  Python standard library only."""
import ctypes
import errno
import os

RENAME_NOREPLACE, RENAME_EXCHANGE, RENAME_WHITEOUT = 1, 2, 4
_libc = ctypes.CDLL(None, use_errno=True)
_AT_FDCWD = -100


def renameat2(old, new, flags=0):
    if _libc.renameat2(_AT_FDCWD, os.fsencode(old), _AT_FDCWD,
                       os.fsencode(new), flags) != 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e), old)


def errno_of(fn, *args, **kw):
    """0 when fn(*args) succeeds, else the errno it fails with."""
    try:
        fn(*args, **kw)
        return 0
    except OSError as e:
        return e.errno


def expect(want, fn, *args, **kw):
    """fn(*args) must fail with errno name @want (or succeed with 'ok')."""
    got = errno_of(fn, *args, **kw)
    if got != (0 if want == "ok" else getattr(errno, want)):
        name = errno.errorcode.get(got, "ok" if got == 0 else str(got))
        raise AssertionError(f"{fn.__name__}{args}: got {name}, want {want}")
