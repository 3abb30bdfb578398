# The primary of a file with two copies is killed (SIGKILL) in the middle
# of a 48 MiB write: the write, its fsync and its close see no error, the
# other copy takes over, and the file reads right from a cold cache.
. "$AIFS_TOP/tests/vm/lib.sh"

MiB=1048576
mount_cluster /mnt/a timeo=100
dir=$(ls -d /sys/fs/aifs/aifs-*)
src=$(mktemp -d /tmp/aifs-src.XXXXXX)
head -c $((48 * MiB + 4321)) /dev/urandom >"$src/f"
: >"$src/empty"
# a file of two copies in one group
put_file "$src/empty" /f 2

# data gone to the data servers: in requests, or fetched by their RDMA READs
sent()
{
	echo $(($(aifs_stat "$dir" ds_bytes_sent) + $(aifs_stat "$dir" rdma_write_bytes)))
}

b0=$(sent)
(
	for i in $(seq 1200); do
		b=$(sent)
		[ $((b - b0)) -ge $((8 * MiB)) ] && break
		sleep 0.05
	done
	victim=$(ds_in_use)
	if [[ "$victim" =~ ^[123]$ ]]; then
		kill -KILL "${DS_PIDS[victim]}"
	else
		victim=0	# fails below
	fi
	echo "$victim $((b - b0))" >"$src/killed"
) &
killer=$!
dd if="$src/f" of=/mnt/a/f bs=4M conv=fsync status=none ||
	fail "write with the primary killed"
wait $killer
read -r victim killed_at <"$src/killed"
[ "$victim" != 0 ] || fail "no single data server written to"
echo "data server $victim killed after $((killed_at / MiB)) MiB were sent"
[ "$killed_at" -lt $((40 * MiB)) ] ||
	fail "the write was nearly over when the server died ($killed_at bytes)"
expect_dmesg "server $AIFS_ADDR:$((7400 + victim)): .*closing the connection"

echo 3 >/proc/sys/vm/drop_caches
cmp "$src/f" /mnt/a/f || fail "the file differs with its primary dead"
umount /mnt/a
rm -rf "$src"
