# The aifs command against a live cluster, in text and in --json: status
# (by mount point, by HOST:PORT, and of the only mount), df against
# df(1), getlayout/setlayout, scrub, recovery with a server killed, and
# fsck's report and exit code.
. "$AIFS_TOP/tests/vm/lib.sh"

# mount_cluster's, with data servers that scrub
load_aifs
umount_at_exit /mnt/a
mkdir -p /mnt/a
start_cluster 7400 scrub_rate_mib=64
mount -t aifs -o "$(with_transport "secret=$AIFS_SECRET")" "$AIFS_ADDR:/" /mnt/a
mds=$AIFS_ADDR:7400
cli()
{
	aifs -s "$MDS_DIR/secret" "$@"
}
mkdir /mnt/a/dir
for i in $(seq 10); do echo "file $i" >"/mnt/a/dir/f$i"; done

# status: the same cluster whichever way it is named
cli status /mnt/a >/tmp/status.txt || fail "aifs status /mnt/a"
cat /tmp/status.txt
grep -q "^metadata server $mds, cluster map epoch [1-9]" /tmp/status.txt ||
	fail "status: no MDS line"
assert_eq "$(grep -c ' UP ' /tmp/status.txt)" 3 "servers UP in the text"
cli status >/dev/null || fail "aifs status of the only mount"
cli --json status "$mds" >/tmp/status.json || fail "aifs --json status"
jq -e '(.servers | length) == 3 and all(.servers[]; .state == "UP" and
	.capacity_bytes > 0 and .free_bytes <= .capacity_bytes and
	.used_bytes + .free_bytes == .capacity_bytes and .scrub.rate_mib == 64)
	and .space.files >= 12 and .recovery == [] and .repairs == [] and
	.mds == "'"$mds"'"' \
	/tmp/status.json >/dev/null || { cat /tmp/status.json; fail "status JSON"; }
[ "$(jq .epoch /tmp/status.json)" -ge "$(cat /sys/fs/aifs/aifs-*/map_epoch)" ] ||
	fail "status: an epoch older than the mount's"
expect_error "Connection refused" cli status 127.0.0.1:1

# df: what df(1) says, to the byte
read -r size used avail < <(df -B1 --output=size,used,avail /mnt/a | tail -n 1)
cli --json df /mnt/a >/tmp/df.json || fail "aifs --json df"
assert_eq "$(jq '.mounts[0] | "\(.size_bytes) \(.used_bytes) \(.avail_bytes)"' \
	-r /tmp/df.json)" "$size $used $avail" "df bytes"
read -r iused ifree < <(df --output=iused,iavail /mnt/a | tail -n 1)
assert_eq "$(jq -r '.mounts[0] | "\(.inodes_used) \(.inodes_free)"' \
	/tmp/df.json)" "$iused $ifree" "df inodes"
cli df | grep -q "^/mnt/a " || fail "aifs df: no line for /mnt/a"

# getlayout and setlayout, text and JSON
cli setlayout /mnt/a/dir ec=2+1 >/dev/null || fail "setlayout ec=2+1"
cli --json getlayout /mnt/a/dir >/tmp/layout.json || fail "getlayout --json"
jq -e '.type == "ec" and .ec_k == 2 and .ec_m == 1 and .replicas == null' \
	/tmp/layout.json >/dev/null || { cat /tmp/layout.json; fail "layout JSON"; }
cli getlayout /mnt/a/dir | grep -q "^ec=2+1 chunk=" || fail "getlayout text"
cli --json getlayout /mnt/a/dir/f1 | jq -e '.type == "replicas" and
	(.targets | length) == .replicas * .stripes' >/dev/null ||
	fail "layout JSON of a replicated file"

# scrub: a pass started, and seen through to its end by scrub and status
ds=$(jq -r '.servers[0].address' /tmp/status.json)
cli scrub "$ds" start >/dev/null || fail "aifs scrub start"
for _ in $(seq 100); do
	cli --json scrub "$ds" | jq -e '.passes >= 1 and (.running | not)' \
		>/dev/null && break
	sleep 0.2
done
cli --json scrub "$ds" | jq -e '.passes >= 1 and .bad == 0' >/dev/null ||
	fail "no scrub pass done on $ds"
cli status "$mds" | grep -q "$ds .* idle, [1-9][0-9]* passes, 0 bad" ||
	fail "status does not show the scrub pass"

# fsck: a clean cluster is exit 0 in both forms
cli fsck "$mds" >/dev/null || fail "fsck: exit $?"
cli --json fsck "$mds" >/tmp/fsck.json || fail "fsck --json: exit $?"
jq -e '.exit_code == 0 and ([.found[]] | add) == 0 and .files >= 10' \
	/tmp/fsck.json >/dev/null || { cat /tmp/fsck.json; fail "fsck JSON"; }

# a data server killed: OFFLINE in status, waiting for its rebuild
kill -KILL "${DS_PIDS[3]}"
for _ in $(seq 100); do
	cli --json recovery "$mds" | jq -e '.servers | length == 1' \
		>/dev/null && break
	sleep 0.2
done
cli --json recovery "$mds" >/tmp/recovery.json
jq -e '(.servers[0] | .state == "OFFLINE" and .rebuild_in_s > 0) and
	.repairs == []' \
	/tmp/recovery.json >/dev/null || { cat /tmp/recovery.json; fail "recovery JSON"; }
cli status "$mds" | grep -q "OFFLINE.*, rebuilt around in" ||
	fail "status does not show the recovery"
assert_eq "$(cli --json status "$mds" | jq '[.servers[] | select(.state ==
	"OFFLINE")] | length')" 1 "servers OFFLINE in the JSON"

# usage errors
rc=0
aifs --json 2>/dev/null || rc=$?
assert_eq $rc 2 "exit status without a command"
out=$(aifs df /tmp 2>&1) && fail "aifs df /tmp succeeded"
grep -q "not on an aifs mount" <<<"$out" || fail "aifs df /tmp: $out"
umount /mnt/a
rm -f /tmp/status.txt /tmp/status.json /tmp/df.json /tmp/layout.json \
	/tmp/fsck.json /tmp/recovery.json
