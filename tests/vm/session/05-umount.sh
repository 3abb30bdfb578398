# With the whole cluster dead, umount completes at once and the module
# unloads: nothing waits for a server, nothing is left behind. An open
# file's close does not wait either, and reports no error.
. "$AIFS_TOP/tests/vm/lib.sh"
. "$AIFS_TOP/tests/vm/session/helpers"

# timeo=100: a wait for the server would take 10 s or more
for mode in hard soft; do
	mount_mds /mnt/a $mode,timeo=100
	touch /mnt/a/file
	exec 3</mnt/a/file
	kill_mds
	sleep 1
	start=$(now_ms)
	exec 3<&-
	umount2 /mnt/a || fail "$mode: umount with the MDS dead"
	ms=$(($(now_ms) - start))
	[ "$ms" -lt 5000 ] || fail "$mode: close and umount took $ms ms"
done

pgrep -x aifs-recv >/dev/null && fail "receiver thread left"
assert_eq "$(module_refcount)" 0 "module refcount"
rmmod aifs || fail "rmmod"
load_aifs
