# SPDX-License-Identifier: GPL-2.0
"""Stateful differential test: hypothesis drives random namespace,
attribute, xattr and data operations on an aifs directory and on a tmpfs
directory at once.  Every step must give the same errno (and the same
result: bytes read, link targets, xattr values) on both, and after every
step the two trees must agree in names, d_type, hard-link structure and
the stat fields both file systems define alike.  A mismatch fails with
the shortest sequence of steps hypothesis finds, printed as Python.

Usage: nsmachine.py AIFS_DIR TMPFS_DIR EXAMPLES STEPS   (as root)

Not compared, on purpose (Documentation/kernel-client.md, "Compared with
a local file system"): atime, ctime, st_blocks, st_blksize, st_dev, inode
numbers (only which names share one), the st_size of a directory, and the
mtime of a file at "now": it is only required to be recent on both."""
import errno
import os
import shutil
import stat
import sys

from hypothesis import HealthCheck, settings, strategies as st
from hypothesis.stateful import (Bundle, RuleBasedStateMachine, consumes,
                                 initialize, invariant, multiple,
                                 rule,
                                 run_state_machine_as_test)

from nstest import RENAME_EXCHANGE, RENAME_NOREPLACE, renameat2

CHUNK = 4 << 20         # the default chunk size: data crosses chunk ends
NAME_MAX = 255
# Explicit times are in 2001; "now" is after OLD_NS on both trees.
OLD_NS = 1_500_000_000 * 10**9

# Strategies draw short tokens, which the failing sequence prints; the
# rules expand them: N and O are names of NAME_MAX and NAME_MAX + 1 bytes,
# X and Y symlink targets of PATH_MAX - 1 and PATH_MAX bytes.
LONG = {"N": "n" * NAME_MAX, "O": "o" * (NAME_MAX + 1),
        "X": "x" * 4095, "Y": "y" * 4096}
# Few short names and shallow paths, so that most steps meet names that
# exist; the long ones now and then.
paths = st.builds(lambda depth, parts, slash: "/".join(parts[:depth]) + slash,
                  st.sampled_from([1, 1, 2, 2, 3]),
                  st.lists(st.sampled_from("aaaabbbbccccNO"), min_size=3,
                           max_size=3),
                  st.sampled_from(["", "", "", "", "/"]))
modes = st.sampled_from([0o644, 0o755, 0o600, 0o000, 0o4755, 0o2755,
                         0o1777, 0o2745])
offsets = st.sampled_from([0, 1, 4095, 4096, 65535, 1 << 20, CHUNK - 1,
                           CHUNK, CHUNK + 4095, 2 * CHUNK + 7])
lengths = st.sampled_from([1, 17, 4096, 5000, 65536, 200000])
sizes = st.sampled_from([0, 1, 4095, 4097, 65536, 1 << 20, CHUNK - 1,
                         CHUNK + 1, 3 * CHUNK])
links = st.sampled_from(["a", "b/c", "../a", "nowhere", "X", "Y"])
ids = st.sampled_from([-1, 0, 1000, 1001, 65534])
times = st.one_of(st.none(), st.tuples(
    st.integers(1_000_000_000, 1_000_000_050),
    st.sampled_from([0, 1, 999_999_999])).map(
        lambda t: (t[0] * 10**9 + t[1], t[0] * 10**9 + t[1] + 7)))
# trusted.N and trusted.O: names of XATTR_NAME_MAX and XATTR_NAME_MAX + 1
# bytes.  No user.* names: the reference, tmpfs of 6.1, has none (6.6
# added them), and answers EOPNOTSUPP.
xnames = st.sampled_from(["trusted.a", "trusted.b", "trusted.N",
                          "trusted.O"])
XLONG = {"trusted.N": "trusted." + "x" * 247,
         "trusted.O": "trusted." + "x" * 248}
