#!/bin/bash
# aifs-fsx on a local file system of the host: no corruption in every mode
# for AIFS_FSX_OPS ops (20,000 by default), and the exerciser itself must
# catch damage done behind its back, print the log and replay a seed the
# same way.  AIFS_FSX_DIR (and AIFS_FSX_DIR2, the same directory through a
# second mount) run it elsewhere: on aifs, once the kernel client writes.
set -uo pipefail
cd "$(dirname "$0")/../.."
fsx=${AIFS_BUILD:-$PWD/build}/bin/aifs-fsx
ops=${AIFS_FSX_OPS:-20000}
seed=${AIFS_FSX_SEED:-1}
[ -x "$fsx" ] || { echo "aifs-fsx not built (make user)"; exit 1; }

# AIFS_FSX_DIR, or tmpfs when it takes O_DIRECT (Linux 6.6 and later),
# else /var/tmp.
direct_ok()
{
	dd if=/dev/zero of="$1/probe" bs=4096 count=1 oflag=direct \
		status=none 2>/dev/null
}

for base in ${AIFS_FSX_DIR:-/dev/shm /var/tmp}; do
	work=$(mktemp -d "$base/aifs-fsx.XXXXXX") || continue
	direct_ok "$work" && break
	[ "$base" = /dev/shm ] || break
	rm -rf "$work"
done
[ -d "${work:-}" ] || { echo "no directory to work in"; exit 1; }
no_direct=
direct_ok "$work" || no_direct="$(df --output=fstype "$work" | tail -n 1) \
in $(dirname "$work") refuses O_DIRECT"
trap 'rm -rf "$work"' EXIT
echo "in $work"
status=0

fail()
{
	echo "FAIL: $*"
	status=1
}

# A run that must pass: its output ends with the ok line.
expect_ok()
{
	local what=$1 out
	shift
	out=$("$fsx" -S "$seed" -N "$ops" "$@" 2>&1)
	if [ $? -ne 0 ] || ! tail -n 1 <<<"$out" | grep -q ": ok$"; then
		fail "$what"
		tail -n 80 <<<"$out"
	else
		tail -n 1 <<<"$out"
	fi
}

# A run that must find a mismatch: exit 1 with the report and the log.
expect_mismatch()
{
	local what=$1 out rc
	shift
	out=$("$fsx" "$@" 2>&1)
	rc=$?
	echo "== $what: exit $rc"
	head -n 8 <<<"$out"
	[ $rc -eq 1 ] || fail "$what: exit $rc, not 1"
	grep -Eq "op [0-9]+ \(.*\): (data differs|read 0x|the file's size)" \
		<<<"$out" || fail "$what: no mismatch report"
	grep -q "the last [0-9]* ops:" <<<"$out" || fail "$what: no log"
	grep -q "replay: aifs-fsx -S" <<<"$out" || fail "$what: no replay line"
	report=$out
}

for mode in buffered direct mmap mixed; do
	if [ -n "$no_direct" ] && [ $mode = direct -o $mode = mixed ]; then
		echo "$mode: skipped, $no_direct"
		continue
	fi
	expect_ok "$mode" -m $mode "$work/file"
done

# AIFS_FSX_DIR2 is AIFS_FSX_DIR through a second mount; on the host, two
# names of one file stand in for two mounts.
if [ -n "${AIFS_FSX_DIR2:-}" ]; then
	second=$AIFS_FSX_DIR2/$(basename "$work")/file
else
	second=$work/link
	ln "$work/file" "$second"
fi
expect_ok two -m two -P "$second" "$work/file"

# Mode two really switches: through a second, different file it must fail.
: >"$work/other"
expect_mismatch "two with a different file" -S "$seed" -N 2000 -m two \
	-P "$work/other" "$work/file"

# Damage in the middle of a run (seed 1 reads it before anything rewrites
# it), and before the final check of the whole file.
expect_mismatch "inject at op 1000" -S 1 -N 2000 -m buffered \
	--inject 1000 "$work/file"
grep -q "found bytes: written by no op of this run" <<<"$report" ||
	fail "inject at op 1000: the flipped bytes were blamed on an op"
first=$report
expect_mismatch "inject again" -S 1 -N 2000 -m buffered --inject 1000 \
	"$work/file"
[ "$report" = "$first" ] || fail "the same seed did not replay the same"
expect_mismatch "inject before the final check, mmap" -S 2 -N 2000 -m mmap \
	--inject 2001 "$work/file"
expect_mismatch "inject into the empty file" -S 1 -N 100 -m direct \
	--inject 1 "$work/file"

# The same seed draws the same ops; another seed draws others.
a=$("$fsx" -v -S 5 -N 500 "$work/file" | md5sum)
b=$("$fsx" -v -S 5 -N 500 "$work/file" | md5sum)
c=$("$fsx" -v -S 6 -N 500 "$work/file" | md5sum)
[ "$a" = "$b" ] || fail "seed 5 twice: different ops"
[ "$a" != "$c" ] || fail "seeds 5 and 6: the same ops"

# A system call failure is not a mismatch: exit 2, naming the call.
out=$("$fsx" -N 10 "$work/no/such/file" 2>&1)
rc=$?
[ $rc -eq 2 ] && grep -q "No such file or directory" <<<"$out" ||
	fail "open of a missing directory: exit $rc, $out"
if [ $status -eq 0 ] && [ -n "$no_direct" ]; then
	echo "direct and mixed modes skipped: $no_direct"
	exit 77
fi
exit $status
