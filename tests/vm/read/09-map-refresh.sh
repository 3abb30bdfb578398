# A data server drained (drain = yes and SIGHUP) changes the cluster map's
# epoch; the mount learns it from the next MDS reply's header and fetches
# the map again in the background (sysfs map_epoch), without a failure.
. "$AIFS_TOP/tests/vm/lib.sh"

mount_cluster /mnt/a
dir=$(ls -d /sys/fs/aifs/aifs-*)
mds=$AIFS_ADDR:$(sed -n 's/^listen_port = //p' "$MDS_DIR/server.conf")
src=$(mktemp /tmp/aifs-src.XXXXXX)
head -c 1048576 /dev/urandom >"$src"
put_file "$src" /f

assert_eq "$(cat "$dir/map_epoch")" 0 "map epoch before any read"
cmp "$src" /mnt/a/f || fail "read of f"
epoch=$(cat "$dir/map_epoch")
[ "$epoch" -gt 0 ] || fail "no map after a read"
refreshes=$(aifs_stat "$dir" map_refreshes)

echo "drain = yes" >>"${DS_DIRS[3]}/server.conf"
kill -HUP "${DS_PIDS[3]}"
for i in $(seq 100); do
	[ "$(aifs-put -s "$MDS_DIR/secret" -m "$mds" -M)" = 2 ] && break
	sleep 0.1
done
[ "$(aifs-put -s "$MDS_DIR/secret" -m "$mds" -M)" = 2 ] ||
	fail "the MDS did not mark the drained server"
# keepalive PINGs do not refresh: the map is as old as before
assert_eq "$(cat "$dir/map_epoch")" "$epoch" "map epoch before a request"

# an open asks the MDS whatever attr_timeout says (stat might not)
ls /mnt/a >/dev/null
for i in $(seq 100); do
	[ "$(cat "$dir/map_epoch")" -gt "$epoch" ] && break
	sleep 0.1
done
[ "$(cat "$dir/map_epoch")" -gt "$epoch" ] ||
	fail "map epoch still $epoch after an MDS reply of a newer map"
[ "$(aifs_stat "$dir" map_refreshes)" -gt "$refreshes" ] ||
	fail "map_refreshes did not move"
echo "map epoch $epoch -> $(cat "$dir/map_epoch")"
cmp "$src" /mnt/a/f || fail "read of f after the refresh"
umount /mnt/a
rm -f "$src"
