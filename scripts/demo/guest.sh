# Runs in the guest for 'make demo'.  The training demo needs the data
# servers and the client's data paths, which are not built yet; until then
# it shows what stands: the module loads, a mount connects to aifs-mds and
# authenticates with the shared secret, sets up its tunables, the namespace
# lives on the MDS, and it says what is missing.
. "$AIFS_TOP/tests/vm/lib.sh"

echo "aifs demo in a $(uname -r) guest"
load_aifs
echo "- aifs.ko loaded: $(grep -w aifs /proc/filesystems | tr -s '\t' ' ')"
mkdir -p /mnt/aifs
start_mds 7400
echo "- aifs-mds (a new file system, formatted) on 127.0.0.1:7400"
mount -t aifs -o secret=$AIFS_SECRET,read_ahead_kb=16384 127.0.0.1:/ /mnt/aifs
mnt=$(ls /sys/fs/aifs)
echo "- mounted 127.0.0.1:/ at /mnt/aifs: $(grep ' /mnt/aifs ' /proc/mounts)"
echo "- authenticated session $(cat /sys/fs/aifs/"$mnt"/session) with $(cat /sys/fs/aifs/"$mnt"/server)"
echo "- per-mount tunables in /sys/fs/aifs/$mnt:"
for f in /sys/fs/aifs/"$mnt"/*; do
	printf '    %-16s %s\n' "$(basename "$f")" "$(cat "$f")"
done
mkdir -p /mnt/aifs/datasets/images /mnt/aifs/checkpoints
touch /mnt/aifs/datasets/images/sample-0001.jpg
ln -s datasets/images /mnt/aifs/images
echo "- a namespace on the MDS:"
(cd /mnt/aifs && find . | sort | sed 's/^/    /')
echo "- statfs: $(stat -f -c 'type %T, %b blocks of %S bytes, %c inodes' /mnt/aifs)"
umount /mnt/aifs
stop_servers
rmmod aifs
cat <<'MISSING'
- missing before the training demo can run:
    the client's write path (reads from aifs-ds work), the RDMA transport,
    and the demo's data set, PyTorch loader and parallel checkpoint.
MISSING
