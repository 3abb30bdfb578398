# With the whole cluster dead, umount completes at once and the module
# unloads: nothing waits for a server, nothing is left behind. An open
# file's close does not wait either, and reports no error.
. "$AIFS_TOP/tests/vm/lib.sh"
. "$AIFS_TOP/tests/vm/session/helpers"

# timeo=100: a wait for the server would take 10 s or more. Timed are
# close(2) and umount(2) themselves, from when the mount knows its
# connection closed.
for mode in hard soft; do
	mount_mds /mnt/a $mode,timeo=100
	touch /mnt/a/file
	hold_open /mnt/a/file
	log_mark
	kill_mds
	wait_kernel_log "server $AIFS_ADDR:7400: connection closed by the server"
	close_held
	assert_eq "$CLOSED" ok "$mode: close(2) with the MDS dead"
	umount_ms=$(umount2_ms /mnt/a) || fail "$mode: umount with the MDS dead"
	ms=$((CLOSE_MS + umount_ms))
	echo "$mode: close $CLOSE_MS ms, umount $umount_ms ms"
	[ "$ms" -lt 5000 ] || fail "$mode: close and umount took $ms ms"
done

pgrep -x aifs-recv >/dev/null && fail "receiver thread left"
assert_eq "$(module_refcount)" 0 "module refcount"
rmmod aifs || fail "rmmod"
load_aifs
