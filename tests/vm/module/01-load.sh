# The module loads, registers the file system type and its sysfs kset, and
# unloads cleanly.
. "$AIFS_TOP/tests/vm/lib.sh"

load_aifs
grep -qw aifs /proc/filesystems || fail "aifs missing from /proc/filesystems"
[ -d /sys/fs/aifs ] || fail "/sys/fs/aifs missing"
[ -z "$(ls /sys/fs/aifs)" ] || fail "/sys/fs/aifs not empty without mounts"
modinfo "$AIFS_KMOD_TREE/kmod/aifs.ko" | grep -q '^alias: *fs-aifs' ||
	fail "module has no fs-aifs alias"
rmmod aifs
[ ! -d /sys/fs/aifs ] || fail "/sys/fs/aifs left behind by rmmod"
grep -qw aifs /proc/filesystems && fail "aifs still registered after rmmod"
load_aifs
