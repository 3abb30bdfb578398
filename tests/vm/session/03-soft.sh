# A soft mount whose MDS is gone: a call fails with EIO after retrans
# retries of timeo each, (retrans + 1) * timeo in all; once the MDS is
# back the mount works again.
. "$AIFS_TOP/tests/vm/lib.sh"
. "$AIFS_TOP/tests/vm/session/helpers"

# stat_eio WHAT: stat must fail with EIO after (2 + 1) tries of 2 s, not
# at once and not much later (some room for a slow guest)
stat_eio()
{
	local got ms out
	out=$(timeout 60 python3 -c 'import errno, os, time
start = time.monotonic()
try:
    os.stat("/mnt/a/file")
    got = "ok"
except OSError as e:
    got = errno.errorcode[e.errno]
print(got, int((time.monotonic() - start) * 1000))')
	read -r got ms <<<"$out"
	assert_eq "$got" EIO "$1: stat"
	[ "$ms" -ge 5000 ] || fail "$1: EIO after $ms ms: fewer tries than retrans + 1"
	[ "$ms" -le 9000 ] || fail "$1: EIO after $ms ms, well beyond (retrans + 1) * timeo"
}

mount_mds /mnt/a soft,retrans=2
touch /mnt/a/file

# Stopped: the server's kernel still accepts connections, nothing answers.
log_mark
kill_mds STOP
stat_eio stopped
expect_dmesg "aifs: server $AIFS_ADDR:7400 not responding, still trying"
expect_dmesg "aifs: server $AIFS_ADDR:7400 not responding, timed out"

# Dead: connections are refused at once; each try still waits its timeo.
kill -CONT "$MDS_PID"
kill_mds
stat_eio dead

restart_mds
stat /mnt/a/file >/dev/null || fail "stat once the MDS is back"
umount /mnt/a
