# aifs-fsx modes mmap (every read and write through a shared mapping of
# the file: page_mkwrite, writeback of mapped pages) and two (the ops
# alternating between two mounts of the file system: close-to-open,
# fsync, close, open through the other), on two files at once, as
# 05-fsx runs its two modes.
. "$AIFS_TOP/tests/vm/lib.sh"

mount_cluster /mnt/a
umount_at_exit /mnt/b
mkdir -p /mnt/b
mount -t aifs -o "$(with_transport secret=$AIFS_SECRET)" "$AIFS_ADDR:/" /mnt/b
run_fsx mmap 9 /mnt/a/fsx-mmap &
mmap=$!
run_fsx two 8 /mnt/a/fsx-two -P /mnt/b/fsx-two &
two=$!
wait "$mmap" || fail "aifs-fsx mmap"
wait "$two" || fail "aifs-fsx two"
umount /mnt/b
umount /mnt/a
