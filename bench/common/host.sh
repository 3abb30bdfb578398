# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The host side shared by the benchmarks that boot a guest (read-bench,
# write-bench, suite-bench); sourced, not run. Needs TOP and BUILD.

# bench_load RESULTS: the time and the host's load average (1, 5, 15
# minutes) as one line of RESULTS/host-load.
bench_load()
{
	echo "$(date +%T) $(cut -d ' ' -f 1-3 /proc/loadavg)" >>"$1/host-load"
}

# bench_sample_load RESULTS: bench_load once a minute from the guest's
# start (qemu creates console.log).
bench_sample_load()
{
	while [ ! -e "$1/console.log" ]; do sleep 1; done
	while :; do
		bench_load "$1"
		sleep 60
	done
}

# bench_guest NAME LIMIT SCRIPT: one guest boot running SCRIPT (results
# in $BUILD/vm-results/NAME), its progress shown as the guest writes it.
# The host's 2 CPUs are shared with other guests, so the load average is
# recorded with the results (host-load: the guest's start, every minute,
# its end). Returns non-zero when the harness judged the boot failed.
bench_guest()
{
	local name=$1 limit=$2 script=$3 results=$BUILD/vm-results/$1
	local tail_pid load_pid status=0

	echo "$name: one guest of $VM_MEM, up to $limit s; progress:"
	# the guest's progress as it writes it, not the last run's (these
	# two are ours to stop)
	rm -f "$results/1.out" "$results/console.log"
	tail -n +1 -F "$results/1.out" 2>/dev/null &
	tail_pid=$!
	bench_sample_load "$results" &
	load_pid=$!
	"$TOP/scripts/vm/run" -n "$name" -t "$limit" "$script" || status=1
	kill "$tail_pid" "$load_pid"
	wait "$tail_pid" "$load_pid" 2>/dev/null || true
	bench_load "$results"
	return $status
}
