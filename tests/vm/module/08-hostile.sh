# A hostile server answering the handshake with nonsense: every case is a
# clean error with a message naming the server; no oops, no hang, no leak.
. "$AIFS_TOP/tests/vm/lib.sh"

load_aifs
mkdir -p /mnt/a
# TCP whatever AIFS_VM_TRANSPORT says: the fake server speaks TCP only, on
# 127.0.0.1.
port=7420

# hostile MODE ERRNO DMESG-REGEX
hostile()
{
	local mode=$1 errno=$2 msg=$3
	port=$((port + 1))
	start_fake_server "$mode" $port
	log_mark
	expect_mount "$errno" -o secret=$AIFS_SECRET,timeo=50,transport=tcp \
		127.0.0.1:$port:/ /mnt/a
	expect_dmesg "aifs: server 127.0.0.1:$port:? $msg"
	kill "$SERVER_PID"
}

hostile garbage EIO "bad frame header"
hostile oversize EPROTO "frame larger than the protocol allows"
hostile too-long EPROTO "reply larger than its request allows"
hostile bad-crc EIO "payload CRC mismatch"
hostile bad-hdr-crc EIO "bad frame header"
hostile not-reply EPROTO "unexpected request from the server"
hostile unknown-id EPROTO "reply to no outstanding request"
hostile wrong-opcode EPROTO "reply with another opcode than its request"
hostile status-payload EPROTO "error reply with a payload"
hostile truncated ECONNRESET "connection closed by the server"
hostile short-hello EPROTO "malformed HELLO reply"
hostile bad-version EPROTONOSUPPORT "shares no protocol version with this client"
hostile no-version EPROTONOSUPPORT "shares no protocol version with this client"
hostile wrong-proof EACCES "failed to prove the shared secret"

grep -q ' /mnt/a ' /proc/mounts && fail "a hostile mount is mounted"
[ -z "$(ls /sys/fs/aifs)" ] || fail "sysfs left: $(ls /sys/fs/aifs)"
pgrep -x aifs-recv >/dev/null && fail "receiver thread left"
assert_eq "$(module_refcount)" 0 "module refcount"
