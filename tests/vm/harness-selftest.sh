#!/bin/bash
# The VM harness proves itself: in one boot, a passing script must pass, a
# failing one, one that makes the kernel WARN, one that makes it WARN and
# then erases the kernel's log, one that runs past its limit and one that
# leaves the module busy at unload must each fail; as in CI, a skip that
# the list of CI's skips allows must be skipped and one it does not name
# must fail; log_mark must cut the log a test reads.  In a second boot, a
# task stuck in the kernel beyond SIGKILL must be reported as hung and end
# its group.
set -uo pipefail
cd "$(dirname "$0")/../.."

# Limits for a loaded host: 06-busy starts an MDS and mounts within 30 s;
# 01-hang reaches its 60 s stall within 15 s, and the stall outlasts the
# limit and the 10 s the harness gives a killed test to go.
out=$(AIFS_RESULTS= CI=true AIFS_CI_SKIPS=tests/harness/ci-skips \
	scripts/vm/run -n harness-selftest -t 30 tests/harness/cases)
echo "$out"

status=0
expect()
{
	if grep -qE "^$1" <<<"$out"; then
		echo "ok: $1"
	else
		echo "MISSING: $1"
		status=1
	fi
}
expect 'PASS: harness-selftest/01-pass \([0-9]+ s\)$'
expect 'FAIL: harness-selftest/02-fail \(exit 1\)'
expect 'FAIL: harness-selftest/03-warn \(kernel log: .*WARNING'
expect 'FAIL: harness-selftest/04-timeout \(timed out'
expect 'SKIP: harness-selftest/05-skip \(needs something this guest lacks\)'
expect 'PASS: harness-selftest/06-busy \([0-9]+ s\)$'
expect 'FAIL: harness-selftest/07-warn-erased \(kernel log: .*WARNING'
expect 'FAIL: harness-selftest/08-skip-in-ci \(skipped in CI, where the suite installs what it needs: needs something the suite should have installed\)'
expect 'PASS: harness-selftest/09-log-mark \([0-9]+ s\)$'
expect 'FAIL: harness-selftest/unload \(FAILED to unload aifs'
[ "$(grep -c '^\(PASS\|FAIL\|SKIP\): ' <<<"$out")" -eq 10 ] || {
	echo "expected exactly 10 results"
	status=1
}

out=$(AIFS_RESULTS= scripts/vm/run -n harness-hang -t 15 tests/harness/hang-cases)
echo "$out"
expect 'FAIL: harness-hang/01-hang \(hung: unkillable'
expect 'FAIL: harness-hang/02-after-hang \(not run: 01-hang hung before it'
[ "$(grep -c '^\(PASS\|FAIL\|SKIP\): ' <<<"$out")" -eq 2 ] || {
	echo "expected exactly 2 results from the hang group"
	status=1
}
exit $status
