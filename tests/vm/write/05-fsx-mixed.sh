# aifs-fsx mode mixed: each read and write of 05-fsx picks buffered,
# O_DIRECT or a shared mapping at random, all open on one file at once:
# the page cache, the mapping and direct I/O must agree with each other.
# A mode beyond the four each run 20,000 ops: 5,000 here, for CI's time
# (AIFS_FSX_OPS, as make test-long, sets it), as testing-tools.md says.
. "$AIFS_TOP/tests/vm/lib.sh"

mount_cluster /mnt/a
AIFS_FSX_OPS=${AIFS_FSX_OPS:-5000} run_fsx mixed 11 /mnt/a/fsx-mixed
umount /mnt/a
