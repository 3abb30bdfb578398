# A mount authenticates with the shared secret: the session shows in sysfs;
# a wrong secret is refused by the server, and no secret at all by the
# module.
. "$AIFS_TOP/tests/vm/lib.sh"

load_aifs
mkdir -p /mnt/a
start_mds 7400
opt=$(with_transport secret=$AIFS_SECRET)

expect_mount ok -o $opt "$AIFS_ADDR:/" /mnt/a
dir=$(ls -d /sys/fs/aifs/aifs-*)
assert_eq "$(cat "$dir/server")" "$AIFS_ADDR:7400" "server"
grep -qE '^[0-9a-f]{16}$' "$dir/session" || fail "session: $(cat "$dir/session")"
pgrep -x aifs-recv >/dev/null || fail "no receiver thread"
umount /mnt/a

# Two sessions with one server are told apart.
mkdir -p /mnt/b
expect_mount ok -o $opt "$AIFS_ADDR:/" /mnt/a
expect_mount ok -o $opt "$AIFS_ADDR:/" /mnt/b
[ "$(cat /sys/fs/aifs/*/session | sort -u | wc -l)" = 2 ] ||
	fail "sessions: $(cat /sys/fs/aifs/*/session)"
umount /mnt/a /mnt/b

log_mark
expect_mount EACCES -o "$(with_transport secret=not-the-secret-either)" \
	"$AIFS_ADDR:/" /mnt/a
expect_dmesg "aifs: server $AIFS_ADDR:7400 refused authentication"

log_mark
expect_mount EINVAL "$AIFS_ADDR:/" /mnt/a
expect_dmesg "aifs: no secret given \(mount.aifs reads /etc/aifs/secret\)"

# A refused mount tries no further server, and leaves nothing behind.
log_mark
expect_mount EACCES -o "$(with_transport secret=wrong-but-long-enough)" \
	"$AIFS_ADDR:7400,$AIFS_ADDR:7401:/" /mnt/a
kernel_log_has 7401 && fail "tried another server after EACCES"
[ -z "$(ls /sys/fs/aifs)" ] || fail "sysfs left: $(ls /sys/fs/aifs)"
pgrep -x aifs-recv >/dev/null && fail "receiver thread left"
assert_eq "$(module_refcount)" 0 "module refcount"
