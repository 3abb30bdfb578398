#!/bin/bash
# Install aifs under DESTDIR ($1, may be empty): what `make install` does.
#
#   usr/bin/aifs, usr/sbin/aifs-mds, usr/sbin/aifs-ds, sbin/mount.aifs
#   usr/share/man/man5, man8            the manual pages (gzipped)
#   lib/systemd/system                  aifs-mds.service, aifs-ds@.service
#   etc/aifs/*.conf.example             example configs, always replaced;
#   etc/aifs/mds.conf                   only if absent: never overwritten
#   usr/share/doc/aifs                  README.md and Documentation/*.md
#   usr/src/aifs-VERSION                the module's source and dkms.conf
#   var/lib/aifs                        parent of the MDS's database
#
# The module goes through DKMS, which builds it for the running kernel and
# again for every kernel installed later (AUTOINSTALL): a module copied
# into one kernel's tree would be lost, or worse left stale, at the next
# kernel update.  So the aifs.ko of the build tree is not installed.
# With DESTDIR the files are only staged (a package's postinst runs
# `dkms add/build/install`); without it this is a real install, which
# also registers the module with DKMS, builds and installs it, and
# reloads systemd.  Without dkms on the machine a real install falls back
# to copying the built aifs.ko for the kernel it was built against, and
# says so.
#
# Test programs of build/bin (aifs-put, aifs-fsx, aifs-try-mount,
# aifs-echo-server, aifs-proto-peer, aifs-mds-bench) are never installed.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
BIN=${AIFS_BUILD:-$TOP/build}/bin
destdir=${1:-}
version=$("$TOP/scripts/version.sh")
srcdir=/usr/src/aifs-$version

# install_file MODE SRC DEST: DEST under DESTDIR, directories made.
install_file()
{
	install -D -m "$1" "$2" "$destdir$3"
}

install_programs()
{
	local prog

	for prog in aifs aifs-mds aifs-ds mount.aifs; do
		[ -x "$BIN/$prog" ] ||
			{ echo "install: $BIN/$prog is not built (make all)" >&2; exit 1; }
	done
	install_file 755 "$BIN/aifs" /usr/bin/aifs
	install_file 755 "$BIN/aifs-mds" /usr/sbin/aifs-mds
	install_file 755 "$BIN/aifs-ds" /usr/sbin/aifs-ds
	# mount(8) looks for helpers in /sbin
	install_file 755 "$BIN/mount.aifs" /sbin/mount.aifs
}

