# A dead data server: a file with replicas=2 still reads (the next
# replica at once); a chunk whose only server is dead is EIO, bounded by
# timeo, without a hang or an oops.
. "$AIFS_TOP/tests/vm/lib.sh"

mount_cluster /mnt/a timeo=20
src=$(mktemp -d /tmp/aifs-src.XXXXXX)
head -c $((24 * 1048576 + 5)) /dev/urandom >"$src/r2"
head -c $((24 * 1048576)) /dev/urandom >"$src/r1"
put_file "$src/r2" /r2 2
# the victim: a server holding r2 (the only file yet)
for victim in 1 2 3; do
	[ -n "$(find "${DS_DIRS[victim]}/data/chunks" -type f)" ] && break
done
put_file "$src/r1" /r1
cmp "$src/r2" /mnt/a/r2 || fail "r2 before the kill"

echo 3 >/proc/sys/vm/drop_caches
kill -KILL "${DS_PIDS[victim]}"
wait "${DS_PIDS[victim]}" 2>/dev/null || true
cmp "$src/r2" /mnt/a/r2 || fail "r2 with a data server dead"
echo 3 >/proc/sys/vm/drop_caches
assert_eq "$(sha256sum </mnt/a/r2)" "$(sha256sum <$src/r2)" "r2 again"

# r1 has 6 chunks over 3 servers, one copy each: 2 are on the dead one
echo 3 >/proc/sys/vm/drop_caches
start=$(date +%s)
out=$(timeout 60 cat /mnt/a/r1 2>&1 >/dev/null) && fail "r1 read without its server"
grep -q "Input/output error" <<<"$out" || fail "not EIO: $out"
[ $(($(date +%s) - start)) -lt 30 ] || fail "the failed read took too long"
# the chunks of live servers still read
python3 - "$src/r1" /mnt/a/r1 <<'PY' || fail "live chunks of r1"
import os, sys
src, dst = open(sys.argv[1], "rb"), os.open(sys.argv[2], os.O_RDONLY)
ok = 0
for i in range(6):
    try:
        got = os.pread(dst, 4096, i * 4 * 1048576)
    except OSError:
        continue
    src.seek(i * 4 * 1048576)
    assert got == src.read(4096), "chunk %d differs" % i
    ok += 1
assert ok == 4, "%d chunks readable, want 4" % ok
PY
umount /mnt/a
expect_no_oops()
{
	! kernel_log_has "BUG:|Oops|WARNING:" || fail "kernel oops or warning"
}
expect_no_oops
rm -rf "$src"
