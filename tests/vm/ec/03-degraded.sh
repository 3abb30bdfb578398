# A 4+2 file read with 0, 1 and 2 (M) of its six data servers killed
# (SIGKILL), from a cold cache each time: the right sha256, the lost data
# fragments decoded by a surviving member; with 3 killed (M + 1) a read of
# a lost fragment fails cleanly with EIO, and the fragments still there
# read. Writes go on with a data server dead once the MDS counts it out,
# and read back decoded. timeo is 30 s, as the fault tests': under TCG a
# stripe's leader decoding a readahead window's fragments took more than
# 10 s once, and a server that timed out is left alone for a while, which
# a stripe short of M fragments cannot afford.
. "$AIFS_TOP/tests/vm/lib.sh"

MiB=1048576
export AIFS_DS_COUNT=6
mount_cluster /mnt/a timeo=300
mkdir /mnt/a/ec
aifs setlayout /mnt/a/ec ec=4+2 >/dev/null || fail "setlayout ec=4+2"
src=$(mktemp -d /tmp/aifs-src.XXXXXX)
head -c $((24 * MiB + 4321)) /dev/urandom >"$src/f"
cp "$src/f" /mnt/a/ec/f || fail "cp"
want=$(sha256sum <"$src/f")
# shellcheck disable=SC2207
targets=($(aifs getlayout /mnt/a/ec/f | sed -n 's/^targets: //p'))
echo "targets: ${targets[*]}"

check_read()
{
	echo 3 >/proc/sys/vm/drop_caches
	assert_eq "$(sha256sum </mnt/a/ec/f)" "$want" "sha256 with $1"
}

check_read "every server up"
# the servers of data fragments 1 and then 3 die
kill -KILL "${DS_PIDS[$(ds_index "${targets[1]}")]}"
check_read "one data server dead"
kill -KILL "${DS_PIDS[$(ds_index "${targets[3]}")]}"
check_read "two data servers dead"

# writes with two dead: the leader waits until the MDS counts them out
dd if=/dev/urandom of="$src/f" bs=4096 count=300 seek=1000 conv=notrunc \
	status=none
dd if="$src/f" of=/mnt/a/ec/f bs=4096 count=300 skip=1000 seek=1000 \
	conv=notrunc status=none || fail "write with two dead"
head -c $((3 * MiB + 5)) /dev/urandom >>"$src/f"
tail -c $((3 * MiB + 5)) "$src/f" >>/mnt/a/ec/f || fail "append with two dead"
sync || fail "sync with two dead"
want=$(sha256sum <"$src/f")
check_read "two dead, after writes"

# one more, the first parity's: data fragments 0 and 2 of every stripe
# are still there, 1 and 3 cannot be decoded
kill -KILL "${DS_PIDS[$(ds_index "${targets[4]}")]}"
echo 3 >/proc/sys/vm/drop_caches
assert_eq "$(head -c $((256 * 1024)) /mnt/a/ec/f | sha256sum)" \
	"$(head -c $((256 * 1024)) "$src/f" | sha256sum)" \
	"fragment 0 of stripe 0 with three dead"
dd if=/mnt/a/ec/f of=/dev/null bs=256k skip=1 count=1 status=none \
	2>"$src/err" && fail "a lost fragment read with three dead (M + 1)"
cat "$src/err"
grep -q "Input/output error" "$src/err" || fail "not EIO: $(cat "$src/err")"
expect_dmesg "no data server decoded fragment"
umount /mnt/a
rm -rf "$src"
