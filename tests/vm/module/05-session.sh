# A mount authenticates with the shared secret: the session shows in sysfs;
# a wrong secret is refused by the server, and no secret at all by the
# module.
. "$AIFS_TOP/tests/vm/lib.sh"

load_aifs
mkdir -p /mnt/a
start_mds 7400

expect_mount ok -o secret=$AIFS_SECRET 127.0.0.1:/ /mnt/a
dir=$(ls -d /sys/fs/aifs/aifs-*)
assert_eq "$(cat "$dir/server")" "127.0.0.1:7400" "server"
grep -qE '^[0-9a-f]{16}$' "$dir/session" || fail "session: $(cat "$dir/session")"
pgrep -x aifs-recv >/dev/null || fail "no receiver thread"
umount /mnt/a

# Two sessions with one server are told apart.
mkdir -p /mnt/b
expect_mount ok -o secret=$AIFS_SECRET 127.0.0.1:/ /mnt/a
expect_mount ok -o secret=$AIFS_SECRET 127.0.0.1:/ /mnt/b
[ "$(cat /sys/fs/aifs/*/session | sort -u | wc -l)" = 2 ] ||
	fail "sessions: $(cat /sys/fs/aifs/*/session)"
umount /mnt/a /mnt/b

dmesg -C
expect_mount EACCES -o secret=not-the-secret-either 127.0.0.1:/ /mnt/a
expect_dmesg "aifs: server 127.0.0.1:7400 refused authentication"

dmesg -C
expect_mount EINVAL 127.0.0.1:/ /mnt/a
expect_dmesg "aifs: no secret given \(mount.aifs reads /etc/aifs/secret\)"

# A refused mount tries no further server, and leaves nothing behind.
dmesg -C
expect_mount EACCES -o secret=wrong-but-long-enough '127.0.0.1:7400,127.0.0.1:7401:/' /mnt/a
dmesg | grep -q 7401 && fail "tried another server after EACCES"
[ -z "$(ls /sys/fs/aifs)" ] || fail "sysfs left: $(ls /sys/fs/aifs)"
pgrep -x aifs-recv >/dev/null && fail "receiver thread left"
assert_eq "$(module_refcount)" 0 "module refcount"
