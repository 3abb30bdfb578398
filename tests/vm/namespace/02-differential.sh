# The same seeded random namespace operations on aifs and on tmpfs give the
# same errno each and the same trees, with caches on (long timeouts) and off.
. "$AIFS_TOP/tests/vm/lib.sh"

load_aifs
umount_at_exit /mnt/a /mnt/ref
mkdir -p /mnt/a /mnt/ref
start_mds 7400
here=$AIFS_TOP/tests/vm/namespace
mount -t tmpfs tmpfs /mnt/ref
for run in "1 attr_timeout=60,dentry_timeout=60" "2 attr_timeout=0,dentry_timeout=0"; do
	set -- $run
	mount -t aifs -o "$(with_transport secret=$AIFS_SECRET $2)" \
		"$AIFS_ADDR:/" /mnt/a
	mkdir /mnt/a/run$1 /mnt/ref/run$1
	python3 "$here/differential.py" /mnt/a/run$1 /mnt/ref/run$1 $((1000 + $1)) 400 ||
		fail "differential run $1 ($2)"
	umount /mnt/a
done
umount /mnt/ref
