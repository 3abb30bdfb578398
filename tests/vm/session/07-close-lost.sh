# A file written and closed while the MDS is dead: its CLOSE cannot
# commit the size and mtime of the writes, so the inode stays dirty and
# its writeback commits them once the MDS is back. Dropping the caches
# meanwhile loses nothing (a dirty inode is not evicted), and after a
# remount the file has its size and bytes.
. "$AIFS_TOP/tests/vm/lib.sh"
. "$AIFS_TOP/tests/vm/session/helpers"

src=$(mktemp /tmp/aifs-src.XXXXXX)
head -c $((3 << 20)) /dev/urandom >"$src"
mount_cluster /mnt/a timeo=20
MDS_PID=${AIFS_SERVER_PIDS[0]}

exec 3>/mnt/a/f
cat "$src" >&3
kill_mds
exec 3>&-	# writeback to the data servers, then a CLOSE that fails
restart_mds
echo 3 >/proc/sys/vm/drop_caches
cmp "$src" /mnt/a/f || fail "the file lost its writes with the caches"
sync -f /mnt/a
umount /mnt/a
mount -t aifs -o "$(with_transport "secret=$AIFS_SECRET")" "$AIFS_ADDR:/" /mnt/a
assert_eq "$(stat -c %s /mnt/a/f)" $((3 << 20)) "size after a remount"
cmp "$src" /mnt/a/f || fail "the file's bytes after a remount"
umount /mnt/a
