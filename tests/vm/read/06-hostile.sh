# A hostile data server (a proxy in front of a real aifs-ds spoiling every
# CHUNK_READ reply in one way per case): a file with three copies still
# reads right from the good ones, a file whose only copy is there fails
# with EIO, from the spoiled reply and not from a timeout (a silent server
# after its timeouts), the kernel log says why; no oops, no leak.
. "$AIFS_TOP/tests/vm/lib.sh"

MiB=1048576
mount_cluster /mnt/a
src=$(mktemp -d /tmp/aifs-src.XXXXXX)
head -c $((9 * MiB + 7)) /dev/urandom >"$src/r3"
head -c $((2 * MiB)) /dev/urandom >"$src/r1"
put_file "$src/r3" /r3 3
# the primary of r3, the only server a healthy read asks, is the victim:
# the one the kernel has a connection to
cmp "$src/r3" /mnt/a/r3 || fail "r3 before the proxy"
victim=$(ds_in_use)
umount /mnt/a
[[ "$victim" =~ ^[123]$ ]] || fail "primary of r3: '$victim'"
victim_port=$((7400 + victim))

# The victim moves to 127.0.0.2 and keeps announcing 127.0.0.1, where the
# proxy will listen: the mounts through it stay on TCP whatever
# AIFS_VM_TRANSPORT says, as the proxy speaks TCP only.
vdir=${DS_DIRS[victim]}
kill -TERM "${DS_PIDS[victim]}"
wait "${DS_PIDS[victim]}" 2>/dev/null || true
sed -i 's/^listen_address = .*/listen_address = 127.0.0.2/' "$vdir/server.conf"
echo "public_address = 127.0.0.1" >>"$vdir/server.conf"
run_server aifs-ds "$vdir"

mds="-s $MDS_DIR/secret -m $AIFS_ADDR:7400"
# up_count N WHY: wait until N data servers are up, for 300 s of wall-clock
# time, not turns of the loop: 300 turns of aifs-put and a 0.1 s sleep
# ran out on a loaded host (stress-ng and three other guests beside)
up_count()
{
	local end=$((SECONDS + 300))
	until [ "$(aifs-put $mds -M)" = "$1" ]; do
		if [ "$SECONDS" -ge "$end" ]; then
			aifs -s "$MDS_DIR/secret" status "$AIFS_ADDR:7400" >&2 || true
			fail "not $1 data servers up after 300 s ($2)"
		fi
		sleep 0.1
	done
}

# proxy MODE: the hostile proxy in front of the victim; sets PROXY_PID
proxy()
{
	start_peer "$AIFS_TOP/tests/vm/read/hostile-ds-proxy.py" "$1" \
		"$victim_port" 127.0.0.2 "$victim_port"
	PROXY_PID=$SERVER_PID
}

# back after more than the grace, the victim catches up first (SYNCING)
up_count 3 "the victim back"

# r1's only copy on the victim: the others are down while it is put
others=()
for i in 1 2 3; do [ "$i" = "$victim" ] || others+=("${DS_PIDS[i]}"); done
kill -STOP "${others[@]}"
up_count 1 "the others stopped"
proxy none	# a proxy that spoils nothing
put_file "$src/r1" /r1 1
# counted out while stopped, the others catch up before they serve
# (SYNCING), from the victim too: through the proxy, which spoils nothing
kill -CONT "${others[@]}"
up_count 3 "the others caught up"
kill "$PROXY_PID"
wait "$PROXY_PID" 2>/dev/null || true

# check MODE REGEX: reads through the hostile server; the log matches REGEX.
# A spoiled reply fails its read at once, a request that times out is not
# how: the mount's timeo is 30 s, longer than any spoiled read takes on a
# loaded guest, and no request may time out (judged by the kernel's log of
# timeouts, not by the clock, which a starved guest stretches).  A silent
# server's read fails by timeouts, of 3 s, a few and not forever.
check()
{
	local timeo=300 out timeouts
	[ "$1" = silent ] && timeo=30
	proxy "$1"
	# the client's messages are rate-limited (10 per 5 s per message),
	# all but the one closing a connection: for the others let the
	# previous case's burst expire so that this case's shows
	case $2 in
	*"$closing") ;;
	*) sleep 6 ;;
	esac
	log_mark
	mount -t aifs -o secret=$AIFS_SECRET,timeo=$timeo,transport=tcp \
		"$AIFS_ADDR:/" /mnt/a
	assert_eq "$(timeout 120 sha256sum </mnt/a/r3)" "$(sha256sum <"$src/r3")" \
		"$1: r3"
	expect_dmesg "$2"
	# r1 fails: timed are its read(2)s, from the first to the EIO
	log_mark
	out=$(timeout 120 python3 -c 'import errno, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
start = time.monotonic()
try:
    while os.read(fd, 1 << 20):
        pass
    got = "ok"
except OSError as e:
    got = errno.errorcode[e.errno]
print(got, int((time.monotonic() - start) * 1000))' /mnt/a/r1)
	read -r got ms <<<"$out"
	# each timeout closes its connection, logged once, never rate-limited
	timeouts=$(kernel_log | grep -c "no reply in time") || true
	echo "$1: r1: $got after $ms ms, $timeouts requests timed out"
	assert_eq "$got" EIO "$1: r1 from the hostile server alone"
	if [ "$1" != silent ]; then
		assert_eq "$timeouts" 0 "$1: requests of r1 timed out"
	else
		# the server that timed out under r3's read is left alone for
		# a timeo: r1 fails at once (a black hole costs one timeo, not
		# one per request); if r3's read outlasted that, r1's request
		# and the one more after the broken connection time out
		# (aifs_io_next_round), and no more
		[ "$timeouts" -le 2 ] ||
			fail "silent: $timeouts timeouts of r1's requests, not 2 at most"
	fi
	timeout 60 umount /mnt/a || fail "$1: umount"
	kill "$PROXY_PID"
	wait "$PROXY_PID" 2>/dev/null || true
}

closing="closing the connection"
check long "reply larger than its request allows.*$closing"
check short "malformed CHUNK_READ reply"
check chunk-len "malformed CHUNK_READ reply"
check version0 "malformed CHUNK_READ reply"
check opcode "reply with another opcode than its request.*$closing"
check req-id "reply to no outstanding request.*$closing"
check crc "payload CRC mismatch.*$closing"
check huge-len "frame larger than the protocol allows.*$closing"
check err-payload "error reply with a payload.*$closing"
# the MDS's id of the victim, which it gives by registration, not start
check errno512 "from data server $(ds_id "$victim"): -ERESTARTSYS"
check errno4095 "from data server $(ds_id "$victim"): -4095"
check silent "no reply in time.*$closing"

stop_servers
pgrep -x aifs-recv >/dev/null && fail "receiver threads left"
assert_eq "$(module_refcount)" 0 "module refcount"
rm -rf "$src"
