#!/bin/bash
# The main job, shown (make demo; Documentation/demo.md). Boots the test
# guest once and runs scripts/demo/guest.sh there: a cluster mounted over
# RDMA, a training set written through the mount, one epoch of PyTorch
# training read through it, a checkpoint written, read back and checked,
# the client's statistics. The guest's output is shown as it is written;
# the exit status is the harness's verdict, which also fails the run on
# any oops, BUG or WARN in the guest's kernel log.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
# the data set, the checkpoint (in the Python process, in the client's
# page cache and in the data servers' files, all in guest memory) and
# PyTorch need more than the tests' 2 GiB
export VM_MEM=${VM_MEM:-4G}
. "$TOP/scripts/vm/common.sh"
RESULTS=$AIFS_BUILD/vm-results/demo
OUT=$RESULTS/1.out
LIMIT=900

# follow FILE STOP: copy FILE to stdout as it grows, until the file STOP
# exists; then whatever is left, so that no last line is lost.
follow()
{
	local file=$1 stop=$2 shown=0 size last=

	while :; do
		[ ! -e "$stop" ] || last=1
		size=$(stat -c %s "$file" 2>/dev/null || echo 0)
		[ "$size" -ge "$shown" ] || shown=0	# a new file
		if [ "$size" -gt "$shown" ]; then
			tail -c +$((shown + 1)) "$file" | head -c $((size - shown))
			shown=$size
		fi
		[ -z "$last" ] || return 0
		sleep 0.5
	done
}

start=$(date +%s)
echo "make demo: booting the test guest ($VM_MEM, $VM_CPUS CPUs, TCG;" \
	"up to $LIMIT s); its output follows as it runs"
rm -f "$OUT"
stop=$(mktemp -u)
follow "$OUT" "$stop" &
follower=$!
verdict=$("$TOP/scripts/vm/run" -n demo -t "$LIMIT" \
	"$TOP/scripts/demo/guest.sh")
status=$?
touch "$stop"
wait "$follower"
rm -f "$stop"
echo "$verdict"
if [ "$status" = 0 ]; then
	echo "make demo: passed in $(($(date +%s) - start)) s, the guest's" \
		"kernel log clean; results in $RESULTS"
else
	echo "make demo: FAILED after $(($(date +%s) - start)) s; see $RESULTS" \
		"(1.out, console.log, 1.dmesg)"
fi
exit $status
