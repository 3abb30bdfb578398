# O_DIRECT reads and writes: the alignment statx states, dd with
# iflag/oflag=direct at several block sizes across chunk boundaries
# compared byte for byte with a local copy (through the page cache, from a
# cold cache, read direct, through the data servers with aifs-put -g),
# the page cache of the same file kept coherent both ways, short reads
# at EOF and holes. The errors are 04-errors's; aifs-fsx in mode direct is
# 05-fsx.
. "$AIFS_TOP/tests/vm/lib.sh"

MiB=1048576
mount_cluster /mnt/a
src=$(mktemp -d /tmp/aifs-src.XXXXXX)

get()
{
	aifs-put -s "$MDS_DIR/secret" -m "$AIFS_ADDR:7400" -u "$AIFS_FS_UUID" \
		-g "/$1"
}

# check NAME HOW: /mnt/a/NAME is $src/NAME, buffered and read direct
check()
{
	cmp "$src/$1" "/mnt/a/$1" || fail "$1 differs $2"
	dd if="/mnt/a/$1" iflag=direct bs=3M status=none |
		cmp "$src/$1" - || fail "$1 read direct differs $2"
	assert_eq "$(stat -c %s "/mnt/a/$1")" "$(stat -c %s "$src/$1")" \
		"size of $1 $2"
}

: >/mnt/a/align
python3 - /mnt/a/align <<'PY' || fail "STATX_DIOALIGN"
import ctypes, os, sys
# struct statx: stx_dio_mem_align at 0x98, stx_dio_offset_align at 0x9c
buf = ctypes.create_string_buffer(256)
libc = ctypes.CDLL(None, use_errno=True)
if libc.statx(-100, sys.argv[1].encode(), 0, 0x2000, buf):
    sys.exit("statx: " + os.strerror(ctypes.get_errno()))
mask = int.from_bytes(buf[0:4], "little")
mem = int.from_bytes(buf[0x98:0x9c], "little")
off = int.from_bytes(buf[0x9c:0xa0], "little")
if not mask & 0x2000 or (mem, off) != (1, 1):
    sys.exit(f"mask {mask:#x}, dio_mem_align {mem}, dio_offset_align {off}")
PY

# written direct at block sizes that cut chunks and the 1 MiB split
# unevenly, and one larger than a chunk, the last block short (1000-byte
# blocks over the first chunk boundary only: one round trip each)
head -c $((13 * MiB + 5)) /dev/urandom >"$src/data"
names=()
for bs in 1000 65537 $MiB $((5 * MiB)) $((17 * MiB)); do
	if [ "$bs" = 1000 ]; then
		head -c $((4 * MiB + 5000)) "$src/data" >"$src/dd$bs"
	else
		cp "$src/data" "$src/dd$bs"
	fi
	dd if="$src/dd$bs" of="/mnt/a/dd$bs" oflag=direct bs="$bs" status=none
	names+=("dd$bs")
done
# read direct at offsets across chunk boundaries and the 1 MiB split,
# the last ones short at EOF: the bytes of a local dd
for bs in 4096 65537 $((3 * MiB)); do
	for off in 0 7 $((MiB - 7)) $((4 * MiB - 7)) $((4 * MiB)) \
		$((8 * MiB - 4095)) $((13 * MiB - 100)); do
		# the guest has no /dev/fd for <(...)
		dd if="$src/data" of="$src/want" iflag=skip_bytes bs="$bs" \
			skip="$off" count=3 status=none
		dd if=/mnt/a/dd65537 iflag=direct,skip_bytes bs="$bs" \
			skip="$off" count=3 status=none | cmp "$src/want" - ||
			fail "direct read of 3 x $bs bytes at $off"
	done
done

# the page cache kept coherent, short reads at EOF, holes, a direct
# write past EOF, vectored I/O from unaligned buffers, splice
python3 - /mnt/a "$src" <<'PY' || fail "coherence"
import os, sys
mnt, src = sys.argv[1:]
MiB = 1 << 20

def expect(what, got, want):
    if got != want:
        sys.exit(f"{what}: {len(got)} bytes, not the {len(want)} expected"
                 if len(got) != len(want) else f"{what}: other bytes")

fd = os.open(f"{mnt}/coh", os.O_RDWR | os.O_CREAT, 0o644)
dfd = os.open(f"{mnt}/coh", os.O_RDWR | os.O_DIRECT)
# a buffered write not written back yet, then a direct read of it
a = os.urandom(6 * MiB + 123)
os.pwrite(fd, a, 0)
expect("direct read after a buffered write", os.pread(dfd, len(a), 0), a)
# cached pages, a direct write over part of them, buffered reads
expect("buffered read", os.pread(fd, len(a), 0), a)
b = os.urandom(2 * MiB + 7)
os.pwrite(dfd, b, 3 * MiB + 5)
a = a[:3 * MiB + 5] + b + a[5 * MiB + 12:]
expect("buffered read after a direct write", os.pread(fd, len(a), 0), a)
# a direct write past EOF grows the size; a direct read stops there
c = os.urandom(1000)
os.pwrite(dfd, c, 9 * MiB)
a = a + bytes(9 * MiB - len(a)) + c
if os.fstat(dfd).st_size != len(a):
    sys.exit(f"size {os.fstat(dfd).st_size} after a direct write past EOF")
expect("direct read of the hole and the end",
       os.pread(dfd, 4 * MiB, 6 * MiB), a[6 * MiB:])
expect("direct read past EOF", os.pread(dfd, 100, len(a) + 1), b"")
expect("buffered read of it all", os.pread(fd, 16 * MiB, 0), a)
# the hole of an extending truncation, read direct
os.ftruncate(fd, 13 * MiB)
a = a + bytes(13 * MiB - len(a))
expect("direct read after an extending truncate",
       os.pread(dfd, 16 * MiB, 0), a)
# vectored direct I/O from buffers that are not page-aligned
os.pwritev(dfd, [b"x" * 5000, b"y" * 70000, b"z" * 3], 4 * MiB - 100)
a = a[:4 * MiB - 100] + b"x" * 5000 + b"y" * 70000 + b"z" * 3 + \
    a[4 * MiB - 100 + 75003:]
bufs = [bytearray(33333), bytearray(50000)]
if os.preadv(dfd, bufs, 4 * MiB - 200) != 83333:
    sys.exit("short preadv")
expect("preadv", bytes(bufs[0] + bufs[1]), a[4 * MiB - 200:4 * MiB + 83133])
# splice from a direct descriptor: the read fills pipe pages
out = os.open(f"{src}/sendfile", os.O_RDWR | os.O_CREAT, 0o644)
done = 0
while done < len(a):
    n = os.sendfile(out, dfd, done, len(a) - done)
    if n <= 0:
        sys.exit(f"sendfile returned {n} at {done}")
    done += n
expect("sendfile", os.pread(out, len(a) + 1, 0), a)
os.close(out)
os.close(dfd)
os.close(fd)
with open(f"{src}/coh", "wb") as f:
    f.write(a)
PY
names+=(coh)

for n in "${names[@]}"; do
	check "$n" "through the page cache"
done
echo 3 >/proc/sys/vm/drop_caches
for n in "${names[@]}"; do
	check "$n" "from a cold cache"
	get "$n" | cmp "$src/$n" - || fail "$n differs on the data servers"
done

umount /mnt/a
rm -rf "$src"
