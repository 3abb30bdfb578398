# The guest side of bench/read-bench (run by scripts/vm/run): the same data
# read through aifs (one MDS and three data servers on loopback TCP, the
# kernel client), kernel NFS v4.2 over TCP on loopback, and the tmpfs both
# serve from. Every fio run leaves its JSON in /aifs-results for the host's
# bench/read/report.py; params (sizes, run times) come from the host in
# $AIFS_BUILD/read-bench/params.
. "$AIFS_TOP/tests/vm/lib.sh"
. "$AIFS_BUILD/read-bench/params"	# SIZE_MIB FILES SEQ_S RAND_S SMALL_S RA_KBS
OUT=/aifs-results
SRC=/srv/rb		# tmpfs: the data, NFS's export and the local limit
NFS=/mnt/nfs
AIFS=/mnt/aifs
SMALL_SIZE=$((112 * 1024))	# one fio read per file, as a loader's read()
SHARDS=4			# directories, one per job of the parallel reader
t0=$(date +%s)

say()
{
	echo "[$(($(date +%s) - t0)) s] $*"
}

meta()	# KEY VALUE: for the report
{
	echo "$1=$2" >>"$OUT/meta"
}

make_data()
{
	mkdir -p "$SRC"
	mount -t tmpfs -o size=$((SIZE_MIB + FILES * 112 / 1024 + 256))m tmpfs "$SRC"
	head -c $((SIZE_MIB << 20)) /dev/urandom >"$SRC/big"
	python3 - "$SRC/small" "$FILES" "$SHARDS" "$SMALL_SIZE" <<'PY'
import os, sys
top, files, shards, size = sys.argv[1], *map(int, sys.argv[2:])
for s in range(shards):
    os.makedirs("%s/s%d" % (top, s))
for i in range(files):
    with open("%s/s%d/%06d.jpg" % (top, i % shards, i), "wb") as f:
        f.write(os.urandom(size))
PY
}

# Data servers too busy for their heartbeats under TCG went OFFLINE for
# the MDS within the test default of one second, and new files were given
# a layout naming server 0 (reported, not fixed here).
export AIFS_HEARTBEAT_GRACE_MS=30000

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
	put_file "$SRC/big" /big
	# a data server too busy for its heartbeats during the big put is
	# OFFLINE for a while: new files would not be placed on it
	for s in $(seq 300); do
		[ "$(aifs-put -s "$MDS_DIR/secret" -m 127.0.0.1:7400 -M)" = 3 ] &&
			break
		sleep 0.1
	done
	start=$(date +%s.%N)
	(cd "$SRC" && find small -type f -printf "$SRC/%p /%p\n") >"$list"
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
	cmp -n $((64 << 20)) "$SRC/big" "$AIFS/big" || fail "aifs: big reads back wrong"
}

# NFS v4.2 only, so neither rpcbind nor the v3 MOUNT protocol is needed;
# rpc.mountd still answers the kernel's export upcalls. A short grace
# period, or the first OPEN would wait 90 s. Returns non-zero, the reason
# last on stdout, if it cannot run.
nfs_start()
{
	modprobe nfsd || { echo "modprobe nfsd failed"; return 1; }
	mount -t nfsd nfsd /proc/fs/nfsd || return 1
	echo 10 >/proc/fs/nfsd/nfsv4leasetime
	echo 10 >/proc/fs/nfsd/nfsv4gracetime
	# the transfer size of aifs's sub-requests, if nfsd allows it
	echo 1048576 >/proc/fs/nfsd/max_block_size || true
	mkdir -p /var/lib/nfs/v4recovery "$NFS"
	echo "$SRC 127.0.0.1(ro,no_root_squash,insecure,no_subtree_check,fsid=0)" \
		>/etc/exports
	exportfs -ra || { echo "exportfs failed"; return 1; }
	rpc.mountd -N 2 -N 3 --no-udp || { echo "rpc.mountd failed"; return 1; }
	rpc.nfsd -N 3 -V 4.2 --no-udp 8 || { echo "rpc.nfsd failed"; return 1; }
	umount_at_exit "$NFS"
	timeout 60 mount -t nfs4 -o vers=4.2,proto=tcp,rsize=1048576 \
		127.0.0.1:/ "$NFS" || { echo "mount -t nfs4 failed"; return 1; }
	NFS_BDI=/sys/class/bdi/$(mountpoint -d "$NFS")
	# past the grace period before anything is timed; the first 64 MiB,
	# as for aifs: the whole file took more than a minute on a busy host
	local rc=0
	timeout 120 cmp -n $((64 << 20)) "$SRC/big" "$NFS/big" || rc=$?
	case $rc in
	0) ;;
	124) echo "NFS did not read 64 MiB in 120 s"; return 1 ;;
	*) echo "NFS reads back wrong"; return 1 ;;
	esac
	meta nfs_opts "$(awk -v m="$NFS" '$2 == m { print $4 }' /proc/mounts)"
}

