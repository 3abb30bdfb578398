# A file open across an MDS restart: its reads go to the data servers and
# go on while the MDS is dead and after it is back; its close sends
# nothing (the MDS released the opens of the old session) and fails
# nothing. attr_timeout=3600: a read revalidating the size would wait for
# the MDS like any call of a hard mount.
. "$AIFS_TOP/tests/vm/lib.sh"
. "$AIFS_TOP/tests/vm/session/helpers"

src=$(mktemp /tmp/aifs-src.XXXXXX)
got=$(mktemp /tmp/aifs-got.XXXXXX)
head -c $((6 << 20)) /dev/urandom >"$src"
mount_cluster /mnt/a timeo=20,attr_timeout=3600,read_ahead_kb=128
MDS_PID=${AIFS_SERVER_PIDS[0]}
put_file "$src" /big

# read_part MIB: the next MIB MiB of fd 3 onto $got
read_part()
{
	dd bs=1M count="$1" iflag=fullblock status=none <&3 >>"$got" ||
		fail "read of the open file"
}

exec 3</mnt/a/big
read_part 1
kill_mds
read_part 2
restart_mds 3<&-	# the MDS must not inherit the open file
read_part 3
exec 3<&-
cmp "$src" "$got" || fail "the open file read other bytes"

# after the reconnection, files open and close as before
cmp "$src" /mnt/a/big || fail "read after the restart"
umount /mnt/a
