# A soft mount whose MDS is gone: a call fails with EIO after retrans
# retries of timeo each, (retrans + 1) * timeo in all; once the MDS is
# back the mount works again.
. "$AIFS_TOP/tests/vm/lib.sh"
. "$AIFS_TOP/tests/vm/session/helpers"

retrans=2 timeo_ms=2000

# stat_eio WHAT: with no connection left to the MDS, stat must fail with
# EIO after retrans + 1 tries of a timeo each, each a dial: as many tries
# (retrans retries, one call failed), not fewer than (retrans + 1) * timeo
# (minus a jiffy a try) and not half a timeo a try more, by stat(2) alone
stat_eio()
{
	local got ms out retries errors want=$(((retrans + 1) * timeo_ms))
	retries=$(aifs_stat "$sys" retries) errors=$(aifs_stat "$sys" mds_errors)
	out=$(timeout 60 python3 -c 'import errno, os, time
start = time.monotonic()
try:
    os.stat("/mnt/a/file")
    got = "ok"
except OSError as e:
    got = errno.errorcode[e.errno]
print(got, int((time.monotonic() - start) * 1000))')
	read -r got ms <<<"$out"
	echo "$1: $got after $ms ms"
	assert_eq "$got" EIO "$1: stat"
	assert_eq $(($(aifs_stat "$sys" retries) - retries)) $retrans \
		"$1: retries"
	assert_eq $(($(aifs_stat "$sys" mds_errors) - errors)) 1 \
		"$1: calls failed"
	[ "$ms" -ge $((want - 50)) ] ||
		fail "$1: EIO after $ms ms: a try shorter than timeo"
	[ "$ms" -le $((want * 3 / 2)) ] ||
		fail "$1: EIO after $ms ms, well beyond (retrans + 1) * timeo"
}

mount_mds /mnt/a soft,retrans=$retrans
sys=$(ls -d /sys/fs/aifs/aifs-*)
touch /mnt/a/file

# Stopped: the server's kernel still accepts connections, nothing answers.
# The keepalive's PING times out first and closes the connection (a call
# that was waiting then would get a try more, on the house): the stat
# starts after that.
log_mark
kill_mds STOP
wait_kernel_log "server $AIFS_ADDR:7400: no reply in time"
stat_eio stopped
expect_dmesg "aifs: server $AIFS_ADDR:7400 not responding, still trying"
expect_dmesg "aifs: server $AIFS_ADDR:7400 not responding, timed out"

# Dead: connections are refused at once; each try still waits its timeo.
# (The connection of the last try went with the stopped server.)
kill -CONT "$MDS_PID"
kill_mds
stat_eio dead

restart_mds
stat /mnt/a/file >/dev/null || fail "stat once the MDS is back"
umount /mnt/a
