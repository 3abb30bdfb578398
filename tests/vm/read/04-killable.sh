# Readers killed with SIGKILL while their CHUNK_READs wait on data servers
# that do not answer (stopped with SIGSTOP; timeo is 60 s) die at once:
# readahead spread over the workqueue, a second reader of the same file
# waiting on its folios, and a single-request read. Once the servers
# resume, umount and unload work and no receiver thread is left.
. "$AIFS_TOP/tests/vm/lib.sh"

mount_cluster /mnt/a timeo=600
src=$(mktemp -d /tmp/aifs-src.XXXXXX)
head -c $((32 * 1048576)) /dev/urandom >"$src/big"
head -c $((8 * 1048576)) /dev/urandom >"$src/small"
put_file "$src/big" /big
put_file "$src/small" /small
# open a connection to every data server
cmp "$src/big" /mnt/a/big || fail "read before the servers stopped"
echo 3 >/proc/sys/vm/drop_caches

freeze_data_servers

dd if=/mnt/a/big of=/dev/null bs=1M status=none &
readers=($!)
dd if=/mnt/a/big of=/dev/null bs=64k status=none &
readers+=($!)
# readahead of at most one page: one CHUNK_READ; the reader waits on its folio
dir=$(ls -d /sys/fs/aifs/aifs-*)
echo 4 >"$dir/read_ahead_kb"
dd if=/mnt/a/small of=/dev/null bs=4k status=none &
readers+=($!)
# each waits for folios that only the stopped servers can fill
for pid in "${readers[@]}"; do
	wait_blocked_in_aifs "$pid" folio_wait
done
expect_killable "${readers[@]}"
wait "${readers[@]}" 2>/dev/null || true

remount_after_thaw "$src/big" big
unload_clean
rm -rf "$src"
