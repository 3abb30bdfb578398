# Shared writable mappings: stores across chunk boundaries are on the data
# servers after msync while the writer still maps the file, and after
# munmap and close without msync; the MDS's mtime moved. A truncation of a
# mapped file unmaps what is past the new size (SIGBUS), and stores past
# EOF do not become the file's. aifs-fsx through a shared mapping is
# 05-fsx-mmap.
. "$AIFS_TOP/tests/vm/lib.sh"

MiB=1048576
OLD=946684800	# 2000-01-01, the mtime the files start with
mount_cluster /mnt/a
umount_at_exit /mnt/b
mkdir -p /mnt/b
src=$(mktemp -d /tmp/aifs-src.XXXXXX)
writes="$AIFS_TOP/tests/vm/write/mmap-writes.py"

get()
{
	aifs-put -s "$MDS_DIR/secret" -m "$AIFS_ADDR:7400" -u "$AIFS_FS_UUID" \
		-g "/$1"
}

# new NAME SIZE: a file of SIZE random bytes, with an old mtime
new()
{
	head -c "$2" /dev/urandom >"$src/$1"
	cp "$src/$1" "/mnt/a/$1"
	touch -m -d @$OLD "/mnt/a/$1"
}

# on_servers NAME: the servers have $src/NAME, the MDS a newer mtime (seen
# through a second mount, which caches no attributes of NAME yet)
on_servers()
{
	get "$1" | cmp "$src/$1" - || fail "$1: not on the data servers"
	assert_eq "$(stat -c %s "/mnt/b/$1")" "$(stat -c %s "$src/$1")" \
		"size of $1 on the MDS"
	[ "$(stat -c %Y "/mnt/b/$1")" -gt $OLD ] ||
		fail "$1: the MDS's mtime did not move"
}

new msync $((9 * MiB + 4321))
new nosync $((9 * MiB + 4321))
new cut $((4 * MiB + 3 * 4096 + 100))
mount -t aifs -o "$(with_transport secret=$AIFS_SECRET)" "$AIFS_ADDR:/" /mnt/b

python3 "$writes" msync 1 /mnt/a/msync "$src/msync" >"$src/writer.out" &
writer=$!
for i in $(seq 600); do
	grep -q synced "$src/writer.out" && break
	kill -0 $writer || fail "the msync writer died"
	sleep 0.1
done
grep -q synced "$src/writer.out" || fail "the msync writer did not get through"
on_servers msync
kill -KILL $writer
wait $writer || true

python3 "$writes" nosync 2 /mnt/a/nosync "$src/nosync" ||
	fail "the writer without msync"
on_servers nosync

python3 "$writes" cut /mnt/a/cut "$src/cut" || fail "truncation of a mapping"
get cut | cmp "$src/cut" - || fail "cut: not on the data servers"

echo 3 >/proc/sys/vm/drop_caches
for n in msync nosync cut; do
	cmp "$src/$n" "/mnt/a/$n" || fail "$n differs from a cold cache"
done
umount /mnt/b
umount /mnt/a
rm -rf "$src"
