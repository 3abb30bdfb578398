# The client's fault injection points (debugfs, kmod/fail.c): a CHUNK_READ
# failed on purpose (EIO) and a CHUNK_WRITE (ESTALE) go to the other copy,
# unseen by the application; a reply of the MDS dropped on the way is ridden out (the
# call times out, the session tries again); every point disarms itself.
. "$AIFS_TOP/tests/vm/lib.sh"

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
# timeo=50: a loaded guest answers slowly; a dropped reply costs it once
mount_cluster /mnt/a timeo=50 attr_timeout=0
fail=/sys/kernel/debug/aifs/fail
[ -d "$fail/read_error" ] || fail "no $fail/read_error"
src=$(mktemp -d /tmp/aifs-src.XXXXXX)
head -c $((8 * 1048576)) /dev/urandom >"$src/f"
: >"$src/empty"
put_file "$src/empty" /f 2

log_mark
# ESTALE (116): the primary's copy is behind, the next member takes it
echo 116 >"$fail/write_error/value"
echo 2 >"$fail/write_error/times"
dd if="$src/f" of=/mnt/a/f bs=1M conv=fsync status=none ||
	fail "a write with CHUNK_WRITEs failed on purpose"
assert_eq "$(cat "$fail/write_error/times")" 0 "write_error times left"
expect_dmesg "fail point write_error fired"

echo 3 >/proc/sys/vm/drop_caches
echo 1 >"$fail/read_error/after"
echo 1 >"$fail/read_error/times"
cmp "$src/f" /mnt/a/f || fail "a read with CHUNK_READs failed on purpose"
assert_eq "$(cat "$fail/read_error/times")" 0 "read_error times left"
expect_dmesg "fail point read_error fired"

# GETATTR (17): attr_timeout=0 makes a stat ask the MDS
echo 17 >"$fail/reply_drop/value"
echo 1 >"$fail/reply_drop/times"
start=$(date +%s)
size=$(timeout 60 stat -c %s /mnt/a/f) || fail "stat with its reply dropped"
assert_eq "$size" $((8 * 1048576)) "size"
assert_eq "$(cat "$fail/reply_drop/times")" 0 "reply_drop times left"
expect_dmesg "fail point reply_drop fired"
echo "stat with its reply dropped took $(($(date +%s) - start)) s"
umount /mnt/a
rm -rf "$src"
