# Load, mount, write across a chunk boundary (two data servers), read it
# back from a cold cache, umount and unload, 41 times: nothing is left
# behind — no slab object (four windows of 9 cycles after five), no
# object of the module's inode cache (its destruction would complain), no
# thread.
. "$AIFS_TOP/tests/vm/lib.sh"

MiB=1048576
mount_cluster /mnt/a
src=$(mktemp /tmp/aifs-src.XXXXXX)
head -c $((512 * 1024)) /dev/urandom >"$src"
: >/mnt/a/f
umount /mnt/a
rmmod aifs
want=$(sha256sum <"$src")

cycle()
{
	local i
	# the modules aifs needs stay loaded: insmod alone is enough
	for i in $(seq "$1"); do
		insmod "$AIFS_KMOD_TREE/kmod/aifs.ko"
		mount -t aifs -o "$(with_transport secret=$AIFS_SECRET)" \
			"$AIFS_ADDR:/" /mnt/a
		dd if="$src" of=/mnt/a/f bs=64k seek=$((4 * MiB - 256 * 1024)) \
			oflag=seek_bytes conv=notrunc status=none
		echo 3 >/proc/sys/vm/drop_caches
		assert_eq "$(dd if=/mnt/a/f bs=64k skip=$((4 * MiB - 256 * 1024)) \
			iflag=skip_bytes status=none | sha256sum)" "$want" "cycle $i"
		umount /mnt/a
		rmmod aifs
	done
	echo "$1 cycles done at $(cut -d' ' -f1 /proc/uptime) s"
}

expect_no_slab_leak cycle
pgrep -x aifs-recv >/dev/null && fail "receiver threads left"
rm -f "$src"
