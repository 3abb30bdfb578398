# What fsync, fdatasync and O_SYNC return for is on the data servers, and
# its size on the MDS, while the writer still has the file open; a kill -9
# of the writer then loses nothing.
. "$AIFS_TOP/tests/vm/lib.sh"

MiB=1048576
mount_cluster /mnt/a
src=$(mktemp -d /tmp/aifs-src.XXXXXX)
head -c $((10 * MiB + 123)) /dev/urandom >"$src/data"

get()
{
	aifs-put -s "$MDS_DIR/secret" -m "$AIFS_ADDR:7400" -u "$AIFS_FS_UUID" \
		-g "/$1"
}

python3 - "$src/data" /mnt/a >"$src/writer.out" <<'PY' &
import os, sys, time
data = open(sys.argv[1], "rb").read()
d = sys.argv[2]
fd = os.open(d + "/fsync", os.O_WRONLY | os.O_CREAT, 0o644)
os.write(fd, data)
os.fsync(fd)
fd2 = os.open(d + "/fdatasync", os.O_WRONLY | os.O_CREAT, 0o644)
os.pwrite(fd2, data[:5 << 20], 0)
os.pwrite(fd2, data[5 << 20:], 5 << 20)
os.fdatasync(fd2)
fd3 = os.open(d + "/osync", os.O_WRONLY | os.O_CREAT | os.O_SYNC, 0o644)
for off in range(0, len(data), 1 << 20):
    os.write(fd3, data[off:off + (1 << 20)])
print("synced", flush=True)
time.sleep(600)
PY
writer=$!
for i in $(seq 600); do
	grep -q synced "$src/writer.out" && break
	kill -0 $writer || fail "the writer died"
	sleep 0.1
done
grep -q synced "$src/writer.out" || fail "the writer did not get through"

for f in fsync fdatasync osync; do
	get $f | cmp "$src/data" - || fail "$f: not on the servers"
done
kill -KILL $writer
wait $writer || true
echo 3 >/proc/sys/vm/drop_caches
for f in fsync fdatasync osync; do
	cmp "$src/data" /mnt/a/$f || fail "$f after the writer was killed"
done
umount /mnt/a
rm -rf "$src"
