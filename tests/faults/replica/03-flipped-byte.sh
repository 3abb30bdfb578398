# A flipped byte in a chunk file: on the copy reads go to, a read finds it
# (the application gets the right bytes from the other copy) and the
# copy is repaired; on the other copy, which nobody reads, scrub finds it
# and it is repaired. Repaired means the chunk file holds the bytes
# written again (not only that a server logged or counted a repair); the
# scrubbed copy then serves the file right alone.
. "$AIFS_TOP/tests/vm/lib.sh"
. "$AIFS_TOP/tests/faults/replica/helpers"

fault_cluster /mnt/a scrub_rate_mib=64
new_file /f
write_gen 13 16 /mnt/a/f || fail "write"
want=$WANT
copies_of /f
primary=$PRIMARY replica=$REPLICA
chunk=$(aifs --json getlayout /mnt/a/f | jq -e .chunk_size) ||
	fail "chunk size of /f"
gen 13 16 >/tmp/f.written

# chunk_right I CHUNK: that file holds the bytes written there
chunk_right()
{
	dd if=/tmp/f.written bs="$chunk" skip="$2" count=1 status=none |
		cmp -s -n "$chunk" - "$(chunk_file "$1" "$2")"
}

# flip_byte I CHUNK: one byte of chunk CHUNK on data server I, in its
# second checksum block
flip_byte()
{
	local file
	file=$(chunk_file "$1" "$2")
	python3 - "$file" <<'PY'
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(65536 + 4321)
    b = f.read(1)
    f.seek(65536 + 4321)
    f.write(bytes([b[0] ^ 0x10]))
PY
}

# found by a read, on the primary's copy of chunk 1
flip_byte "$primary" 1
! chunk_right "$primary" 1 || fail "the flipped byte is not there"
echo 3 >/proc/sys/vm/drop_caches
assert_eq "$(sha256sum </mnt/a/f | cut -d' ' -f1)" "$want" "read over a flipped byte"
wait_log "${DS_DIRS[primary]}/log" "chunk .*\.1\.0: resynced" 10 ||
	fail "the primary's copy was not repaired"
grep -q "checksum mismatch" "${DS_DIRS[primary]}/log" ||
	fail "the read did not find the flipped byte"
chunk_right "$primary" 1 || fail "the primary's chunk 1 holds wrong bytes"
record "flipped byte on the read copy: found by the read, repaired, application saw the right bytes"

# found by scrub, on the replica's copy of chunk 2
flip_byte "$replica" 2
! chunk_right "$replica" 2 || fail "the flipped byte is not there"
scrub="aifs -s $MDS_DIR/secret scrub $AIFS_ADDR:$((7400 + replica))"
$scrub start >/dev/null || fail "scrub start"
start=$(date +%s.%N)
for i in $(seq 300); do
	out=$($scrub)
	grep -q "^passes: 1" <<<"$out" && grep -q "^resynced: 1" <<<"$out" && break
	sleep 0.1
done
took=$(echo "$(date +%s.%N) - $start" | bc)
grep -q "^bad: 1$" <<<"$out" || fail "scrub found: $out"
grep -q "^resynced: 1$" <<<"$out" || fail "scrub did not repair: $out"
chunk_right "$replica" 2 || fail "the replica's chunk 2 holds wrong bytes"
record "flipped byte on the unread copy: found by scrub and repaired in $took s"

# each copy alone
kill_ds "$primary"
echo 3 >/proc/sys/vm/drop_caches
assert_eq "$(sha256sum </mnt/a/f | cut -d' ' -f1)" "$want" "the scrubbed copy alone"
umount /mnt/a
