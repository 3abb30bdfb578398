# A chunk its primary lost (its files gone, as a bad disk or an operator's
# slip may take them) is no hole: a read gets its bytes from the other
# copy, never zeros, and the primary, which knows it held the chunk
# (its record of what it holds, G4), takes the other copy back; a write
# into it through the primary is acknowledged with both copies holding
# the old bytes and the new ones, so that either alone serves the file
# right; an EC data fragment its server lost is decoded from the others
# (issue 29, defect 6).
. "$AIFS_TOP/tests/vm/lib.sh"
. "$AIFS_TOP/tests/faults/replica/helpers"

fault_cluster /mnt/a
new_file /f
write_gen 17 8 /mnt/a/f || fail "write"
copies_of /f
primary=$PRIMARY replica=$REPLICA
chunk=$(aifs --json getlayout /mnt/a/f | jq -e .chunk_size) ||
	fail "chunk size of /f"
[ $((8 * MiB / chunk)) -ge 2 ] || fail "/f has fewer than two chunks of $chunk"
gen 17 8 >/tmp/f.written

# lose_chunk I CHUNK: the files of chunk CHUNK of /f on data server I gone
lose_chunk()
{
	local file
	file=$(chunk_file "$1" "$2") || exit 1
	rm "$file" "$file.meta" || fail "rm $file"
}

written()
{
	sha256sum </tmp/f.written | cut -d' ' -f1
}

lose_chunk "$primary" 1
echo 3 >/proc/sys/vm/drop_caches
assert_eq "$(sha256sum </mnt/a/f | cut -d' ' -f1)" "$(written)" \
	"read of a chunk its primary lost"
record "chunk lost on the primary: read from the replica, not as zeros"

# 4 KiB into the lost chunk, 8 KiB past its start
gen 18 1 >/tmp/patch && truncate -s 4096 /tmp/patch
at=$(((chunk + 8192) / 4096))
dd if=/tmp/patch of=/mnt/a/f bs=4096 seek=$at conv=notrunc,fsync \
	status=none || fail "write into the lost chunk"
dd if=/tmp/patch of=/tmp/f.written bs=4096 seek=$at conv=notrunc \
	status=none
grep -q "chunk 1: lost (its files are gone)" "${DS_DIRS[primary]}/log" ||
	fail "the primary did not find its copy lost"
echo 3 >/proc/sys/vm/drop_caches
assert_eq "$(sha256sum </mnt/a/f | cut -d' ' -f1)" "$(written)" \
	"read after a write into the lost chunk"
# an EC file (2+1): a data fragment its server lost is decoded, not zeros
mkdir /mnt/a/cold
aifs setlayout /mnt/a/cold ec=2+1 chunk=64K >/dev/null || fail "setlayout"
gen 19 1 >/tmp/g.written
dd if=/tmp/g.written of=/mnt/a/cold/g bs=1M conv=fsync status=none ||
	fail "write /cold/g"
frag=$(find "${DS_DIRS[1]}/data" "${DS_DIRS[2]}/data" "${DS_DIRS[3]}/data" \
	-type f -name "*.00000001.01")
[ -n "$frag" ] || fail "no first data fragment of stripe 1"
rm "$frag" "$frag.meta" || fail "rm $frag"
echo 3 >/proc/sys/vm/drop_caches
cmp /mnt/a/cold/g /tmp/g.written || fail "read of an EC file that lost a fragment"
record "EC data fragment lost: decoded from the others, not zeros"

kill_ds "$replica"
echo 3 >/proc/sys/vm/drop_caches
assert_eq "$(sha256sum </mnt/a/f | cut -d' ' -f1)" "$(written)" \
	"the primary's copy alone after the write"
record "write into the lost chunk: the primary took the replica's copy first"
umount /mnt/a
