# Load, mount, read through the data servers, umount and unload, 41
# times: each read crosses a chunk boundary (two data servers, two
# connections and handshakes) in several readahead requests, and leaves
# nothing behind — no slab object (four windows of 9 cycles after
# five), no object of the module's inode cache (its destruction would
# complain), no thread.
. "$AIFS_TOP/tests/vm/lib.sh"

MiB=1048576
mount_cluster /mnt/a
src=$(mktemp /tmp/aifs-src.XXXXXX)
head -c $((5 * MiB)) /dev/urandom >"$src"
put_file "$src" /f
umount /mnt/a
rmmod aifs
# 512 KiB across the boundary of chunks 0 and 1, on two servers
piece()
{
	dd if="$1" bs=64k skip=$((4 * MiB - 256 * 1024)) count=8 \
		iflag=skip_bytes status=none
}
want=$(piece "$src" | sha256sum)

cycle()
{
	local i
	# the modules aifs needs stay loaded: insmod alone is enough
	for i in $(seq "$1"); do
		insmod "$AIFS_KMOD_TREE/kmod/aifs.ko"
		mount -t aifs -o "$(with_transport secret=$AIFS_SECRET \
			read_ahead_kb=$((i % 4 * 64 + 64)))" "$AIFS_ADDR:/" /mnt/a
		assert_eq "$(piece /mnt/a/f | sha256sum)" "$want" "cycle $i"
		umount /mnt/a
		rmmod aifs
	done
	echo "$1 cycles done at $(cut -d' ' -f1 /proc/uptime) s"
}

expect_no_slab_leak cycle
pgrep -x aifs-recv >/dev/null && fail "receiver threads left"
rm -f "$src"
