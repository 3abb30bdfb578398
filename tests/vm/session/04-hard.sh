# A hard mount whose MDS is gone: a call waits for it, killably, and
# completes once the MDS is back on the same port and database.
. "$AIFS_TOP/tests/vm/lib.sh"
. "$AIFS_TOP/tests/vm/session/helpers"

mount_mds /mnt/a hard
touch /mnt/a/file
log_mark
kill_mds

# Several timeos later it still waits, and SIGKILL ends it at once.
stat /mnt/a/file >/dev/null 2>&1 &
victim=$!
sleep 7
kill -0 "$victim" 2>/dev/null || fail "stat on a hard mount returned"
kill -KILL "$victim"
gone_within 3 "$victim" || fail "stat survived SIGKILL for 3 s"
expect_dmesg "aifs: server $AIFS_ADDR:7400 not responding, still trying"

# Another waits, and completes when the MDS comes back.
stat /mnt/a/file >/dev/null &
waiter=$!
sleep 3
kill -0 "$waiter" 2>/dev/null || fail "the second stat returned without a server"
restart_mds
gone_within 20 "$waiter" || fail "stat still waits 20 s after the restart"
wait "$waiter" || fail "stat failed after the MDS came back"
expect_dmesg "aifs: server $AIFS_ADDR:7400 OK"

# A mute server (stopped): the same, through timeouts instead of refusals.
kill_mds STOP
stat /mnt/a/file >/dev/null &
waiter=$!
sleep 5
kill -0 "$waiter" 2>/dev/null || fail "stat returned from a stopped server"
kill -CONT "$MDS_PID"
gone_within 20 "$waiter" || fail "stat still waits 20 s after SIGCONT"
wait "$waiter" || fail "stat failed after the MDS went on"
umount /mnt/a
