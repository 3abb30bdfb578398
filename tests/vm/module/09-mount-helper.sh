# mount.aifs: mount(8) and fstab lines mount aifs by host name with the
# secret read from /etc/aifs/secret; its errors, and the kernel's, reach the
# user; options only mount(8) reads are dropped, per-mount flags applied.
. "$AIFS_TOP/tests/vm/lib.sh"

# localhost is 127.0.0.1: the MDS listens there, over TCP, whatever
# AIFS_VM_TRANSPORT says.
use_tcp
load_aifs
start_mds 7400
ln -sf "$AIFS_BUILD/bin/mount.aifs" /sbin/mount.aifs
mkdir -p /etc/aifs /mnt/h /mnt/f
(umask 077 && printf '%s\n' "$AIFS_SECRET" >/etc/aifs/secret)

mount -t aifs localhost:/ /mnt/h || fail "mount by name failed"
grep -q "^localhost:/ /mnt/h aifs " /proc/mounts || fail "not in /proc/mounts"
grep -q "127.0.0.1:7400" /sys/fs/aifs/*/source || fail "source: $(cat /sys/fs/aifs/*/source)"
grep -q "$AIFS_SECRET" /proc/mounts /sys/fs/aifs/*/* && fail "secret shown"
umount /mnt/h

# Per-mount flags go to the mount, aifs options to aifs, the rest nowhere.
mount -t aifs -o nosuid,noatime,_netdev,nofail,x-systemd.automount,read_ahead_kb=2048 \
	localhost:/ /mnt/h || fail "mount with options failed"
opts=$(grep " /mnt/h " /proc/mounts)
for o in nosuid noatime read_ahead_kb=2048; do
	grep -q "[ ,]$o[, ]" <<<"$opts" || fail "$o missing: $opts"
done
grep -q "_netdev\|nofail\|x-systemd" <<<"$opts" && fail "userspace option passed on: $opts"
mount -o remount,read_ahead_kb=512 /mnt/h || fail "remount through the helper"
assert_eq "$(cat /sys/fs/aifs/*/read_ahead_kb)" 512 "read_ahead_kb after remount"
umount /mnt/h

# Errors: the kernel's message is printed by the helper, not "wrong fs type".
out=$(mount -t aifs -o secret=not-the-right-secret localhost:/ /mnt/h 2>&1) &&
	fail "a wrong secret mounted"
grep -q "refused authentication" <<<"$out" || fail "no kernel message: $out"
out=$(mount -t aifs no-such-host.invalid:/ /mnt/h 2>&1) && fail "bad name mounted"
grep -q "cannot resolve 'no-such-host.invalid'" <<<"$out" || fail "no resolve error: $out"
chmod 644 /etc/aifs/secret
out=$(mount -t aifs localhost:/ /mnt/h 2>&1) && fail "world-readable secret used"
grep -q "/etc/aifs/secret" <<<"$out" || fail "no secret-file error: $out"
chmod 600 /etc/aifs/secret
out=$(mount -t aifs -o secretfile=/nonexistent localhost:/ /mnt/h 2>&1) &&
	fail "missing secretfile mounted"
grep -q "/nonexistent" <<<"$out" || fail "no secretfile error: $out"

# An fstab line, as an admin writes it.
echo "localhost:/ /mnt/f aifs _netdev,nofail,read_ahead_kb=1024 0 0" >>/etc/fstab
mount -a -t aifs || fail "mount -a failed"
grep -q " /mnt/f aifs " /proc/mounts || fail "fstab mount missing"
assert_eq "$(cat /sys/fs/aifs/*/read_ahead_kb)" 1024 "read_ahead_kb from fstab"
umount /mnt/f
grep -q " /mnt/f " /proc/mounts && fail "still mounted"
exit 0
