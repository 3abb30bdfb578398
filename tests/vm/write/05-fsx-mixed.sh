# aifs-fsx mode mixed: each read and write of 05-fsx picks buffered,
# O_DIRECT or a shared mapping at random, all open on one file at once:
# the page cache, the mapping and direct I/O must agree with each other.
. "$AIFS_TOP/tests/vm/lib.sh"

mount_cluster /mnt/a
run_fsx mixed 11 /mnt/a/fsx-mixed
umount /mnt/a
