# A data server killed (SIGKILL) in the middle of a long sequential read of
# a file with two copies: the reader sees no error and gets the right
# bytes, the other copy of each chunk taking over.
. "$AIFS_TOP/tests/vm/lib.sh"

MiB=1048576
mount_cluster /mnt/a read_ahead_kb=256 timeo=100
dir=$(ls -d /sys/fs/aifs/aifs-*)
src=$(mktemp -d /tmp/aifs-src.XXXXXX)
head -c $((64 * MiB + 12345)) /dev/urandom >"$src/f"
put_file "$src/f" /f 2
want=$(sha256sum <"$src/f")

b0=$(aifs_stat "$dir" chunk_read_bytes)
# kill the server read from once 8 MiB have been asked for; note how far
# the read was
(
	for i in $(seq 1200); do
		b=$(aifs_stat "$dir" chunk_read_bytes)
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
got=$(sha256sum </mnt/a/f) || fail "read with a data server killed"
wait $killer
read -r victim killed_at <"$src/killed"
[ "$victim" != 0 ] || fail "no single data server read from"
echo "data server $victim killed after $((killed_at / MiB)) MiB had been asked for"
[ "$killed_at" -lt $((48 * MiB)) ] ||
	fail "the read was nearly over when the server died ($killed_at bytes)"
assert_eq "$got" "$want" "sha256 of the file read across the kill"
expect_dmesg "server $AIFS_ADDR:$((7400 + victim)): .*closing the connection"

# and again from a cold cache, with the server gone
echo 3 >/proc/sys/vm/drop_caches
assert_eq "$(sha256sum </mnt/a/f)" "$want" "sha256 with the server dead"
umount /mnt/a
rm -rf "$src"
