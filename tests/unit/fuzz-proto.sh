#!/bin/bash
# The wire codec's libFuzzer targets, each for a short bounded time from a
# seed corpus of one valid message of every kind; any crash, leak or
# sanitizer report fails.  Longer runs: Documentation/protocol.md.
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${AIFS_BUILD:-$PWD/build}
secs=${AIFS_FUZZ_SECONDS:-10}
[ -x "$build/fuzz/proto-seeds" ] || { echo "fuzz targets not built (make fuzz)"; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
artifacts=$build/fuzz-artifacts
mkdir -p "$artifacts"
"$build/fuzz/proto-seeds" "$work/seeds" || exit 1

status=0
for target in msg frame; do
	mkdir -p "$work/corpus-$target"
	echo "== fuzz_$target, $secs s"
	if ! "$build/fuzz/fuzz_$target" -max_total_time="$secs" -timeout=10 \
		-rss_limit_mb=2048 -max_len=16384 -print_final_stats=1 \
		-artifact_prefix="$artifacts/fuzz_$target-" \
		"$work/corpus-$target" "$work/seeds/$target" 2>&1 | tail -n 40; then
		echo "FAIL: fuzz_$target (crash input in $artifacts)"
		status=1
	fi
done
exit $status
