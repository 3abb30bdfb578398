# SPDX-License-Identifier: GPL-2.0
"""A seeded random sequence of namespace operations run on aifs and on a
tmpfs directory side by side: every operation must give the same errno on
both, and the trees must end the same (names, types, modes, link counts,
symlink targets).  Usage: differential.py AIFS_DIR TMPFS_DIR SEED COUNT"""
import errno
import os
import random
import stat
import sys

from nstest import RENAME_EXCHANGE, RENAME_NOREPLACE, errno_of, renameat2

NAMES = ["a", "b", "c", "dd", "e"]


def path(rng):
    depth = rng.choice([1, 1, 2, 2, 3])
    return "/".join(rng.choice(NAMES) for _ in range(depth))


def create(p, mode):
    os.close(os.open(p, os.O_CREAT | os.O_EXCL | os.O_WRONLY, mode))


def operation(rng):
    """One random operation: (text, function of a root directory)."""
    kind = rng.choice(["mkdir", "mkdir", "create", "create", "rename",
                       "link", "unlink", "rmdir", "symlink", "chmod"])
    p, q = path(rng), path(rng)
    mode = rng.choice([0o755, 0o700, 0o644, 0o600, 0o1777, 0o2755])
    flags = rng.choice([0, 0, RENAME_NOREPLACE, RENAME_EXCHANGE])
    target = rng.choice(["a", "../b", "c/dd", "nowhere"])
    ops = {
        "mkdir": (f"mkdir {p} {mode:o}", lambda r: os.mkdir(r + p, mode)),
        "create": (f"create {p} {mode:o}", lambda r: create(r + p, mode)),
        "rename": (f"rename {p} {q} {flags}",
                   lambda r: renameat2(r + p, r + q, flags)),
        "link": (f"link {p} {q}", lambda r: os.link(r + p, r + q)),
        "unlink": (f"unlink {p}", lambda r: os.unlink(r + p)),
        "rmdir": (f"rmdir {p}", lambda r: os.rmdir(r + p)),
        "symlink": (f"symlink {target} {p}",
                    lambda r: os.symlink(target, r + p)),
        "chmod": (f"chmod {mode:o} {p}", lambda r: os.chmod(r + p, mode)),
    }
    return ops[kind]


def tree(root):
    """{relative path: (type and mode, nlink, symlink target)}"""
    out = {}
    for d, dirs, files in os.walk(root):
        for n in dirs + files:
            full = os.path.join(d, n)
            st = os.lstat(full)
            link = os.readlink(full) if stat.S_ISLNK(st.st_mode) else None
            out[os.path.relpath(full, root)] = (oct(st.st_mode), st.st_nlink,
                                               link)
    return out


def main():
    aifs, ref, seed, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), \
        int(sys.argv[4])
    rng = random.Random(seed)
    os.umask(0)
    bad = 0
    for i in range(count):
        text, fn = operation(rng)
        got, want = errno_of(fn, aifs + "/"), errno_of(fn, ref + "/")
        if got != want:
            bad += 1
            print(f"op {i}: {text}: aifs {errno.errorcode.get(got, got)}, "
                  f"tmpfs {errno.errorcode.get(want, want)}")
    a, b = tree(aifs), tree(ref)
    for p in sorted(set(a) | set(b)):
        if a.get(p) != b.get(p):
            bad += 1
            print(f"tree differs at {p}: aifs {a.get(p)}, tmpfs {b.get(p)}")
    print(f"seed {seed}: {count} operations, {len(b)} names, {bad} differences")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
