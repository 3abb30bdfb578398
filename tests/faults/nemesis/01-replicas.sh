# The acknowledged-writes oracle with a nemesis (issue 29), through the
# kernel's client: two writers (tests/faults/nemesis/oracle.py) write
# self-describing blocks to files of replicas=2 and replicas=3, rewrite,
# truncate and re-create them with O_TRUNC, and read ranges back with
# O_DIRECT, while a nemesis kills (-9) and restarts, or stops (SIGSTOP)
# and continues, one data server at a time, or kills and restarts the
# MDS, waiting for all to be UP before the next fault. A write is acknowledged once its fsync returned
# 0. Every read during the run returns, per block, the last acknowledged
# write there or one tried since, never zeros in place of an acknowledged
# write and never another file's or place's block; at the end every block
# of every file does, read through the mount and again with each server
# down in turn (so that every copy is read). The seeds come from
# AIFS_NEMESIS_SEEDS ("4 5" in make test: between them a kill -9 of the
# MDS, of two data servers and a stop of each), each run for
# AIFS_NEMESIS_SECONDS (45); the history of each (every operation, its
# outcome, the faults) is kept in the test's results as
# nemesis-SEED-*.jsonl and nemesis-SEED.faults, and the servers' logs
# when it fails. A failing seed does not stop the others; the test fails
# at the end, naming every failing seed (the same seed replays the same
# operations and faults, not their timing).
. "$AIFS_TOP/tests/vm/lib.sh"
. "$AIFS_TOP/tests/faults/replica/helpers"

ORACLE=$AIFS_TOP/tests/faults/nemesis/oracle.py
SEEDS=${AIFS_NEMESIS_SEEDS:-4 5}
RUN_S=${AIFS_NEMESIS_SECONDS:-45}
KEEP=/aifs-results
[ -w "$KEEP" ] || KEEP=$(mktemp -d /tmp/aifs-nemesis.XXXXXX)

# A request to a stopped server waits for the mount's timeo, writeback
# uninterruptibly: 10 s, under the guest's hung task limit of 20 s.
FAULT_TIMEO=100 fault_cluster /mnt/a log_level=debug
MDS_PID=$(pgrep -f "aifs-mds -c $MDS_DIR/server.conf") ||
	fail "no aifs-mds running"
touch "$MDS_DIR/log.old" "${DS_DIRS[1]}/log.old" "${DS_DIRS[2]}/log.old" \
	"${DS_DIRS[3]}/log.old"
mkdir /mnt/a/r2 /mnt/a/r3
aifs setlayout /mnt/a/r2 replicas=2 stripes=1 >/dev/null ||
	fail "setlayout replicas=2"
aifs setlayout /mnt/a/r3 replicas=3 stripes=1 >/dev/null ||
	fail "setlayout replicas=3"

# lost SEED WHAT: seed SEED failed with WHAT; the servers' logs are kept
# beside its history, and the next seed runs
FAILED=()
lost()
{
	local i
	echo "FAIL: seed $1: $2 (replay: AIFS_NEMESIS_SEEDS=$1)"
	cat "$MDS_DIR/log.old" "$MDS_DIR/log" >"$KEEP/nemesis-$1.mds.log"
	for i in 1 2 3; do
		cat "${DS_DIRS[i]}/log.old" "${DS_DIRS[i]}/log" \
			>"$KEEP/nemesis-$1.ds$i.log"
	done
	FAILED+=("$1")
}

# restart DIR PROG: PROG again on DIR (its log so far kept in log.old);
# its pid in SERVER_PID
restart()
{
	cat "$1/log" >>"$1/log.old"
	run_server "$2" "$1"
}

# fault SEED-LOG: one fault picked at random, on a data server or (one in
# five) the MDS, then a wait until the three data servers are UP again;
# what was done goes to SEED-LOG.
fault()
{
	local i=$((1 + RANDOM % 3)) t=$((1 + RANDOM % 5)) kind=$((RANDOM % 5)) took
	case $kind in
	0)
		echo "$(date +%s.%N) kill -9 the MDS, restarted after $t s" >>"$1"
		kill -KILL "$MDS_PID"
		wait "$MDS_PID" 2>/dev/null || true
		sleep "$t"
		restart "$MDS_DIR" aifs-mds
		MDS_PID=$SERVER_PID
		;;
	1 | 2)
		echo "$(date +%s.%N) kill -9 ds $i, restarted after $t s" >>"$1"
		kill_ds "$i"
		sleep "$t"
		restart "${DS_DIRS[i]}" aifs-ds
		DS_PIDS[i]=$SERVER_PID
		;;
	*)
		echo "$(date +%s.%N) SIGSTOP ds $i for $t s" >>"$1"
		kill -STOP "${DS_PIDS[i]}"
		sleep "$t"
		kill -CONT "${DS_PIDS[i]}"
		;;
	esac
	took=$(wait_all_up 120) || exit 1
	echo "$(date +%s.%N) all UP after $took s" >>"$1"
}

# check SEED WHAT: every file of the run of SEED against its writers'
# models; 1 (said) when one is wrong
check()
{
	local h
	echo 3 >/proc/sys/vm/drop_caches
	for h in "$KEEP"/nemesis-"$1"-*.jsonl; do
		python3 "$ORACLE" check --history "$h" --what "$2" ||
			{ lost "$1" "$2 (history in $h)"; return 1; }
	done
}

for seed in $SEEDS; do
	faults=$KEEP/nemesis-$seed.faults
	: >"$faults"
	python3 "$ORACLE" run --seed "$seed" --seconds "$RUN_S" \
		--history "$KEEP/nemesis-$seed-a.jsonl" \
		/mnt/a/r2/a0 /mnt/a/r2/a1 /mnt/a/r3/a2 &
	wa=$!
	python3 "$ORACLE" run --seed $((seed + 1000)) --seconds "$RUN_S" \
		--history "$KEEP/nemesis-$seed-b.jsonl" \
		/mnt/a/r3/b0 /mnt/a/r3/b1 /mnt/a/r2/b2 &
	wb=$!
	RANDOM=$seed
	while kill -0 "$wa" 2>/dev/null || kill -0 "$wb" 2>/dev/null; do
		sleep $((1 + RANDOM % 3))
		fault "$faults"
	done
	ok=true
	wait "$wa" || { lost "$seed" "writer a"; ok=false; }
	wait "$wb" || { lost "$seed" "writer b"; ok=false; }
	ops=$(cat "$KEEP"/nemesis-"$seed"-*.jsonl | wc -l)
	acked=$(cat "$KEEP"/nemesis-"$seed"-*.jsonl |
		grep -c '"op": "write".*"err": null' || true)
	$ok && check "$seed" "after the run" || ok=false
	for i in 1 2 3; do
		kill_ds "$i"
		$ok && check "$seed" "with data server $i down" || ok=false
		restart "${DS_DIRS[i]}" aifs-ds
		DS_PIDS[i]=$SERVER_PID
		wait_all_up 120 >/dev/null
	done
	$ok && record "seed $seed: $ops operations, $acked writes acknowledged, $(wc -l <"$faults") fault lines: every acknowledged block read back"
done
umount /mnt/a
[ ${#FAILED[@]} = 0 ] || fail "seeds that failed: ${FAILED[*]}"
