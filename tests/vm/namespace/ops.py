# SPDX-License-Identifier: GPL-2.0
"""Every namespace operation of an aifs mount and its errors.
Usage: ops.py MOUNTPOINT (run as root)."""
import os
import stat
import subprocess
import sys

from nstest import (RENAME_EXCHANGE, RENAME_NOREPLACE, RENAME_WHITEOUT,
                    expect, renameat2)

top = sys.argv[1]
os.chdir(top)
os.umask(0o022)


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def create(path, mode=0o644, flags=os.O_CREAT | os.O_EXCL | os.O_WRONLY):
    os.close(os.open(path, flags, mode))


# mkdir, link counts of directories, umask
os.mkdir("d", 0o777)
st = os.stat("d")
check(stat.S_ISDIR(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o755,
      f"mkdir mode {oct(st.st_mode)}")
check(st.st_nlink == 2, f"new dir nlink {st.st_nlink}")
root_links = os.stat(".").st_nlink
os.mkdir("d/sub")
check(os.stat("d").st_nlink == 3, "parent nlink after mkdir")
expect("EEXIST", os.mkdir, "d")
expect("ENOENT", os.mkdir, "nodir/x")
expect("ENOENT", os.stat, "nothing")

# regular files: create, exclusive create, no data path yet
create("d/f")
st = os.stat("d/f")
check(stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o644
      and st.st_nlink == 1 and st.st_size == 0, f"create: {st}")
expect("EEXIST", create, "d/f")
create("d/f", flags=os.O_CREAT | os.O_WRONLY)     # opens the existing file
fd = os.open("d/f", os.O_RDONLY)
check(os.read(fd, 10) == b"", "reading an empty file")
os.close(fd)
expect("ENOTDIR", os.stat, "d/f/x")
expect("ENOTDIR", create, "d/f/x")
expect("EISDIR", os.open, "d", os.O_WRONLY)

# mknod: fifo, socket, character and block devices
os.mknod("fifo", 0o600 | stat.S_IFIFO)
os.mknod("sock", 0o600 | stat.S_IFSOCK)
os.mknod("chr", 0o600 | stat.S_IFCHR, os.makedev(1, 3))
os.mknod("blk", 0o600 | stat.S_IFBLK, os.makedev(259, 70000))
check(stat.S_ISFIFO(os.stat("fifo").st_mode), "fifo type")
check(stat.S_ISSOCK(os.stat("sock").st_mode), "socket type")
st = os.stat("chr")
check(stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3), "chr")
st = os.stat("blk")
check(stat.S_ISBLK(st.st_mode) and
      (os.major(st.st_rdev), os.minor(st.st_rdev)) == (259, 70000), "blk")
with open("chr", "rb") as f:                      # /dev/null through aifs
    check(f.read() == b"", "reading the null device")
expect("EEXIST", os.mknod, "fifo", 0o600 | stat.S_IFIFO)

# names: 255 bytes fit, 256 do not
create("n" * 255)
check(os.path.exists("n" * 255), "255-byte name")
expect("ENAMETOOLONG", create, "n" * 256)
expect("ENAMETOOLONG", os.stat, "n" * 256)
expect("ENAMETOOLONG", os.mkdir, "n" * 256)
os.unlink("n" * 255)

# unlink, rmdir
expect("ENOENT", os.unlink, "d/none")
expect("EISDIR", os.unlink, "d/sub")
expect("ENOTDIR", os.rmdir, "d/f")
expect("ENOTEMPTY", os.rmdir, "d")
os.rmdir("d/sub")
check(os.stat("d").st_nlink == 2, "parent nlink after rmdir")
expect("ENOENT", os.rmdir, "d/sub")

# hard links
os.link("d/f", "f2")
check(os.stat("d/f").st_nlink == 2 and os.stat("f2").st_nlink == 2,
      "nlink after link")
check(os.stat("d/f").st_ino == os.stat("f2").st_ino, "link is the same inode")
expect("EEXIST", os.link, "d/f", "f2")
expect("EPERM", os.link, "d", "dlink")
os.unlink("f2")
check(os.stat("d/f").st_nlink == 1, "nlink after unlink")

# symlinks, readlink, loops
os.symlink("d/f", "s")
check(os.readlink("s") == "d/f" and os.stat("s").st_ino ==
      os.stat("d/f").st_ino, "symlink")
check(stat.S_ISLNK(os.lstat("s").st_mode), "lstat of a symlink")
os.symlink("x" * 4000, "long")
check(os.readlink("long") == "x" * 4000, "long symlink target")
os.symlink("loop2", "loop1")
os.symlink("loop1", "loop2")
expect("ELOOP", os.stat, "loop1")
expect("ELOOP", os.open, "loop1", os.O_RDONLY)
expect("EEXIST", os.symlink, "x", "s")

