# O_DIRECT readers and writers killed with SIGKILL while their pieces wait
# on data servers that do not answer (stopped with SIGSTOP; timeo is 60 s)
# die at once; the pieces end once the servers resume, and then umount
# and unload work, and the file the reads were from is intact.
. "$AIFS_TOP/tests/vm/lib.sh"

MiB=1048576
mount_cluster /mnt/a timeo=600
src=$(mktemp -d /tmp/aifs-src.XXXXXX)
head -c $((32 * MiB)) /dev/urandom >"$src/big"
put_file "$src/big" /big
# a connection to every data server, and a layout for the writes
cmp "$src/big" /mnt/a/big || fail "read before the servers stopped"
: >/mnt/a/new
: >/mnt/a/new1

freeze_data_servers

# a batch of 16 pieces, a single piece, a batch of writes, a single one
dd if=/mnt/a/big of=/dev/null iflag=direct bs=16M status=none &
tasks=($!)
dd if=/mnt/a/big of=/dev/null iflag=direct bs=4k skip=5 status=none &
tasks+=($!)
dd if="$src/big" of=/mnt/a/new oflag=direct conv=notrunc bs=32M \
	status=none &
tasks+=($!)
dd if="$src/big" of=/mnt/a/new1 oflag=direct conv=notrunc bs=5000 \
	count=1 status=none &
tasks+=($!)
# each waits for its pieces, which wait on the stopped servers
for pid in "${tasks[@]}"; do
	wait_blocked_in_aifs "$pid" aifs_dio_run
done
expect_killable "${tasks[@]}"
wait "${tasks[@]}" 2>/dev/null || true

remount_after_thaw "$src/big" big
dd if=/mnt/a/big iflag=direct bs=16M status=none | cmp "$src/big" - ||
	fail "direct read after the servers resumed"
unload_clean
rm -rf "$src"
