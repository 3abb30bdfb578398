# The guest side of bench/write-bench (run by scripts/vm/run): checkpoint
# writes through aifs (one MDS and three data servers on loopback TCP,
# chunk files on the guest's tmpfs, the kernel client), kernel NFS v4.2
# over TCP on loopback exporting a tmpfs, and that tmpfs written directly.
# Each run is N writers (bench/write/writer.py), one new file each of
# SIZE_MIB / N MiB in 1 MiB writes, then fsync and close; the files are
# then checked from a cold cache and removed. Every run leaves in
# /aifs-results NAME.jsonl (one line of times per writer) and NAME.cpu
# (where the guest's CPU went; for aifs also what the run moved in the
# mount's stats) for bench/write/report.py; params come from the host in
# $AIFS_BUILD/write-bench/params.
. "$AIFS_TOP/tests/vm/lib.sh"
. "$AIFS_BUILD/write-bench/params"	# SIZE_MIB WRITERS SAMPLES
LOCAL=/srv/wb		# tmpfs: NFS's export and the local limit
. "$AIFS_TOP/bench/common/guest.sh"
WRITER=$AIFS_TOP/bench/write/writer.py

# cpu_snapshot: the guest's CPU time in user space, in the kernel
# (interrupts included) and idle (I/O wait included), then that of the
# data servers and of the MDS, in clock ticks
cpu_snapshot()
{
	local pid
	awk '$1 == "cpu" { print $2 + $3, $4 + $7 + $8, $5 + $6 }' /proc/stat
	for pid in "${DS_PIDS[@]}"; do cat "/proc/$pid/stat"; done |
		awk '{ n += $14 + $15 } END { print n }'
	awk '{ print $14 + $15 }' "/proc/${AIFS_SERVER_PIDS[0]}/stat"
}

# cpu_report BEFORE AFTER: the seconds each spent during the run
cpu_report()
{
	echo "$1" "$2" | tr '\n' ' ' |
		awk -v hz="$(getconf CLK_TCK)" '{
			printf "user=%.2f system=%.2f idle=%.2f ds=%.2f mds=%.2f\n",
				($6 - $1) / hz, ($7 - $2) / hz, ($8 - $3) / hz,
				($9 - $4) / hz, ($10 - $5) / hz }'
}

# run SYSTEM N: N writers at once, each a file of SIZE_MIB / N MiB in a
# new directory, from a clean cache; then each file is checked from a
# cold cache (its size as the server has it, sampled blocks)
run()
{
	local sys=$1 n=$2 name=w$2-$1 dir mib=$((SIZE_MIB / $2)) i pids=()
	local cpu stats=/tmp/stats.$name

	dir=$(root_of "$sys")/$name
	mkdir "$dir"
	sync
	echo 3 >/proc/sys/vm/drop_caches
	[ "$sys" != aifs ] || cp "$AIFS_SYS/stats" "$stats"
	cpu=$(cpu_snapshot)
	for i in $(seq "$n"); do
		python3 "$WRITER" write "$dir/shard-$i" "$mib" >>"$OUT/$name.jsonl" &
		pids+=($!)
	done
	for i in "${pids[@]}"; do
		wait "$i" || fail "$name: a writer failed"
	done
	cpu_report "$cpu" "$(cpu_snapshot)" >"$OUT/$name.cpu"
	# the mount's counters moved by the run: what went to the servers
	[ "$sys" != aifs ] || awk 'NR == FNR { a[$1] = $2; next }
		$2 != a[$1] { print $1 "=" $2 - a[$1] }' "$stats" "$AIFS_SYS/stats" \
		>>"$OUT/$name.cpu"
	echo 3 >/proc/sys/vm/drop_caches
	for i in $(seq "$n"); do
		python3 "$WRITER" check "$dir/shard-$i" "$mib" "$SAMPLES" ||
			fail "$name: shard $i reads back wrong"
	done
	rm -r "$dir"
	[ "$sys" != aifs ] || chunks_gone
	say "$name done"
}

# one writer always: the sequential write of the first table
COUNTS=$(printf '%s\n' 1 $WRITERS | awk '!seen[$1]++' | tr '\n' ' ')
say "$SIZE_MIB MiB per run, writers: $COUNTS"
meta size_mib "$SIZE_MIB"
meta writers "$COUNTS"
meta dirty_ratios "$(sysctl -n vm.dirty_background_ratio vm.dirty_ratio | tr '\n' ' ')"
mkdir -p "$LOCAL"
mount -t tmpfs -o size=$((SIZE_MIB + 256))m tmpfs "$LOCAL"
bench_load_aifs
mount_cluster "$AIFS"
AIFS_SYS=$(ls -d /sys/fs/aifs/aifs-*)
meta aifs_opts "$(mount_opts aifs)"
say "aifs up"
bench_systems rw nfs_writes

# Each workload on every system back to back, so that the load of the
# shared host moves the systems of one row together.
for n in $COUNTS; do
	for sys in $SYSTEMS; do
		run "$sys" "$n"
	done
done
say "all done"
