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
checkpatch()
{
	"$cp" --no-tree --strict --terse --show-types "$@"
}
status=0
# What only the kernel compiles (not what kbuild generates, *.mod.c).
checkpatch -f $(git ls-files ':(glob)kmod/*.[ch]' ':(glob)tests/harness/kmod/*.c') ||
	status=1
# The code shared with userspace, which has no BIT().
checkpatch --ignore BIT_MACRO -f $(git ls-files ':(glob)libproto/*.c' \
	libproto/include/aifs/aifs_proto.h libproto/include/aifs/aifs_codec.h) ||
	status=1
exit $status
