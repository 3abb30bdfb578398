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
# (Documentation/demo.md): 3072 samples of about 62 KiB in 12 shards,
# batches of 32 read by two workers, a checkpoint of 256 MiB of synthetic
# tensors plus the model's by four writers.
SAMPLES=3072
SHARDS=12
BATCH=32
WORKERS=2
CKPT_MIB=256
CKPT_WRITERS=4

# One clock for every line, the Python programs' too (common.py).
DEMO_T0=$(date +%s.%N)
export DEMO_T0 PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
# training keeps both CPUs busy for minutes: heartbeats may lag
export AIFS_HEARTBEAT_GRACE_MS=30000

elapsed() { awk -v a="$DEMO_T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%6.1f", b - a }'; }
say() { echo "[$(elapsed)s] $*"; }
phase() { say "== $*"; }

# stat_of NAME: one counter of the mount's stats file
stat_of() { aifs_stat "$SYS" "$1"; }

mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }

# show_rdma: what says that the mount goes over RDMA
show_rdma()
{
	local cm

	assert_eq "$(cat "$SYS/transport")" rdma "$SYS/transport"
	say "$SYS/transport: $(cat "$SYS/transport")"
	say "Soft-RoCE: $(rdma link show rxe0/1)"
	cm=$(rdma resource show cm_id 2>/dev/null | grep -c ' comm \[aifs\] ' || true)
	say "the kernel client holds $cm rdma_cm connection(s) so far" \
		"(the MDS's; a data server's opens with the first I/O to it)"
}

# summary: the one line of numbers, from train.py's results
summary()
{
	local r

	r=$(jq -r '[.samples_per_s, 100 * .accelerator_utilisation,
		.ckpt_bytes / 1048576, .ckpt_write_gbs, .ckpt_read_gbs] |
		@tsv' "$RESULTS")
	set -- $r
	printf 'SUMMARY: training %.1f samples/s, accelerator utilisation %.1f%%;' "$1" "$2"
	printf ' checkpoint %.0f MiB written at %.3f GB/s, read back at %.3f GB/s, verified;' "$3" "$4" "$5"
	printf ' over RDMA: %s MiB read, %s MiB written\n' \
		"$(mib "$(stat_of rdma_read_bytes)")" "$(mib "$(stat_of rdma_write_bytes)")"
}

phase "aifs demo in a $(uname -r) guest, $(nproc) CPUs, $(free -m | awk 'NR == 2 { print $2 }') MiB"
phase "1/5 cluster: one MDS and three data servers, mounted over RDMA"
use_rdma
say "Soft-RoCE up: rxe0 on dummy0, $AIFS_RDMA_ADDR"
mount_cluster "$MNT" read_ahead_kb=16384
SYS=$(ls -d /sys/fs/aifs/aifs-*)
say "aifs-mds on $AIFS_ADDR:7400 and aifs-ds on $AIFS_ADDR:7401-7403" \
	"(LMDB and chunk files in the guest's memory)"
say "mounted: $(grep " $MNT " /proc/mounts | cut -d' ' -f1-4)"
show_rdma
aifs -s "$MDS_DIR/secret" status "$MNT" | sed "s/^/[$(elapsed)s]   /"

phase "2/5 training set: WebDataset tar shards written through the mount"
mkdir -p "$MNT/datasets/demo" "$MNT/checkpoints"
"$PY" "$DEMO/shards.py" "$MNT/datasets/demo" "$SAMPLES" "$SHARDS" 2
say "layout: $(aifs getlayout "$MNT/datasets/demo/train-0000.tar" | tr '\n' ' ')"
say "so far $(mib "$(stat_of rdma_write_bytes)") MiB went to the servers by their RDMA READs"
say "$MNT/datasets/demo: $(ls "$MNT/datasets/demo" | wc -l) files," \
	"$(du -sm "$MNT/datasets/demo" | cut -f1) MiB"

say "training and the checkpoint: one PyTorch process (phases 3 and 4)"
"$PY" "$DEMO/train.py" --data "$MNT/datasets/demo" \
	--ckpt "$MNT/checkpoints/epoch-1" --sysfs "$SYS" --results "$RESULTS" \
	--batch "$BATCH" --workers "$WORKERS" --ckpt-mib "$CKPT_MIB" \
	--ckpt-writers "$CKPT_WRITERS"
show_rdma

phase "5/5 client statistics: aifs stats $MNT (from the module, over generic netlink)"
aifs stats "$MNT"
summary
umount "$MNT"
say "unmounted; the servers stop, the module unloads (the harness checks the kernel log)"
