# Runs in the guest for 'make demo'.  The training demo needs the metadata
# and data servers and the client's namespace and data paths, which are not
# built yet; until then it shows what stands: the module loads, a mount
# connects to a server and authenticates with the shared secret, sets up its
# tunables, and it says what is missing.
. "$AIFS_TOP/tests/vm/lib.sh"

echo "aifs demo in a $(uname -r) guest"
load_aifs
echo "- aifs.ko loaded: $(grep -w aifs /proc/filesystems | tr -s '\t' ' ')"
mkdir -p /mnt/aifs
start_server 7400
echo "- aifs-echo-server (the server runtime, handshake and PING) on 127.0.0.1:7400"
mount -t aifs -o secret=$AIFS_SECRET,read_ahead_kb=16384 127.0.0.1:/ /mnt/aifs
mnt=$(ls /sys/fs/aifs)
echo "- mounted 127.0.0.1:/ at /mnt/aifs: $(grep ' /mnt/aifs ' /proc/mounts)"
echo "- authenticated session $(cat /sys/fs/aifs/"$mnt"/session) with $(cat /sys/fs/aifs/"$mnt"/server)"
echo "- per-mount tunables in /sys/fs/aifs/$mnt:"
for f in /sys/fs/aifs/"$mnt"/*; do
	printf '    %-16s %s\n' "$(basename "$f")" "$(cat "$f")"
done
umount /mnt/aifs
stop_servers
rmmod aifs
cat <<'MISSING'
- missing before the training demo can run:
    aifs-mds and aifs-ds (metadata and data servers), the client's
    namespace, read and write paths, the RDMA transport, and the demo's
    data set, PyTorch loader and parallel checkpoint.
MISSING
