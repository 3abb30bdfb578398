# read_ahead_kb, changed at run time in sysfs, changes the size of the
# CHUNK_READs a sequential read sends (counted in ds_requests and
# chunk_read_bytes of the mount's sysfs stats).
. "$AIFS_TOP/tests/vm/lib.sh"

mount_cluster /mnt/a
dir=$(ls -d /sys/fs/aifs/aifs-*)
src=$(mktemp /tmp/aifs-src.XXXXXX)
head -c $((24 * 1048576)) /dev/urandom >"$src"
put_file "$src" /big

read_with()	# READ_AHEAD_KB: prints "requests bytes"
{
	local r0 b0
	echo "$1" >"$dir/read_ahead_kb"
	echo 3 >/proc/sys/vm/drop_caches
	r0=$(aifs_stat "$dir" ds_requests)
	b0=$(aifs_stat "$dir" chunk_read_bytes)
	cmp "$src" /mnt/a/big || fail "read with read_ahead_kb=$1"
	echo $(($(aifs_stat "$dir" ds_requests) - r0)) \
		$(($(aifs_stat "$dir" chunk_read_bytes) - b0))
}
read -r n128 b128 <<<"$(read_with 128)"
read -r n2048 b2048 <<<"$(read_with 2048)"
echo "read_ahead_kb=128: $n128 requests, $b128 bytes;" \
	"read_ahead_kb=2048: $n2048 requests, $b2048 bytes"
[ "$b128" -ge $((24 * 1048576)) ] || fail "fewer bytes asked than read"
[ $((b128 / n128)) -le $((128 * 1024)) ] ||
	fail "requests larger than read_ahead_kb=128: $((b128 / n128)) on average"
[ "$n128" -ge $((4 * n2048)) ] ||
	fail "read_ahead_kb=2048 did not make fewer requests: $n2048 vs $n128"
[ $((b2048 / n2048)) -gt $((256 * 1024)) ] ||
	fail "read_ahead_kb=2048: requests of $((b2048 / n2048)) bytes on average"
umount /mnt/a
rm -f "$src"
