# replicas=2 on three data servers. A 1 GiB sequential write with the
# replica killed (SIGKILL) part way: no error, fsync included. The replica
# back catches up (SYNCING, then UP). A 1 GiB cold read with the primary
# killed part way: no error, and the bytes are right though the rest
# comes from the copy that caught up. The primary back catches up too.
. "$AIFS_TOP/tests/vm/lib.sh"
. "$AIFS_TOP/tests/faults/replica/helpers"

fault_cluster /mnt/a
new_file /big
# the first MiB places both copies; the primary is the one written to
gen 7 1 | dd of=/mnt/a/big bs=1M conv=notrunc,fsync status=none
copies_of /big
primary=$PRIMARY replica=$REPLICA

after_bytes sent 200 "$replica"
start=$(date +%s.%N)
write_gen 7 "$FAULT_MIB" /mnt/a/big || fail "write with the replica killed"
wait "$KILLER"
took=$(echo "$(date +%s.%N) - $start" | bc)
want=$WANT
wait "${DS_PIDS[replica]}" 2>/dev/null || true
record "write of $FAULT_MIB MiB, replica killed at 200 MiB: no error, $took s"

restart_ds "$replica"
took=$(wait_all_up 600)
record "replica back: SYNCING to UP in $took s"
grep -q "in sync" "$MDS_DIR/log" || fail "the MDS never said the replica is in sync"

echo 3 >/proc/sys/vm/drop_caches
after_bytes received 200 "$primary"
start=$(date +%s.%N)
got=$(sha256sum </mnt/a/big | cut -d' ' -f1) || fail "read with the primary killed"
wait "$KILLER"
took=$(echo "$(date +%s.%N) - $start" | bc)
assert_eq "$got" "$want" "sha256 of the file read with the primary killed"
record "read of $FAULT_MIB MiB, primary killed at 200 MiB: no error, sha256 right, $took s"

restart_ds "$primary"
took=$(wait_all_up 600)
record "primary back: SYNCING to UP in $took s"
echo 3 >/proc/sys/vm/drop_caches
assert_eq "$(sha256sum </mnt/a/big | cut -d' ' -f1)" "$want" "sha256 after both came back"
umount /mnt/a
