# An MDS killed and restarted on the same port and database while a mount
# is idle: the next calls reconnect and work, as if nothing happened.
. "$AIFS_TOP/tests/vm/lib.sh"
. "$AIFS_TOP/tests/vm/session/helpers"

mount_mds /mnt/a
mkdir /mnt/a/dir
touch /mnt/a/dir/f1 /mnt/a/dir/f2
session=$(cat /sys/fs/aifs/aifs-*/session)

log_mark
kill_mds
restart_mds
assert_eq "$(ls /mnt/a/dir | tr '\n' ' ')" "f1 f2 " "listing after the restart"
stat /mnt/a/dir/f1 >/dev/null || fail "stat after the restart"
touch /mnt/a/dir/f3 || fail "create after the restart"
[ "$(cat /sys/fs/aifs/aifs-*/session)" != "$session" ] ||
	fail "still the old session"
expect_dmesg "server $AIFS_ADDR:7400: connection closed by the server"

# Again, this time with the keepalive not yet aware: the MDS is killed
# and back before the mount notices, so the first call meets the dead
# connection and tries again on a new one at once.
kill_mds
restart_mds
assert_eq "$(ls /mnt/a/dir | tr '\n' ' ')" "f1 f2 f3 " "listing after the second restart"

umount /mnt/a
pgrep -x aifs-recv >/dev/null && fail "receiver thread left"
assert_eq "$(module_refcount)" 0 "module refcount"
