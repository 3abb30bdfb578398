# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The guest side shared by the benchmarks' guest scripts (bench/*/guest.sh),
# sourced after tests/vm/lib.sh with LOCAL set: the tmpfs that NFS exports
# and that is measured directly as the local limit. Results go to
# /aifs-results for the host's report.
OUT=/aifs-results
NFS=/mnt/nfs
AIFS=/mnt/aifs
t0=$(date +%s)

say()
{
	echo "[$(($(date +%s) - t0)) s] $*"
}

meta()	# KEY VALUE: for the report
{
	echo "$1=$2" >>"$OUT/meta"
}

root_of()	# SYSTEM: where its files are
{
	case $1 in
	aifs) echo "$AIFS" ;;
	nfs) echo "$NFS" ;;
	tmpfs) echo "$LOCAL" ;;
	esac
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

# nfs_start ro|rw CHECK: the kernel's nfsd exporting $LOCAL, mounted at
# $NFS with 1 MiB transfers (the size of aifs's sub-requests); CHECK, a
# function, then tells that it works. NFS v4.2 only, so
# neither rpcbind nor the v3 MOUNT protocol is needed; rpc.mountd still
# answers the kernel's export upcalls. A short grace period, or the first
# OPEN would wait 90 s. Returns non-zero, the reason last on stdout, if it
# cannot run.
nfs_start()
{
	modprobe nfsd || { echo "modprobe nfsd failed"; return 1; }
	mount -t nfsd nfsd /proc/fs/nfsd || return 1
	echo 10 >/proc/fs/nfsd/nfsv4leasetime
	echo 10 >/proc/fs/nfsd/nfsv4gracetime
	# the transfer size of aifs's sub-requests, if nfsd allows it
	echo 1048576 >/proc/fs/nfsd/max_block_size || true
	mkdir -p /var/lib/nfs/v4recovery "$NFS"
	echo "$LOCAL 127.0.0.1($1,no_root_squash,insecure,no_subtree_check,fsid=0)" \
		>/etc/exports
	exportfs -ra || { echo "exportfs failed"; return 1; }
	rpc.mountd -N 2 -N 3 --no-udp || { echo "rpc.mountd failed"; return 1; }
	rpc.nfsd -N 3 -V 4.2 --no-udp 8 || { echo "rpc.nfsd failed"; return 1; }
	umount_at_exit "$NFS"
	timeout 60 mount -t nfs4 -o vers=4.2,proto=tcp,rsize=1048576,wsize=1048576 \
		127.0.0.1:/ "$NFS" || { echo "mount -t nfs4 failed"; return 1; }
	NFS_BDI=/sys/class/bdi/$(mountpoint -d "$NFS")
	"$2" || return 1
	meta nfs_opts "$(awk -v m="$NFS" '$2 == m { print $4 }' /proc/mounts)"
}

# bench_systems ro|rw CHECK: SYSTEMS is "aifs nfs tmpfs", or
# "aifs tmpfs" when NFS cannot run here (nfs_start, with the reason in
# the meta file).
bench_systems()
{
	SYSTEMS="aifs nfs tmpfs"
	# not in $(...): nfs_start sets NFS_BDI and the unmount at exit
	if nfs_start "$@" >/tmp/nfs-start.log 2>&1; then
		say "NFS up ($(grep nfs_opts "$OUT/meta"))"
	else
		SYSTEMS="aifs tmpfs"
		meta nfs_missing "$(tail -n 1 /tmp/nfs-start.log)"
		say "NFS not measured: $(cat /tmp/nfs-start.log)"
	fi
	meta systems "$SYSTEMS"
}
