# The counters of /sys/fs/aifs/aifs-<id>/stats move by what a known
# workload sends: one LOOKUP per fresh name, OPEN and CLOSE per cat;
# a whole sequential read uses every page readahead brought in, reading
# only the start of a file wastes some once the cache is dropped.
. "$AIFS_TOP/tests/vm/lib.sh"

mount_cluster /mnt/a
dir=$(ls -d /sys/fs/aifs/aifs-*)
src=$(mktemp /tmp/aifs-src.XXXXXX)
size=$((24 * 1048576))
pages=$((size / 4096))
head -c $size /dev/urandom >"$src"
put_file "$src" /big

declare -A before
snapshot()
{
	local k v
	while read -r k v; do before[$k]=$v; done <"$dir/stats"
}
delta()	# KEY
{
	echo $(($(aifs_stat "$dir" "$1") - ${before[$1]}))
}

# stat of 20 names that do not exist: 20 LOOKUPs, each ENOENT
snapshot
for i in $(seq 20); do
	! stat "/mnt/a/fresh-$i" >/dev/null 2>&1 || fail "fresh-$i exists"
done
assert_eq "$(delta mds_lookup)" 20 "LOOKUPs for 20 fresh names"
assert_eq "$(delta mds_requests)" 20 "MDS requests for 20 fresh names"
assert_eq "$(delta mds_errors)" 20 "ENOENT replies for 20 fresh names"
assert_eq "$(delta mds_timeouts)" 0 "MDS timeouts"
[ "$(delta mds_bytes_sent)" -gt $((20 * 6)) ] || fail "LOOKUPs sent no bytes"

# a whole sequential read: every page through readahead, all of them used
echo 3 >/proc/sys/vm/drop_caches
snapshot
cmp "$src" /mnt/a/big || fail "read of big"
assert_eq "$(delta mds_open)" 1 "OPENs of one cmp"
assert_eq "$(delta mds_close)" 1 "CLOSEs of one cmp"
assert_eq "$(delta readahead_pages)" $pages "pages readahead brought in"
# the data came in replies (TCP) or was placed by RDMA WRITEs
got=$(($(delta ds_bytes_received) + $(delta rdma_read_bytes)))
[ "$got" -ge $size ] || fail "$got bytes of data for a file of $size bytes"
assert_eq "$(delta ds_errors)" 0 "data server errors"
[ "$(delta ds_requests)" -gt 0 ] || fail "no data server request counted"
[ "$(cat "$dir/map_epoch")" -gt 0 ] || fail "no map after a read"
echo 3 >/proc/sys/vm/drop_caches
used=$(delta readahead_used) wasted=$(delta readahead_wasted)
echo "whole read: $pages pages, readahead used $used, wasted $wasted"
assert_eq "$wasted" 0 "readahead pages wasted by a whole read"
[ "$used" -ge $((pages * 95 / 100)) ] && [ "$used" -le $pages ] ||
	fail "readahead pages used by a whole read: $used of $pages"

# 64 KiB of a 24 MiB file with a large window: the rest is wasted
echo 16384 >"$dir/read_ahead_kb"
echo 3 >/proc/sys/vm/drop_caches
snapshot
dd if=/mnt/a/big of=/dev/null bs=64k count=1 status=none
echo 3 >/proc/sys/vm/drop_caches
ra=$(delta readahead_pages) used=$(delta readahead_used)
wasted=$(delta readahead_wasted)
echo "64 KiB read: readahead brought $ra pages, used $used, wasted $wasted"
assert_eq "$used" 16 "readahead pages used by a 64 KiB read"
[ "$wasted" -gt 0 ] || fail "nothing wasted reading 64 KiB of 24 MiB"
assert_eq $((used + wasted)) "$ra" "used + wasted after drop_caches"

# what an mmap touched counts as used once it is unmapped
echo 3 >/proc/sys/vm/drop_caches
snapshot
python3 - /mnt/a/big <<'PY' || fail "mmap read"
import mmap, sys
with open(sys.argv[1], "rb") as f:
    m = mmap.mmap(f.fileno(), 1048576, prot=mmap.PROT_READ)
    sum(m[i] for i in range(0, 1048576, 4096))
    m.close()
PY
echo 3 >/proc/sys/vm/drop_caches
used=$(delta readahead_used)
echo "mmap of 1 MiB: readahead used $used, wasted $(delta readahead_wasted)"
[ "$used" -ge 256 ] || fail "mmap: $used pages used of 256 touched"
umount /mnt/a
rm -f "$src"
