#!/bin/bash
# Install what is built so far under DESTDIR ($1, may be empty): the kernel
# module into the module tree of the kernel it was built for, and the
# mount(8) helper.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
destdir=${1:-}
kver=$("$TOP/scripts/kver.sh")

install -D -m 644 "$TOP/kmod/aifs.ko" "$destdir/lib/modules/$kver/extra/aifs.ko"
install -D -m 755 "$TOP/build/bin/mount.aifs" "$destdir/sbin/mount.aifs"
if [ -z "$destdir" ]; then
	depmod "$kver"
fi
echo "installed aifs.ko for $kver under ${destdir:-/}"
