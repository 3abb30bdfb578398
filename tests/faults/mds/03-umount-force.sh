# umount -f of a hard mount whose MDS is gone (issue 29, defect 8), as
# NFS's: the tasks waiting for the MDS end with EIO, the mount goes and
# the module unloads. Before 2026-12-04 aifs had no umount_begin: such a
# task waited for ever (until killed) and kept the mount busy.
. "$AIFS_TOP/tests/vm/lib.sh"

# hard, 5 s a try: without umount -f the lookup below never ends
mount_cluster /mnt/a timeo=50
echo kept >/mnt/a/f
mds=$(pgrep -f "aifs-mds -c $MDS_DIR/server.conf")
kill -KILL "$mds"
wait "$mds" 2>/dev/null || true

out=$(mktemp /tmp/aifs-stat.XXXXXX)
stat /mnt/a/not-looked-up-yet >"$out" 2>&1 &
waiter=$!
wait_blocked_in_aifs "$waiter"
sleep 6	# more than a try: it waits between tries now, or in one
dead "$waiter" && fail "the lookup ended with the MDS gone: $(cat "$out")"

log_mark
# the waiter holds the mount busy: the first umount -f may fail
timeout 30 umount -f /mnt/a 2>/dev/null || true
end=$((SECONDS + 10))
until dead "$waiter"; do
	[ "$SECONDS" -lt "$end" ] || {
		echo "$waiter: $(cat "/proc/$waiter/wchan")" >&2
		fail "the lookup still waits 10 s after umount -f"
	}
	sleep 0.1
done
wait "$waiter" && fail "the lookup succeeded with the MDS gone"
grep -q "Input/output error" "$out" || fail "the lookup: $(cat "$out"), not EIO"
expect_dmesg "umount -f"
if grep -q " /mnt/a aifs " /proc/mounts; then
	timeout 30 umount -f /mnt/a || fail "umount -f once nothing waits"
fi
! grep -q " /mnt/a aifs " /proc/mounts || fail "still mounted"
rmmod aifs || fail "the module did not unload"
echo "RECORD: umount -f ended a lookup waiting for a dead MDS with EIO; unmounted, unloaded"
