# A write removes the setuid and setgid bits (a writer without
# CAP_FSETID) and security.capability (any writer) — also when another
# mount set them after this mount's last write: the check runs once per
# inode (SB_NOSEC), and again after the server's change counter moved.
# 100 writes in a row send no GETXATTR.
. "$AIFS_TOP/tests/vm/lib.sh"

mount_cluster /mnt/a attr_timeout=0
dir=$(ls -d /sys/fs/aifs/aifs-*)	# /mnt/a's, before /mnt/b is there
umount_at_exit /mnt/b
mkdir -p /mnt/b
mount -t aifs -o "$(with_transport secret=$AIFS_SECRET attr_timeout=0)" \
	"$AIFS_ADDR:/" /mnt/b
# security.capability of version 2: CAP_NET_BIND_SERVICE permitted
cap=0x0000000200040000000000000000000000000000
as_user() { setpriv --reuid=1000 --regid=1000 --clear-groups "$@"; }
write_a() { as_user dd of=/mnt/a/f bs=1 count=1 seek="$1" conv=notrunc \
	status=none <<<x || fail "write at $1"; }
mode_b() { stat -c %a /mnt/b/f; }

echo data >/mnt/a/f
chmod 6777 /mnt/a/f
write_a 1
assert_eq "$(stat -c %a /mnt/a/f)" 777 "mode after a write by a user"
# set again through the other mount: this mount's next write sees it
for round in 1 2 3; do
	chmod 6777 /mnt/b/f
	write_a $((round + 1))
	assert_eq "$(stat -c %a /mnt/a/f)" 777 "mode on /mnt/a, round $round"
	assert_eq "$(mode_b)" 777 "mode on /mnt/b, round $round"
done

# security.capability, set through /mnt/b, removed by a root write on /mnt/a
for round in 1 2; do
	setfattr -n security.capability -v $cap /mnt/b/f ||
		fail "setfattr security.capability"
	echo y | dd of=/mnt/a/f bs=1 seek=9 conv=notrunc status=none
	! getfattr -n security.capability /mnt/b/f >/dev/null 2>&1 ||
		fail "security.capability left after a write, round $round"
done

# writes in a row: the first may ask, the rest do not
before=$(aifs_stat "$dir" mds_getxattr)
python3 -c 'import os
fd = os.open("/mnt/a/f", os.O_WRONLY)
for i in range(100):
    os.pwrite(fd, b"z", i)
os.close(fd)'
n=$(($(aifs_stat "$dir" mds_getxattr) - before))
[ "$n" -le 1 ] || fail "$n GETXATTRs for 100 writes"
umount /mnt/b
umount /mnt/a
