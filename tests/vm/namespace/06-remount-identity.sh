# Two mounts, one after the other or side by side, are two clients to the
# MDS: the same changes made in the same order by each must all be
# applied, never answered from the reply cache as retries of the other's.
. "$AIFS_TOP/tests/vm/lib.sh"

load_aifs
umount_at_exit /mnt/a /mnt/b
mkdir -p /mnt/a /mnt/b
start_mds 7400
opt=$(with_transport secret=$AIFS_SECRET)

mount -t aifs -o $opt "$AIFS_ADDR:/" /mnt/a
mkdir /mnt/a/d
rmdir /mnt/a/d
umount /mnt/a

mount -t aifs -o $opt "$AIFS_ADDR:/" /mnt/a
mkdir /mnt/a/d || fail "mkdir after a remount"
test -d /mnt/a/d || fail "mkdir after a remount succeeded but made nothing"
rmdir /mnt/a/d

# Side by side: the second mkdir of one name must see EEXIST.
mount -t aifs -o $opt "$AIFS_ADDR:/" /mnt/b
mkdir /mnt/a/e
expect_error "File exists" mkdir /mnt/b/e
exit 0
