# max_inflight=1 bounds the MDS requests of a mount to one at a time:
# several tasks at once still all get their answers, reads still work,
# and raising the bound in sysfs at run time lets waiters go on.
. "$AIFS_TOP/tests/vm/lib.sh"

mount_cluster /mnt/a max_inflight=1
dir=$(ls -d /sys/fs/aifs/aifs-*)
src=$(mktemp /tmp/aifs-src.XXXXXX)
head -c $((9 * 1048576)) /dev/urandom >"$src"
put_file "$src" /f
assert_eq "$(cat "$dir/max_inflight")" 1 "max_inflight"

worker()	# N: names of its own, a listing and a read
{
	local i
	for i in $(seq 30); do
		mkdir "/mnt/a/w$1-$i" || return 1
		[ -d "/mnt/a/w$1-$i" ] || return 1
	done
	[ "$(ls /mnt/a | grep -c "^w$1-")" = 30 ] || return 1
	cmp "$src" /mnt/a/f
}
run_workers()
{
	local pids=() p i
	for i in "$@"; do
		worker "$i" &
		pids+=($!)
	done
	for p in "${pids[@]}"; do
		wait "$p" || fail "a worker failed with max_inflight=$(cat "$dir/max_inflight")"
	done
}
run_workers 1 2 3 4
echo 3 >/proc/sys/vm/drop_caches
worker 5 &
pid=$!
echo 64 >"$dir/max_inflight"
wait "$pid" || fail "a worker failed across a change of max_inflight"
run_workers 6 7 8 9
assert_eq "$(aifs_stat "$dir" mds_timeouts)" 0 "MDS timeouts"
umount /mnt/a
rm -f "$src"
