# The guest side of bench/read-bench (run by scripts/vm/run): the same data
# read through aifs (one MDS and three data servers on loopback TCP, the
# kernel client), kernel NFS v4.2 over TCP on loopback, and the tmpfs both
# serve from. Every fio run leaves its JSON in /aifs-results for the host's
# bench/read/report.py; params (sizes, run times) come from the host in
# $AIFS_BUILD/read-bench/params.
. "$AIFS_TOP/tests/vm/lib.sh"
. "$AIFS_BUILD/read-bench/params"	# SIZE_MIB FILES SEQ_S RAND_S SMALL_S RA_KBS
LOCAL=/srv/rb		# tmpfs: the data, NFS's export and the local limit
. "$AIFS_TOP/bench/common/guest.sh"
SMALL_SIZE=$((112 * 1024))	# one fio read per file, as a loader's read()
SHARDS=4			# directories, one per job of the parallel reader

make_data()
{
	mkdir -p "$LOCAL"
	mount -t tmpfs -o size=$((SIZE_MIB + FILES * 112 / 1024 + 256))m tmpfs "$LOCAL"
	head -c $((SIZE_MIB << 20)) /dev/urandom >"$LOCAL/big"
	python3 - "$LOCAL/small" "$FILES" "$SHARDS" "$SMALL_SIZE" <<'PY'
import os, sys
top, files, shards, size = sys.argv[1], *map(int, sys.argv[2:])
for s in range(shards):
    os.makedirs("%s/s%d" % (top, s))
for i in range(files):
    with open("%s/s%d/%06d.jpg" % (top, i % shards, i), "wb") as f:
        f.write(os.urandom(size))
PY
}

# aifs has no write path yet: the files go in through libaifs (aifs-put),
# the directories through the mount. Four aifs-put -b at once: a put
# waits on round trips more than it computes (1.7x the rate of one).
aifs_start()
{
	local s start list=/tmp/rb-list pids=() pid
	mount_cluster "$AIFS"
	AIFS_SYS=$(ls -d /sys/fs/aifs/aifs-*)
	mkdir "$AIFS/small"
	for s in $(seq 0 $((SHARDS - 1))); do mkdir "$AIFS/small/s$s"; done
	put_file "$LOCAL/big" /big
	# a data server too busy for its heartbeats during the big put is
	# OFFLINE for a while: new files would not be placed on it
	for s in $(seq 300); do
		[ "$(aifs-put -s "$MDS_DIR/secret" -m 127.0.0.1:7400 -M)" = 3 ] &&
			break
		sleep 0.1
	done
	start=$(date +%s.%N)
	(cd "$LOCAL" && find small -type f -printf "$LOCAL/%p /%p\n") >"$list"
	split -n r/4 "$list" "$list."
	for s in "$list".*; do
		aifs-put -s "$MDS_DIR/secret" -m 127.0.0.1:7400 \
			-u "$AIFS_FS_UUID" -b <"$s" >/dev/null &
		pids+=($!)
	done
	for pid in "${pids[@]}"; do
		wait "$pid" && continue
		# the servers' side of it, for whoever reads the results
		cp "$MDS_DIR/log" "$OUT/mds.log"
		for s in 1 2 3; do cp "${DS_DIRS[s]}/log" "$OUT/ds$s.log"; done
		fail "aifs-put -b"
	done
	meta aifs_put_files_per_s \
		"$(echo "$FILES / ($(date +%s.%N) - $start)" | bc)"
	# the first 64 MiB: all of it costs a minute or more under TCG
	cmp -n $((64 << 20)) "$LOCAL/big" "$AIFS/big" || fail "aifs: big reads back wrong"
}

# NFS at DIR is past the grace period before anything is timed; the
# first 64 MiB, as for aifs: the whole file took more than a minute on a
# busy host
nfs_reads_big()	# DIR
{
	local rc=0
	timeout 120 cmp -n $((64 << 20)) "$LOCAL/big" "$1/big" || rc=$?
	case $rc in
	0) ;;
	124) echo "NFS did not read 64 MiB in 120 s"; return 1 ;;
	*) echo "NFS reads back wrong"; return 1 ;;
	esac
}

set_read_ahead()	# SYSTEM KB
{
	case $1 in
	aifs) echo "$2" >"$AIFS_SYS/read_ahead_kb" ;;
	nfs) echo "$2" >"$(bdi_of nfs)/read_ahead_kb" ;;
	esac
}

say "data: one file of $SIZE_MIB MiB, $FILES files of $SMALL_SIZE bytes"
meta size_mib "$SIZE_MIB"
meta files "$FILES"
meta small_size "$SMALL_SIZE"
meta ra_kbs "$RA_KBS"
make_data
say "data made"
bench_load_aifs
aifs_start
say "aifs up, data put in ($(grep aifs_put "$OUT/meta"))"
bench_systems ro nfs_reads_big

# Each workload on every system back to back, so that the load of the
# shared host moves the systems of one row together.
seq_run()	# SYSTEM READ_AHEAD_KB
{
	fio_cold "seq-$1-$2" "$SEQ_S" --readonly --name=seq --rw=read \
		--bs=1M --filename="$(root_of "$1")/big"
}
for ra in $RA_KBS; do
	for sys in ${SYSTEMS% tmpfs}; do
		set_read_ahead "$sys" "$ra"
		seq_run "$sys" "$ra"
	done
done
# tmpfs has no readahead: its data is the page cache
seq_run tmpfs 0
# the default readahead of aifs for the rest, on both network systems
for sys in $SYSTEMS; do set_read_ahead "$sys" 8192; done
for jobs in 1 4; do
	for sys in $SYSTEMS; do
		fio_cold "rand-$sys-$jobs" "$RAND_S" --readonly --name=rand \
			--rw=randread --bs=4k --filename="$(root_of "$sys")/big" \
			--time_based --numjobs="$jobs" --group_reporting \
			--percentile_list=95:99
	done
done
# fio stats every file before it starts (as a loader lists its data set),
# then opens, reads and closes them one by one: one reader over all
# shards, then one per shard
for sys in $SYSTEMS; do
	r=$(root_of "$sys")
	fio_cold "small-$sys-1" "$SMALL_S" --readonly --rw=read \
		--bs="$SMALL_SIZE" --openfiles=1 --file_service_type=sequential \
		--name=all --opendir="$r/small"
done
for sys in $SYSTEMS; do
	r=$(root_of "$sys")
	shards=()
	for s in $(seq 0 $((SHARDS - 1))); do
		shards+=(--name="s$s" --opendir="$r/small/s$s")
	done
	fio_cold "small-$sys-$SHARDS" "$SMALL_S" --readonly --rw=read \
		--bs="$SMALL_SIZE" --openfiles=1 --file_service_type=sequential \
		--group_reporting "${shards[@]}"
done
say "all done"
