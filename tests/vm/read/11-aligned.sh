# Readahead windows grow to whole granules (the largest power of two no
# larger than the window nor the chunk): a 64 KiB read at an unaligned
# offset reads the aligned 128 KiB around it, cut at the chunk boundary
# into two aligned CHUNK_READs, not a 4 KiB sliver and the rest.
. "$AIFS_TOP/tests/vm/lib.sh"

mount_cluster /mnt/a
dir=$(ls -d /sys/fs/aifs/aifs-*)
src=$(mktemp /tmp/aifs-src.XXXXXX)
MiB=1048576
head -c $((8 * MiB + 8192)) /dev/urandom >"$src"
put_file "$src" /f

read_at()	# OFFSET: a 64 KiB read there from a cold cache; prints
{		# "pages requests bytes" of the readahead it caused
	local p0 r0 b0 a b
	echo 3 >/proc/sys/vm/drop_caches
	p0=$(aifs_stat "$dir" readahead_pages)
	r0=$(aifs_stat "$dir" ds_requests)
	b0=$(aifs_stat "$dir" chunk_read_bytes)
	a=$(dd if=/mnt/a/f bs=64k skip="$1" iflag=skip_bytes count=1 \
		status=none | sha256sum)
	b=$(dd if="$src" bs=64k skip="$1" iflag=skip_bytes count=1 \
		status=none | sha256sum)
	assert_eq "$a" "$b" "64 KiB at $1"
	echo $(($(aifs_stat "$dir" readahead_pages) - p0)) \
		$(($(aifs_stat "$dir" ds_requests) - r0)) \
		$(($(aifs_stat "$dir" chunk_read_bytes) - b0))
}

# within a chunk: [5 MiB + 4 KiB, +64 KiB) grows to [5 MiB, +128 KiB)
read -r pages reqs bytes <<<"$(read_at $((5 * MiB + 4096)))"
echo "at 5 MiB + 4 KiB: $pages pages, $reqs requests, $bytes bytes"
assert_eq "$pages" 32 "pages read for 64 KiB at 5 MiB + 4 KiB"
assert_eq "$reqs" 1 "CHUNK_READs within one chunk"
assert_eq "$bytes" $((128 * 1024)) "bytes asked within one chunk"

# across the chunk boundary at 4 MiB: two aligned 64 KiB halves
read -r pages reqs bytes <<<"$(read_at $((4 * MiB - 4096)))"
echo "at 4 MiB - 4 KiB: $pages pages, $reqs requests, $bytes bytes"
assert_eq "$pages" 32 "pages read for 64 KiB at 4 MiB - 4 KiB"
assert_eq "$reqs" 2 "CHUNK_READs across a chunk boundary"
assert_eq "$bytes" $((128 * 1024)) "bytes asked across a chunk boundary"

# never past EOF: the file ends 8 KiB after 8 MiB, the window is cut there
read -r pages reqs bytes <<<"$(read_at $((8 * MiB - 61440)))"
echo "near EOF: $pages pages, $reqs requests, $bytes bytes"
assert_eq "$pages" 18 "pages read for 64 KiB at 8 MiB - 60 KiB"
assert_eq "$bytes" $((72 * 1024)) "bytes asked near EOF"
umount /mnt/a
rm -f "$src"