# rename and its flags
create("r1")
create("r2")
i1, i2 = os.stat("r1").st_ino, os.stat("r2").st_ino
os.rename("r1", "r3")
expect("ENOENT", os.stat, "r1")
check(os.stat("r3").st_ino == i1, "renamed inode")
expect("EEXIST", renameat2, "r3", "r2", RENAME_NOREPLACE)
renameat2("r3", "r2", RENAME_EXCHANGE)
check(os.stat("r2").st_ino == i1 and os.stat("r3").st_ino == i2, "exchange")
expect("ENOENT", renameat2, "r2", "r9", RENAME_EXCHANGE)
expect("EINVAL", renameat2, "r2", "r9", RENAME_WHITEOUT)
expect("EINVAL", renameat2, "r2", "r3", RENAME_NOREPLACE | RENAME_EXCHANGE)
renameat2("r2", "r4", RENAME_NOREPLACE)
os.rename("r4", "r3")                             # replaces r3
check(os.stat("r3").st_ino == i1, "rename over a file")
os.mkdir("e1")
os.mkdir("e2")
create("e2/x")
expect("ENOTEMPTY", os.rename, "e1", "e2")
expect("EISDIR", os.rename, "r3", "e1")
expect("ENOTDIR", os.rename, "e1", "r3")
expect("EINVAL", os.rename, "e2", "e2/inside")
os.rename("e1", "e2/e1")
check(os.stat("e2").st_nlink == 3 and os.stat(".").st_nlink == root_links + 1,
      "nlink after moving a directory")
renameat2("e2/e1", "d", RENAME_EXCHANGE)           # an empty dir for a full one
check(os.path.exists("e2/e1/f") and not os.path.exists("d/f"),
      "exchange of directories")

# attributes: chmod, chown, utimens, truncate
os.chmod("r3", 0o4751)
check(stat.S_IMODE(os.stat("r3").st_mode) == 0o4751, "chmod")
os.chown("r3", 1000, 1001)
st = os.stat("r3")
check((st.st_uid, st.st_gid) == (1000, 1001), "chown")
check(not st.st_mode & stat.S_ISUID, "chown clears setuid")
os.utime("r3", ns=(1_000_000_123, 2_000_000_456))
st = os.stat("r3")
check((st.st_atime_ns, st.st_mtime_ns) == (1_000_000_123, 2_000_000_456),
      f"utimens {st.st_atime_ns} {st.st_mtime_ns}")
os.truncate("r3", 12345)
check(os.stat("r3").st_size == 12345, "truncate size")
os.truncate("r3", 0)
check(os.stat("r3").st_size == 0, "truncate to 0")

# readdir: several replies, d_type, names
os.mkdir("big")
names = {f"{i:04d}-" + "y" * 200 for i in range(400)}
for n in names:
    create("big/" + n)
os.mkdir("big/zdir")
os.symlink("t", "big/zlink")
got = {e.name: e for e in os.scandir("big")}
check(set(got) == names | {"zdir", "zlink"}, f"readdir: {len(got)} names")
check(got["zdir"].is_dir(follow_symlinks=False) and
      got["zlink"].is_symlink(), "d_type")
check(all(got[n].inode() == os.lstat("big/" + n).st_ino
          for n in list(names)[:20]), "readdir inode numbers")
ls = subprocess.run(["ls", "-a", "e2"], capture_output=True, text=True)
check(ls.stdout.split() == [".", "..", "e1", "x"], f"ls -a: {ls.stdout}")
for n in names:
    os.unlink("big/" + n)
check(sorted(os.listdir("big")) == ["zdir", "zlink"], "readdir after unlink")

# statfs
sv = os.statvfs(".")
check(sv.f_namemax == 255 and sv.f_bsize > 0, f"statvfs {sv}")

# xattrs
os.setxattr("r3", "user.k", b"value")
check(os.getxattr("r3", "user.k") == b"value", "getxattr")
expect("EEXIST", os.setxattr, "r3", "user.k", b"v", os.XATTR_CREATE)
expect("ENODATA", os.setxattr, "r3", "user.n", b"v", os.XATTR_REPLACE)
os.setxattr("r3", "trusted.t", b"t" * 3000)
check(os.getxattr("r3", "trusted.t") == b"t" * 3000, "trusted xattr")
os.setxattr("r3", "user.empty", b"")
check(os.getxattr("r3", "user.empty") == b"", "empty xattr")
check(sorted(os.listxattr("r3")) == ["trusted.t", "user.empty", "user.k"],
      f"listxattr {os.listxattr('r3')}")
os.removexattr("r3", "user.k")
expect("ENODATA", os.getxattr, "r3", "user.k")
expect("ENODATA", os.removexattr, "r3", "user.k")
# ACLs are checked (tests/vm/namespace/05-acl.sh has the rest)
expect("EINVAL", os.setxattr, "r3", "system.posix_acl_access", b"x")
expect("ENODATA", os.getxattr, "r3", "system.posix_acl_access")
expect("EOPNOTSUPP", os.setxattr, "e2", "system.posix_acl_bogus", b"x")
os.setxattr("e2", "user.dir", b"1")
check(os.getxattr("e2", "user.dir") == b"1", "xattr of a directory")
print("ops: all passed")
