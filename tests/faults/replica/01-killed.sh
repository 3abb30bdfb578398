# replicas=2 on three data servers. A 1 GiB sequential write with the
# replica killed (SIGKILL) part way: no error, fsync included. The replica
# back catches up (SYNCING, then UP: the MDS marks it in sync, and its
# chunks are the primary's, version and CRCs). A 1 GiB cold read with the
# primary killed part way: no error, and the bytes are right though the
# rest comes from the copy that caught up. The primary back catches up
# too. Each kill is checked to have come part way (killed_midway).
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
took=$(echo "$(date +%s.%N) - $start" | bc)
killed_midway "write of $FAULT_MIB MiB, replica"
want=$WANT
wait "${DS_PIDS[replica]}" 2>/dev/null || true
record "write of $FAULT_MIB MiB, replica killed at 200 MiB: no error, $took s"

mark=$(mds_log_mark)
restart_ds "$replica"
took=$(wait_all_up 600)
record "replica back: SYNCING to UP in $took s"
in_sync_since "$mark" "$replica"
copies_agree "$primary" "$replica" /mnt/a/big

echo 3 >/proc/sys/vm/drop_caches
after_bytes received 200 "$primary"
start=$(date +%s.%N)
got=$(sha256sum </mnt/a/big | cut -d' ' -f1) || fail "read with the primary killed"
took=$(echo "$(date +%s.%N) - $start" | bc)
killed_midway "read of $FAULT_MIB MiB, primary"
assert_eq "$got" "$want" "sha256 of the file read with the primary killed"
record "read of $FAULT_MIB MiB, primary killed at 200 MiB: no error, sha256 right, $took s"

mark=$(mds_log_mark)
restart_ds "$primary"
took=$(wait_all_up 600)
record "primary back: SYNCING to UP in $took s"
in_sync_since "$mark" "$primary"
copies_agree "$replica" "$primary" /mnt/a/big
echo 3 >/proc/sys/vm/drop_caches
assert_eq "$(sha256sum </mnt/a/big | cut -d' ' -f1)" "$want" "sha256 after both came back"
umount /mnt/a
