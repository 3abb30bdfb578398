# Mounts the module cannot serve are refused with a clean errno and a clear
# message in the kernel log, and leave nothing behind.
. "$AIFS_TOP/tests/vm/lib.sh"

load_aifs
mkdir -p /mnt/a

refused()
{
	local errno=$1 message=$2
	shift 2
	log_mark
	expect_mount "$errno" "$@" /mnt/a
	expect_dmesg "$message"
}

refused EINVAL "no source given" ""
refused EINVAL "server address 'mds1' is not numeric; mount through mount.aifs" mds1:/
refused EINVAL "source must be host\[:port\]" 10.0.0.1
refused EINVAL "source must be host\[:port\]" 10.0.0.1:data
refused EINVAL "too many servers \(max 8\)" 10.0.0.1,10.0.0.2,10.0.0.3,10.0.0.4,10.0.0.5,10.0.0.6,10.0.0.7,10.0.0.8,10.0.0.9:/
refused EINVAL "aifs:" "[::1:/"
refused EINVAL "aifs:" 10.0.0.1:0:/
refused EINVAL "aifs:" 10.0.0.1:65536:/
refused EINVAL "no secret given \(mount.aifs reads /etc/aifs/secret\)" 127.0.0.1:/
# no RDMA device here (tests/vm/rdma sets Soft-RoCE up, and so does
# AIFS_VM_TRANSPORT=rdma, where this case does not apply)
[ "${AIFS_VM_TRANSPORT:-tcp}" = rdma ] ||
	refused ENETUNREACH "cannot connect to server 127.0.0.1:7400 over rdma" -o transport=rdma,secret=$AIFS_SECRET 127.0.0.1:/
refused EINVAL "secret must be 16-256 bytes" -o secret=short 127.0.0.1:/
refused EINVAL "aifs:" -o transport=carrier-pigeon 127.0.0.1:/
refused EINVAL "port" -o port=0 127.0.0.1:/
refused EINVAL "port" -o port=65536 127.0.0.1:/
refused EINVAL "read_ahead_kb" -o read_ahead_kb=1048577 127.0.0.1:/
refused EINVAL "max_inflight" -o max_inflight=0 127.0.0.1:/
refused EINVAL "max_inflight" -o max_inflight=1025 127.0.0.1:/
refused EINVAL "timeo" -o timeo=0 127.0.0.1:/
refused EINVAL "retrans" -o retrans=101 127.0.0.1:/
refused EINVAL "attr_timeout" -o attr_timeout=3601 127.0.0.1:/
refused EINVAL "dentry_timeout" -o dentry_timeout=3601 127.0.0.1:/
refused EINVAL "aifs:" -o no_such_option=1 127.0.0.1:/
refused EINVAL "aifs:" -o port=notanumber 127.0.0.1:/

# Nothing of the refused mounts may stay: no sysfs entry, no bdi, no
# reference on the module.
[ -z "$(ls /sys/fs/aifs)" ] || fail "sysfs entries left: $(ls /sys/fs/aifs)"
ls /sys/class/bdi | grep -q '^aifs-' && fail "bdi left: $(ls /sys/class/bdi | grep aifs)"
assert_eq "$(module_refcount)" 0 "module refcount"
grep -q ' /mnt/a ' /proc/mounts && fail "a refused mount is mounted"
exit 0
