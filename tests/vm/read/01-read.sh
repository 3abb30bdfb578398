# Files put with aifs-put (libaifs) read back through the mount byte for
# byte: sizes around page and chunk boundaries, a hole of whole chunks,
# reads at several offsets and block sizes, splice and mmap.
. "$AIFS_TOP/tests/vm/lib.sh"

mount_cluster /mnt/a
src=$(mktemp -d /tmp/aifs-src.XXXXXX)
MiB=1048576

make_file()	# NAME SIZE
{
	head -c "$2" /dev/urandom >"$src/$1"
}
make_file empty 0
make_file one 1
make_file page-1 4095
make_file chunk $((4 * MiB))
make_file chunk+1 $((4 * MiB + 1))
make_file holes $((13 * MiB))
# chunks 1 and 2 (of 4 MiB) all zeros: a hole aifs-put leaves out
dd if=/dev/zero of="$src/holes" bs=$MiB seek=4 count=8 conv=notrunc status=none

for f in empty one page-1 chunk chunk+1 holes; do
	put_file "$src/$f" "/$f"
done

for f in empty one page-1 chunk chunk+1 holes; do
	assert_eq "$(stat -c %s /mnt/a/$f)" "$(stat -c %s $src/$f)" "size of $f"
	cmp "$src/$f" "/mnt/a/$f" || fail "cat of $f differs"
	assert_eq "$(sha256sum </mnt/a/$f)" "$(sha256sum <$src/$f)" "sha256 of $f"
done

# offsets and block sizes across page and chunk boundaries (cold cache)
for bs in 1 4095 4096 65536 1048576 3000000; do
	for skip in 0 1 4095 4194303 4194304 8388607 12582912; do
		echo 3 >/proc/sys/vm/drop_caches
		a=$(dd if=/mnt/a/holes bs=$bs skip=$skip iflag=skip_bytes count=3 \
			status=none | sha256sum)
		b=$(dd if=$src/holes bs=$bs skip=$skip iflag=skip_bytes count=3 \
			status=none | sha256sum)
		assert_eq "$a" "$b" "dd bs=$bs skip=$skip"
	done
done
# the byte past the first chunk, alone, cold: read(2) gives that one byte
# (dd exits 0 at the end of the file too: what it read is checked)
echo 3 >/proc/sys/vm/drop_caches
assert_eq "$(dd if=/mnt/a/chunk+1 bs=4096 skip=$((4 * MiB)) \
	iflag=skip_bytes status=none | od -An -tx1 | tr -d ' ')" \
	"$(tail -c 1 "$src/chunk+1" | od -An -tx1 | tr -d ' ')" \
	"last byte of chunk+1"
# the hole reads zeros
head -c $((8 * MiB)) /dev/zero >"$src/zeros"
dd if=/mnt/a/holes bs=$MiB skip=4 count=8 status=none | cmp - "$src/zeros" ||
	fail "the hole is not zeros"

# splice (sendfile through cat's copy path) and mmap
echo 3 >/proc/sys/vm/drop_caches
python3 - "$src" /mnt/a <<'PY' || fail "splice/mmap read"
import mmap, os, sys
src, mnt = sys.argv[1], sys.argv[2]
for f in ["one", "page-1", "chunk", "chunk+1", "holes"]:
    want = open(os.path.join(src, f), "rb").read()
    with open(os.path.join(mnt, f), "rb") as fh:
        m = mmap.mmap(fh.fileno(), 0, prot=mmap.PROT_READ)
        assert m[:] == want, f + ": mmap differs"
        assert m[len(want) // 2:len(want) // 2 + 7] == \
            want[len(want) // 2:len(want) // 2 + 7], f
        m.close()
    r, w = os.pipe()
    with open(os.path.join(mnt, f), "rb") as fh:
        n = os.splice(fh.fileno(), w, min(len(want), 65536), offset_src=0)
        got = os.read(r, n)
        assert got == want[:n], f + ": splice differs"
    os.close(r); os.close(w)
PY

umount /mnt/a
rm -rf "$src"
