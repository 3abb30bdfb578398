# A mount sets up its per-mount sysfs directory and bdi, applies its options,
# shows them without the secret, takes tunables from sysfs and remount at
# once, and removes everything at umount.
. "$AIFS_TOP/tests/vm/lib.sh"

# It checks the default transport, tcp, and transport=auto falling back
# to it, which needs a guest without an RDMA device.
[ "${AIFS_VM_TRANSPORT:-tcp}" != rdma ] ||
	skip "transport=auto falls back to tcp only without Soft-RoCE"
load_aifs
mkdir -p /mnt/a /mnt/b
start_mds 7401
start_mds 7402
expect_mount ok -o read_ahead_kb=4096,secret=$AIFS_SECRET,soft,timeo=50,port=7401 \
	127.0.0.1:/ /mnt/a
opts=$(grep ' /mnt/a aifs ' /proc/mounts) || fail "not in /proc/mounts"
grep -q "$AIFS_SECRET" /proc/mounts /proc/self/mountinfo && fail "secret shown: $opts"
for o in read_ahead_kb=4096 soft timeo=50 port=7401; do
	grep -q ",$o\(,\| \)" <<<"$opts" || fail "$o missing from '$opts'"
done

dir=$(ls -d /sys/fs/aifs/aifs-*)
[ "$(echo "$dir" | wc -l)" = 1 ] || fail "expected one sysfs dir: $dir"
name=$(basename "$dir")
bdi=/sys/class/bdi/$name
[ -d "$bdi" ] || fail "no bdi $bdi"
grep -rq "$AIFS_SECRET" "$dir" && fail "secret in sysfs"
assert_eq "$(cat "$dir/read_ahead_kb")" 4096 "sysfs read_ahead_kb"
assert_eq "$(cat "$bdi/read_ahead_kb")" 4096 "bdi read_ahead_kb"
assert_eq "$(cat "$dir/timeo")" 50 "sysfs timeo"
assert_eq "$(cat "$dir/max_inflight")" 64 "default max_inflight"
assert_eq "$(cat "$dir/transport")" tcp "transport"
assert_eq "$(cat "$dir/source")" "127.0.0.1:7401:/" "source"
assert_eq "$(cat "$dir/server")" "127.0.0.1:7401" "server"
grep -qE '^[0-9a-f]{16}$' "$dir/session" || fail "session: $(cat "$dir/session")"
# write_attr FILE VALUE: VALUE written to a sysfs attribute (for
# expect_error: a read-only one is EACCES, a value out of range EINVAL)
write_attr()
{
	echo "$2" >"$1"
}
expect_error "Permission denied" write_attr "$dir/server" x

# sysfs writes take effect at once and are range-checked.
echo 1024 >"$dir/read_ahead_kb"
assert_eq "$(cat "$bdi/read_ahead_kb")" 1024 "bdi after sysfs write"
echo 128 >"$dir/max_inflight"
assert_eq "$(cat "$dir/max_inflight")" 128 "max_inflight after write"
for bad in 1048577 -1 abc ""; do
	expect_error "Invalid argument" write_attr "$dir/read_ahead_kb" "$bad"
done
expect_error "Invalid argument" write_attr "$dir/max_inflight" 0
assert_eq "$(cat "$dir/max_inflight")" 128 "max_inflight after a bad write"
assert_eq "$(cat "$dir/read_ahead_kb")" 1024 "read_ahead_kb after bad writes"
expect_error "Permission denied" write_attr "$dir/transport" tcp

# remount changes tunables; it refuses to change what the connection uses.
expect_mount ok -r -o read_ahead_kb=2048,port=7401 127.0.0.1:/ /mnt/a
assert_eq "$(cat "$bdi/read_ahead_kb")" 2048 "bdi after remount"
grep ' /mnt/a ' /proc/mounts | grep -q read_ahead_kb=2048 || fail "remount not shown"
log_mark
expect_mount EINVAL -r -o port=7402 127.0.0.1:/ /mnt/a
expect_dmesg "port cannot be changed on remount"
mount -o remount,read_ahead_kb=512 /mnt/a || fail "mount(8) remount failed"
assert_eq "$(cat "$bdi/read_ahead_kb")" 512 "bdi after mount(8) remount"

# The root is the MDS's root directory, empty on a new file system.
[ -d /mnt/a ] || fail "root is not a directory"
[ -z "$(ls -A /mnt/a)" ] || fail "root not empty"
assert_eq "$(stat -c %i /mnt/a)" 1 "root inode"
stat -f /mnt/a >/dev/null || fail "statfs failed"
stat -f -c %t /mnt/a | grep -qi '^41494653$' || fail "wrong f_type: $(stat -f -c %t /mnt/a)"

# A subdirectory is mounted only if the MDS has it, and is a directory.
log_mark
expect_mount ENOENT -o secret=$AIFS_SECRET,port=7402 127.0.0.1:/data/set1 /mnt/b
expect_dmesg "aifs: /data/set1: no such directory on the server"
expect_mount ok -o secret=$AIFS_SECRET,port=7402 127.0.0.1:/ /mnt/b
mkdir -p /mnt/b/data/set1
touch /mnt/b/data/file
umount /mnt/b
expect_mount ENOTDIR -o secret=$AIFS_SECRET,port=7402 127.0.0.1:/data/file /mnt/b

# A second mount, with IPv6 and several servers, gets its own directory and
# a session with the first server that answers.
expect_mount ok -o transport=auto,secret=$AIFS_SECRET \
	'[::1]:7500,127.0.0.1:7402:/data/set1/' /mnt/b
[ "$(ls /sys/fs/aifs | wc -l)" = 2 ] || fail "expected two mounts: $(ls /sys/fs/aifs)"
dir2=$(ls -d /sys/fs/aifs/aifs-* | grep -v "/$name\$")
assert_eq "$(cat "$dir2/source")" "[::1]:7500,127.0.0.1:7402:/data/set1" "source of b"
assert_eq "$(cat "$dir2/server")" "127.0.0.1:7402" "server of b"
[ "$(cat "$dir2/session")" != "$(cat "$dir/session")" ] || fail "same session twice"
assert_eq "$(cat "$dir2/transport")" tcp "auto falls back to tcp"
assert_eq "$(cat "$dir2/read_ahead_kb")" 8192 "default read_ahead_kb"
[ "$(stat -c %i /mnt/b)" != 1 ] || fail "the subdirectory mount shows the root"

[ "$(module_refcount)" -ge 2 ] || fail "mounts hold no module reference"
umount /mnt/a
umount /mnt/b
[ -z "$(ls /sys/fs/aifs)" ] || fail "sysfs left after umount: $(ls /sys/fs/aifs)"
ls /sys/class/bdi | grep -q '^aifs-' && fail "bdi left after umount"
assert_eq "$(module_refcount)" 0 "module refcount after umount"
