# aifs-fsx: AIFS_FSX_OPS (20,000) random reads, writes, truncations,
# fallocates, hole punches, syncs and reopens of a file across chunk
# boundaries, checked against a shadow copy — through one mount, then
# alternating between two mounts of the file system (close-to-open: fsync,
# close, open through the other one). No kind of operation may be turned
# off as unsupported. make test-long runs it with 200,000.
. "$AIFS_TOP/tests/vm/lib.sh"

ops=${AIFS_FSX_OPS:-20000}
mount_cluster /mnt/a
umount_at_exit /mnt/b
mkdir -p /mnt/b
mount -t aifs -o secret=$AIFS_SECRET 127.0.0.1:/ /mnt/b

# fsx MODE SEED FILE [-P FILE2]
fsx()
{
	local mode=$1 seed=$2 file=$3 out
	shift 3
	out=$(aifs-fsx -q -S "$seed" -N "$ops" -l 9m -m "$mode" "$@" "$file" 2>&1) ||
		{ echo "$out"; fail "aifs-fsx $mode"; }
	echo "$out"
	case $out in
	*"not supported here, turned off"*) fail "aifs-fsx $mode turned an operation off" ;;
	esac
}

fsx buffered 7 /mnt/a/fsx-buffered
fsx two 8 /mnt/a/fsx-two -P /mnt/b/fsx-two
umount /mnt/b
umount /mnt/a
