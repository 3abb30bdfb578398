# max_inflight=1 bounds the MDS requests of a mount to one at a time:
# several tasks at once still all get their answers, reads still work,
# and raising the bound in sysfs at run time lets waiters go on. With the
# MDS stopped, a second task waits for the slot without sending (its
# kernel stack has no aifs_conn_call), dies of SIGKILL, and goes on as
# soon as the bound is raised.
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

echo 1 >"$dir/max_inflight"
mds_pid=${AIFS_SERVER_PIDS[0]}
in_kernel()	# PID FUNCTION: PID's kernel stack shows FUNCTION
{
	grep -q "$2" "/proc/$1/stack" 2>/dev/null
}
wait_for()	# PID FUNCTION [not]: until the stack does, or does not, show it
{
	local i
	for i in $(seq 300); do
		if [ "${3:-}" = not ]; then
			in_kernel "$1" aifs_mds_call && ! in_kernel "$1" "$2" && return
		else
			in_kernel "$1" "$2" && return
		fi
		sleep 0.1
	done
	cat "/proc/$1/stack" >&2 || true
	fail "pid $1: stack ${3:+without }$2 expected"
}
kill -STOP "$mds_pid"
stat /mnt/a/held 2>/dev/null &
held=$!
wait_for $held aifs_conn_call
stat /mnt/a/waits 2>/dev/null &
waiter=$!
wait_for $waiter aifs_conn_call not
kill -KILL $waiter
wait $waiter 2>/dev/null || true
stat /mnt/a/waits2 2>/dev/null &
waiter=$!
wait_for $waiter aifs_conn_call not
echo 2 >"$dir/max_inflight"
wait_for $waiter aifs_conn_call
kill -KILL $held $waiter
wait $held $waiter 2>/dev/null || true
kill -CONT "$mds_pid"
cmp "$src" /mnt/a/f || fail "read after the MDS was stopped"
umount /mnt/a
rm -f "$src"
