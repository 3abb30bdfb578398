# POSIX ACLs through the kernel client and the MDS: named users and groups
# granting and denying, the mask, chmod moving the mask, default ACLs
# inherited by new files and directories, ACLs kept across umount/mount
# and seen by a second mount, and removed.
. "$AIFS_TOP/tests/vm/lib.sh"

command -v setfacl >/dev/null || skip "setfacl not installed (Debian package acl)"
load_aifs
umount_at_exit /mnt/a /mnt/b
mkdir -p /mnt/a /mnt/b
start_mds 7400
mount -t aifs -o "$(with_transport secret=$AIFS_SECRET)" "$AIFS_ADDR:/" /mnt/a

# as UID [GROUP] COMMAND...: run as that user (and supplementary group)
as()
{
	local uid=$1 groups=--clear-groups
	shift
	if [[ $1 =~ ^[0-9]+$ ]]; then
		groups=--groups=$1
		shift
	fi
	setpriv --reuid="$uid" --regid="$uid" $groups "$@"
}

# denied UID [GROUP] COMMAND...: as that user, COMMAND fails with EACCES
# (not any error: a missing file or a usage error is no denial)
denied()
{
	expect_error "Permission denied" as "$@"
}

# a named user and a named group on root's 0700 directory
mkdir -m 700 /mnt/a/d
touch /mnt/a/d/f
denied 1000 ls /mnt/a/d
setfacl -m u:1000:rwx,g:1234:rx /mnt/a/d
assert_eq "$(stat -c %a /mnt/a/d)" 770 "mode after setfacl (mask rwx)"
as 1000 touch /mnt/a/d/by1000 || fail "named user rwx: create"
assert_eq "$(stat -c %u /mnt/a/d/by1000)" 1000 "owner of the named user's file"
denied 1001 ls /mnt/a/d
as 1001 1234 ls /mnt/a/d >/dev/null || fail "named group r-x: list"
denied 1001 1234 touch /mnt/a/d/x

# the mask limits named entries; chmod sets the mask
chmod 750 /mnt/a/d
getfacl -np /mnt/a/d | grep -qx "mask::r-x" || fail "chmod 750: mask not r-x"
denied 1000 touch /mnt/a/d/y
as 1000 ls /mnt/a/d >/dev/null || fail "list with the mask r-x"
chmod 700 /mnt/a/d
denied 1000 ls /mnt/a/d
setfacl -m m::rwx /mnt/a/d
assert_eq "$(stat -c %a /mnt/a/d)" 770 "mode after setting the mask"
as 1000 touch /mnt/a/d/y || fail "create with the mask rwx again"

# a named user denied what others may do
touch /mnt/a/pub
chmod 644 /mnt/a/pub
as 1001 cat /mnt/a/pub >/dev/null || fail "others read a 0644 file"
setfacl -m u:1001:- /mnt/a/pub
denied 1001 cat /mnt/a/pub
as 1000 cat /mnt/a/pub >/dev/null || fail "others no longer read it"
denied 1001 touch /mnt/a/pub

# default ACLs: inherited in place of the umask
mkdir -m 755 /mnt/a/inh
setfacl -d -m u:1001:rwx /mnt/a/inh
(umask 077 && touch /mnt/a/inh/file && mkdir /mnt/a/inh/sub)
assert_eq "$(stat -c %a /mnt/a/inh/file)" 664 "mode of a file under a default ACL"
assert_eq "$(stat -c %a /mnt/a/inh/sub)" 775 "mode of a directory under a default ACL"
getfacl -np /mnt/a/inh/file | grep -qx "user:1001:rwx.*effective:rw-" ||
	fail "file did not inherit the named user"
getfacl -np /mnt/a/inh/sub | grep -qx "default:user:1001:rwx" ||
	fail "directory did not inherit the default ACL"
as 1001 touch /mnt/a/inh/file || fail "inherited entry: change times"
as 1001 touch /mnt/a/inh/sub/deeper || fail "inherited entry: create"
getfacl -np /mnt/a/inh/sub/deeper | grep -q "^user:1001:rwx" ||
	fail "two levels down"
(umask 077 && mkdir /mnt/a/plain && touch /mnt/a/plain/f)
assert_eq "$(stat -c %a /mnt/a/plain/f)" 600 "umask without a default ACL"

# kept across umount/mount, and seen by a second mount
acls()
{
	(cd "$1" && getfacl -npR d pub inh)
}
before=$(acls /mnt/a)
umount /mnt/a
mount -t aifs -o "$(with_transport secret=$AIFS_SECRET)" "$AIFS_ADDR:/" /mnt/a
assert_eq "$(acls /mnt/a)" "$before" "ACLs after mounting again"
mount -t aifs -o "$(with_transport secret=$AIFS_SECRET attr_timeout=0 \
	dentry_timeout=0)" "$AIFS_ADDR:/" /mnt/b
assert_eq "$(acls /mnt/b)" "$before" "ACLs on a second mount"
as 1000 touch /mnt/b/d/z || fail "named user through the second mount"

# removing an ACL: the mode bits decide again, on both mounts
setfacl -b /mnt/a/d
setfacl -k /mnt/a/inh
# (read first: under pipefail a getfacl that fails made "| grep && fail" pass)
acl=$(getfacl -np /mnt/b/d) || fail "getfacl of d on the second mount"
! grep -q "^user:1000" <<<"$acl" || fail "second mount still has the ACL"
acl=$(getfacl -np /mnt/b/inh) || fail "getfacl of inh on the second mount"
! grep -q "^default:" <<<"$acl" || fail "default ACL still there"
denied 1000 ls /mnt/b/d
(umask 022 && touch /mnt/a/inh/after)
assert_eq "$(stat -c %a /mnt/a/inh/after)" 644 "umask after removing the default ACL"
python3 -c 'import os; os.removexattr("/mnt/a/pub", "system.posix_acl_access")'
as 1001 cat /mnt/a/pub >/dev/null || fail "read after removexattr of the ACL"

umount /mnt/a /mnt/b
assert_eq "$(module_refcount)" 0 "module refcount"