set_read_ahead()	# SYSTEM KB
{
	case $1 in
	aifs) echo "$2" >"$AIFS_SYS/read_ahead_kb" ;;
	nfs) echo "$2" >"$NFS_BDI/read_ahead_kb" ;;
	esac
}

root_of()
{
	case $1 in
	aifs) echo "$AIFS" ;;
	nfs) echo "$NFS" ;;
	tmpfs) echo "$SRC" ;;
	esac
}

# fio NAME SECONDS FIO-ARGS...: one cold run, bounded, JSON to NAME.json.
fio_cold()
{
	local name=$1 secs=$2
	shift 2
	echo 3 >/proc/sys/vm/drop_caches
	# fio's --runtime does not count its set-up, which for the small
	# files is a stat of each (over 100 s for 10,000 files on aifs)
	timeout $((secs + 600)) fio --output-format=json \
		--output="$OUT/$name.json" --readonly --ioengine=psync \
		--runtime="$secs" "$@" >/dev/null || fail "fio $name"
	say "$name done"
}

say "data: one file of $SIZE_MIB MiB, $FILES files of $SMALL_SIZE bytes"
meta size_mib "$SIZE_MIB"
meta files "$FILES"
meta small_size "$SMALL_SIZE"
meta ra_kbs "$RA_KBS"
meta kernel "$(uname -r)"
meta guest "$(nproc) CPUs, $(awk '/MemTotal/ { printf "%.1f", $2 / 1048576 }' /proc/meminfo) GiB, TCG"
make_data
say "data made"
# The kernel's CRC32C checks every aifs frame's payload. On hardware udev
# loads crc32c-intel at boot; this guest has no udev, and libcrc32c keeps
# the driver it finds when it loads (the table-driven generic one).
modprobe crc32c_intel 2>/dev/null || true
load_aifs
aifs_start
# every crc32c driver with its priority: libcrc32c took the highest
meta crc32c "$(awk '$1 == "name" { n = $3 } n != "crc32c" { next }
	$1 == "driver" { d = $3 } $1 == "priority" { printf "%s(%s) ", d, $3 }' \
	/proc/crypto)"
say "aifs up, data put in ($(grep aifs_put "$OUT/meta"))"
systems="aifs nfs tmpfs"
# not in $(...): nfs_start sets NFS_BDI and the unmount at exit
if nfs_start >/tmp/nfs-start.log 2>&1; then
	say "NFS up ($(grep nfs_opts "$OUT/meta"))"
else
	systems="aifs tmpfs"
	meta nfs_missing "$(tail -n 1 /tmp/nfs-start.log)"
	say "NFS not measured: $(cat /tmp/nfs-start.log)"
fi
meta systems "$systems"

# Each workload on every system back to back, so that the load of the
# shared host moves the systems of one row together.
seq_run()	# SYSTEM READ_AHEAD_KB
{
	fio_cold "seq-$1-$2" "$SEQ_S" --name=seq --rw=read --bs=1M \
		--filename="$(root_of "$1")/big"
}
for ra in $RA_KBS; do
	for sys in ${systems% tmpfs}; do
		set_read_ahead "$sys" "$ra"
		seq_run "$sys" "$ra"
	done
done
# tmpfs has no readahead: its data is the page cache
seq_run tmpfs 0
# the default readahead of aifs for the rest, on both network systems
for sys in $systems; do set_read_ahead "$sys" 8192; done
for jobs in 1 4; do
	for sys in $systems; do
		fio_cold "rand-$sys-$jobs" "$RAND_S" --name=rand --rw=randread \
			--bs=4k --filename="$(root_of "$sys")/big" --time_based \
			--numjobs="$jobs" --group_reporting --percentile_list=95:99
	done
done
# fio stats every file before it starts (as a loader lists its data set),
# then opens, reads and closes them one by one: one reader over all
# shards, then one per shard
for sys in $systems; do
	r=$(root_of "$sys")
	fio_cold "small-$sys-1" "$SMALL_S" --rw=read --bs="$SMALL_SIZE" \
		--openfiles=1 --file_service_type=sequential \
		--name=all --opendir="$r/small"
done
for sys in $systems; do
	r=$(root_of "$sys")
	shards=()
	for s in $(seq 0 $((SHARDS - 1))); do
		shards+=(--name="s$s" --opendir="$r/small/s$s")
	done
	fio_cold "small-$sys-$SHARDS" "$SMALL_S" --rw=read --bs="$SMALL_SIZE" \
		--openfiles=1 --file_service_type=sequential --group_reporting \
		"${shards[@]}"
done
say "all done"
