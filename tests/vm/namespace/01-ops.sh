# Every namespace operation through the real MDS, with the errors POSIX
# expects; permissions as an unprivileged user.
. "$AIFS_TOP/tests/vm/lib.sh"

load_aifs
umount_at_exit /mnt/a
mkdir -p /mnt/a
start_mds 7400
mount -t aifs -o "$(with_transport secret=$AIFS_SECRET)" "$AIFS_ADDR:/" /mnt/a
here=$AIFS_TOP/tests/vm/namespace
python3 "$here/ops.py" /mnt/a || fail "ops.py"

# EACCES: an unprivileged user in a directory of root's, and in its own.
as_user()
{
	setpriv --reuid=1000 --regid=1000 --clear-groups "$@"
}
mkdir /mnt/a/priv /mnt/a/open
chmod 700 /mnt/a/priv
chown 1000:1000 /mnt/a/open
# (each denial with its own errno: expect_error)
expect_error "Permission denied" as_user mkdir /mnt/a/x
expect_error "Permission denied" as_user ls /mnt/a/priv
expect_error "Permission denied" as_user touch /mnt/a/priv/y
as_user mkdir /mnt/a/open/mine || fail "mkdir in its own directory"
as_user touch /mnt/a/open/mine/f || fail "create in its own directory"
assert_eq "$(stat -c %u:%g /mnt/a/open/mine/f)" 1000:1000 "owner of a new file"
as_user chmod 600 /mnt/a/open/mine/f || fail "chmod of its own file"
expect_error "Operation not permitted" as_user chown 0 /mnt/a/open/mine/f
assert_eq "$(stat -c %u /mnt/a/open/mine/f)" 1000 "owner after a refused chown"
[ -d /mnt/a/e2 ] || fail "no directory e2 of root (ops.py makes it)"
expect_error "Operation not permitted" as_user chmod 700 /mnt/a/e2
mkdir -m 1777 /mnt/a/tmp
touch /mnt/a/tmp/roots
expect_error "Operation not permitted" as_user rm -f /mnt/a/tmp/roots
[ -e /mnt/a/tmp/roots ] || fail "root's file in a sticky directory is gone"
as_user touch /mnt/a/tmp/users || fail "create in a sticky directory"
as_user rm /mnt/a/tmp/users || fail "unlink of its own file in a sticky directory"
# the supplementary groups are sent: group access through one of them
mkdir /mnt/a/grp && chgrp 1234 /mnt/a/grp && chmod 770 /mnt/a/grp
setpriv --reuid=1000 --regid=1000 --groups=1234 touch /mnt/a/grp/g ||
	fail "access through a supplementary group"
umount /mnt/a
assert_eq "$(module_refcount)" 0 "module refcount"
