#!/bin/bash
# DKMS builds the module from the source tree `make install` stages
# (usr/src/aifs-VERSION and its dkms.conf) for the kernel the test guest
# boots, as it would on a server: dkms add and build, on private DKMS
# trees under build/dkms so that nothing of the host's DKMS is touched.
# The build is packed as DKMS packs prebuilt modules (mktarball
# --binaries-only): tests/vm/ops/04-dkms.sh loads it in the guest
# (ldtarball), installs it and mounts with it, since the same build under
# the guest's emulated CPU takes about 12 minutes instead of under one.
# With a KERNEL of scripts/kernels/kernels (6.12), for that kernel instead,
# from its fetched headers, for a guest booting it (make test-long).
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${AIFS_BUILD:-$PWD/build}/dkms

command -v dkms >/dev/null || { echo "dkms not installed (make deps)"; exit 77; }
if [ -n "${1:-}" ]; then
	kdir=$(scripts/kernels/fetch "$1") || {
		[ $? -eq 2 ] && exit 77
		echo "FAIL: no headers of $1"; exit 1; }
	kver=$(cat "$kdir/include/config/kernel.release")
	# DKMS looks for it in /usr/lib/linux-kbuild-*/ of an installed kernel
	export sign_file=$kdir/scripts/sign-file
else
	kver=$(scripts/kver.sh 2>/dev/null) || { echo "no kernel headers (make deps)"; exit 77; }
	kdir=/lib/modules/$kver/build
fi
version=$(scripts/version.sh)
# a kernel's own trees; the packed builds of all side by side in OUT
tarball=$OUT/aifs-$version-$kver.dkms.tar.gz
OUT=$OUT/$kver
rm -rf "$OUT" "$tarball"
mkdir -p "$OUT/tree" "$OUT/modules"
trees=(--dkmstree "$OUT/tree" --sourcetree "$OUT/stage/usr/src"
	--installtree "$OUT/modules" --kernelsourcedir "$kdir")
# a signing key of its own, not the host's /var/lib/dkms/mok.key
export mok_signing_key=$OUT/mok.key mok_certificate=$OUT/mok.pub

scripts/install.sh "$OUT/stage" >/dev/null
dkms add -m aifs -v "$version" "${trees[@]}"
dkms build -m aifs -v "$version" -k "$kver" "${trees[@]}" || {
	cat "$OUT/tree/aifs/$version/build/make.log" 2>/dev/null ||
		cat "$OUT/tree/aifs/$version/$kver/x86_64/log/make.log"
	echo "FAIL: dkms build"
	exit 1
}
ko=$OUT/tree/aifs/$version/$kver/x86_64/module/aifs.ko
[ -f "$ko" ] || { echo "FAIL: no $ko"; exit 1; }
vermagic=$(modinfo -F vermagic "$ko")
[ "${vermagic%% *}" = "$kver" ] || { echo "FAIL: vermagic $vermagic"; exit 1; }
modinfo -F signer "$ko" | grep -q "DKMS module signing key" ||
	{ echo "FAIL: $ko is not signed by DKMS"; exit 1; }
dkms mktarball -m aifs -v "$version" -k "$kver" --binaries-only \
	--archive "$tarball" "${trees[@]}" >/dev/null
echo "DKMS built aifs $version for $kver: $tarball"
