# In the guest booted by tests/fstests/run: a copy of the fstests tree
# taught FSTYP=aifs, and the curated tests run on each file system of the
# job — aifs on a cluster of this guest (start_cluster; over Soft-RoCE
# with AIFS_VM_TRANSPORT=rdma), kernel NFS v4.2 over TCP exporting a
# tmpfs of this guest. fstests' results go to
# /aifs-results/fstests-FSTYP/, its summary to this test's output.
. "$AIFS_TOP/tests/vm/lib.sh"
. "$AIFS_BUILD/fstests/job"

copy=/tmp/fstests
cp -a "$FSTESTS_DIR" "$copy"
"$AIFS_TOP/tests/fstests/teach-aifs" "$copy"
tests=$(sed 's/#.*//' "$FSTESTS_LIST" | awk 'NF { print $1 }')
# the users and groups tests that change owners need (fstests' README)
getent group fsgqa >/dev/null || groupadd fsgqa
id fsgqa >/dev/null 2>&1 || useradd -g fsgqa fsgqa
id fsgqa2 >/dev/null 2>&1 || useradd fsgqa2
id 123456-fsgqa >/dev/null 2>&1 || useradd --badname 123456-fsgqa
mkdir -p /mnt/test /mnt/scratch
umount_at_exit /mnt/test /mnt/scratch

# local_config FSTYP SERVER OPTIONS-VARIABLE OPTIONS: TEST_DEV and
# SCRATCH_DEV are the directories test and scratch of SERVER's root
local_config()
{
	cat >"$copy/local.config" <<-CONF
	export FSTYP=$1
	export TEST_DEV=$2:/test
	export TEST_DIR=/mnt/test
	export SCRATCH_DEV=$2:/scratch
	export SCRATCH_MNT=/mnt/scratch
	export $3="$4"
	CONF
}

setup_aifs()
{
	mount_cluster /mnt/scratch
	mkdir /mnt/scratch/test /mnt/scratch/scratch
	umount /mnt/scratch
	local_config aifs "$AIFS_ADDR" AIFS_MOUNT_OPTIONS \
		"-o $(with_transport "secret=$AIFS_SECRET")"
}

# NFS v4.2 only, so neither rpcbind nor the v3 MOUNT protocol is needed;
# a short grace period, or the first OPEN waits 90 s
setup_nfs()
{
	modprobe nfsd
	mount -t nfsd nfsd /proc/fs/nfsd
	echo 10 >/proc/fs/nfsd/nfsv4leasetime
	echo 10 >/proc/fs/nfsd/nfsv4gracetime
	mkdir -p /var/lib/nfs/v4recovery /srv/nfs
	mount -t tmpfs -o size=1g nfs-export /srv/nfs
	mkdir /srv/nfs/test /srv/nfs/scratch
	echo "/srv/nfs 127.0.0.1(rw,no_root_squash,insecure,no_subtree_check,fsid=0)" \
		>/etc/exports
	exportfs -ra
	rpc.mountd -N 2 -N 3 --no-udp
	rpc.nfsd -N 3 -V 4.2 --no-udp 8
	local_config nfs 127.0.0.1 NFS_MOUNT_OPTIONS "-o vers=4.2"
}

status=0
for fstyp in $FSTESTS_FSTYPS; do
	"setup_$fstyp"
	rc=0
	(cd "$copy" && ./check $tests) >"/aifs-results/fstests-$fstyp.log" 2>&1 ||
		rc=$?
	echo "== $fstyp (check exit $rc)"
	sed -n '/^Ran:/,$p' "/aifs-results/fstests-$fstyp.log"
	cp -a "$copy/results" "/aifs-results/fstests-$fstyp"
	rm -rf "$copy/results"
	for dir in /mnt/test /mnt/scratch; do
		! mountpoint -q $dir || umount $dir
	done
	[ "$fstyp" != aifs ] || [ $rc = 0 ] || status=1
done
exit $status
