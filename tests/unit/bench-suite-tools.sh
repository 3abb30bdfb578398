#!/bin/bash
# The benchmark suite's own tools on a directory of the host.  aifs-mdtest:
# every client's files in every phase, read checks the data and unlink
# leaves nothing; a file holding other data fails the read with no client
# left running.  aifs-loader: each trial reads every sample once, one
# accelerator is kept busy from the page cache, no compute gives an AU of
# 0 (and ends the sweep), -t bounds a slow trial.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
bench=${AIFS_BUILD:-$PWD/build}/bench
mdtest=$bench/aifs-mdtest
loader=$bench/aifs-loader
for tool in "$mdtest" "$loader"; do
	[ -x "$tool" ] || { echo "$tool not built (make user)"; exit 1; }
done
work=$(mktemp -d /tmp/aifs-bench-tools.XXXXXX)
trap 'rm -rf "$work"' EXIT
status=0

fail()
{
	echo "FAIL: $*"
	status=1
}

# expect_json FILE FILTER WHAT: the jq FILTER is true of the JSON in FILE.
expect_json()
{
	jq -e "$2" "$1" >/dev/null || { fail "$3"; cat "$1"; }
}

# run WHAT TOOL ARGS...: the tool must succeed; its JSON in $work/out.
run()
{
	local what=$1 rc
	shift
	"$@" >"$work/out" 2>"$work/err"
	rc=$?
	[ $rc -eq 0 ] || fail "$what: exit $rc"
	tail -n 5 "$work/err"
}

# ---- aifs-mdtest ----
md=$work/md
mkdir "$md"
run "mdtest create,stat,read" "$mdtest" -n 3 -f 50 -s 4096 \
	-p create,stat,read "$md"
expect_json "$work/out" '(.phases | keys_unsorted) == ["create", "stat", "read"]
	and all(.phases[]; .files == 150 and .bounded == false)
	and .phases.read.mb_per_s > 0
	and [.clients, .files_per_client, .bytes] == [3, 50, 4096]
	and .dir == "'"$md"'"' \
	"mdtest create,stat,read: not 150 files in each phase"
n=$(find "$md" -type f -size 4096c | wc -l)
[ "$n" = 150 ] || fail "mdtest create: $n files of 4096 bytes, not 150"

run "mdtest read,unlink" "$mdtest" -n 3 -f 50 -s 4096 -p read,unlink "$md"
expect_json "$work/out" '.phases.read.files == 150
	and .phases.unlink.files == 150' \
	"mdtest read,unlink: not 150 files in each phase"
[ -z "$(ls -A "$md")" ] || fail "mdtest unlink left $(ls -A "$md")"

# Other data in one file: the read fails, the other clients are killed.
"$mdtest" -n 3 -f 300 -s 4096 -p create "$md" >/dev/null 2>&1 ||
	fail "mdtest create of 900 files"
printf X | dd of="$md/c1/f7" bs=1 seek=100 conv=notrunc status=none
"$mdtest" -n 3 -f 300 -s 4096 -p read "$md" >"$work/out" 2>"$work/err"
rc=$?
cat "$work/err"
[ $rc -ne 0 ] || fail "mdtest read of a damaged file: exit 0"
grep -q "c1/f7: not the data written" "$work/err" ||
	fail "mdtest read of a damaged file: not named"
[ ! -s "$work/out" ] || fail "mdtest printed a result after failing"
! pgrep -f "$md" || fail "mdtest left clients running"
rm -rf "${md:?}"/*

# A file in another's place, one whose data stream starts alike (512
# files on): its stamp tells them apart.
"$mdtest" -n 1 -f 600 -s 64 -p create "$md" >/dev/null 2>&1 ||
	fail "mdtest create of 600 files"
cp "$md/c0/f513" "$md/c0/f1"
"$mdtest" -n 1 -f 600 -s 64 -p read "$md" >/dev/null 2>"$work/err" &&
	fail "mdtest read a file swapped with another as its own"
grep -q "c0/f1: not the data written" "$work/err" ||
	fail "mdtest read of a swapped file: not named"
rm -rf "${md:?}"/*

# ---- aifs-loader ----
# 200 samples of 98 to 4853 bytes, written by the shell alone (a fork
# costs much on CI)
data=$work/data
bytes=0
for d in 0 1 2 3; do
	mkdir -p "$data/$d"
	for ((i = 1; i <= 50; i++)); do
		printf "%$((i * 97 + d))s" "" >"$data/$d/s$i"
		bytes=$((bytes + i * 97 + d))
	done
done

run "loader -c 5" "$loader" -c 5 -b 4 -a 1,2 -u 0 "$data"
expect_json "$work/out" '.samples == 200
	and [.trials[].accelerators] == [1, 2]
	and all(.trials[]; .samples == 200 and .bytes == '"$bytes"'
		and 0 < .au_min and .au_min <= .au and .au <= 1
		and .bounded == false)
	and .trials[0].au >= 0.8
	and .max_accelerators == 2' \
	"loader -c 5: not every sample read once, or AU out of bounds"

run "loader -c 0" "$loader" -c 0 -a 1,2 "$data"
expect_json "$work/out" '(.trials | length) == 1
	and .trials[0].au == 0 and .trials[0].samples == 200
	and .max_accelerators == 0' \
	"loader -c 0: AU not 0, or the sweep did not stop"

# 200 batches of 100 ms: 20 s unbounded
run "loader -t" "$loader" -c 100 -b 1 -a 1 -t 0.5 "$data"
expect_json "$work/out" '.trials[0] | .bounded
	and .samples > 0 and .samples < 200 and .seconds < 5' \
	"loader -t 0.5: not bounded"

"$loader" "$work/none" >/dev/null 2>&1 && fail "loader: a missing directory"
mkdir "$work/empty"
"$loader" "$work/empty" >/dev/null 2>&1 && fail "loader: no samples"

# -d drops the page cache: as root it would drop the host's.
if [ "$(id -u)" = 0 ]; then
	echo "as root: -d not tried"
else
	for tool in "$mdtest" "$loader"; do
		err=$("$tool" -d "$data" 2>&1 >/dev/null)
		echo "$err"
		grep -q "needs root" <<<"$err" ||
			fail "$tool -d: no clear failure for a user"
	done
fi
exit $status
