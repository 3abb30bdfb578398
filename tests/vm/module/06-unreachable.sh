# Servers that cannot be reached: a closed port fails at once with
# ECONNREFUSED; a server that accepts but never answers fails after timeo
# with ETIMEDOUT; a mount waiting on it dies at once from a fatal signal.
. "$AIFS_TOP/tests/vm/lib.sh"

load_aifs
mkdir -p /mnt/a
# TCP whatever AIFS_VM_TRANSPORT says: the closed ports and the fake
# server are TCP only, on 127.0.0.1.
opt=secret=$AIFS_SECRET,transport=tcp

# timed_mount WANT SOURCE [OPTIONS]: mount(2) must give WANT (an errno
# name, or ok); sets MS to the milliseconds mount(2) itself took.
timed_mount()
{
	local got
	read -r got MS <<<"$(aifs-try-mount -m -o "${3:-$opt}" "$2" /mnt/a ||
		true)"
	assert_eq "$got" "$1" "mount $2"
}

# Refused at once, not after the default timeo of 60 s.
log_mark
timed_mount ECONNREFUSED 127.0.0.1:7409:/
[ "$MS" -lt 2000 ] || fail "ECONNREFUSED took $MS ms"
expect_dmesg "aifs: cannot reach any server of 127.0.0.1:7409:/: -ECONNREFUSED"

# All servers down: each is tried, the last error is returned.
log_mark
expect_mount ECONNREFUSED -o $opt 127.0.0.1:7408,127.0.0.1:7409:/ /mnt/a
expect_dmesg "cannot connect to server 127.0.0.1:7408 over tcp: -ECONNREFUSED"
expect_dmesg "cannot connect to server 127.0.0.1:7409 over tcp: -ECONNREFUSED"

# Accepts, never answers: timeo=20 is 2 s, one try (a mount being made
# tries once), timed by mount(2) itself.
start_fake_server silent 7410
log_mark
timed_mount ETIMEDOUT 127.0.0.1:7410:/ "$opt,timeo=20"
echo "ETIMEDOUT after $MS ms"
[ "$MS" -ge 1990 ] && [ "$MS" -lt 8000 ] ||
	fail "ETIMEDOUT after $MS ms, want ~2000"
expect_dmesg "server 127.0.0.1:7410: no reply in time \(-ETIMEDOUT\), closing the connection"
assert_eq "$(kernel_log | grep -c '127.0.0.1:7410: no reply in time')" 1 \
	"timeouts of the one try"
expect_dmesg "cannot reach any server of 127.0.0.1:7410:/: -ETIMEDOUT"

# The silent server first, a good one second: the mount gets there.
start_mds 7411
expect_mount ok -o $opt,timeo=20 "127.0.0.1:7410,$AIFS_ADDR:7411:/" /mnt/a
assert_eq "$(cat /sys/fs/aifs/*/server)" "$AIFS_ADDR:7411" "server"
umount /mnt/a

# A mount waiting for a silent server (60 s timeout) dies at once from
# SIGKILL, and from SIGTERM (fatal too): killed in the module's wait for
# the handshake's reply, not on its way there.
for sig in KILL TERM; do
	aifs-try-mount -o $opt 127.0.0.1:7410:/ /mnt/a &
	pid=$!
	wait_blocked_in_aifs $pid aifs_conn_do_call
	grep -q aifs_hello /proc/$pid/stack || fail "mount not in the handshake"
	start=$(date +%s%N)
	kill -$sig $pid
	wait $pid 2>/dev/null || true
	ms=$((($(date +%s%N) - start) / 1000000))
	echo "SIG$sig ended the mount in $ms ms"
	[ "$ms" -lt 2000 ] || fail "SIG$sig took $ms ms"
done
grep -q ' /mnt/a ' /proc/mounts && fail "a failed mount is mounted"
[ -z "$(ls /sys/fs/aifs)" ] || fail "sysfs left: $(ls /sys/fs/aifs)"
pgrep -x aifs-recv >/dev/null && fail "receiver thread left"
assert_eq "$(module_refcount)" 0 "module refcount"
