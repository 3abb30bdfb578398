# A hard mount whose MDS is gone: a call waits for it, killably, and
# completes once the MDS is back on the same port and database.
. "$AIFS_TOP/tests/vm/lib.sh"
. "$AIFS_TOP/tests/vm/session/helpers"

mount_mds /mnt/a hard
sys=$(ls -d /sys/fs/aifs/aifs-*)
touch /mnt/a/file
log_mark
kill_mds

# retried_since N PID: until the mount has retried calls N times since
# the count in $retries, PID still waiting in the module all along (fails
# if it returns, or after 60 s).  Only PID's calls retry here: the
# keepalive tries once.
retried_since()
{
	local end=$((SECONDS + 60))
	until [ $(($(aifs_stat "$sys" retries) - retries)) -ge "$1" ]; do
		wait_blocked_in_aifs "$2"
		[ "$SECONDS" -lt "$end" ] || fail "no $1 retries in 60 s"
		sleep 0.1
	done
	wait_blocked_in_aifs "$2"
}

# Several timeos later (three retries) it still waits, and SIGKILL ends
# it at once.
retries=$(aifs_stat "$sys" retries)
stat /mnt/a/file >/dev/null 2>&1 &
victim=$!
retried_since 3 "$victim"
kill -KILL "$victim"
gone_within 3 "$victim" || fail "stat survived SIGKILL for 3 s"
expect_dmesg "aifs: server $AIFS_ADDR:7400 not responding, still trying"

# Another waits (has tried and failed), and completes when the MDS
# comes back.
retries=$(aifs_stat "$sys" retries)
stat /mnt/a/file >/dev/null &
waiter=$!
retried_since 1 "$waiter"
restart_mds
gone_within 20 "$waiter" || fail "stat still waits 20 s after the restart"
wait "$waiter" || fail "stat failed after the MDS came back"
expect_dmesg "aifs: server $AIFS_ADDR:7400 OK"

# A mute server (stopped): the same, through timeouts instead of
# refusals: two retries, as a call's first try may end early when the
# keepalive's PING times out on the connection (a try on the house).
log_mark
kill_mds STOP
retries=$(aifs_stat "$sys" retries)
stat /mnt/a/file >/dev/null &
waiter=$!
retried_since 2 "$waiter"
expect_dmesg "server $AIFS_ADDR:7400: no reply in time"
kill -CONT "$MDS_PID"
gone_within 20 "$waiter" || fail "stat still waits 20 s after SIGCONT"
wait "$waiter" || fail "stat failed after the MDS went on"
umount /mnt/a
