# The MDS's own disk full (issue 29, defect 8): creates get ENOSPC and
# nothing worse; the MDS keeps serving reads, stats and deletes, comes
# back up when restarted on the full disk, and takes creates again once
# there is room. Before 2026-12-04 its first commit that needed a new
# block of the disk failed, and the MDS exited (again at each restart).
. "$AIFS_TOP/tests/vm/lib.sh"
. "$AIFS_TOP/tests/faults/replica/helpers"

# the database keeps 1 MiB allocated ahead of what it uses, for deletes
AIFS_MDS_RESERVE_MIB=1 fault_cluster /mnt/a
write_gen 31 8 /mnt/a/before || fail "write of the first file"
before=$WANT
mkdir /mnt/a/d
for i in $(seq 20); do echo "small $i" >"/mnt/a/d/f$i"; done

# the database moves onto a 16 MiB file system
mds=$(pgrep -f "aifs-mds -c $MDS_DIR/server.conf")
kill -TERM "$mds"
wait "$mds" 2>/dev/null || true
db=$MDS_DIR/db
mv "$db" "$db.old"
mkdir "$db"
mount -t tmpfs -o size=16m tmpfs "$db"
# run_mds: the MDS started again; at exit the servers stop, then the
# file system under the database goes
run_mds()
{
	run_server aifs-mds "$MDS_DIR"
	mds=$SERVER_PID
	trap 'stop_servers; umount "$db" 2>/dev/null || true' EXIT
}
cp -a "$db.old/." "$db/"
run_mds

# every block of the file system taken but what the MDS holds
dd if=/dev/zero of="$db/filler" bs=64k status=none 2>/dev/null || true
df -k "$db" | tail -1

# creates until one is refused: ENOSPC, the MDS still there (a create
# that waits for a dead MDS is killed after 300 s: the mount is hard)
refused=$(timeout -s KILL 300 python3 - <<'PY'
import errno, sys
for i in range(20000):
    try:
        open(f"/mnt/a/d/n{i}", "x").close()
    except OSError as e:
        print(i, errno.errorcode.get(e.errno, e.errno))
        sys.exit(0)
print("none")
PY
)
kill -0 "$mds" 2>/dev/null || {
	tail -5 "$MDS_DIR/log" >&2
	fail "the MDS exited on its full disk ($refused)"
}
n=${refused%% *}
[ "${refused#* }" = ENOSPC ] || fail "the create after $n others: $refused, not ENOSPC"
record "MDS disk full: create $n refused with ENOSPC, the MDS serving"
expect_error "No space left on device" mkdir /mnt/a/d/newdir

# reads, stats and deletes go on
echo 3 >/proc/sys/vm/drop_caches
assert_eq "$(sha256sum </mnt/a/before | cut -d' ' -f1)" "$before" \
	"the file written before"
assert_eq "$(cat /mnt/a/d/f7)" "small 7" "a small file written before"
rm /mnt/a/d/f1 /mnt/a/d/f2 || fail "unlink on a full MDS"
python3 - "$n" <<'PY' || fail "the files made before the refusal"
import os, sys
for i in range(int(sys.argv[1])):
    os.stat(f"/mnt/a/d/n{i}")
    if i % 2:
        os.unlink(f"/mnt/a/d/n{i}")
PY

# restarted on the full disk, it serves again
kill -TERM "$mds"
wait "$mds" 2>/dev/null || true
run_mds
assert_eq "$(cat /mnt/a/d/f8)" "small 8" "a small file after the restart"
rm /mnt/a/d/f3 || fail "unlink after the restart on a full disk"

# room again: creates go through (the MDS looks between batches)
rm "$db/filler"
end=$((SECONDS + 60))
until (echo after >/mnt/a/d/after) 2>/dev/null; do
	[ "$SECONDS" -lt "$end" ] || fail "no create 60 s after the disk had room"
	sleep 0.5
done
kill -0 "$mds" 2>/dev/null || fail "the MDS exited"
! grep -q "exiting" "$MDS_DIR/log" || fail "the MDS log: $(grep exiting "$MDS_DIR/log")"
assert_eq "$(cat /mnt/a/d/after)" "after" "a file made once there was room"
umount /mnt/a
cluster_fsck || fail "aifs fsck after the full disk: exit $?"
