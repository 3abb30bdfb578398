# Layouts through `aifs setlayout` and `getlayout` on a mount (the
# aifs.layout attribute): a directory set to ec=4+2 gives new files in it
# 4+2 over six distinct data servers with fragments of 256 KiB; other
# settings and refusals; the fragments land where the layout says.
. "$AIFS_TOP/tests/vm/lib.sh"

export AIFS_DS_COUNT=6
mount_cluster /mnt/a
mkdir /mnt/a/cold /mnt/a/hot
out=$(aifs setlayout /mnt/a/cold ec=4+2) || fail "setlayout ec=4+2: $out"
echo "$out"
assert_eq "$(head -n1 <<<"$out")" "ec=4+2 chunk=256K stripes=1 generation=2" \
	"the directory's layout"
echo data >/mnt/a/cold/f
out=$(aifs getlayout /mnt/a/cold/f) || fail "getlayout of a file"
echo "$out"
assert_eq "$(head -n1 <<<"$out" | cut -d' ' -f1-3)" "ec=4+2 chunk=256K stripes=1" \
	"an inherited layout"
targets=$(sed -n 's/^targets: //p' <<<"$out")
assert_eq "$(tr ' ' '\n' <<<"$targets" | sort -u | wc -l)" 6 \
	"six distinct data servers: $targets"

# explicit chunk and stripes; replicas back
out=$(aifs setlayout /mnt/a/hot replicas=2 chunk=1M stripes=3) ||
	fail "setlayout replicas=2: $out"
assert_eq "$(head -n1 <<<"$out")" "replicas=2 chunk=1M stripes=3 generation=2" \
	"a replicated layout"
out=$(aifs setlayout /mnt/a/hot ec=2+1 chunk=64K stripes=2) ||
	fail "setlayout ec=2+1 stripes=2: $out"
assert_eq "$(head -n1 <<<"$out")" "ec=2+1 chunk=64K stripes=2 generation=3" \
	"2+1 over two groups"

# refusals, each with its errno: a code out of range, too many targets,
# a chunk size that is none (EINVAL from the MDS); a setting aifs does
# not know (refused by aifs itself, exit 2); a file not empty, more
# servers than there are, not aifs at all
before=$(aifs getlayout /mnt/a/hot)
for bad in ec=0+1 ec=4+0 ec=33+1 replicas=0 "ec=10+4 stripes=5" \
	chunk=1000; do
	expect_error "Invalid argument" aifs setlayout /mnt/a/hot $bad
done
rc=0
out=$(aifs setlayout /mnt/a/hot bogus=1 2>&1) || rc=$?
assert_eq "$rc" 2 "exit code of setlayout bogus=1 ($out)"
[[ $out == "aifs: 'bogus=1' is none of "* ]] || fail "setlayout bogus=1: $out"
assert_eq "$(aifs getlayout /mnt/a/hot)" "$before" "layout after the refusals"
expect_error "Directory not empty" aifs setlayout /mnt/a/cold/f ec=2+1
touch /mnt/a/cold/empty
expect_error "No space left on device" \
	aifs setlayout /mnt/a/cold/empty ec=8+2
aifs setlayout /mnt/a/cold/empty ec=3+3 >/dev/null ||
	fail "an empty file's layout"
out=$(aifs getlayout /tmp 2>&1) && fail "getlayout of /tmp: $out"
echo "$out"
[[ $out == *" (not on aifs?)" ]] || fail "getlayout of /tmp: $out"

# a 1 MiB stripe's fragments: one on each of the six servers
head -c $((1 << 20)) /dev/urandom >/mnt/a/cold/one-stripe
sync
for i in 1 2 3 4 5 6; do
	n=$(find "${DS_DIRS[i]}/data" -name "*.00000000.0?" \
		! -name '*.meta' | wc -l)
	echo "data server $i holds $n fragments"
	[ "$n" -ge 1 ] || fail "data server $i holds no fragment"
done
umount /mnt/a