# Pages compressed as Debian ships them; -n keeps the output the same from
# one build to the next (no name or time in the gzip header).
install_man_pages()
{
	local page sec dir pages

	pages=("$TOP"/Documentation/man/*.[0-9])
	[ -e "${pages[0]}" ] || { echo "install: no Documentation/man/*" >&2; exit 1; }
	for page in "${pages[@]}"; do
		sec=${page##*.}
		dir=$destdir/usr/share/man/man$sec
		install -d -m 755 "$dir"
		gzip -9n <"$page" >"$dir/$(basename "$page").gz"
		chmod 644 "$dir/$(basename "$page").gz"
	done
}

install_units()
{
	local unit

	for unit in "$TOP"/scripts/systemd/*.service; do
		install_file 644 "$unit" "/lib/systemd/system/$(basename "$unit")"
	done
}

# The examples are ours and follow the version; the configs are the
# admin's.  mds.conf works as it is (every setting has a default that
# fits aifs-mds.service), so it is put in place when there is none; a data
# server's config names its disk, its port and its file system, which
# only the admin knows, so the data servers get the example alone.
install_configs()
{
	install -d -m 755 "$destdir/etc/aifs"
	install_file 644 "$TOP/scripts/config/mds.conf.example" \
		/etc/aifs/mds.conf.example
	install_file 644 "$TOP/scripts/config/ds.conf.example" \
		/etc/aifs/ds-nvme0.conf.example
	if [ ! -e "$destdir/etc/aifs/mds.conf" ]; then
		install_file 644 "$TOP/scripts/config/mds.conf.example" \
			/etc/aifs/mds.conf
	else
		echo "install: /etc/aifs/mds.conf exists: kept as it is"
	fi
	# aifs-mds --format makes db_path itself, not its parent
	install -d -m 755 "$destdir/var/lib/aifs"
}

install_docs()
{
	local doc

	install_file 644 "$TOP/README.md" /usr/share/doc/aifs/README.md
	for doc in "$TOP"/Documentation/*.md; do
		install_file 644 "$doc" "/usr/share/doc/aifs/$(basename "$doc")"
	done
}

# The module's source (scripts/kmod-tree) and its dkms.conf.
install_dkms_tree()
{
	local dst=$destdir$srcdir

	"$TOP/scripts/kmod-tree" "$dst"
	# DKMS builds in its copy of this tree, $dkms_tree/aifs/VERSION/build,
	# for the kernel of $kernel_source_dir.  It runs MAKE with
	# KERNELRELEASE=<kernel> added, which kmod/Makefile takes for kbuild
	# reading it: so kbuild is called straight, on the kmod/ subdirectory,
	# after kmod/configure probed that kernel's headers.
	cat >"$dst/dkms.conf" <<EOF
PACKAGE_NAME="aifs"
PACKAGE_VERSION="$version"
PRE_BUILD="kmod/configure \${kernel_source_dir}"
MAKE[0]="make -C \${kernel_source_dir} M=\${dkms_tree}/\${module}/\${module_version}/build/kmod modules"
CLEAN="make -C \${kernel_source_dir} M=\${dkms_tree}/\${module}/\${module_version}/build/kmod clean"
BUILT_MODULE_NAME[0]="aifs"
BUILT_MODULE_LOCATION[0]="kmod/"
DEST_MODULE_LOCATION[0]="/updates/dkms"
AUTOINSTALL="yes"
EOF
	chmod 644 "$dst/dkms.conf"
}

# The kernel to build for now: the running one when its headers are
# here (a real server), else the one this tree builds against.
target_kernel()
{
	if [ -e "/lib/modules/$(uname -r)/build/Makefile" ]; then
		uname -r
	else
		"$TOP/scripts/kver.sh"
	fi
}

# Real install: this version registered, built and installed by DKMS;
# other versions of aifs are removed from DKMS and /usr/src first, so
# that exactly one aifs.ko is there per kernel.
dkms_install()
{
	local kver old

	kver=$(target_kernel)
	for old in $(dkms status -m aifs 2>/dev/null |
			sed -n 's|^aifs/\([^,:]*\)[,:].*|\1|p' | sort -u); do
		dkms remove -m aifs -v "$old" --all || true
		[ "$old" = "$version" ] || rm -rf "/usr/src/aifs-$old"
	done
	dkms add -m aifs -v "$version"
	dkms build -m aifs -v "$version" -k "$kver"
	dkms install -m aifs -v "$version" -k "$kver"
	echo "install: aifs $version built and installed by DKMS for $kver" \
		"(and for each kernel installed later)"
}

# Real install without dkms: the built module for the kernel it was
# built against, to be redone by hand after a kernel update.
ko_install()
{
	local kver

	kver=$("$TOP/scripts/kver.sh")
	install -D -m 644 "$TOP/kmod/aifs.ko" "/lib/modules/$kver/extra/aifs.ko"
	depmod "$kver"
	echo "install: no dkms here: aifs.ko copied for $kver only;" \
		"install dkms and run 'make install' again to follow kernel updates" >&2
}

install_programs
install_man_pages
install_units
install_configs
install_docs
install_dkms_tree

if [ -n "$destdir" ]; then
	echo "install: aifs $version staged under $destdir (module source in $srcdir)"
	exit 0
fi
if command -v dkms >/dev/null; then
	dkms_install
else
	ko_install
fi
if [ -d /run/systemd/system ]; then
	systemctl daemon-reload
fi
echo "install: aifs $version installed; next: Documentation/admin-guide.md"
