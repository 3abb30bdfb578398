# replicas=2 on three data servers, rebuild_delay_s=5. The primary of a
# file is cut off from the network (an nftables rule drops every packet
# to its port and every packet of its sockets) in the middle of a write:
# the write goes on without an error (the client fails over, the MDS
# counts the server out, the rebuild gives the group the third server
# and the client fetches the new layout), the cut-off server is RETIRED,
# and with the one original copy left also killed the file reads right
# from the server the rebuild made a member.  Once the network is back,
# the MDS has the retired server's old copies deleted, and aifs fsck
# finds nothing.
. "$AIFS_TOP/tests/vm/lib.sh"
. "$AIFS_TOP/tests/faults/replica/helpers"

command -v nft >/dev/null || skip "nft not installed (make deps)"
CUT_GID=4242
MIB=$((FAULT_MIB < 64 ? FAULT_MIB : 64))

uncut()
{
	nft delete table inet aifs_cut 2>/dev/null || true
	stop_servers
}

# A request to the cut-off server waits for the mount's timeo, writeback
# uninterruptibly: 10 s, under the guest's hung task limit of 20 s.
FAULT_TIMEO=100 AIFS_REBUILD_DELAY_S=5 fault_cluster /mnt/a
new_file /cut
gen 9 1 | dd of=/mnt/a/cut bs=1M conv=notrunc,fsync status=none
copies_of /cut
victim=$PRIMARY kept=$REPLICA

# The victim again under a group of its own, which nft can tell apart.
kill -TERM "${DS_PIDS[victim]}"
wait "${DS_PIDS[victim]}" 2>/dev/null || true
wrap=$(mktemp /tmp/aifs-ds-cut.XXXXXX)
printf '#!/bin/sh\nexec setpriv --regid %s --clear-groups aifs-ds "$@"\n' \
	"$CUT_GID" >"$wrap"
chmod +x "$wrap"
run_server "$wrap" "${DS_DIRS[victim]}"
DS_PIDS[victim]=$SERVER_PID
trap uncut EXIT
wait_all_up 120 >/dev/null

nft add table inet aifs_cut
nft add chain inet aifs_cut out '{ type filter hook output priority 0; }'
start=$(date +%s.%N)
nft add rule inet aifs_cut out tcp dport $((7400 + victim)) drop
nft add rule inet aifs_cut out meta skgid "$CUT_GID" drop
write_gen 10 "$MIB" /mnt/a/cut || fail "write with the primary cut off"
took=$(echo "$(date +%s.%N) - $start" | bc)
want=$WANT
record "write of $MIB MiB, primary cut off as it began: no error, $took s"

# the MDS's log names the victim by the id it registered as (ids go by
# registration, not by start order)
victim_id=$(ds_id "$victim")
wait_log "$MDS_DIR/log" "data server $victim_id: .* retired" 300 ||
	fail "the cut-off server was not rebuilt around"
took=$(echo "$(date +%s.%N) - $start" | bc)
grep "data server $victim_id:" "$MDS_DIR/log"
record "cut-off server rebuilt around and RETIRED $took s after the cut"

kill_ds "$kept"
echo 3 >/proc/sys/vm/drop_caches
assert_eq "$(sha256sum </mnt/a/cut | cut -d' ' -f1)" "$want" \
	"sha256 read from the new member alone"
umount /mnt/a

# The network back: the retired server speaks to the MDS again, which
# has the old copies it still holds deleted; aifs fsck then finds nothing.
nft delete table inet aifs_cut
restart_ds "$kept"
start=$(date +%s.%N)
for _ in $(seq 1200); do
	holders | grep -qw "$victim" || break
	sleep 0.1
done
holders | grep -qw "$victim" && fail "the retired server holds chunks still"
took=$(echo "$(date +%s.%N) - $start" | bc)
record "the retired server's old copies deleted $took s after the network came back"
for _ in $(seq 1200); do
	[ "$(up_count)" = 2 ] && break
	sleep 0.1
done
assert_eq "$(up_count)" 2 "servers UP with the retired one back"
cluster_fsck || fail "aifs fsck with the retired server back: exit $?"
