# A server that dies or goes mute while mounted: the keepalive notices, and
# umount and module unload still complete.
. "$AIFS_TOP/tests/vm/lib.sh"

load_aifs
mkdir -p /mnt/a
opt=$(with_transport secret=$AIFS_SECRET timeo=20)

# Alive: PINGs every timeo/2 (1 s) are answered and close nothing.
start_mds 7400
expect_mount ok -o $opt "$AIFS_ADDR:/" /mnt/a
log_mark
sleep 4
kernel_log_has "closing the connection" && fail "a live session closed: $(dmesg)"

# Killed: the connection ends at once (said within a few seconds, a
# timeo being 2 s: not a PING's timeout).
kill -KILL "$SERVER_PID"
wait "$SERVER_PID" 2>/dev/null || true
wait_kernel_log "server $AIFS_ADDR:7400: connection closed by the server \(-ECONNRESET\)"
kernel_log_has "no reply in time" && fail "a timeout, not the reset: $(kernel_log)"
umount2 /mnt/a || fail "umount after the server died"

# Alive but mute (stopped) after the mount: a PING times out
# (timeo/2 + timeo).
start_mds 7401
expect_mount ok -o $opt "$AIFS_ADDR:7401:/" /mnt/a
kill -STOP "$SERVER_PID"
log_mark
wait_kernel_log "server $AIFS_ADDR:7401: no reply in time \(-ETIMEDOUT\)"
umount2 /mnt/a || fail "umount after the server went mute"
kill -CONT "$SERVER_PID"

# umount while a PING is outstanding on a mute server: not held up by it.
expect_mount ok -o "$(with_transport secret=$AIFS_SECRET timeo=60)" \
	"$AIFS_ADDR:7401:/" /mnt/a
kill -STOP "$SERVER_PID"
# the first PING goes out at 3 s (timeo/2) and would time out 6 s later:
# umount once the keepalive waits for its reply
for _ in $(seq 600); do
	grep -qs aifs_keepalive /proc/[0-9]*/stack && break
	sleep 0.1
done
grep -qs aifs_keepalive /proc/[0-9]*/stack || fail "no PING outstanding"
ms=$(umount2_ms /mnt/a) || fail "umount of a mute server's mount"
[ "$ms" -lt 3000 ] || fail "umount took $ms ms"
kill -CONT "$SERVER_PID"

# A server mute right after the handshake cannot be mounted: looking up
# the root times out. Over TCP whatever AIFS_VM_TRANSPORT says: the fake
# server speaks TCP only, on 127.0.0.1.
start_fake_server mute-after-auth 7402
log_mark
expect_mount ETIMEDOUT -o secret=$AIFS_SECRET,timeo=20,transport=tcp \
	127.0.0.1:7402:/ /mnt/a
expect_dmesg "server 127.0.0.1:7402: no reply in time \(-ETIMEDOUT\)"

pgrep -x aifs-recv >/dev/null && fail "receiver thread left"
assert_eq "$(module_refcount)" 0 "module refcount"
rmmod aifs || fail "rmmod"
load_aifs