# value sizes: up to XATTR_SIZE_MAX, and one byte over it
xsizes = st.sampled_from([0, 1, 100, 4000, 65536, 65537])
xflags = st.sampled_from([0, os.XATTR_CREATE, os.XATTR_REPLACE])
openflags = st.sampled_from([os.O_RDWR | os.O_CREAT, os.O_RDWR | os.O_APPEND,
                             os.O_RDONLY, os.O_WRONLY | os.O_TRUNC])
# Every open is non-blocking: a FIFO must not wait for a peer.
NB = os.O_NONBLOCK


def expand(p):
    return "/".join(LONG.get(c, c) for c in p.split("/"))


def xvalue(n):
    return bytes(range(256)) * (n // 256) + bytes(n % 256)


def outcome(fn, *args):
    """("ok", what fn returns) or ("err", errno name)."""
    try:
        return ("ok", fn(*args))
    except OSError as e:
        return ("err", errno.errorcode.get(e.errno, str(e.errno)))


def show(x):
    if isinstance(x, tuple) and x[0] == "ok" and isinstance(x[1], bytes) \
            and len(x[1]) > 32:
        return f"ok: {len(x[1])} bytes, {x[1][:16]!r}..."
    return repr(x)


def mtime(st_):
    return st_.st_mtime_ns if st_.st_mtime_ns < OLD_NS else "now"


def attrs(st_):
    """The stat fields both trees must agree on."""
    size = None if stat.S_ISDIR(st_.st_mode) else st_.st_size
    return (stat.filemode(st_.st_mode), oct(st_.st_mode), st_.st_nlink, size,
            st_.st_uid, st_.st_gid, mtime(st_))


def tree(root):
    """{path: (attrs, symlink target)} and the hard-link groups of root."""
    out, inodes = {}, {}
    for d, _, _ in os.walk(root):
        for e in os.scandir(d):
            st_ = e.stat(follow_symlinks=False)
            rel = os.path.relpath(e.path, root)
            if e.is_dir(follow_symlinks=False) != stat.S_ISDIR(st_.st_mode):
                raise AssertionError(f"{e.path}: d_type is not lstat's type")
            link = os.readlink(e.path) if e.is_symlink() else None
            out[rel] = (attrs(st_), link)
            inodes.setdefault(st_.st_ino, []).append(rel)
    return out, sorted(sorted(g) for g in inodes.values() if len(g) > 1)


def create(p, mode, flags):
    os.close(os.open(p, flags | os.O_CREAT | NB, mode))


def pwrite(p, off, data):
    fd = os.open(p, os.O_WRONLY | os.O_CREAT | NB, 0o644)
    try:
        return os.pwrite(fd, data, off)
    finally:
        os.close(fd)


def pread(p, off, n):
    fd = os.open(p, os.O_RDONLY | NB)
    try:
        return os.pread(fd, n, off)
    finally:
        os.close(fd)


def contents(p):
    with open(p, "rb") as f:
        return f.read()


class Open:
    """One file open on both trees."""

    def __init__(self, fds, what):
        self.fds, self.what = fds, what

    def __repr__(self):
        return f"<{self.what}>"


class Differential(RuleBasedStateMachine):
    aifs = ref = None
    examples = 0
    opens = Bundle("opens")

    def __init__(self):
        super().__init__()
        Differential.examples += 1
        self.roots = [os.path.join(top, f"ex{self.examples}")
                      for top in (self.aifs, self.ref)]
        for r in self.roots:
            os.mkdir(r)
        self.open_files = []
        self.steps = 0

    def both(self, what, fn, *args):
        """fn(root, *args) on each tree: same outcome, which it returns."""
        got, want = (outcome(fn, r + "/", *args) for r in self.roots)
        if got != want:
            raise AssertionError(f"{what}: aifs {show(got)}, "
                                 f"tmpfs {show(want)}")
        return got

    def both_fd(self, f, what, fn, *args):
        got, want = (outcome(fn, fd, *args) for fd in f.fds)
        if got != want:
            raise AssertionError(f"{what} on {f}: aifs {show(got)}, "
                                 f"tmpfs {show(want)}")
        got, want = (attrs(os.fstat(fd)) for fd in f.fds)
        if got != want:
            raise AssertionError(f"fstat after {what} on {f}: aifs {got}, "
                                 f"tmpfs {want}")

    @initialize()
    def start(self):
        """A tree in which most drawn paths exist."""
        for d in ("a", "b", "a/b"):
            self.both(f"mkdir {d}", lambda r: os.mkdir(r + d))
        for f in ("c", "a/a", "b/c"):
            self.both(f"create {f}", lambda r: create(r + f, 0o644, 0))
        self.both("symlink", lambda r: os.symlink("../c", r + "b/a"))

    @rule(p=paths, mode=modes, flags=st.sampled_from(
        [os.O_WRONLY | os.O_EXCL, os.O_WRONLY, os.O_RDWR | os.O_TRUNC]))
    def create(self, p, mode, flags):
        self.both(f"create {p}", lambda r: create(r + expand(p), mode, flags))

    @rule(p=paths, mode=modes)
    def mkdir(self, p, mode):
        self.both(f"mkdir {p}", lambda r: os.mkdir(r + expand(p), mode))

    @rule(p=paths)
    def mkfifo(self, p):
        self.both(f"mkfifo {p}", lambda r: os.mkfifo(r + expand(p), 0o640))

    @rule(p=paths)
    def rmdir(self, p):
        self.both(f"rmdir {p}", lambda r: os.rmdir(r + expand(p)))

    @rule(p=paths)
    def unlink(self, p):
        self.both(f"unlink {p}", lambda r: os.unlink(r + expand(p)))

    @rule(p=paths, q=paths,
          flags=st.sampled_from([0, RENAME_NOREPLACE, RENAME_EXCHANGE]))
    def rename(self, p, q, flags):
        self.both(f"rename {p} {q} {flags}",
                  lambda r: renameat2(r + expand(p), r + expand(q), flags))

    @rule(p=paths, q=paths, follow=st.booleans())
    def link(self, p, q, follow):
        self.both(f"link {p} {q}",
                  lambda r: os.link(r + expand(p), r + expand(q), follow_symlinks=follow))

    @rule(dest=links, p=paths)
    def symlink(self, dest, p):
        self.both(f"symlink {dest} {p}",
                  lambda r: os.symlink(expand(dest), r + expand(p)))

    @rule(p=paths)
    def readlink(self, p):
        self.both(f"readlink {p}", lambda r: os.readlink(r + expand(p)))

    @rule(p=paths, mode=modes)
    def chmod(self, p, mode):
        self.both(f"chmod {p}", lambda r: os.chmod(r + expand(p), mode))

    @rule(p=paths, uid=ids, gid=ids, follow=st.booleans())
    def chown(self, p, uid, gid, follow):
        self.both(f"chown {p}", lambda r: os.chown(r + expand(p), uid, gid,
                                                    follow_symlinks=follow))

    @rule(p=paths, ns=times, follow=st.booleans())
    def utime(self, p, ns, follow):
        kw = {"follow_symlinks": follow}
        if ns:
            kw["ns"] = ns
        self.both(f"utime {p}", lambda r: os.utime(r + expand(p), **kw))

    @rule(p=paths, size=sizes)
    def truncate(self, p, size):
        self.both(f"truncate {p}", lambda r: os.truncate(r + expand(p), size))

    @rule(p=paths, off=offsets, n=lengths, byte=st.integers(1, 255))
    def write(self, p, off, n, byte):
        self.both(f"write {p}",
                  lambda r: pwrite(r + expand(p), off, bytes([byte]) * n))

    @rule(p=paths, off=offsets, n=lengths)
    def read(self, p, off, n):
        self.both(f"read {p}", lambda r: pread(r + expand(p), off, n))

    @rule(p=paths, key=xnames, size=xsizes, flags=xflags,
          follow=st.booleans())
    def setxattr(self, p, key, size, flags, follow):
        self.both(f"setxattr {p} {key}", lambda r: os.setxattr(
            r + expand(p), XLONG.get(key, key), xvalue(size), flags,
            follow_symlinks=follow))

    @rule(p=paths, key=xnames, follow=st.booleans())
    def getxattr(self, p, key, follow):
        self.both(f"getxattr {p} {key}", lambda r: os.getxattr(
            r + expand(p), XLONG.get(key, key), follow_symlinks=follow))

    @rule(p=paths, follow=st.booleans())
    def listxattr(self, p, follow):
        self.both(f"listxattr {p}", lambda r: sorted(os.listxattr(
            r + expand(p), follow_symlinks=follow)))

    @rule(p=paths, key=xnames, follow=st.booleans())
    def removexattr(self, p, key, follow):
        self.both(f"removexattr {p} {key}", lambda r: os.removexattr(
            r + expand(p), XLONG.get(key, key), follow_symlinks=follow))

    @rule(target=opens, p=paths, flags=openflags)
    def open(self, p, flags):
        what = f"open {p} {flags:o}"
        res = [outcome(os.open, r + "/" + expand(p), flags | NB, 0o644)
               for r in self.roots]
        fds = [fd for ok, fd in res if ok == "ok"]
        if len(fds) == 1:
            os.close(fds[0])
        if len(fds) != 2:
            if res[0] != res[1]:
                raise AssertionError(f"{what}: aifs {res[0]}, tmpfs {res[1]}")
            return multiple()
        f = Open(fds, what)
        self.open_files.append(f)
        return f

    @rule(f=opens, off=offsets, n=lengths, byte=st.integers(1, 255))
    def fd_write(self, f, off, n, byte):
        self.both_fd(f, "pwrite", os.pwrite, bytes([byte]) * n, off)

    @rule(f=opens, off=offsets, n=lengths)
    def fd_read(self, f, off, n):
        self.both_fd(f, "pread", os.pread, n, off)

    @rule(f=opens, size=sizes)
    def fd_truncate(self, f, size):
        self.both_fd(f, "ftruncate", os.ftruncate, size)

    @rule(f=opens)
    def fd_fsync(self, f):
        self.both_fd(f, "fsync", os.fsync)

    @rule(f=consumes(opens))
    def close(self, f):
        self.open_files.remove(f)
        for fd in f.fds:
            os.close(fd)

    @rule()
    def drop_caches(self):
        """What reached the servers, not what this client holds."""
        os.sync()
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3")

    @rule()
    def compare_contents(self):
        """Every regular file, whole."""
        files, _ = tree(self.roots[1])
        for p, (a, _) in sorted(files.items()):
            if a[0].startswith("-"):
                self.both(f"contents of {p}", lambda r: contents(r + p))

    @invariant()
    def same_trees(self):
        self.steps += 1
        (a, alinks), (b, blinks) = (tree(r) for r in self.roots)
        for p in sorted(set(a) | set(b)):
            if a.get(p) != b.get(p):
                raise AssertionError(f"{p}: aifs {a.get(p)}, "
                                     f"tmpfs {b.get(p)}")
        if alinks != blinks:
            raise AssertionError(f"hard links: aifs {alinks}, "
                                 f"tmpfs {blinks}")

    def teardown(self):
        for f in self.open_files:
            for fd in f.fds:
                os.close(fd)
        for r in self.roots:
            shutil.rmtree(r)
        print(f"sequence {self.examples}: {self.steps} steps", flush=True)


def main():
    Differential.aifs, Differential.ref = sys.argv[1], sys.argv[2]
    os.umask(0o022)
    run_state_machine_as_test(Differential, settings=settings(
        max_examples=int(sys.argv[3]), stateful_step_count=int(sys.argv[4]),
        derandomize=True, database=None, deadline=None,
        suppress_health_check=list(HealthCheck)))
    print(f"{Differential.examples} sequences run, no difference")


if __name__ == "__main__":
    main()
