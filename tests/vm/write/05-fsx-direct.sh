# aifs-fsx mode direct: the ops of 05-fsx with every read and write
# through O_DIRECT, at any offset and length (aifs's alignment is 1 byte).
. "$AIFS_TOP/tests/vm/lib.sh"

mount_cluster /mnt/a
run_fsx direct 10 /mnt/a/fsx-direct
umount /mnt/a
