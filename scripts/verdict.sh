# Whether a test may skip, for scripts/run-tests and scripts/vm/run
# (sourced).  Outside CI a skip is a skip.  In CI (CI=true) only the tests
# listed in tests/ci-skips (or in the list AIFS_CI_SKIPS names) may skip:
# the suite installs everything else it needs, so any other skip hides a
# missing install step, and fails.

# report_skip REPORT NAME WHY: calls "REPORT SKIP|FAIL NAME WHY" for test
# NAME ("layer/test", as tests/ci-skips lists it) that skipped for WHY.
report_skip()
{
	local list=${AIFS_CI_SKIPS:-$AIFS_TOP/tests/ci-skips}

	if [ "${CI:-}" != true ] ||
		grep -q "^$2[[:space:]]" "$list" 2>/dev/null; then
		"$1" SKIP "$2" "$3"
	else
		"$1" FAIL "$2" "skipped in CI, where the suite installs what it needs: $3"
	fi
}
