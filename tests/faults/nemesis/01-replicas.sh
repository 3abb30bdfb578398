# The acknowledged-writes oracle with a nemesis (issue 29), through the
# kernel's client, on files of replicas=2 and replicas=3 over three data
# servers: two writers (tests/faults/nemesis/oracle.py) write
# self-describing blocks, rewrite, truncate and re-create them with
# O_TRUNC, and read ranges back with O_DIRECT, while a nemesis kills (-9)
# and restarts, stops (SIGSTOP), cuts off the network or fills the disk
# of one data server at a time (AIFS_NEMESIS_FAULTS=5: kills and stops
# only), or kills and restarts the MDS (AIFS_NEMESIS_FAULTS=8, as make
# test-long: or fills its disk), waiting for all to be UP before the next
# fault. A write is acknowledged once its fsync returned 0.
# Every read during the run returns, per block, the last acknowledged
# write there or one tried since, never zeros in place of an acknowledged
# write and never another file's or place's block; at the end every block
# of every file does, read through the mount and again with each server
# down in turn (so that every copy is read). The seeds come from
# AIFS_NEMESIS_SEEDS ("5 28" in make test: between them every kind of
# fault: kills of the MDS and of data servers, stops, cuts and full
# disks), each run for
# AIFS_NEMESIS_SECONDS (45); the history of each (every operation, its
# outcome, the faults) is kept in the test's results as
# nemesis-replicas-SEED-*.jsonl and nemesis-replicas-SEED.faults, and
# the servers' logs when it fails. A failing seed does not stop the
# others; the test fails at the end, naming every failing seed (the same
# seed replays the same operations and faults, not their timing).
. "$AIFS_TOP/tests/vm/lib.sh"
. "$AIFS_TOP/tests/faults/replica/helpers"
. "$AIFS_TOP/tests/faults/nemesis/helpers"

nemesis_cluster nemesis-replicas 3
mkdir /mnt/a/r2 /mnt/a/r3
aifs setlayout /mnt/a/r2 replicas=2 stripes=1 >/dev/null ||
	fail "setlayout replicas=2"
aifs setlayout /mnt/a/r3 replicas=3 stripes=1 >/dev/null ||
	fail "setlayout replicas=3"
# shellcheck disable=SC2086
nemesis_seeds /mnt/a/r2 /mnt/a/r3 ${AIFS_NEMESIS_SEEDS:-5 28}
