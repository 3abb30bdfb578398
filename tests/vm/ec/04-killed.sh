# A 4+2 file written sequentially (64 MiB, fsync) while the server of its
# data fragment 1 is killed (SIGKILL) part way (killed_midway checks it
# was): no error, the bytes right. The server back catches up by
# decoding its fragments (SYNCING, then UP: the MDS marks it in sync);
# then the servers of data fragments 0 and 2 die, and the file still
# reads right: fragment 1 now comes from the server that was rebuilt, and
# 0 and 2 are decoded with it.
. "$AIFS_TOP/tests/vm/lib.sh"
. "$AIFS_TOP/tests/faults/replica/helpers"

MIB=64
export AIFS_DS_COUNT=6
fault_cluster /mnt/a
mkdir /mnt/a/ec
aifs setlayout /mnt/a/ec ec=4+2 >/dev/null || fail "setlayout ec=4+2"
gen 5 1 | dd of=/mnt/a/ec/f bs=1M conv=fsync status=none
# shellcheck disable=SC2207
targets=($(aifs getlayout /mnt/a/ec/f | sed -n 's/^targets: //p'))
victim=$(ds_index "${targets[1]}")
echo "targets ${targets[*]}: data fragment 1 on data server $victim"

after_bytes sent 16 "$victim"
write_gen 5 "$MIB" /mnt/a/ec/f || fail "write with a data server killed"
killed_midway "write of $MIB MiB, data fragment 1's server"
want=$WANT
wait "${DS_PIDS[victim]}" 2>/dev/null || true
echo 3 >/proc/sys/vm/drop_caches
assert_eq "$(sha256sum </mnt/a/ec/f | cut -d' ' -f1)" "$want" \
	"sha256 with the server dead"

mark=$(mds_log_mark)
restart_ds "$victim"
start=$(date +%s)
until [ "$(up_count)" = 6 ]; do
	[ $(($(date +%s) - start)) -lt 300 ] ||
		fail "data server $victim not UP again ($(up_count) UP)"
	sleep 0.2
done
echo "data server $victim back: UP after $(($(date +%s) - start)) s"
in_sync_since "$mark" "$victim"

kill_ds "$(ds_index "${targets[0]}")"
kill_ds "$(ds_index "${targets[2]}")"
echo 3 >/proc/sys/vm/drop_caches
assert_eq "$(sha256sum </mnt/a/ec/f | cut -d' ' -f1)" "$want" \
	"sha256 from the rebuilt server with two others dead"
umount /mnt/a
