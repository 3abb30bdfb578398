# Buffered writes through the mount — dd at several block sizes, cp,
# rewrites through O_TRUNC, appends, random writes across chunk boundaries with holes and
# truncations, partial writes into data not cached — compared byte for
# byte with a local copy: through the page cache, from a cold cache,
# through the data servers without the kernel (aifs-put -g) and after a
# remount. Sizes are the MDS's (committed at close).
. "$AIFS_TOP/tests/vm/lib.sh"

MiB=1048576
mount_cluster /mnt/a
src=$(mktemp -d /tmp/aifs-src.XXXXXX)
names=()

# add NAME: $src/NAME was written through /mnt/a/NAME too
add()
{
	names+=("$1")
}

get()
{
	aifs-put -s "$MDS_DIR/secret" -m "$AIFS_ADDR:7400" -u "$AIFS_FS_UUID" \
		-g "/$1"
}

# compare HOW: every file of the mount against its copy
compare()
{
	local n
	for n in "${names[@]}"; do
		cmp "$src/$n" "/mnt/a/$n" || fail "$n differs $1"
		assert_eq "$(stat -c %s "/mnt/a/$n")" "$(stat -c %s "$src/$n")" \
			"size of $n $1"
	done
}

: >"$src/empty"
: >/mnt/a/empty
add empty
printf hello >"$src/hello"
printf hello >/mnt/a/hello
add hello
for n in 4095 4096 4097 $((4 * MiB)) $((4 * MiB + 1)) $((13 * MiB + 5)); do
	head -c "$n" /dev/urandom >"$src/s$n"
	cp "$src/s$n" "/mnt/a/s$n"
	add "s$n"
done
# unaligned block sizes, and a block larger than a chunk
for bs in 1000 65537 $((5 * MiB)); do
	dd if="$src/s$((13 * MiB + 5))" of="/mnt/a/dd$bs" bs="$bs" status=none
	cp "$src/s$((13 * MiB + 5))" "$src/dd$bs"
	add "dd$bs"
done
# rewritten shorter through O_TRUNC: the size of its close still counts
cp "$src/s$((4 * MiB + 1))" /mnt/a/over
head -c 100000 /dev/urandom >"$src/over"
cat "$src/over" >/mnt/a/over
add over
# appends (O_APPEND)
for i in $(seq 20); do
	head -c $((i * 70001)) /dev/urandom >"$src/piece"
	cat "$src/piece" >>"$src/append"
	cat "$src/piece" >>/mnt/a/append
done
add append
# holes: a chunk and a half of nothing, then data, then an extension
dd if="$src/s4097" of="$src/holes" bs=1M seek=6 status=none
dd if="$src/s4097" of=/mnt/a/holes bs=1M seek=6 status=none
truncate -s $((15 * MiB)) "$src/holes" /mnt/a/holes
add holes
# random writes, truncations and fsyncs on a new file
for seed in 1 2; do
	: >"$src/random$seed"
	: >"/mnt/a/random$seed"
	python3 "$AIFS_TOP/tests/vm/write/random-writes.py" "$seed" 120 \
		$((14 * MiB)) "/mnt/a/random$seed" "$src/random$seed"
	add "random$seed"
done
# and on a file whose data is on the servers only: partial writes into
# folios not cached read them first
head -c $((9 * MiB + 333)) /dev/urandom >"$src/put"
put_file "$src/put" /put
python3 "$AIFS_TOP/tests/vm/write/random-writes.py" 3 60 $((10 * MiB)) \
	/mnt/a/put "$src/put"
add put

compare "through the page cache"
echo 3 >/proc/sys/vm/drop_caches
compare "from a cold cache"
for n in "${names[@]}"; do
	get "$n" | cmp "$src/$n" - || fail "$n differs on the data servers"
done
umount /mnt/a
mount -t aifs -o "$(with_transport secret=$AIFS_SECRET)" "$AIFS_ADDR:/" /mnt/a
compare "after a remount"
umount /mnt/a
rm -rf "$src"
