#!/bin/bash
# The kernel module is sparse-clean: every __le/__be use, __user pointer and
# lock annotation checked by 'make C=2'.
set -uo pipefail
cd "$(dirname "$0")/../.."
command -v sparse >/dev/null || { echo "sparse not installed (make deps)"; exit 77; }
kdir=/lib/modules/$(scripts/kver.sh)/build
out=$(make -j"$(nproc)" -C "$kdir" M="$PWD/kmod" C=2 modules 2>&1)
rc=$?
echo "$out"
[ $rc -eq 0 ] || exit 1
# sparse reports as "file:line:col: warning|error: ..."
if grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error):' <<<"$out"; then
	exit 1
fi
