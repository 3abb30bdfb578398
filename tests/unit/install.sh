#!/bin/bash
# `make install DESTDIR=...` (scripts/install.sh) stages the product and
# nothing else: the four programs and no test program, a manual page for
# each program, the units with the documents they point at, the example
# configs (each one the server accepts, naming every setting it has), an
# admin's mds.conf left as it was, and a DKMS source tree holding every
# source file the module's Makefile compiles.  tests/vm/ops/04-dkms builds
# and loads what it stages.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${AIFS_BUILD:-build}/bin

for prog in aifs aifs-mds aifs-ds mount.aifs; do
	[ -x "$BIN/$prog" ] || { echo "$BIN/$prog not built (make all)"; exit 1; }
done
dest=$(mktemp -d /tmp/aifs-install-test.XXXXXX)
trap 'rm -rf "$dest"' EXIT
status=0

bad()
{
	echo "FAIL: $*"
	status=1
}

expect_file()
{
	[ -f "$dest$1" ] || bad "not installed: $1"
}

scripts/install.sh "$dest"

# the product, each with its page
for f in /usr/bin/aifs /usr/sbin/aifs-mds /usr/sbin/aifs-ds /sbin/mount.aifs; do
	[ -x "$dest$f" ] || bad "not installed or not executable: $f"
	expect_file "/usr/share/man/man8/$(basename "$f").8.gz"
done
expect_file /usr/share/man/man5/aifs.conf.5.gz
gzip -t "$dest"/usr/share/man/man*/*.gz || bad "a page is not gzip"
# test programs stay in the build tree
for f in "$BIN"/*; do
	case ${f##*/} in aifs | aifs-mds | aifs-ds | mount.aifs) continue ;; esac
	! find "$dest" -name "${f##*/}" | grep -q . || bad "test program installed: ${f##*/}"
done
! find "$dest" -name '*.ko' | grep -q . || bad "a built module is staged: DKMS builds it"

# units, and the documents their Documentation= lines name
for unit in scripts/systemd/*.service; do
	expect_file "/lib/systemd/system/${unit##*/}"
	for doc in $(sed -n 's|^Documentation=file:/*|/|p' "$unit"); do
		expect_file "$doc"
	done
done

# examples: accepted by their server, every setting of --print-config in them
check_example()
{
	local prog=$1 example=$dest$2 key

	"$BIN/$prog" -c "$example" --print-config >/dev/null ||
		bad "$prog refuses $2"
	for key in $("$BIN/$prog" -c /dev/null --print-config | cut -d' ' -f1); do
		grep -q "^#\?$key = " "$example" || bad "$2 lacks $key"
	done
}
check_example aifs-mds /etc/aifs/mds.conf.example
check_example aifs-ds /etc/aifs/ds-nvme0.conf.example
cmp -s "$dest/etc/aifs/mds.conf" "$dest/etc/aifs/mds.conf.example" ||
	bad "mds.conf not installed from the example"
# an admin's config survives a second install
echo "log_level = debug" >"$dest/etc/aifs/mds.conf"
scripts/install.sh "$dest" >/dev/null
conf=$(cat "$dest/etc/aifs/mds.conf")
[ "$conf" = "log_level = debug" ] || bad "mds.conf overwritten"

# the DKMS tree: dkms.conf of this version, every object's source
version=$(scripts/version.sh)
src=$dest/usr/src/aifs-$version
expect_file "/usr/src/aifs-$version/dkms.conf"
grep -q "^PACKAGE_VERSION=\"$version\"$" "$src/dkms.conf" || bad "dkms.conf version"
grep -q '^BUILT_MODULE_LOCATION\[0\]="kmod/"$' "$src/dkms.conf" || bad "dkms.conf location"
for obj in $(sed -n '/^aifs-y/,/^[^\t]/p' kmod/Makefile |
		grep -o '[a-z_]*\.o'); do
	expect_file "/usr/src/aifs-$version/kmod/${obj%.o}.c"
done
for f in libproto/proto.c libproto/include/aifs/*.h kmod/*.h kmod/Makefile \
	 kmod/configure kmod/probes/*.c; do
	[ "$f" != kmod/aifs_config.h ] || continue	# made for this host only
	cmp -s "$f" "$src/$f" || bad "DKMS tree: $f missing or different"
done
[ ! -e "$src/kmod/aifs_config.h" ] || bad "DKMS tree: the host's kmod/aifs_config.h"
grep -q '^PRE_BUILD="kmod/configure ${kernel_source_dir}"$' "$src/dkms.conf" ||
	bad "dkms.conf: no kmod/configure before the build"
[ $status = 0 ] && echo "staged aifs $version: $(find "$dest" -type f | wc -l) files"
exit $status
