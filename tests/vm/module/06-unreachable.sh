# Servers that cannot be reached: a closed port fails at once with
# ECONNREFUSED; a server that accepts but never answers fails after timeo
# with ETIMEDOUT; a mount waiting on it dies at once from a fatal signal.
. "$AIFS_TOP/tests/vm/lib.sh"

load_aifs
mkdir -p /mnt/a
# TCP whatever AIFS_VM_TRANSPORT says: the closed ports and the fake
# server are TCP only, on 127.0.0.1.
opt=secret=$AIFS_SECRET,transport=tcp

log_mark
start=$(date +%s%N)
expect_mount ECONNREFUSED -o $opt 127.0.0.1:7409:/ /mnt/a
ms=$((($(date +%s%N) - start) / 1000000))
[ "$ms" -lt 2000 ] || fail "ECONNREFUSED took $ms ms"
expect_dmesg "aifs: cannot reach any server of 127.0.0.1:7409:/: -ECONNREFUSED"

# All servers down: each is tried, the last error is returned.
log_mark
expect_mount ECONNREFUSED -o $opt 127.0.0.1:7408,127.0.0.1:7409:/ /mnt/a
expect_dmesg "cannot connect to server 127.0.0.1:7408 over tcp: -ECONNREFUSED"
expect_dmesg "cannot connect to server 127.0.0.1:7409 over tcp: -ECONNREFUSED"

# Accepts, never answers: timeo=20 is 2 s.
start_fake_server silent 7410
log_mark
start=$(date +%s%N)
expect_mount ETIMEDOUT -o $opt,timeo=20 127.0.0.1:7410:/ /mnt/a
ms=$((($(date +%s%N) - start) / 1000000))
echo "ETIMEDOUT after $ms ms"
[ "$ms" -ge 1900 ] && [ "$ms" -lt 8000 ] || fail "ETIMEDOUT after $ms ms, want ~2000"
expect_dmesg "server 127.0.0.1:7410: no reply in time \(-ETIMEDOUT\), closing the connection"
expect_dmesg "cannot reach any server of 127.0.0.1:7410:/: -ETIMEDOUT"

# The silent server first, a good one second: the mount gets there.
start_mds 7411
expect_mount ok -o $opt,timeo=20 "127.0.0.1:7410,$AIFS_ADDR:7411:/" /mnt/a
assert_eq "$(cat /sys/fs/aifs/*/server)" "$AIFS_ADDR:7411" "server"
umount /mnt/a

# A mount waiting for a silent server (60 s timeout) dies at once from
# SIGKILL, and from SIGTERM (fatal too).
for sig in KILL TERM; do
	aifs-try-mount -o $opt 127.0.0.1:7410:/ /mnt/a &
	pid=$!
	sleep 2
	kill -0 $pid 2>/dev/null || fail "mount ended before SIG$sig"
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
