# The RDMA device goes away (rdma link delete) under a transport=auto
# mount whose servers were killed: the removal does not wait for the
# umount (the module lets go of the device's queue pairs, memory regions,
# CQs and PDs at once, the connections failed or not), and once the
# servers are back, over TCP now, the mount carries on: the same files
# read back right, new writes land. No oops, no hang; umount and rmmod
# work. The servers go first because Soft-RoCE cannot take a device from
# a process using it (no disassociation): its removal waits for them.
. "$AIFS_TOP/tests/vm/lib.sh"

MiB=1048576
use_rdma
mount_cluster /mnt/a transport=auto
src=$(mktemp -d /tmp/aifs-src.XXXXXX)
head -c $((16 * MiB)) /dev/urandom >"$src/f"
cp "$src/f" /mnt/a/f
sync
# the module's connections to the MDS and the three data servers
cm_ids() { rdma resource show cm_id 2>/dev/null | grep -c 'comm \[aifs\]' || true; }
[ "$(cm_ids)" -ge 4 ] || fail "$(cm_ids) RDMA connections, expected 4"

kill -KILL "${AIFS_SERVER_PIDS[@]}"
wait "${AIFS_SERVER_PIDS[@]}" 2>/dev/null || true
log_mark
timeout 60 rdma link delete rxe0 ||
	fail "removing the RDMA device waited for the mount (or failed)"
expect_dmesg "RDMA device rxe0 removed"
assert_eq "$(cm_ids)" 0 "RDMA connections left"

# the same servers again, on TCP only now
run_server aifs-mds "$MDS_DIR"
for i in 1 2 3; do run_server aifs-ds "${DS_DIRS[i]}"; done
grep -q "TCP only" "$MDS_DIR/log" || fail "the MDS still found RDMA"
echo 3 >/proc/sys/vm/drop_caches
cmp "$src/f" /mnt/a/f || fail "f differs after the removal"
cp "$src/f" /mnt/a/g
echo 3 >/proc/sys/vm/drop_caches
cmp "$src/f" /mnt/a/g || fail "g, written after the removal, differs"
# kernel sockets (no process) to the MDS and the three data servers
tcp=$(ss -Htnp state established "( dport >= :7400 and dport <= :7403 )" |
	grep -cv users: || true)
[ "$tcp" -ge 4 ] || fail "$tcp kernel TCP connections, expected 4"
umount /mnt/a
rmmod aifs
rm -rf "$src"
rdma_setup	# for whatever runs next in this guest
