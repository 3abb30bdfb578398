#!/bin/bash
# Print the version of the Debian kernel that the VM guest boots and the
# module is built against: the newest one with both an image in /boot and
# headers in /lib/modules/<ver>/build.  Overridable with AIFS_KVER.
set -euo pipefail

if [ -n "${AIFS_KVER:-}" ]; then
	echo "$AIFS_KVER"
	exit 0
fi

for dir in $(ls -1d /lib/modules/* 2>/dev/null | sort -rV); do
	ver=${dir##*/}
	if [ -e "/boot/vmlinuz-$ver" ] && [ -e "$dir/build/Makefile" ]; then
		echo "$ver"
		exit 0
	fi
done
echo "kver: no kernel with both /boot/vmlinuz-<ver> and headers; run 'make deps'" >&2
exit 1
