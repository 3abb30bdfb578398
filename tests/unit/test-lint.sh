#!/bin/bash
# What no test may do, because it would make the suite lie:
# - clear the kernel log (dmesg -c/-C): scripts/vm/guest-init judges its
#   own copy of the log, but a test's expect_dmesg must read from a mark
#   (log_mark in tests/vm/lib.sh), and a cleared log hides from a reader
#   what an earlier case printed.
set -uo pipefail
cd "$(dirname "$0")/../.."
status=0

clears=$(grep -rnE --include='*.sh' --include='*.py' \
	'(^|[^[:alnum:]_-])dmesg( +-[[:alnum:]-]+)* +(-[[:alpha:]]*[cC]|--(read-)?clear)([[:space:]]|$)' \
	tests | grep -vE '^[^:]+:[0-9]+:[[:space:]]*#' |
	grep -v '^tests/harness/cases/07-warn-erased.sh:')
if [ -n "$clears" ]; then
	echo "tests that clear the kernel log (use log_mark):"
	echo "$clears"
	status=1
fi
exit $status
