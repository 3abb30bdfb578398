# Mount and unmount 100 times, each with a connection and a handshake: ids
# are reused and no memory is kept.
. "$AIFS_TOP/tests/vm/lib.sh"

load_aifs
mkdir -p /mnt/a
start_mds 7400

# Objects in use in the general-purpose slab caches, where a leaked
# superblock info, option string or kobject would stay.
kmalloc_objects()
{
	sync
	echo 3 >/proc/sys/vm/drop_caches
	awk '/^kmalloc-/ { n += $2 } END { print n }' /proc/slabinfo
}

cycle()
{
	local i
	for i in $(seq "$1"); do
		mount -t aifs -o secret=$AIFS_SECRET,read_ahead_kb=$((i * 4)) \
			127.0.0.1:/ /mnt/a
		umount /mnt/a
	done
}

# The least in use over a few seconds: sockets, inodes and files closed by
# the cycles are freed after an RCU grace period, which a busy host delays;
# a leak stays.
settled_kmalloc_objects()
{
	local i n least

	least=$(kmalloc_objects)
	for i in $(seq 10); do
		sleep 0.5
		n=$(kmalloc_objects)
		[ "$n" -lt "$least" ] && least=$n
	done
	echo "$least"
}

cycle 10	# warm up caches that grow once
# /proc/slabinfo counts whole per-CPU slabs as in use, so one window can
# grow by a slab or two (seen: +144) with nothing leaked; a leak grows
# in every window.  A leak of one object per mount adds 100 to each.
before=$(settled_kmalloc_objects)
cycle 100
middle=$(settled_kmalloc_objects)
cycle 100
after=$(settled_kmalloc_objects)
echo "kmalloc objects in use: before $before, after 100 cycles $middle, after 200 $after"
[ $((middle - before)) -lt 60 ] || [ $((after - middle)) -lt 60 ] ||
	fail "kmalloc objects grew by $((middle - before)) and $((after - middle))"

mount -t aifs -o secret=$AIFS_SECRET 127.0.0.1:/ /mnt/a
[ -d /sys/fs/aifs/aifs-0 ] || fail "ids not reused: $(ls /sys/fs/aifs)"
umount /mnt/a
assert_eq "$(module_refcount)" 0 "module refcount"
pgrep -x aifs-recv >/dev/null && fail "receiver threads left: $(pgrep -x aifs-recv | wc -l)"
exit 0
