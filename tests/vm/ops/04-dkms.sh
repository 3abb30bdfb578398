# The module as `make install` ships it: scripts/install.sh stages the
# source tree with its dkms.conf, which is put in /usr/src as a package
# would; DKMS installs its build for the running kernel, modprobe loads
# that build (not kmod/aifs.ko of the tree), a cluster mounts with it, and
# `dkms remove` takes it all away again.  The guest's / is an overlay in
# memory, so /usr/src, /var/lib/dkms and /lib/modules are writable here
# and nothing reaches the host.
#
# The build: compiling the module under the guest's emulated CPU takes
# about 12 minutes (708 s measured), past a VM test's limit in `make
# test`, against 40 s on the host.  So tests/unit/dkms-build.sh, which
# runs before the VM tests, has DKMS build this same staged tree on the
# host for this kernel and pack it as DKMS packs prebuilt modules
# (mktarball --binaries-only); here `dkms ldtarball` loads it.  Without
# that tarball (the group run alone) DKMS builds here.
. "$AIFS_TOP/tests/vm/lib.sh"

KVER=$(uname -r)
DKMS_VER=

# build_id FILE: the GNU build id of a module file.
build_id()
{
	readelf -n "$1" | awk '/Build ID:/ { print $3 }'
}

# loaded_build_id: the build id of the aifs module in the kernel, from
# its raw note (namesz, descsz, type: 4 bytes each; "GNU\0"; the id).
loaded_build_id()
{
	od -An -v -tx1 -j 16 /sys/module/aifs/notes/.note.gnu.build-id |
		tr -d ' \n'
}

# dkms_state: what `dkms status` says of this version for this kernel
# (read whole: grep -q in a pipe could kill dkms with SIGPIPE)
dkms_state()
{
	local out
	out=$(dkms status -m aifs -v "$DKMS_VER" -k "$KVER")
	sed -n 's/.*: \([a-z]*\).*/\1/p' <<<"$out"
}

# At exit: unmount and stop the cluster, then take out of DKMS what the
# test put in, so that nothing after it finds this module.
dkms_cleanup()
{
	stop_servers
	[ -z "$DKMS_VER" ] || dkms remove -m aifs -v "$DKMS_VER" --all \
		>/dev/null 2>&1 || true
}

# The source tree install.sh stages, put in /usr/src; sets DKMS_VER.
stage_source()
{
	local stage=/tmp/aifs-stage src

	rm -rf "$stage"
	"$AIFS_TOP/scripts/install.sh" "$stage" >/dev/null ||
		fail "install.sh $stage"
	src=$(echo "$stage"/usr/src/aifs-*)
	[ -f "$src/dkms.conf" ] || fail "no dkms.conf staged in $src"
	DKMS_VER=${src##*/aifs-}
	rm -rf "/usr/src/aifs-$DKMS_VER"
	cp -a "$src" /usr/src/
}

command -v dkms >/dev/null || skip "dkms is not installed (make deps)"
[ -e "/lib/modules/$KVER/build/Makefile" ] ||
	skip "no headers for the guest's kernel $KVER"
# the tree's module, loaded by an earlier test, must not stand in
! grep -q '^aifs ' /proc/modules || rmmod aifs
trap dkms_cleanup EXIT
stage_source

tarball=$AIFS_BUILD/dkms/aifs-$DKMS_VER-$KVER.dkms.tar.gz
start=$SECONDS
if [ -f "$tarball" ]; then
	# with the source in /usr/src, this adds the version as `dkms add`
	# does, then puts the build in its place
	dkms ldtarball "$tarball"
else
	echo "no $tarball (tests/unit/dkms-build.sh): DKMS builds here, slowly"
	dkms add -m aifs -v "$DKMS_VER"
	dkms build -m aifs -v "$DKMS_VER" -k "$KVER" || {
		cat "/var/lib/dkms/aifs/$DKMS_VER/build/make.log" >&2
		fail "dkms build"
	}
fi
assert_eq "$(dkms_state)" built "dkms status before install"
echo "RECORD: aifs $DKMS_VER built for $KVER in $((SECONDS - start)) s"
start=$SECONDS
dkms install -m aifs -v "$DKMS_VER" -k "$KVER"
echo "RECORD: dkms install: $((SECONDS - start)) s"
assert_eq "$(dkms_state)" installed "dkms status after install"

ko=$(modinfo -k "$KVER" -n aifs) || fail "modinfo finds no aifs for $KVER"
case $ko in
"/lib/modules/$KVER/updates/dkms/aifs.ko"*) ;;
*) fail "modinfo: aifs is $ko, not DKMS's" ;;
esac
assert_eq "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" "$KVER" "vermagic"
modinfo "$ko"

modprobe aifs || fail "modprobe aifs"
want=$(build_id "$ko")
[ -n "$want" ] || fail "no build id in $ko"
assert_eq "$(loaded_build_id)" "$want" "build id of the loaded module"
[ "$want" != "$(build_id "$AIFS_KMOD_TREE/kmod/aifs.ko")" ] ||
	fail "DKMS's module has the build id of kmod/aifs.ko: cannot tell them apart"

start_cluster 7400
trap dkms_cleanup EXIT		# run_server set its own
umount_at_exit /mnt/dkms
mkdir -p /mnt/dkms
mount -t aifs -o "$(with_transport "secret=$AIFS_SECRET")" "$AIFS_ADDR:/" /mnt/dkms
echo "written through DKMS's aifs.ko" >/mnt/dkms/hello
sync
echo 3 >/proc/sys/vm/drop_caches
assert_eq "$(cat /mnt/dkms/hello)" "written through DKMS's aifs.ko" "read back"
umount /mnt/dkms
rmmod aifs || fail "the module does not unload"

# --no-depmod: depmod reads every module of the kernel over 9p, about a
# minute under emulation, and it ran at the install already
dkms remove --no-depmod -m aifs -v "$DKMS_VER" --all
DKMS_VER_REMOVED=$DKMS_VER
DKMS_VER=
left=$(dkms status -m aifs)
[ -z "$left" ] || fail "dkms status after remove: $left"
! ls "/lib/modules/$KVER/updates/dkms/aifs.ko"* 2>/dev/null ||
	fail "module left in /lib/modules/$KVER/updates/dkms"
rm -rf "/usr/src/aifs-$DKMS_VER_REMOVED"
exit 0
