# aifs-fsx: AIFS_FSX_OPS (20,000) random reads, writes, truncations, syncs
# and reopens of a file across chunk boundaries, checked against a shadow
# copy — through one mount, then alternating between two mounts of the
# file system (close-to-open: fsync, close, open through the other one).
# make test-long runs it with 200,000.
. "$AIFS_TOP/tests/vm/lib.sh"

ops=${AIFS_FSX_OPS:-20000}
mount_cluster /mnt/a
umount_at_exit /mnt/b
mkdir -p /mnt/b
mount -t aifs -o secret=$AIFS_SECRET 127.0.0.1:/ /mnt/b

aifs-fsx -q -S 7 -N "$ops" -l 9m -m buffered /mnt/a/fsx-buffered ||
	fail "aifs-fsx buffered"
aifs-fsx -q -S 8 -N "$ops" -l 9m -m two -P /mnt/b/fsx-two /mnt/a/fsx-two ||
	fail "aifs-fsx two"
umount /mnt/b
umount /mnt/a
