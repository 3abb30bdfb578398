# hypothesis's stateful testing drives random sequences of namespace,
# attribute, xattr and data operations on aifs and on tmpfs at once
# (nsmachine.py): the same errno and results at every step, the same
# trees after it; derandomized, so the same sequences every run, with the
# attribute and dentry caches on (long timeouts) and off.  hypothesis
# begins with about 11 one-step sequences; then 5 of up to 20 steps.
. "$AIFS_TOP/tests/vm/lib.sh"

python3 -c 'import hypothesis' 2>/dev/null ||
	skip "python3 cannot import hypothesis (Debian package python3-hypothesis)"
mount_cluster /mnt/a
umount_at_exit /mnt/ref
mkdir -p /mnt/ref
mount -t tmpfs tmpfs /mnt/ref
here=$AIFS_TOP/tests/vm/namespace
for run in "1 attr_timeout=60,dentry_timeout=60" "2 attr_timeout=0,dentry_timeout=0"; do
	set -- $run
	mount -o remount,$2 /mnt/a
	mkdir /mnt/a/run$1 /mnt/ref/run$1
	python3 -u "$here/nsmachine.py" /mnt/a/run$1 /mnt/ref/run$1 16 20 ||
		fail "differential run $1 ($2)"
done
umount /mnt/ref
umount /mnt/a
