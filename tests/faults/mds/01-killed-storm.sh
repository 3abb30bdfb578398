# kill -9 of the MDS in the middle of a create/write/rename/unlink/mkdir
# storm through the kernel client, restarted at once as systemd would:
# the program sees no error (the session reconnects and replays what was
# in flight, the reply cache answers the rest once), every change it was
# told was made is there with its data, none is made twice, aifs fsck
# finds the tables and the data servers' chunks in agreement, and the
# database checks clean (aifs-mds --check).
. "$AIFS_TOP/tests/vm/lib.sh"

OPS=300
# timeo=300: the session waits out the restart of the MDS
mount_cluster /mnt/a timeo=300
mkdir /mnt/a/s
acked=$(mktemp /tmp/aifs-acked.XXXXXX)

# Per i: a file created and written, renamed, every third unlinked, every
# fifth a directory too. Each change is logged once its call returned.
python3 - "$OPS" "$acked" <<'PY' &
import os, sys
n, log = int(sys.argv[1]), open(sys.argv[2], "w", buffering=1)
for i in range(n):
    with open(f"/mnt/a/s/f{i}", "xb") as f:
        f.write(f"file {i}\n".encode() * (i % 7 + 1))
    log.write(f"create {i}\n")
    os.rename(f"/mnt/a/s/f{i}", f"/mnt/a/s/g{i}")
    log.write(f"rename {i}\n")
    if i % 3 == 0:
        os.unlink(f"/mnt/a/s/g{i}")
        log.write(f"unlink {i}\n")
    if i % 5 == 0:
        os.mkdir(f"/mnt/a/s/d{i}")
        log.write(f"mkdir {i}\n")
PY
storm=$!

# The kill comes once a third of the storm's first changes were
# acknowledged, with the storm still going: checked, not only echoed.
start=$(date +%s)
until [ "$(wc -l <"$acked")" -ge $((OPS / 3)) ]; do
	[ $(($(date +%s) - start)) -lt 120 ] ||
		fail "$(wc -l <"$acked") changes acknowledged in 120 s"
	sleep 0.1
done
kill -0 "$storm" 2>/dev/null || fail "the storm ended before the kill"
mds=$(pgrep -f "aifs-mds -c $MDS_DIR/server.conf")
kill -KILL "$mds"
killed_at=$(wc -l <"$acked")
# gone before the next one starts: one aifs-mds per database (its lock)
wait "$mds" 2>/dev/null || true
start=$(date +%s.%N)
run_server aifs-mds "$MDS_DIR"
took=$(echo "$(date +%s.%N) - $start" | bc)
echo "MDS killed after $killed_at acknowledged changes, listening again in $took s"

wait "$storm" || fail "the storm saw an error across the MDS's restart"
assert_eq "$(grep -c '^create' "$acked")" "$OPS" "files created"
total=$(wc -l <"$acked")
[ "$killed_at" -lt "$total" ] ||
	fail "every change was acknowledged by the kill ($killed_at of $total)"
want=$(python3 -c '
import sys
n = int(sys.argv[1])
print(" ".join(sorted([f"g{i}" for i in range(n) if i % 3] +
                      [f"d{i}" for i in range(n) if i % 5 == 0])))' "$OPS")
got=$(ls -A /mnt/a/s | LC_ALL=C sort | tr '\n' ' ')
assert_eq "$got" "$want " "entries after the MDS's kill -9"
echo 3 >/proc/sys/vm/drop_caches
python3 - "$OPS" <<'PY' || fail "a file's data is not what was written"
import sys
for i in range(int(sys.argv[1])):
    if i % 3:
        want = f"file {i}\n".encode() * (i % 7 + 1)
        got = open(f"/mnt/a/s/g{i}", "rb").read()
        assert got == want, f"g{i}: {got[:40]!r}"
PY
echo "RECORD: kill -9 of the MDS after $killed_at of $total changes: no error, listening again in $took s"
umount /mnt/a
cluster_fsck || fail "aifs fsck after the storm: exit $?"

# the database, once the MDS is stopped
kill -TERM "$SERVER_PID"
wait "$SERVER_PID" 2>/dev/null || true
aifs-mds -c "$MDS_DIR/server.conf" --check || fail "aifs-mds --check"
