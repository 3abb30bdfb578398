# Mount and unmount 157 times (four windows of 38 after five), each with a
# connection and a handshake: ids are reused and no memory is kept (no
# slab cache grows steadily).
. "$AIFS_TOP/tests/vm/lib.sh"

load_aifs
mkdir -p /mnt/a
start_mds 7400

cycle()
{
	local i
	for i in $(seq "$1"); do
		mount -t aifs -o "$(with_transport secret=$AIFS_SECRET \
			read_ahead_kb=$((i * 4)))" "$AIFS_ADDR:/" /mnt/a
		umount /mnt/a
	done
}

expect_no_slab_leak cycle 38

mount -t aifs -o "$(with_transport secret=$AIFS_SECRET)" "$AIFS_ADDR:/" /mnt/a
[ -d /sys/fs/aifs/aifs-0 ] || fail "ids not reused: $(ls /sys/fs/aifs)"
umount /mnt/a
assert_eq "$(module_refcount)" 0 "module refcount"
pgrep -x aifs-recv >/dev/null && fail "receiver threads left: $(pgrep -x aifs-recv | wc -l)"
exit 0
