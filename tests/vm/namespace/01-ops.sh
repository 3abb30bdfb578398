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
as_user mkdir /mnt/a/x 2>/dev/null && fail "mkdir in root's directory as uid 1000"
as_user ls /mnt/a/priv >/dev/null 2>&1 && fail "listed a 0700 directory of root"
out=$(as_user touch /mnt/a/priv/y 2>&1) && fail "created in a 0700 directory"
grep -q "Permission denied" <<<"$out" || fail "not EACCES: $out"
as_user mkdir /mnt/a/open/mine || fail "mkdir in its own directory"
as_user touch /mnt/a/open/mine/f || fail "create in its own directory"
assert_eq "$(stat -c %u:%g /mnt/a/open/mine/f)" 1000:1000 "owner of a new file"
as_user chmod 600 /mnt/a/open/mine/f || fail "chmod of its own file"
as_user chown 0 /mnt/a/open/mine/f 2>/dev/null && fail "chown to root as uid 1000"
as_user chmod 700 /mnt/a/e2 2>/dev/null && fail "chmod of a directory of root"
mkdir -m 1777 /mnt/a/tmp
touch /mnt/a/tmp/roots
as_user rm -f /mnt/a/tmp/roots 2>/dev/null && fail "unlink of root's file in a sticky directory"
as_user touch /mnt/a/tmp/users || fail "create in a sticky directory"
as_user rm /mnt/a/tmp/users || fail "unlink of its own file in a sticky directory"
# the supplementary groups are sent: group access through one of them
mkdir /mnt/a/grp && chgrp 1234 /mnt/a/grp && chmod 770 /mnt/a/grp
setpriv --reuid=1000 --regid=1000 --groups=1234 touch /mnt/a/grp/g ||
	fail "access through a supplementary group"
umount /mnt/a
assert_eq "$(module_refcount)" 0 "module refcount"
