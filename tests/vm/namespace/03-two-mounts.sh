# Two mounts of one MDS see each other's changes within the cache timeouts,
# and at once where close-to-open or readdir asks the server.
. "$AIFS_TOP/tests/vm/lib.sh"

load_aifs
umount_at_exit /mnt/a /mnt/b
mkdir -p /mnt/a /mnt/b
start_mds 7400
opt=$(with_transport secret=$AIFS_SECRET attr_timeout=1 dentry_timeout=1)
mount -t aifs -o $opt "$AIFS_ADDR:/" /mnt/a
mount -t aifs -o $opt "$AIFS_ADDR:/" /mnt/b

# eventually NAME 'SHELL CONDITION': true within 3 s (timeouts are 1 s)
eventually()
{
	local what=$1 i
	for i in $(seq 30); do
		eval "$2" && return 0
		sleep 0.1
	done
	fail "$what: not seen by the other mount"
}

expect_error "No such file or directory" stat /mnt/b/x	# negative dentry
mkdir /mnt/a/x
eventually "mkdir" 'test -d /mnt/b/x'
ls /mnt/b | grep -qx x || fail "readdir misses x"
touch /mnt/a/x/f
ls /mnt/b/x | grep -qx f || fail "readdir is not at once"
chmod 600 /mnt/a/x/f
eventually "chmod" 'test "$(stat -c %a /mnt/b/x/f)" = 600'
# close-to-open: an open sees the new attributes at once
stat /mnt/b/x/f >/dev/null
truncate -s 777 /mnt/a/x/f
assert_eq "$(python3 -c 'import os; fd = os.open("/mnt/b/x/f", os.O_RDONLY); print(os.fstat(fd).st_size)')" 777 "size after open"
mv /mnt/a/x/f /mnt/a/x/g
eventually "rename (old name)" 'test ! -e /mnt/b/x/f'
eventually "rename (new name)" 'test -e /mnt/b/x/g'
ln /mnt/a/x/g /mnt/a/x/h
eventually "link count" 'test "$(stat -c %h /mnt/b/x/g)" = 2'
rm /mnt/a/x/g /mnt/a/x/h
eventually "unlink" 'test ! -e /mnt/b/x/h'
rmdir /mnt/a/x
eventually "rmdir" 'test ! -e /mnt/b/x'
# a name replaced by another inode is noticed
touch /mnt/a/y
stat /mnt/b/y >/dev/null
rm /mnt/a/y
mkdir /mnt/a/y
eventually "replaced name" 'test -d /mnt/b/y'
# renaming between two mounts is EXDEV, even of one file system
python3 -c 'import os, errno
try:
    os.rename("/mnt/a/y", "/mnt/b/z")
except OSError as e:
    assert e.errno == errno.EXDEV, e
else:
    raise AssertionError("rename across mounts worked")' || fail "EXDEV"
umount /mnt/a /mnt/b
assert_eq "$(module_refcount)" 0 "module refcount"
