# A crash between commit and acknowledgement: the primary of a file of two
# copies dies (fault point ds.write.crash) once a write is durable on both
# copies, before it answers. The writer sees no error (the other copy
# takes over); the server restarted, as systemd would, catches up on its
# own, and serves the whole file right when the other copy is gone.
. "$AIFS_TOP/tests/vm/lib.sh"
. "$AIFS_TOP/tests/faults/replica/helpers"

fault_cluster /mnt/a fault_injection=yes
new_file /f
gen 11 1 | dd of=/mnt/a/f bs=1M conv=notrunc,fsync status=none
primary=$(ds_in_use)
[[ "$primary" =~ ^[123]$ ]] || fail "no single primary: $primary"
# only primaries take CHUNK_WRITE (65): the 9th from now crashes it
aifs -s "$MDS_DIR/secret" fail "$AIFS_ADDR:$((7400 + primary))" \
	"ds.write.crash:opcode=65:after=8" || fail "aifs fail"
start=$(date +%s.%N)
write_gen 11 64 /mnt/a/f ||
	fail "write with the primary crashing before its answer"
took=$(echo "$(date +%s.%N) - $start" | bc)
want=$WANT
wait "${DS_PIDS[primary]}" 2>/dev/null || true
dead "${DS_PIDS[primary]}" || fail "the primary did not crash"
grep -q "fail point ds.write.crash" "${DS_DIRS[primary]}/log" ||
	fail "the primary died of something else: $(tail -3 "${DS_DIRS[primary]}/log")"
record "write of 64 MiB, primary crashed between commit and answer: no error, $took s"

restart_ds "$primary"
took=$(wait_all_up 300)
record "crashed primary restarted: SYNCING to UP in $took s"
for i in $(holders); do
	[ "$i" = "$primary" ] || kill_ds "$i"
done
echo 3 >/proc/sys/vm/drop_caches
assert_eq "$(sha256sum </mnt/a/f | cut -d' ' -f1)" "$want" \
	"sha256 from the restarted server alone"
umount /mnt/a
