# An fstab line as Documentation/admin-guide.md writes it: systemd would
# mount it after the network (_netdev), `mount -a -t aifs` mounts it
# through mount.aifs with its options (the MDS named by host name, the
# secret from /etc/aifs/secret), a second `mount -a` leaves it alone, data
# goes through it, `umount -a -t aifs` unmounts it and the module unloads.
. "$AIFS_TOP/tests/vm/lib.sh"

FSTAB_DIR=/mnt/fstab
FSTAB_OPTS="_netdev,nofail,noatime,read_ahead_kb=16384,dentry_timeout=600"
GENERATOR=/lib/systemd/system-generators/systemd-fstab-generator

# fstab_generated FSTAB_LINE: the target whose .wants systemd's fstab
# generator puts the line's mount unit (of $FSTAB_DIR) in: local-fs or
# remote-fs.
fstab_generated()
{
	local dir

	dir=$(mktemp -d /tmp/aifs-gen.XXXXXX)
	mkdir -p "$dir/normal" "$dir/early" "$dir/late"
	echo "$1" >"$dir/fstab"
	SYSTEMD_FSTAB=$dir/fstab "$GENERATOR" "$dir/normal" "$dir/early" \
		"$dir/late" >/dev/null 2>&1 || fail "$GENERATOR failed"
	find "$dir/normal" -path '*.target.wants/mnt-fstab.mount' |
		sed 's|.*/\(.*\)\.target\.wants/.*|\1|'
	rm -rf "$dir"
}

# aifs is no file system type systemd knows to be remote: without _netdev
# the line would be mounted with the local disks, before the network.
check_netdev()
{
	assert_eq "$(fstab_generated "$1")" remote-fs "target of the fstab line"
	assert_eq "$(fstab_generated "${1/_netdev,/}")" local-fs \
		"target of the line without _netdev"
}

# mount.aifs installed as `make install` does, the secret where it reads
# it, and the MDS under a name, as in a cluster's /etc/hosts.
setup_client()
{
	ln -sf "$AIFS_BUILD/bin/mount.aifs" /sbin/mount.aifs
	mkdir -p /etc/aifs "$FSTAB_DIR"
	(umask 077 && printf '%s\n' "$AIFS_SECRET" >/etc/aifs/secret)
	echo "$AIFS_ADDR aifs-mds1" >>/etc/hosts
	cp /etc/fstab /tmp/fstab.orig
	trap 'cp /tmp/fstab.orig /etc/fstab; stop_servers' EXIT
	umount_at_exit "$FSTAB_DIR"
}

[ -x "$GENERATOR" ] ||
	skip "no $GENERATOR to check _netdev with (Debian package systemd)"
load_aifs
start_cluster 7400
setup_client
line="aifs-mds1:/ $FSTAB_DIR aifs $(with_transport "$FSTAB_OPTS") 0 0"
echo "$line" >>/etc/fstab
check_netdev "$line"

mount -a -t aifs || fail "mount -a -t aifs"
mnt=$(grep " $FSTAB_DIR aifs " /proc/mounts) || fail "fstab line not mounted"
echo "$mnt"
for o in noatime read_ahead_kb=16384 dentry_timeout=600; do
	grep -q "[ ,]$o[, ]" <<<"$mnt" || fail "$o missing: $mnt"
done
assert_eq "${mnt%% *}" "aifs-mds1:/" "source in /proc/mounts"
sysdir=$(grep -l "$AIFS_ADDR:7400" /sys/fs/aifs/*/source | head -n 1)
[ -n "$sysdir" ] || fail "no /sys/fs/aifs/*/source names $AIFS_ADDR:7400"
sysdir=$(dirname "$sysdir")
assert_eq "$(cat "$sysdir/read_ahead_kb")" 16384 "read_ahead_kb in sysfs"
# mount -a recognises what it mounted (the source as written): no second mount
mount -a -t aifs || fail "second mount -a"
assert_eq "$(grep -c " $FSTAB_DIR aifs " /proc/mounts)" 1 "aifs mounts after a second mount -a"

# Three chunks and a bit, over the three data servers; read back cold.
head -c $((12 * 1024 * 1024 + 4097)) /dev/urandom >/tmp/fstab-data
cp /tmp/fstab-data "$FSTAB_DIR/data"
sync
echo 3 >/proc/sys/vm/drop_caches
cmp /tmp/fstab-data "$FSTAB_DIR/data" || fail "read back differs"

umount -a -t aifs || fail "umount -a -t aifs"
! grep -q " aifs " /proc/mounts || fail "still mounted: $(grep " aifs " /proc/mounts)"
rmmod aifs || fail "the module does not unload"
exit 0
