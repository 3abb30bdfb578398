# aifs stats reads a mount's statistics from the module over generic
# netlink: after a known workload its counters have moved by what that
# workload must cost (bytes of read(2) and write(2), O_DIRECT shares,
# CREATEs and MKDIRs, pages filled, cache hits), its latency histograms
# hold one entry per request, and a data server killed and restarted
# shows as failovers, retries and reconnects. Text and --json, -i.
. "$AIFS_TOP/tests/vm/lib.sh"

# timeo=100: a data server left alone after a failure is tried again
# within 10 s even if the map's news of its return is missed
mount_cluster /mnt/a timeo=100
dir=$(ls -d /sys/fs/aifs/aifs-*)
before=$(mktemp /tmp/aifs-stats.XXXXXX) after=$(mktemp /tmp/aifs-stats.XXXXXX)

snapshot()	# FILE
{
	aifs --json stats /mnt/a >"$1" || fail "aifs --json stats"
}

# jq FILTER over the mount's object of the last two snapshots: after - before
delta()
{
	snapshot "$after"
	echo $(($(jq ".mounts[0]$1" "$after") - $(jq ".mounts[0]$1" "$before")))
}

expect_delta()	# FILTER VALUE WHAT
{
	assert_eq "$(delta "$1")" "$2" "$3"
}

snapshot "$before"
assert_eq "$(jq -r '.mounts[0].mount_point' "$before")" /mnt/a "mount point"
assert_eq "$(jq '.mounts[0].mount_id' "$before")" "${dir##*aifs-}" "mount id"
assert_eq "$(jq -r '.mounts[0].transport' "$before")" \
	"$(cat "$dir/transport")" "transport"
# every counter sysfs has, with the same value for those that stand still
for key in mds_requests mds_create ds_errors readahead_wasted; do
	v=$(jq ".mounts[0].counters.$key // .mounts[0].mds_ops.${key#mds_}" "$before")
	assert_eq "$v" "$(aifs_stat "$dir" "$key")" "$key in JSON and sysfs"
done

# 20 files created, 5 directories made
for i in $(seq 20); do : >"/mnt/a/f$i"; done
for i in $(seq 5); do mkdir "/mnt/a/d$i"; done
expect_delta .mds_ops.create 20 "CREATEs of 20 files"
expect_delta .mds_ops.mkdir 5 "MKDIRs of 5 directories"
cp "$after" "$before"

# 12 MiB written through the page cache and fsync'ed
dd if=/dev/urandom of=/mnt/a/big bs=1M count=12 conv=fsync status=none
expect_delta .counters.write_bytes $((12 << 20)) "bytes of write(2)"
expect_delta .counters.direct_write_bytes 0 "O_DIRECT bytes written"
[ "$(delta .counters.chunk_write_bytes)" -ge $((12 << 20)) ] ||
	fail "fewer bytes sent to data servers than written"
writes=$(delta .latency_us.write.requests)
[ "$writes" -gt 0 ] || fail "no write request in the latency histogram"
cp "$after" "$before"

# read cold, then again from the page cache
echo 3 >/proc/sys/vm/drop_caches
cat /mnt/a/big >/dev/null
expect_delta .counters.read_bytes $((12 << 20)) "bytes of a cold read"
expect_delta .counters.cache_fill_pages $((12 << 20 >> 12)) \
	"pages filled by a cold read"
reads=$(delta .latency_us.read.requests)
[ "$reads" -gt 0 ] || fail "no read request in the latency histogram"
ds=$(delta .counters.ds_requests)
[ "$ds" -ge "$reads" ] || fail "$reads reads in the histogram, $ds requests"
jq -e '.mounts[0].latency_us.read | .p50 <= .p95 and .p95 <= .p99 and .p50 > 0' \
	"$after" >/dev/null || fail "read percentiles out of order"
cp "$after" "$before"
cat /mnt/a/big >/dev/null
expect_delta .counters.read_bytes $((12 << 20)) "bytes of a cached read"
expect_delta .counters.cache_fill_pages 0 "pages filled by a cached read"
expect_delta .counters.ds_requests 0 "requests of a cached read"
cp "$after" "$before"

# O_DIRECT: its own share, and nothing through the page cache
dd if=/mnt/a/big of=/dev/null bs=1M count=2 iflag=direct status=none
expect_delta .counters.direct_read_bytes $((2 << 20)) "O_DIRECT bytes read"
expect_delta .counters.cache_fill_pages 0 "pages filled by O_DIRECT"

