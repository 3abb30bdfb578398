# aifs-fsx mode two: the ops of 05-fsx alternating between two mounts of
# the file system (close-to-open: fsync, close, open through the other).
. "$AIFS_TOP/tests/vm/lib.sh"

mount_cluster /mnt/a
umount_at_exit /mnt/b
mkdir -p /mnt/b
mount -t aifs -o "$(with_transport secret=$AIFS_SECRET)" "$AIFS_ADDR:/" /mnt/b
run_fsx two 8 /mnt/a/fsx-two -P /mnt/b/fsx-two
umount /mnt/b
umount /mnt/a
