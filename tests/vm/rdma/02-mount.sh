# A mount over RDMA (Soft-RoCE, transport=rdma): the metadata and data
# servers are reached by RDMA queue pairs and by no TCP connection (and
# aifs status says the data servers speak RDMA); files
# cross chunks and data servers through the page cache and O_DIRECT, their
# data moved by the servers' RDMA READs and WRITEs (not in the replies);
# aifs-fsx (AIFS_FSX_OPS, 2,000 here) finds no corruption buffered and
# direct; after umount and rmmod the kernel holds no more RDMA resources
# (QP, CQ, PD, MR, cm_id) than before the mount.
. "$AIFS_TOP/tests/vm/lib.sh"

AIFS_FSX_OPS=${AIFS_FSX_OPS:-2000}
MIB=$((1 << 20))
rdma_resources() { rdma resource show | sed 's/^[0-9]*: //'; }

# grew KEY: GREW is how much counter KEY grew since the last call for KEY
# (not a $(...): that would forget the last value)
declare -A last
grew()
{
	local v
	v=$(aifs_stat /sys/fs/aifs/aifs-* "$1")
	GREW=$((v - ${last[$1]:-0}))
	last[$1]=$v
}

use_rdma
load_aifs
umount_at_exit /mnt/a
mkdir -p /mnt/a
start_cluster 7400
before=$(rdma_resources)
mount -t aifs -o "secret=$AIFS_SECRET,$AIFS_MOUNT_TRANSPORT" "$AIFS_ADDR:/" /mnt/a
assert_eq "$(cat /sys/fs/aifs/*/transport)" rdma "transport in sysfs"
grep -q "^$AIFS_ADDR:/ /mnt/a aifs .*transport=rdma" /proc/mounts ||
	fail "transport=rdma not in /proc/mounts"
# each data server told the MDS it listens for RDMA too
rdma=$(aifs -s "$MDS_DIR/secret" status --json /mnt/a | jq -c '[.servers[].rdma]')
assert_eq "$rdma" "[true,true,true]" "RDMA of the data servers in aifs status"

dd if=/dev/urandom of=/tmp/src bs=1M count=24 status=none
for key in rdma_read_bytes rdma_write_bytes ds_bytes_sent ds_bytes_received; do
	grew $key
done
cp /tmp/src /mnt/a/f
sync
grew rdma_write_bytes
[ "$GREW" -ge $((24 * MIB)) ] || fail "writeback: $GREW bytes by RDMA"
grew ds_bytes_sent
[ "$GREW" -lt "$MIB" ] || fail "writeback: $GREW bytes in requests"
echo 3 >/proc/sys/vm/drop_caches
cmp /tmp/src /mnt/a/f || fail "page cache read over RDMA differs"
grew rdma_read_bytes
[ "$GREW" -ge $((24 * MIB)) ] || fail "page cache reads: $GREW bytes by RDMA"
grew ds_bytes_received
[ "$GREW" -lt "$MIB" ] || fail "page cache reads: $GREW bytes in replies"
dd if=/mnt/a/f of=/tmp/direct bs=1M iflag=direct status=none
cmp /tmp/src /tmp/direct || fail "O_DIRECT read over RDMA differs"
grew rdma_read_bytes
assert_eq "$GREW" $((24 * MIB)) "O_DIRECT bytes read by RDMA"
dd if=/tmp/src of=/mnt/a/g bs=1M oflag=direct status=none
cmp /tmp/src /mnt/a/g || fail "O_DIRECT write over RDMA differs"
grew rdma_write_bytes
assert_eq "$GREW" $((24 * MIB)) "O_DIRECT bytes written by RDMA"

# kernel queue pairs (rdma_cm's), to the MDS and all three data servers
qps=$(rdma resource show qp | grep -c 'comm \[rdma_cm\]' || true)
[ "$qps" -ge 4 ] || fail "$qps kernel queue pairs, expected 4"
assert_eq "$(ds_in_use | xargs)" "1 2 3" "data servers connected"
# a kernel socket shows no process
! ss -Htnp state established "( dport >= :7400 and dport <= :7403 )" |
	grep -qv users: || fail "the kernel talks to the servers over TCP"

run_fsx buffered 11 /mnt/a/fsx-buffered
run_fsx direct 12 /mnt/a/fsx-direct

umount /mnt/a
rmmod aifs
assert_eq "$(rdma_resources)" "$before" "RDMA resources after rmmod"
