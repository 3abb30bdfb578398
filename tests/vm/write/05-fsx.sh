# aifs-fsx: AIFS_FSX_OPS (20,000) random reads, writes, truncations,
# fallocates, hole punches, syncs and reopens of a file across chunk
# boundaries through one mount, checked against a shadow copy; no kind of
# op may be turned off as unsupported. make test-long runs 200,000.
. "$AIFS_TOP/tests/vm/lib.sh"

mount_cluster /mnt/a
run_fsx buffered 7 /mnt/a/fsx-buffered
umount /mnt/a
