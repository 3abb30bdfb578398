# aifs archive of a tree of replicated files (two copies: two of two
# stripes and a bit, two small, one empty) to ec=4+2 under concurrent
# readers, one of them holding a file open across the switch (it reads
# with the old layout until a data server sends it to the new one), and
# a data server killed while the archive runs and brought back: the
# archive waits for it and finishes by itself.  No reader ever sees a
# wrong byte or an error; each file ends ec=4+2 with its bytes; the old
# copies' chunks are deleted while the fragments stay; a file open for
# writing is refused (EBUSY) and the archived files can be written again.
. "$AIFS_TOP/tests/vm/lib.sh"
. "$AIFS_TOP/tests/faults/replica/helpers"

export AIFS_DS_COUNT=6
fault_cluster /mnt/a
mkdir /mnt/a/tree /mnt/a/tree/sub
aifs setlayout /mnt/a/tree replicas=2 stripes=1 >/dev/null ||
	fail "setlayout replicas=2"
aifs setlayout /mnt/a/tree/sub replicas=2 stripes=1 >/dev/null ||
	fail "setlayout replicas=2 of sub"
declare -A want
for i in 1 2; do
	write_gen "$i" 18 "/mnt/a/tree/sub/big$i" || fail "write big$i"
	want[/mnt/a/tree/sub/big$i]=$WANT
done
head -c 100000 /mnt/a/tree/sub/big1 >/mnt/a/tree/small1
head -c 5000 /mnt/a/tree/sub/big2 >/mnt/a/tree/small2
: >/mnt/a/tree/empty
want[/mnt/a/tree/small1]=$(sha256sum </mnt/a/tree/small1 | cut -d' ' -f1)
want[/mnt/a/tree/small2]=$(sha256sum </mnt/a/tree/small2 | cut -d' ' -f1)
aifs getlayout /mnt/a/tree/sub/big1 | grep -q '^replicas=2 ' ||
	fail "big1 not replicated: $(aifs getlayout /mnt/a/tree/sub/big1)"

# A file open for writing is not archived.
exec 7>>/mnt/a/tree/small2
aifs archive ec=4+2 /mnt/a/tree/small2 >/tmp/busy.out 2>&1 &&
	fail "archive of a file open for writing: $(cat /tmp/busy.out)"
grep -q "open for writing" /tmp/busy.out || fail "$(cat /tmp/busy.out)"
exec 7>&-

# Readers until /tmp/stop: whole files by O_DIRECT, opened each round (a
# line in /tmp/rounds after each); and one holding big2 open with its
# page cache dropped between rounds (and a round after the stop).
rm -f /tmp/stop /tmp/errors /tmp/rounds
reader()
{
	local f sum
	while [ ! -e /tmp/stop ]; do
		for f in "${!want[@]}"; do
			sum=$(dd if="$f" bs=1M iflag=direct status=none |
				sha256sum | cut -d' ' -f1)
			[ "$sum" = "${want[$f]}" ] || echo "$f: $sum" >>/tmp/errors
		done
		echo round >>/tmp/rounds
	done
}
rounds()
{
	cat /tmp/rounds 2>/dev/null | wc -l
}
reader &
READER=$!
python3 - /mnt/a/tree/sub/big2 "${want[/mnt/a/tree/sub/big2]}" <<'EOF' &
import hashlib, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
rounds = bad = 0
while rounds < 2 or not os.path.exists('/tmp/stop'):
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    h, off = hashlib.sha256(), 0
    while True:
        b = os.pread(fd, 1 << 20, off)
        if not b:
            break
        h.update(b)
        off += len(b)
    rounds += 1
    bad += h.hexdigest() != sys.argv[2]
print('open reader: %d rounds, %d wrong' % (rounds, bad))
sys.exit(1 if bad else 0)
EOF
HOLDER=$!

# shellcheck disable=SC2207
targets=($(aifs getlayout /mnt/a/tree/sub/big1 | sed -n 's/^targets: //p'))
victim=$(ds_index "${targets[0]}")
aifs archive ec=4+2 /mnt/a/tree >/tmp/archive.out 2>&1 &
ARCHIVE=$!
# The kill comes once the servers write fragments (the tree had none):
# the archive is under way, not still being handed over.
start=$(date +%s)
until [ -n "$(find "${DS_DIRS[@]}" -name '*.0[1-9a-f].meta' | head -1)" ]; do
	[ $(($(date +%s) - start)) -lt 120 ] ||
		fail "no fragment written 120 s into the archive: $(cat /tmp/archive.out)"
	kill -0 "$ARCHIVE" 2>/dev/null ||
		fail "the archive ended before it wrote a fragment: $(cat /tmp/archive.out)"
	sleep 0.1
done
echo "killing data server $victim, big1's first copy, $(grep -c \
	'inode [0-9]* archived' "$MDS_DIR/log") files archived"
kill_ds "$victim"
sleep 5
# Every file has a fragment on each of the six servers: with one dead no
# file still to do can switch, and the archive cannot have ended.
kill -0 "$ARCHIVE" 2>/dev/null ||
	fail "the archive ended with data server $victim dead: the kill came after it: $(cat /tmp/archive.out)"
restart_ds "$victim"
start=$(date +%s)
while kill -0 "$ARCHIVE" 2>/dev/null; do
	[ $(($(date +%s) - start)) -lt 240 ] ||
		fail "archive not done 240 s after the server came back: $(cat /tmp/archive.out)"
	sleep 1
done
wait "$ARCHIVE" || fail "aifs archive: $(cat /tmp/archive.out)"
cat /tmp/archive.out
echo "archive done $(($(date +%s) - start)) s after the server came back"
# a whole round of the O_DIRECT reader after the switch (not a sleep)
r0=$(rounds)
start=$(date +%s)
until [ "$(rounds)" -ge $((r0 + 2)) ]; do
	[ $(($(date +%s) - start)) -lt 120 ] ||
		fail "the O_DIRECT reader did no round after the archive"
	sleep 0.2
done
touch /tmp/stop
wait "$READER"
echo "O_DIRECT reader: $(rounds) rounds"
wait "$HOLDER" || fail "the reader holding big2 open read wrong bytes"
[ ! -s /tmp/errors ] || fail "readers saw wrong bytes: $(head /tmp/errors)"

for f in "${!want[@]}" /mnt/a/tree/empty; do
	aifs getlayout "$f" | grep -q '^ec=4+2 ' ||
		fail "$f: $(aifs getlayout "$f")"
done
echo 3 >/proc/sys/vm/drop_caches
for f in "${!want[@]}"; do
	assert_eq "$(sha256sum <"$f" | cut -d' ' -f1)" "${want[$f]}" "sha256 of $f"
done

# The old copies go, the fragments stay.
ino=$(printf '%016x' "$(stat -c %i /mnt/a/tree/sub/big1)")
for i in $(seq 50); do
	[ -z "$(find "${DS_DIRS[@]}" -name "$ino.*.00*" | head -1)" ] && break
	sleep 0.2
done
[ -z "$(find "${DS_DIRS[@]}" -name "$ino.*.00*" | head -1)" ] ||
	fail "big1's replicated chunks are still there"
[ -n "$(find "${DS_DIRS[@]}" -name "$ino.*.01*" | head -1)" ] ||
	fail "big1's fragments are gone"

echo more >>/mnt/a/tree/sub/big1 || fail "append to an archived file"
sync
echo 3 >/proc/sys/vm/drop_caches
[ "$(tail -c 5 /mnt/a/tree/sub/big1)" = more ] ||
	fail "the appended bytes of big1"
umount /mnt/a
