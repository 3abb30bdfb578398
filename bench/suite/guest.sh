# The guest side of bench/suite-bench (run by scripts/vm/run): every
# system on the same work in one boot with Soft-RoCE. One aifs cluster (an
# MDS and three data servers listening for TCP and RDMA on the Soft-RoCE
# address, chunk files on the guest's tmpfs) mounted by the kernel client
# twice, transport=rdma and transport=tcp; the kernel's nfsd exporting a
# tmpfs, mounted over RDMA and over TCP; and that tmpfs directly. Each
# workload runs on every system back to back, so that the load of the
# shared host moves the systems of one row together. Every run leaves its
# output in /aifs-results for bench/suite/report.py; params (sizes, time
# limits) come from the host in $AIFS_BUILD/suite-bench/params.
. "$AIFS_TOP/tests/vm/lib.sh"
. "$AIFS_BUILD/suite-bench/params"
LOCAL=/srv/suite	# tmpfs: the data, NFS's export and the local limit
. "$AIFS_TOP/bench/common/guest.sh"
MDTEST=$AIFS_BUILD/bench/aifs-mdtest
LOADER=$AIFS_BUILD/bench/aifs-loader
WRITER=$AIFS_TOP/bench/write/writer.py
# a small file: about an ImageNet JPEG, as MLPerf Storage's ResNet-50
SMALL_BYTES=112640

# aifs_mount_tcp: the second mount of the cluster, over TCP. The servers
# listen on the Soft-RoCE address only (use_rdma), and they give that
# address to clients for the data servers whatever the mount names, so
# this mount names it too: TCP to a local address goes over loopback as
# 127.0.0.1 would.
aifs_mount_tcp()
{
	local dir

	dir=$(root_of aifs-tcp)
	mkdir -p "$dir"
	umount_at_exit "$dir"
	mount -t aifs -o "secret=$AIFS_SECRET,transport=tcp" "$AIFS_ADDR:/" "$dir"
}

# rdma_moved BEFORE AFTER: what the counters rdma_read_bytes and
# rdma_write_bytes moved between two copies of a mount's stats
rdma_moved()
{
	awk 'NR == FNR { a[$1] = $2; next } { b[$1] = $2 }
		END {
			printf "rdma_read_bytes=%.0f rdma_write_bytes=%.0f\n",
				b["rdma_read_bytes"] - a["rdma_read_bytes"],
				b["rdma_write_bytes"] - a["rdma_write_bytes"]
		}' "$1" "$2"
}

# measured NAME SYSTEM COMMAND...: COMMAND for NAME-SYSTEM; for aifs-rdma,
# what its counters say went by RDMA meanwhile
measured()
{
	local name=$1-$2 sys=$2 stats=/tmp/stats status=0

	shift 2
	[ "$sys" != aifs-rdma ] || cp "$AIFS_RDMA_SYS/stats" "$stats"
	"$@" || status=$?
	[ "$sys" != aifs-rdma ] ||
		meta "rdma_$name" "$(rdma_moved "$stats" "$AIFS_RDMA_SYS/stats")"
	return $status
}

# small_files ROOT: the small-file set under ROOT/small, written by
# aifs-mdtest's create phase (its read phase checks every byte later)
small_files()
{
	mkdir -p "$1/small"
	"$MDTEST" -n 4 -f $((SMALL_FILES / 4)) -s $SMALL_BYTES -p create \
		"$1/small" >"$OUT/small-create-$(basename "$1").json" ||
		fail "writing the small files to $1"
}

# checkpoint SYSTEM N MIB: N writers at once, each a file of MIB / N MiB
# with fsync, from a clean cache, bounded as fio's write; each file then
# checked from a cold cache and removed
checkpoint()
{
	local sys=$1 n=$2 name=ckpt$2-$1 dir i pids=() held

	dir=$(root_of "$sys")/$name
	[[ $sys != aifs-* ]] || held=$(ds_mib)
	mkdir "$dir"
	sync
	echo 3 >/proc/sys/vm/drop_caches
	for i in $(seq "$n"); do
		timeout $((2 * WRITE_S)) python3 "$WRITER" write \
			"$dir/shard-$i" $(($3 / n)) >>"$OUT/$name.jsonl" &
		pids+=($!)
	done
	for i in "${pids[@]}"; do
		wait "$i" || fail "$name: a writer failed"
	done
	echo 3 >/proc/sys/vm/drop_caches
	for i in $(seq "$n"); do
		python3 "$WRITER" check "$dir/shard-$i" $(($3 / n)) 8 ||
			fail "$name: shard $i reads back wrong"
	done
	rm -r "$dir"
	[[ $sys != aifs-* ]] || chunks_gone "$held"
	say "$name done"
}

