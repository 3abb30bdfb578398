# Runs in the guest for 'make demo' (scripts/demo.sh boots it): the main
# job of aifs in one boot. A cluster (aifs-mds and three aifs-ds) starts
# on a Soft-RoCE address and the kernel client mounts it over RDMA; a
# training set of WebDataset-style tar shards is written through the
# mount; a small CNN trains on it for one epoch through a multi-worker
# PyTorch DataLoader; a checkpoint goes back through the mount from
# parallel writers and is read back and checked; then the client's
# statistics and a one-line summary. Documentation/demo.md explains
# every number. Any failure (a mismatch included) exits non-zero.
. "$AIFS_TOP/tests/vm/lib.sh"

DEMO=$AIFS_TOP/scripts/demo
# Debian's Python, which has PyTorch (python3-torch), whatever is first
# in PATH on the host
PY=/usr/bin/python3
MNT=/mnt/aifs
RESULTS=/tmp/demo-results.json
# The sizes, chosen for about five minutes in the guest under TCG
# (Documentation/demo.md): 3072 samples of about 62 KiB in 12 shards
# written by two processes, batches of 32 read by two workers for one
# trainer thread, a checkpoint of 256 MiB of synthetic tensors plus the
# model's by four writers.
SAMPLES=3072
SHARDS=12
SHARD_WRITERS=2
BATCH=32
WORKERS=2
THREADS=1
CKPT_MIB=256
CKPT_WRITERS=4

# One clock for every line, the Python programs' too (common.py).
DEMO_T0=$(date +%s.%N)
export DEMO_T0 PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
# training keeps both CPUs busy for minutes: heartbeats may lag
export AIFS_HEARTBEAT_GRACE_MS=30000

elapsed()
{
	awk -v a="$DEMO_T0" -v b="$(date +%s.%N)" \
		'BEGIN { printf "%6.1f", b - a }'
}

say() { echo "[$(elapsed)s] $*"; }
phase() { say "== $*"; }

# stat_of NAME: one counter of the mount's stats file
stat_of() { aifs_stat "$SYS" "$1"; }

mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }

# layout_of FILE: its layout on one line
layout_of() { aifs getlayout "$1" | tr '\n' ' '; }

# held: MiB of chunk files each data server holds
held()
{
	local i

	for i in 1 2 3; do
		printf 'aifs-ds %d %s MiB; ' "$i" \
			"$(du -sm "${DS_DIRS[i]}/data" | cut -f1)"
	done
}

# show_rdma WHEN: what says that the mount goes over RDMA: its transport,
# the Soft-RoCE link, and the kernel's rdma_cm ids owned by aifs (one per
# connection: the MDS's from the mount on, a data server's from the first
# I/O to it)
show_rdma()
{
	local cm

	assert_eq "$(cat "$SYS/transport")" rdma "$SYS/transport"
	cm=$(rdma resource show cm_id 2>/dev/null | grep -c ' comm \[aifs\] ' || true)
	say "$SYS/transport: $(cat "$SYS/transport"); $(rdma link show rxe0/1 |
		awk '{ print $2, $4, "on", $8 }'); $1 the kernel client" \
		"holds $cm RDMA connection(s) (rdma_cm ids)"
}

# summary: the one line of numbers, from train.py's results
summary()
{
	local r

	r=$(jq -r '[.samples_per_s, 100 * .accelerator_utilisation,
		.ckpt_bytes / 1048576, .ckpt_write_gbs, .ckpt_read_gbs] |
		@tsv' "$RESULTS")
	set -- $r
	printf 'SUMMARY: %.1f samples/s, accelerator utilisation %.1f%%;' \
		"$1" "$2"
	printf ' checkpoint of %.0f MiB written at %.3f GB/s,' "$3" "$4"
	printf ' read back at %.3f GB/s, verified;' "$5"
	printf ' RDMA carried %s of %s MiB read, %s of %s MiB written\n' \
		"$(mib "$(stat_of rdma_read_bytes)")" \
		"$(mib "$(stat_of chunk_read_bytes)")" \
		"$(mib "$(stat_of rdma_write_bytes)")" \
		"$(mib "$(stat_of chunk_write_bytes)")"
}

phase "aifs demo in a $(uname -r) guest, $(nproc) CPUs," \
	"$(free -m | awk 'NR == 2 { print $2 }') MiB"
phase "1/5 cluster: one MDS and three data servers, mounted over RDMA"
use_rdma
say "Soft-RoCE up: rxe0 on dummy0, $AIFS_RDMA_ADDR"
mount_cluster "$MNT" read_ahead_kb=16384
SYS=$(ls -d /sys/fs/aifs/aifs-*)
say "aifs-mds on $AIFS_ADDR:7400 and aifs-ds on $AIFS_ADDR:7401-7403" \
	"(LMDB and chunk files in the guest's memory)"
say "mounted: $(grep " $MNT " /proc/mounts | cut -d' ' -f1-4)"
show_rdma "before any I/O"
aifs -s "$MDS_DIR/secret" status "$MNT" | sed "s/^/[$(elapsed)s]   /"
# aifs-ds does not tell the MDS that it listens for RDMA (DS_REGISTER's
# AIFS_DS_RDMA is never set), so the column above says no; the servers
# say what they listen on in their logs
say "(status's RDMA column: what the data servers report, and they do not" \
	"report it yet; their own logs say:)"
for i in 1 2 3; do
	say "  aifs-ds $i: $(grep -o 'listening on .*' "${DS_DIRS[i]}/log")"
done

phase "2/5 training set: WebDataset tar shards written through the mount"
# Both in the cluster's default layout: one copy, 4 MiB chunks striped
# over the three servers. (Checkpoints in two copies would take
# replicas=2 stripes=1 on three servers; under TCG their writeback then
# kept an fsync waiting past the guest's 20 s hung-task limit:
# Documentation/demo.md.)
mkdir -p "$MNT/datasets/demo" "$MNT/checkpoints"
"$PY" "$DEMO/shards.py" "$MNT/datasets/demo" "$SAMPLES" "$SHARDS" \
	"$SHARD_WRITERS"
say "layout of a shard: $(layout_of "$MNT/datasets/demo/train-0000.tar")"
say "sent to the data servers: $(mib "$(stat_of chunk_write_bytes)") MiB," \
	"$(mib "$(stat_of rdma_write_bytes)") MiB of it fetched by their RDMA READs"
say "$MNT/datasets/demo: $(ls "$MNT/datasets/demo" | wc -l) files," \
	"$(du -sm "$MNT/datasets/demo" | cut -f1) MiB"

say "training and the checkpoint: one PyTorch process (phases 3 and 4)"
"$PY" "$DEMO/train.py" --data "$MNT/datasets/demo" \
	--ckpt "$MNT/checkpoints/epoch-1" --sysfs "$SYS" --results "$RESULTS" \
	--batch "$BATCH" --workers "$WORKERS" --threads "$THREADS" \
	--ckpt-mib "$CKPT_MIB" --ckpt-writers "$CKPT_WRITERS"
ckpt=("$MNT"/checkpoints/epoch-1/*.safetensors)
say "layout of a checkpoint shard: $(layout_of "${ckpt[0]}")"
say "held by the data servers: $(held)the data set and the checkpoint"
show_rdma "now"

phase "5/5 client statistics: aifs stats $MNT" \
	"(from the module, over generic netlink)"
aifs stats "$MNT"
summary
umount "$MNT"
say "unmounted; the servers stop and the module unloads" \
	"(the harness checks the kernel log)"
