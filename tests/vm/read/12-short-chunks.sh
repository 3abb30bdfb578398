# Reads land in the page cache straight from the socket, and what no
# CHUNK_READ fills is zeroed there: a chunk stored shorter than the file
# says (the size raised with truncate(2), which changes only the MDS's
# size), chunks never written, the tail of the last page, and a file
# shrunk below what its last chunk stores. Read with windows from none
# (read_folio) to 16 MiB, which spans several chunks and sub-requests,
# from a cold cache, byte for byte against the same file made locally.
. "$AIFS_TOP/tests/vm/lib.sh"

mount_cluster /mnt/a
dir=$(ls -d /sys/fs/aifs/aifs-*)
src=$(mktemp -d /tmp/aifs-src.XXXXXX)
MiB=1048576

# chunk 1 holds 100 KiB + 1 byte; the file grows to 13 MiB around it
head -c $((4 * MiB + 102401)) /dev/urandom >"$src/grown"
put_file "$src/grown" /grown
truncate -s $((13 * MiB)) "$src/grown"
python3 -c "import os, sys; os.truncate(sys.argv[1], int(sys.argv[2]))" \
	/mnt/a/grown $((13 * MiB)) || fail "truncate up on aifs"
# chunk 1 holds 2 MiB, of which the file keeps 50 KiB + 3 bytes
head -c $((6 * MiB)) /dev/urandom >"$src/shrunk"
put_file "$src/shrunk" /shrunk
truncate -s $((4 * MiB + 51203)) "$src/shrunk"
python3 -c "import os, sys; os.truncate(sys.argv[1], int(sys.argv[2]))" \
	/mnt/a/shrunk $((4 * MiB + 51203)) || fail "truncate down on aifs"

for kb in 0 4 128 1024 16384; do
	echo "$kb" >"$dir/read_ahead_kb"
	for f in grown shrunk; do
		echo 3 >/proc/sys/vm/drop_caches
		assert_eq "$(stat -c %s /mnt/a/$f)" "$(stat -c %s $src/$f)" \
			"size of $f"
		cmp "$src/$f" "/mnt/a/$f" ||
			fail "$f differs with read_ahead_kb=$kb"
	done
	# across the end of the stored bytes, and of the 1 MiB sub-requests
	for skip in $((4 * MiB + 98304)) $((5 * MiB - 4096)) $((8 * MiB - 4096)); do
		echo 3 >/proc/sys/vm/drop_caches
		a=$(dd if=/mnt/a/grown bs=8192 skip=$skip iflag=skip_bytes \
			count=2 status=none | sha256sum)
		b=$(dd if="$src/grown" bs=8192 skip=$skip iflag=skip_bytes \
			count=2 status=none | sha256sum)
		assert_eq "$a" "$b" "grown at $skip, read_ahead_kb=$kb"
	done
done
umount /mnt/a
rm -rf "$src"