# -i: what moved over the interval only, and its rates. The read runs
# whole within the interval: after aifs's first snapshot (it sleeps in
# its interval then) and before its second (it sleeps still). The reader
# is started before, waiting on a fifo, so that no exec is in the window.
cp "$after" "$before"
go=$(mktemp -u /tmp/aifs-go.XXXXXX)
mkfifo "$go"
python3 -c 'import sys
open(sys.argv[1]).read()
with open(sys.argv[2], "rb", buffering=0) as f:
    while f.read(1 << 20):
        pass' "$go" /mnt/a/big &
reader=$!
for _ in $(seq 300); do
	grep -Eq 'fifo|pipe' "/proc/$reader/wchan" 2>/dev/null && break
	sleep 0.1
done
aifs --json stats -i 5 /mnt/a >"$after" &
stats=$!
in_interval()
{
	grep -q nanosleep "/proc/$stats/wchan" 2>/dev/null
}
for _ in $(seq 300); do
	in_interval && break
	! dead $stats || break
	sleep 0.1
done
in_interval || fail "aifs stats -i 5 does not sleep in its interval"
echo go >"$go"
wait "$reader" || fail "the read in the interval"
in_interval || fail "the read outlasted the interval of aifs stats -i 5"
wait "$stats" || fail "aifs stats -i"
rm -f "$go"
jq -e '.mounts[0] | .interval_s >= 4.9 and .interval_s < 8' "$after" \
	>/dev/null || fail "interval of -i 5: $(jq .mounts[0].interval_s "$after")"
assert_eq "$(jq .mounts[0].counters.read_bytes "$after")" $((12 << 20)) \
	"bytes read over the interval"
assert_eq "$(jq .mounts[0].page_cache_hit_ratio "$after")" 1 \
	"page cache hits over the interval"
jq -e '.mounts[0].bytes_per_s.read > 0' "$after" >/dev/null ||
	fail "no read rate over the interval"

# a data server killed: what it held is read from the other copy
# (failovers); back again, the next reads reconnect to it
mkdir /mnt/a/two
aifs setlayout /mnt/a/two replicas=2 stripes=1 >/dev/null
dd if=/dev/urandom of=/mnt/a/two/f bs=1M count=12 conv=fsync status=none
sum=$(sha256sum </mnt/a/two/f)
primary=$(ds_index "$(aifs --json getlayout /mnt/a/two/f | jq '.targets[0]')")
snapshot "$before"
kill -KILL "${DS_PIDS[primary]}"
wait "${DS_PIDS[primary]}" 2>/dev/null || true
echo 3 >/proc/sys/vm/drop_caches
assert_eq "$(sha256sum </mnt/a/two/f)" "$sum" "read with a server down"
[ "$(delta .counters.failovers)" -gt 0 ] || fail "no failover counted"
run_server aifs-ds "${DS_DIRS[primary]}"
DS_PIDS[primary]=$SERVER_PID
for _ in $(seq 100); do
	[ "$(aifs-put -s "$MDS_DIR/secret" -m "$AIFS_ADDR:7400" -M)" = 3 ] &&
		break
	sleep 0.1
done
for _ in $(seq 30); do
	echo 3 >/proc/sys/vm/drop_caches
	assert_eq "$(sha256sum </mnt/a/two/f)" "$sum" "read with the server back"
	[ "$(delta .counters.reconnects)" -gt 0 ] && break
	sleep 1
done
[ "$(delta .counters.reconnects)" -gt 0 ] || fail "no reconnect counted"
aifs stats /mnt/a | tee /tmp/aifs-stats.txt
grep -q "^/mnt/a: aifs-" /tmp/aifs-stats.txt || fail "text: no heading"
grep -Eq "^  read .* p99|^  latency .*p99" /tmp/aifs-stats.txt ||
	fail "text: no percentiles"
grep -q "failovers [1-9]" /tmp/aifs-stats.txt || fail "text: no failovers"

# not an aifs mount; no such mount known to the module
out=$(aifs stats /tmp 2>&1) && fail "aifs stats /tmp succeeded"
grep -q "not on an aifs mount" <<<"$out" || fail "aifs stats /tmp: $out"
umount /mnt/a
out=$(aifs stats /mnt/a 2>&1) && fail "aifs stats after umount"
grep -q "not on an aifs mount" <<<"$out" || fail "aifs stats after umount: $out"
rm -f "$before" "$after" /tmp/aifs-stats.txt
