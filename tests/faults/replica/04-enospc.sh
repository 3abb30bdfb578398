# A full disk on one data server: a writer whose chunks land there gets
# ENOSPC (at write or at fsync, as POSIX allows), and a file written
# before reads right; once space is freed, writing works again.
. "$AIFS_TOP/tests/vm/lib.sh"
. "$AIFS_TOP/tests/faults/replica/helpers"

fault_cluster /mnt/a
# before: a file striped over the three servers (one copy each)
write_gen 17 24 /mnt/a/before || fail "write of the first file"
before=$WANT

# data server 1 moves onto a 40 MiB file system
data=${DS_DIRS[1]}/data
kill -TERM "${DS_PIDS[1]}"
wait "${DS_PIDS[1]}" 2>/dev/null || true
cp -a "$data" "$data.old"
mount -t tmpfs -o size=40m tmpfs "$data"
cp -a "$data.old/." "$data/"
restart_ds 1
wait_all_up 120 >/dev/null

# chunks: how many chunks data server 1 holds
chunks()
{
	find "$data/chunks" -type f -name '*.meta' 2>/dev/null | wc -l
}
held=$(chunks)

# 3 x 4 MiB chunks a stripe: 120 MiB puts 40 MiB on each server, more
# than the room left next to the first file's 8 MiB
out=$(gen 19 120 | dd of=/mnt/a/big bs=1M iflag=fullblock conv=fsync \
	status=none 2>&1) && fail "120 MiB written onto a full server"
grep -q "No space left on device" <<<"$out" || fail "not ENOSPC: $out"
record "full disk on one server: the writer got ENOSPC ($out)"

echo 3 >/proc/sys/vm/drop_caches
assert_eq "$(sha256sum </mnt/a/before | cut -d' ' -f1)" "$before" \
	"the file written before"
[ "$(chunks)" -gt "$held" ] || fail "nothing of the big file on server 1"
rm /mnt/a/big
# the chunk queue frees the space: once server 1 holds no more chunks
# than before the big file, a small file fits again, at the first try
end=$((SECONDS + 120))
until [ "$(chunks)" -le "$held" ]; do
	[ "$SECONDS" -lt "$end" ] ||
		fail "server 1 holds $(chunks) chunks 120 s after the delete, not $held"
	sleep 0.2
done
write_gen 23 8 /mnt/a/after || fail "no room again after the delete"
echo 3 >/proc/sys/vm/drop_caches
assert_eq "$(sha256sum </mnt/a/after | cut -d' ' -f1)" "$WANT" "the file written after"
umount /mnt/a
kill -TERM "${DS_PIDS[1]}"
wait "${DS_PIDS[1]}" 2>/dev/null || true
umount "$data"
