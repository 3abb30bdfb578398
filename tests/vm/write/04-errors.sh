# Write errors reach the application: a file striped over three data
# servers, one of them dead, gets EIO at fsync, or at close without an
# fsync, never silence; an O_DIRECT write EIO for the chunk on the dead
# server, and the bytes before it for a write across it; with every data
# server down, a new file has a layout without targets and its first
# write is ENOSPC, buffered or direct.
. "$AIFS_TOP/tests/vm/lib.sh"

MiB=1048576
mount_cluster /mnt/a
# placed on all three servers while they are up: one group each
: >/mnt/a/fsync
: >/mnt/a/close
: >/mnt/a/direct
kill -KILL "${DS_PIDS[1]}"

python3 - /mnt/a <<'PY' || fail "write errors"
import errno, os, sys
d = sys.argv[1]
data = os.urandom(12 << 20)   # three chunks, one on the dead server

def expect_eio(what, fn, *args):
    try:
        fn(*args)
    except OSError as e:
        if e.errno != errno.EIO:
            raise
        return
    sys.exit(what + " did not fail")

fd = os.open(d + "/fsync", os.O_WRONLY)
os.write(fd, data)
expect_eio("fsync", os.fsync, fd)
os.close(fd)    # reported once, by the fsync
fd = os.open(d + "/close", os.O_WRONLY)
os.write(fd, data)
expect_eio("close", os.close, fd)

MiB = 1 << 20
fd = os.open(d + "/direct", os.O_WRONLY | os.O_DIRECT)
dead = []
for k in range(3):
    try:
        os.pwrite(fd, data[k * 4 * MiB:(k + 1) * 4 * MiB], k * 4 * MiB)
    except OSError as e:
        if e.errno != errno.EIO:
            raise
        dead.append(k)
if len(dead) != 1:
    sys.exit(f"direct writes of chunks {dead} failed, one expected")
try:
    n = os.pwrite(fd, data, 0)
except OSError as e:
    if e.errno != errno.EIO or dead[0]:
        raise
else:
    if n != dead[0] * 4 * MiB:
        sys.exit(f"direct write of {n} bytes across chunk {dead[0]}")
os.close(fd)
PY
expect_dmesg "write of chunk [0-9]+:[0-9]+ failed"

kill -KILL "${DS_PIDS[2]}" "${DS_PIDS[3]}"
for i in $(seq 100); do
	up=$(aifs-put -s "$MDS_DIR/secret" -m "$AIFS_ADDR:7400" -M)
	[ "$up" = 0 ] && break
	sleep 0.1
done
assert_eq "$up" 0 "data servers UP in the map"
python3 - /mnt/a <<'PY' || fail "write without targets"
import errno, os, sys
for name, flags in ("nospace", 0), ("nospace-direct", os.O_DIRECT):
    fd = os.open(f"{sys.argv[1]}/{name}", os.O_WRONLY | os.O_CREAT | flags,
                 0o644)
    try:
        os.write(fd, b"x" * 4096)
    except OSError as e:
        if e.errno != errno.ENOSPC:
            raise
    else:
        sys.exit(f"the write to {name} did not fail")
    os.close(fd)
PY
[ ! -s /mnt/a/nospace ] && [ ! -s /mnt/a/nospace-direct ] ||
	fail "a file without targets has data"
umount /mnt/a