# The tmpfs holds the big file, the small files, three of the five fio
# writes (nfs-rdma's, nfs-tcp's, its own) and one checkpoint at a time.
mkdir -p "$LOCAL"
mount -t tmpfs -o size=$((5 * SIZE_MIB + SMALL_FILES / 8 + 512))m tmpfs "$LOCAL"
say "data: a file of $SIZE_MIB MiB, $SMALL_FILES files of $SMALL_BYTES bytes"
for k in size_mib rand_s small_files small_bytes md_clients md_files md_s \
	loader_batch loader_compute_ms loader_readers loader_prefetch loader_s ckpt_writers \
	quick; do
	v=${k^^}
	meta "$k" "${!v}"
done
head -c $((SIZE_MIB << 20)) /dev/urandom >"$LOCAL/big"
bench_load_aifs
use_rdma
mount_cluster "$(root_of aifs-rdma)"
aifs_mount_tcp
AIFS_RDMA_SYS=$(dirname "$(grep -lx rdma /sys/fs/aifs/aifs-*/transport)")
for sys in aifs-rdma aifs-tcp; do
	meta "${sys}_opts" "$(mount_opts "$sys")"
done
put_file "$LOCAL/big" /big
# the first 64 MiB through each mount: all of it costs a minute or more
# under TCG
for sys in aifs-rdma aifs-tcp; do
	cmp -n $((64 << 20)) "$LOCAL/big" "$(root_of "$sys")/big" ||
		fail "$sys: big reads back wrong"
done
small_files "$(root_of aifs-rdma)"
small_files "$LOCAL"
say "aifs up over RDMA and TCP, data in"
bench_systems rw nfs_writes aifs-rdma aifs-tcp nfs-rdma nfs-tcp
# the default readahead of aifs (8 MiB) on NFS too, as read-bench does
for sys in $SYSTEMS; do
	[[ $sys != nfs-* ]] || echo 8192 >"$(bdi_of "$sys")/read_ahead_kb"
done

for sys in $SYSTEMS; do
	measured seq "$sys" fio_cold "seq-$sys" "$SEQ_S" --readonly \
		--name=seq --rw=read --bs=1M --filename="$(root_of "$sys")/big"
done
# fio's fadvise_hint makes them POSIX_FADV_RANDOM: no readahead
for sys in $SYSTEMS; do
	measured rand "$sys" fio_cold "rand-$sys" "$RAND_S" --readonly \
		--name=rand --rw=randread --bs=4k --time_based \
		--percentile_list=50:95:99 --filename="$(root_of "$sys")/big"
done
# each client its own directory, every phase from a cold cache
for sys in $SYSTEMS; do
	mkdir -p "$(root_of "$sys")/md-$sys"
	"$MDTEST" -n "$MD_CLIENTS" -f "$MD_FILES" -p create,stat,unlink -d \
		-t "$MD_S" "$(root_of "$sys")/md-$sys" >"$OUT/md-$sys.json" ||
		fail "aifs-mdtest on $sys"
	say "md-$sys done"
done
for sys in $SYSTEMS; do
	measured small "$sys" "$MDTEST" -n 4 -f $((SMALL_FILES / 4)) \
		-s $SMALL_BYTES -p read -d -t "$SMALL_S" \
		"$(root_of "$sys")/small" >"$OUT/small-$sys.json" ||
		fail "aifs-mdtest reading the small files on $sys"
	say "small-$sys done"
done
# emulated accelerators, doubling until one trial falls below 90 %
for sys in $SYSTEMS; do
	measured loader "$sys" "$LOADER" -a "$LOADER_ACCELERATORS" \
		-b "$LOADER_BATCH" -c "$LOADER_COMPUTE_MS" -r "$LOADER_READERS" \
		-q "$LOADER_PREFETCH" -d -t "$LOADER_S" "$(root_of "$sys")/small" \
		>"$OUT/loader-$sys.json" || fail "aifs-loader on $sys"
	say "loader-$sys done"
done
# a new file each, kept to the end; written as dd would (no
# preallocation), its fsync inside the time fio counts
for sys in $SYSTEMS; do
	measured write "$sys" fio_cold "write-$sys" "$WRITE_S" --name=write \
		--rw=write --bs=1M --size="${SIZE_MIB}m" --fallocate=none \
		--end_fsync=1 --filename="$(root_of "$sys")/written-$sys"
done
for sys in $SYSTEMS; do
	measured "ckpt$CKPT_WRITERS" "$sys" checkpoint "$sys" "$CKPT_WRITERS" \
		"$SIZE_MIB"
	measured ckpt1 "$sys" checkpoint "$sys" 1 "$SIZE_MIB"
done
say "all done"
