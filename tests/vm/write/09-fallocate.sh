# fallocate and SEEK_DATA/SEEK_HOLE. Holes punched (PUNCH_HOLE|KEEP_SIZE)
# inside a block, across checksum blocks and chunk boundaries, over whole
# chunks, past EOF, into dirty data not yet written back and into a file
# with two copies; the default mode growing a file, KEEP_SIZE alone
# changing nothing; each file compared byte for byte with the same
# operations on a local file (tmpfs) through the page cache, from a cold
# cache and through the data servers without the kernel (aifs-put -g).
# Modes aifs lacks are EOPNOTSUPP. SEEK_DATA/SEEK_HOLE see the whole file
# as data with a hole at EOF (Documentation/kernel-client.md). aifs-fsx
# punches and fallocates in 05-fsx.
. "$AIFS_TOP/tests/vm/lib.sh"

MiB=1048576
mount_cluster /mnt/a
src=$(mktemp -d /tmp/aifs-src.XXXXXX)
names=()

get()
{
	aifs-put -s "$MDS_DIR/secret" -m "$AIFS_ADDR:7400" -u "$AIFS_FS_UUID" \
		-g "/$1"
}

# both NAME ARG...: fallocate ARG... on the local and the aifs NAME
both()
{
	local n=$1
	shift
	fallocate "$@" "$src/$n" || fail "local fallocate $* $n"
	fallocate "$@" "/mnt/a/$n" || fail "fallocate $* $n"
}

compare()
{
	local n
	for n in "${names[@]}"; do
		cmp "$src/$n" "/mnt/a/$n" || fail "$n differs $1"
		assert_eq "$(stat -c %s "/mnt/a/$n")" "$(stat -c %s "$src/$n")" \
			"size of $n $1"
	done
}

# new NAME SIZE [REPLICAS]: the same random SIZE bytes in both
new()
{
	head -c "$2" /dev/urandom >"$src/$1"
	if [ -n "${3:-}" ]; then
		: >"$src/empty"
		put_file "$src/empty" "/$1" "$3"
	fi
	cp "$src/$1" "/mnt/a/$1" || fail "write $1"
	names+=("$1")
}

# chunks are 4 MiB, checksum blocks 64 KiB
new f $((13 * MiB + 5))
both f -p -o 5000 -l 100				# inside a block
both f -p -o $((65536 - 7)) -l 20			# across two blocks
both f -p -o $((4 * MiB - 100000)) -l 170000		# across a chunk boundary
both f -p -o $((2 * MiB + 3)) -l $((8 * MiB))		# three chunks, partial edges
both f -p -o $((8 * MiB)) -l $((4 * MiB))		# a whole chunk
both f -p -o $((13 * MiB - 1)) -l $((7 * MiB))		# past EOF: size kept
both f -p -o $((20 * MiB)) -l 4096			# wholly past EOF

# the default mode grows the file with zeros, KEEP_SIZE alone changes nothing
new g $((MiB + 17))
both g -o $((6 * MiB + 3)) -l 1000
both g -o 100 -l 1000
both g -n -o $((9 * MiB)) -l $((MiB))
both g -p -o $((MiB)) -l $((5 * MiB))

# two copies: every copy is punched (the cold read below may use either)
new r $((9 * MiB + 4321)) 2
both r -p -o 12345 -l $((5 * MiB))

# holes punched into data written and still dirty in the same open file,
# and a write after the punch: none overtakes the other
new d $((6 * MiB))
python3 - "$src/d" /mnt/a/d <<'EOF' || fail "punch into dirty data"
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
PUNCH = 0x01 | 0x02		# FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE
for path in sys.argv[1:]:
	fd = os.open(path, os.O_RDWR)
	os.pwrite(fd, b"\x5a" * 300000, 3 * 1048576 + 777)
	if libc.fallocate(fd, PUNCH, ctypes.c_long(3 * 1048576),
			  ctypes.c_long(200000)):
		sys.exit("fallocate: " + os.strerror(ctypes.get_errno()))
	os.pwrite(fd, b"\xa5" * 1000, 3 * 1048576 + 1000)
	os.close(fd)
EOF
names+=(d)

compare "through the page cache"
echo 3 >/proc/sys/vm/drop_caches
compare "from a cold cache"
for n in "${names[@]}"; do
	get "$n" | cmp "$src/$n" - || fail "$n differs on the data servers"
done

# modes not supported
for mode in -z -c -i; do
	err=$(fallocate $mode -o 0 -l 65536 /mnt/a/f 2>&1) &&
		fail "fallocate $mode succeeded"
	case $err in
	*"Operation not supported"*) ;;
	*) fail "fallocate $mode: $err" ;;
	esac
done

# SEEK_DATA and SEEK_HOLE: data up to the size, the one hole at EOF
: >/mnt/a/empty
python3 - /mnt/a/f /mnt/a/empty <<'EOF' || fail "SEEK_DATA/SEEK_HOLE"
import errno, os, sys
def expect(fd, off, whence, want):
	try:
		got = os.lseek(fd, off, whence)
	except OSError as e:
		got = errno.errorcode[e.errno]
	if got != want:
		sys.exit("lseek(%d, %d) = %s, want %s" % (off, whence, got, want))
fd = os.open(sys.argv[1], os.O_RDONLY)
size = os.fstat(fd).st_size
for off in (0, 5000, 8 * 1048576 + 1, size - 1):
	expect(fd, off, os.SEEK_DATA, off)	# punched holes count as data
	expect(fd, off, os.SEEK_HOLE, size)
for off in (size, size + 1, 1 << 40):
	expect(fd, off, os.SEEK_DATA, "ENXIO")
	expect(fd, off, os.SEEK_HOLE, "ENXIO")
expect(fd, -1, os.SEEK_DATA, "ENXIO")
fd = os.open(sys.argv[2], os.O_RDONLY)
expect(fd, 0, os.SEEK_DATA, "ENXIO")
expect(fd, 0, os.SEEK_HOLE, "ENXIO")
EOF

umount /mnt/a
rm -rf "$src"
