# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The guest side shared by the benchmarks' guest scripts (bench/*/guest.sh),
# sourced after tests/vm/lib.sh with LOCAL set: the tmpfs that NFS exports
# and that is measured directly as the local limit. Results go to
# /aifs-results for the host's report.
OUT=/aifs-results
t0=$(date +%s)

say()
{
	echo "[$(($(date +%s) - t0)) s] $*"
}

meta()	# KEY VALUE: for the report
{
	echo "$1=$2" >>"$OUT/meta"
}

root_of()	# SYSTEM: where its files are: a mount's at /mnt/SYSTEM
{
	case $1 in
	tmpfs) echo "$LOCAL" ;;
	*) echo "/mnt/$1" ;;
	esac
}
NFS=$(root_of nfs)
AIFS=$(root_of aifs)

bdi_of()	# SYSTEM: its mount's backing device in sysfs (read_ahead_kb)
{
	echo "/sys/class/bdi/$(mountpoint -d "$(root_of "$1")")"
}

mount_opts()	# SYSTEM: its mount's options, as /proc/mounts shows them
{
	awk -v m="$(root_of "$1")" '$2 == m { print $4 }' /proc/mounts
}

# fio_cold NAME SECONDS FIO-ARGS...: one run from a cold cache, bounded,
# JSON to NAME.json.
fio_cold()
{
	local name=$1 secs=$2
	shift 2
	# the dirty pages of an earlier run are not written during this one
	sync
	echo 3 >/proc/sys/vm/drop_caches
	# fio's --runtime does not count its set-up, which for the small
	# files is a stat of each (over 100 s for 10,000 files on aifs),
	# nor an end_fsync
	timeout $((secs + 600)) fio --output-format=json \
		--output="$OUT/$name.json" --ioengine=psync \
		--runtime="$secs" "$@" >/dev/null || fail "fio $name"
	say "$name done"
}

# Data servers too busy for their heartbeats under TCG went OFFLINE for
# the MDS within the test default of one second, and new files were given
# a layout naming server 0 (reported, not fixed here).
export AIFS_HEARTBEAT_GRACE_MS=30000

# bench_load_aifs: the module, with the guest described in the meta file.
# The kernel's CRC32C checks every aifs frame's payload. On hardware udev
# loads crc32c-intel at boot; this guest has no udev, and libcrc32c keeps
# the driver it finds when it loads (the table-driven generic one).
bench_load_aifs()
{
	meta kernel "$(uname -r)"
	meta guest "$(nproc) CPUs, $(awk '/MemTotal/ { printf "%.1f", $2 / 1048576 }' /proc/meminfo) GiB, TCG"
	modprobe crc32c_intel 2>/dev/null || true
	load_aifs
	# every crc32c driver with its priority: libcrc32c took the highest
	meta crc32c "$(awk '$1 == "name" { n = $3 } n != "crc32c" { next }
		$1 == "driver" { d = $3 } $1 == "priority" { printf "%s(%s) ", d, $3 }' \
		/proc/crypto)"
}

# nfsd_start ro|rw: the kernel's nfsd exporting $LOCAL to the two
# addresses its clients here come from, loopback and Soft-RoCE
# (rdma_setup). NFS v4.2 only, so neither rpcbind nor the v3 MOUNT
# protocol is needed; rpc.mountd still answers the kernel's export
# upcalls. A short grace period, or the first OPEN would wait 90 s.
# Returns non-zero, the reason last on stdout, if it cannot run.
nfsd_start()
{
	local opts=$1,no_root_squash,insecure,no_subtree_check,fsid=0

	modprobe nfsd || { echo "modprobe nfsd failed"; return 1; }
	mount -t nfsd nfsd /proc/fs/nfsd || return 1
	echo 10 >/proc/fs/nfsd/nfsv4leasetime
	echo 10 >/proc/fs/nfsd/nfsv4gracetime
	# the transfer size of aifs's sub-requests, if nfsd allows it
	echo 1048576 >/proc/fs/nfsd/max_block_size || true
	mkdir -p /var/lib/nfs/v4recovery
	echo "$LOCAL 127.0.0.1($opts) $AIFS_RDMA_ADDR($opts)" >/etc/exports
	exportfs -ra || { echo "exportfs failed"; return 1; }
	rpc.mountd -N 2 -N 3 --no-udp || { echo "rpc.mountd failed"; return 1; }
	rpc.nfsd -N 3 -V 4.2 --no-udp 8 || { echo "rpc.nfsd failed"; return 1; }
}

