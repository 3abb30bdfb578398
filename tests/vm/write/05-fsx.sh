# aifs-fsx: AIFS_FSX_OPS (20,000) random reads, writes, truncations,
# fallocates, hole punches, syncs and reopens of a file across chunk
# boundaries through one mount, checked against a shadow copy; no kind of
# op may be turned off as unsupported. make test-long runs 200,000.
# Modes buffered and direct (every read and write O_DIRECT, at any offset
# and length: aifs's alignment is 1 byte), on two files at once: one run
# waits on its servers more than it computes, two keep a guest busier.
. "$AIFS_TOP/tests/vm/lib.sh"

mount_cluster /mnt/a
run_fsx buffered 7 /mnt/a/fsx-buffered &
buffered=$!
run_fsx direct 10 /mnt/a/fsx-direct &
direct=$!
wait "$buffered" || fail "aifs-fsx buffered"
wait "$direct" || fail "aifs-fsx direct"
umount /mnt/a
