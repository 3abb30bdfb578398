#!/bin/bash
# Kernel code follows the kernel's coding style.  checkpatch.pl is not
# packaged in Debian; point CHECKPATCH at a copy kept outside this tree.
set -uo pipefail
cd "$(dirname "$0")/../.."
cp=${CHECKPATCH:-$(command -v checkpatch.pl)}
[ -n "$cp" ] && [ -x "$cp" ] || {
	echo "checkpatch.pl not available (not packaged in Debian; set CHECKPATCH)"
	exit 77
}
"$cp" --no-tree --strict --terse --show-types -f kmod/*.[ch] tests/harness/kmod/*.c
