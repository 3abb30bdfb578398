# A file written and closed while the MDS is dead: its CLOSE cannot
# commit the size and mtime of the writes, so the inode stays dirty and
# its writeback commits them once the MDS is back. Dropping the caches
# meanwhile loses nothing (a dirty inode is not evicted), and after a
# remount the file has its size and bytes.
#
# That needs the writeback at close(2) to reach the data servers with the
# MDS dead, so the mount must hold the cluster map before the kill: a
# mount fetches it from the MDS at its first talk with a data server
# (kmod/data.c), and a writeback that cannot find its servers fails and
# leaves its pages clean, by design (kmod/write.c). Written and fsynced
# first, another file gets the mount the map.
. "$AIFS_TOP/tests/vm/lib.sh"
. "$AIFS_TOP/tests/vm/session/helpers"

src=$(mktemp /tmp/aifs-src.XXXXXX)
head -c $((3 << 20)) /dev/urandom >"$src"
mount_cluster /mnt/a timeo=20
MDS_PID=${AIFS_SERVER_PIDS[0]}
sys=$(ls -d /sys/fs/aifs/aifs-*)

dd if="$src" of=/mnt/a/first bs=1M conv=fsync status=none ||
	fail "write and fsync of a first file"
[ "$(cat "$sys/map_epoch")" -gt 0 ] ||
	fail "no cluster map after a write and fsync (map_epoch 0)"

hold_open /mnt/a/f "$src"
kill_mds
# The writeback at close(2) reaches the data servers; only the CLOSE fails,
# and the release has nobody to tell (kmod/file.c): close(2) succeeds.
close_held
assert_eq "$CLOSED" ok "close(2) of the file written, the MDS dead"
restart_mds
echo 3 >/proc/sys/vm/drop_caches
cmp "$src" /mnt/a/f || fail "the file lost its writes with the caches"
sync -f /mnt/a
umount /mnt/a
mount -t aifs -o "$(with_transport "secret=$AIFS_SECRET")" "$AIFS_ADDR:/" /mnt/a
assert_eq "$(stat -c %s /mnt/a/f)" $((3 << 20)) "size after a remount"
cmp "$src" /mnt/a/f || fail "the file's bytes after a remount"
cmp "$src" /mnt/a/first || fail "the first file's bytes after a remount"
umount /mnt/a
