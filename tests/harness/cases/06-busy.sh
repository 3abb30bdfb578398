# Leaves aifs mounted, so the module cannot be unloaded at the end of the
# group: the harness must report the failed unload.
. "$AIFS_TOP/tests/vm/lib.sh"
load_aifs
mkdir -p /mnt/busy
start_mds 7400
mount -t aifs -o secret=$AIFS_SECRET 127.0.0.1:/ /mnt/busy
