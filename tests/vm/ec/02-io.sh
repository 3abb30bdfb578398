# Reads and writes of files laid out ec=4+2 (256 KiB fragments, a 1 MiB
# stripe) and ec=3+2 (64 KiB, a stripe that is no power of two): whole
# files of odd sizes read back with their sha256 from a cold cache,
# buffered and O_DIRECT; random writes, truncations and holes against a
# shadow file; aifs-fsx in buffered and direct mode (1,000 ops each, for
# CI's time; AIFS_FSX_OPS sets more); a truncation down and up again
# reads zeros where the data was.
. "$AIFS_TOP/tests/vm/lib.sh"

MiB=1048576
export AIFS_DS_COUNT=6
mount_cluster /mnt/a
mkdir /mnt/a/ec42 /mnt/a/ec32
aifs setlayout /mnt/a/ec42 ec=4+2 >/dev/null || fail "setlayout ec=4+2"
aifs setlayout /mnt/a/ec32 ec=3+2 chunk=64K >/dev/null ||
	fail "setlayout ec=3+2"
src=$(mktemp -d /tmp/aifs-src.XXXXXX)
for d in ec42 ec32; do
	for size in 1 4095 $((MiB - 1)) $((3 * MiB + 12345)) $((10 * MiB + 7)); do
		head -c "$size" /dev/urandom >"$src/f"
		cp "$src/f" "/mnt/a/$d/f-$size" || fail "cp to $d"
		want=$(sha256sum <"$src/f")
		echo 3 >/proc/sys/vm/drop_caches
		assert_eq "$(sha256sum <"/mnt/a/$d/f-$size")" "$want" \
			"$d: $size bytes, buffered"
		assert_eq "$(dd if="/mnt/a/$d/f-$size" bs=1M iflag=direct \
			status=none | sha256sum)" "$want" "$d: $size bytes, O_DIRECT"
	done
	# written with O_DIRECT in odd pieces, read back buffered
	head -c $((5 * MiB + 333)) /dev/urandom >"$src/g"
	dd if="$src/g" of="/mnt/a/$d/g" bs=777k oflag=direct status=none ||
		fail "O_DIRECT write to $d"
	echo 3 >/proc/sys/vm/drop_caches
	assert_eq "$(sha256sum <"/mnt/a/$d/g")" "$(sha256sum <"$src/g")" \
		"$d: O_DIRECT writes"

	# random writes (read-modify-write of stripes), truncations, holes
	: >"/mnt/a/$d/r"
	: >"$src/r"
	python3 "$AIFS_TOP/tests/vm/write/random-writes.py" 5 60 \
		$((12 * MiB)) "/mnt/a/$d/r" "$src/r" ||
		fail "random writes to $d"
	echo 3 >/proc/sys/vm/drop_caches
	cmp "/mnt/a/$d/r" "$src/r" || fail "$d: random writes differ"

	# cut into a stripe and grow again: zeros where the data was
	head -c $((2 * MiB)) /dev/urandom >"/mnt/a/$d/t"
	truncate -s $((MiB / 2 + 100)) "/mnt/a/$d/t"
	truncate -s $((2 * MiB)) "/mnt/a/$d/t"
	echo 3 >/proc/sys/vm/drop_caches
	assert_eq "$(tail -c +$((MiB / 2 + 101)) "/mnt/a/$d/t" | tr -d '\0' |
		wc -c)" 0 "$d: zeros past a truncation after growing"
done

AIFS_FSX_OPS=${AIFS_FSX_OPS:-1000} run_fsx buffered 21 /mnt/a/ec42/fsx-buffered &
buffered=$!
AIFS_FSX_OPS=${AIFS_FSX_OPS:-1000} run_fsx direct 22 /mnt/a/ec32/fsx-direct &
direct=$!
wait "$buffered" || fail "aifs-fsx buffered on ec=4+2"
wait "$direct" || fail "aifs-fsx direct on ec=3+2"
umount /mnt/a
rm -rf "$src"