# nfs_mount SYSTEM CHECK: nfsd's export mounted at $(root_of SYSTEM) with
# 1 MiB transfers (the size of aifs's sub-requests): nfs and nfs-tcp over
# TCP on loopback, nfs-rdma over RDMA to $AIFS_RDMA_ADDR (after
# rdma_setup) on the RDMA port this opens, 20049. CHECK DIR, a function,
# then tells that it works. Returns non-zero, the reason last on stdout,
# if it cannot run.
nfs_mount()
{
	local dir addr=127.0.0.1 proto=tcp opts got

	dir=$(root_of "$1")
	opts=vers=4.2,rsize=1048576,wsize=1048576
	if [ "$1" = nfs-rdma ]; then
		# the client's and the server's RDMA transports (Debian's 6.1)
		modprobe rpcrdma || { echo "modprobe rpcrdma failed"; return 1; }
		echo "rdma 20049" >/proc/fs/nfsd/portlist ||
			{ echo "nfsd did not open RDMA port 20049"; return 1; }
		addr=$AIFS_RDMA_ADDR proto=rdma opts=$opts,port=20049
	fi
	# a client of its own: nfsd takes the NFS mounts of one host for one
	# client unless their identifiers differ, and v4.1 client ID
	# trunking then put a second mount, over another transport, on the
	# first one's connection
	modprobe nfs && echo "$1" >/sys/fs/nfs/net/nfs_client/identifier ||
		{ echo "cannot set the NFS client's identifier"; return 1; }
	mkdir -p "$dir"
	umount_at_exit "$dir"
	timeout 60 mount -t nfs4 -o "$opts,proto=$proto" "$addr:/" "$dir" ||
		{ echo "mount -t nfs4 -o $opts,proto=$proto failed"; return 1; }
	got=$(mount_opts "$1")
	# a mount that joined another transport's client measures that one
	[[ ,$got, == *,proto=$proto,* ]] ||
		{ echo "mounted with $got, not proto=$proto"; return 1; }
	"$2" "$dir" || return 1
	meta "${1}_opts" "$got"
}

# nfs_writes DIR: an NFS mount at DIR is past the grace period (the first
# OPEN for writing waits for it), writable, and serves $LOCAL
nfs_writes()
{
	echo ready >"$1/ready" && [ "$(cat "$LOCAL/ready")" = ready ] &&
		rm "$1/ready"
}

# bench_systems ro|rw CHECK [SYSTEM...]: SYSTEMS is the SYSTEMs (default
# "aifs nfs"; the caller has mounted aifs ones, NFS ones are mounted here
# by nfsd_start and nfs_mount with CHECK) that run here, then tmpfs. One
# that cannot run is left out, with the reason in the meta file as
# SYSTEM_missing.
bench_systems()
{
	local mode=$1 check=$2 sys log=/tmp/nfs-start.log nfsd=up
	shift 2
	[ $# -gt 0 ] || set -- aifs nfs
	# not in $(...): nfs_mount sets the unmount at exit; the log of
	# nfsd_start stays, the reason of every NFS mount, if it failed
	nfsd_start "$mode" >"$log" 2>&1 || nfsd=down
	SYSTEMS=
	for sys; do
		case $sys in
		nfs*)
			if [ $nfsd = up ] && nfs_mount "$sys" "$check" >"$log" 2>&1; then
				say "$sys up ($(grep "^${sys}_opts=" "$OUT/meta"))"
			else
				meta "${sys}_missing" "$(tail -n 1 "$log")"
				say "$sys not measured: $(cat "$log")"
				continue
			fi ;;
		esac
		SYSTEMS="$SYSTEMS$sys "
	done
	SYSTEMS="${SYSTEMS}tmpfs"
	meta systems "$SYSTEMS"
}

# ds_mib: the MiB the data servers of start_cluster hold in chunk files
ds_mib()
{
	local i dirs=()
	for i in 1 2 3; do dirs+=("${DS_DIRS[i]}/data"); done
	du -sm "${dirs[@]}" | awk '{ n += $1 } END { print n }'
}

# chunks_gone [MIB]: the data servers free a removed file's chunks when
# the MDS's queue reaches them; wait (at most 2 minutes) until they hold
# no more than MIB (default 0) and a little, so that one run's deletions
# do not load the next run
chunks_gone()
{
	local i
	for i in $(seq 240); do
		[ "$(ds_mib)" -lt $((${1:-0} + 16)) ] && return
		sleep 0.5
	done
	say "the data servers still hold chunks of removed files"
}
