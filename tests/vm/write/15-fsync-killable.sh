# fsync(2) and close(2) wait for data servers that do not answer (stopped
# with SIGSTOP; timeo is 60 s) killably, as NFS does: the hung-task
# detector does not count them (its timeout is cut to 6 s here), and
# SIGKILL ends them, and the exit's own close, at once.  The killed
# writers' data goes on once the servers resume, and so does the size:
# after umount and mount the files hold all of it.
. "$AIFS_TOP/tests/vm/lib.sh"

MiB=1048576
mount_cluster /mnt/a timeo=600
src=$(mktemp -d /tmp/aifs-src.XXXXXX)
head -c $((8 * MiB)) /dev/urandom >"$src/f"
put_file "$src/f" /old
# a connection to every data server, and a layout for the writes
cmp "$src/f" /mnt/a/old || fail "read before the servers stopped"
: >/mnt/a/synced
: >/mnt/a/closed

hung_timeout=$(sysctl -n kernel.hung_task_timeout_secs)
hung_interval=$(sysctl -n kernel.hung_task_check_interval_secs)
sysctl -q kernel.hung_task_timeout_secs=6 \
	kernel.hung_task_check_interval_secs=1
freeze_data_servers
log_mark
dd if="$src/f" of=/mnt/a/synced bs=1M conv=fsync,notrunc status=none &
tasks=($!)
dd if="$src/f" of=/mnt/a/closed bs=1M conv=notrunc status=none &
tasks+=($!)
# each waits in fsync or in close's flush for the stopped servers
end=$((SECONDS + 60))
for pid in "${tasks[@]}"; do
	until grep -qE 'aifs_file_(fsync|flush)' "/proc/$pid/stack"; do
		! dead "$pid" || fail "task $pid ended before it blocked"
		[ "$SECONDS" -lt "$end" ] ||
			fail "task $pid not in fsync or close: $(cat "/proc/$pid/stack")"
		sleep 0.1
	done
done
# twice the detector's timeout, and a check after it
sleep 13
! kernel_log_has 'blocked for more than' ||
	fail "fsync or close waited uninterruptibly: $(kernel_log)"
sysctl -q kernel.hung_task_timeout_secs="$hung_timeout" \
	kernel.hung_task_check_interval_secs="$hung_interval"
expect_killable "${tasks[@]}"
wait "${tasks[@]}" 2>/dev/null || true

remount_after_thaw "$src/f" synced
cmp "$src/f" /mnt/a/closed || fail "the killed close's data"
unload_clean
rm -rf "$src"
