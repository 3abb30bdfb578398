# A hole punch whose zeros wait on data servers that do not answer
# (stopped with SIGSTOP; timeo is 60 s) dies at once of SIGKILL. A write
# into the range while its zeros are still on their way waits for them,
# killably, so once the servers resume the file holds the write and not
# zeros over it; each chunk piece of the punch is zeros or untouched,
# and nothing outside the range moved.
. "$AIFS_TOP/tests/vm/lib.sh"

MiB=1048576
mount_cluster /mnt/a timeo=600
src=$(mktemp -d /tmp/aifs-src.XXXXXX)
head -c $((12 * MiB)) /dev/urandom >"$src/f"
head -c 4096 /dev/urandom >"$src/w"
cp "$src/f" /mnt/a/f
# open a connection to every data server
cmp "$src/f" /mnt/a/f || fail "read before the servers stopped"

freeze_data_servers
# pieces [1, 4), [4, 8) and [8, 9) MiB
fallocate -p -o $((MiB)) -l $((8 * MiB)) /mnt/a/f &
punch=$!
# it waits for the zeros, which wait on the stopped servers
wait_blocked_in_aifs $punch aifs_punch_range
expect_killable $punch

# a write into the range waits for the zeros, and dies of SIGKILL too
dd if="$src/w" of=/mnt/a/f bs=4096 seek=$((MiB / 4096 + 10)) conv=notrunc \
	status=none &
writer=$!
wait_blocked_in_aifs $writer aifs_punch_wait
expect_killable $writer

dd if="$src/w" of=/mnt/a/f bs=4096 seek=$((2 * MiB / 4096)) conv=notrunc \
	status=none &
writer=$!
wait_blocked_in_aifs $writer aifs_punch_wait
thaw_data_servers
wait $writer || fail "the write after the killed punch"

echo 3 >/proc/sys/vm/drop_caches
python3 - "$src/f" "$src/w" /mnt/a/f <<'EOF' || fail "contents after the killed punch"
import sys
MiB = 1 << 20
old, w, new = (open(p, "rb").read() for p in sys.argv[1:])
if len(new) != len(old):
	sys.exit("size %d, want %d" % (len(new), len(old)))
if new[2 * MiB:2 * MiB + 4096] != w:
	sys.exit("the write is not there")
W0, W1 = 2 * MiB, 2 * MiB + 4096
def outside_write(b, lo, hi):
	return (b[lo:min(hi, W0)] if lo < W0 else b"") + \
	       (b[max(lo, W1):hi] if hi > W1 else b"")
for lo, hi in ((1, 4), (4, 8), (8, 9)):
	piece = outside_write(new, lo * MiB, hi * MiB)
	if piece != outside_write(old, lo * MiB, hi * MiB) and \
	   piece.count(0) != len(piece):
		sys.exit("piece [%d, %d) MiB neither zeros nor untouched" % (lo, hi))
if new[:MiB] != old[:MiB] or new[9 * MiB:] != old[9 * MiB:]:
	sys.exit("bytes outside the punched range changed")
EOF
umount /mnt/a
rm -rf "$src"
