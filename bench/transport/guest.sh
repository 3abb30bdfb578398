# The guest side of bench/transport-bench (run by scripts/vm/run): one
# aifs cluster (one MDS and three data servers listening for TCP and RDMA
# on the Soft-RoCE address, chunk files on the guest's tmpfs) mounted by
# the kernel client twice, with transport=rdma and transport=tcp; the
# kernel's nfsd exporting a tmpfs, mounted over RDMA and over TCP; and
# that tmpfs read and written directly. Every fio run leaves its JSON in
# /aifs-results for the host's bench/transport/report.py, with what the
# RDMA mount's counters say went by RDMA in the meta file; params (size,
# run times) come from the host in $AIFS_BUILD/transport-bench/params.
. "$AIFS_TOP/tests/vm/lib.sh"
. "$AIFS_BUILD/transport-bench/params"	# SIZE_MIB SEQ_S WRITE_S RAND_S QUICK
LOCAL=/srv/tb		# tmpfs: the data, NFS's export and the local limit
. "$AIFS_TOP/bench/common/guest.sh"

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
# rdma_write_bytes (of a kernel client newer than some) moved between two
# copies of a mount's stats; n/a where there are none
rdma_moved()
{
	awk 'NR == FNR { a[$1] = $2; next } { b[$1] = $2 }
		END {
			split("rdma_read_bytes rdma_write_bytes", k)
			for (i = 1; i <= 2; i++) {
				v = k[i] in b ? sprintf("%.0f", b[k[i]] - a[k[i]]) : "n/a"
				printf "%s=%s%s", k[i], v, i < 2 ? " " : "\n"
			}
		}' "$1" "$2"
}

# run NAME SYSTEM SECONDS FIO-ARGS...: fio_cold of NAME-SYSTEM; for
# aifs-rdma, what its counters say went by RDMA meanwhile
run()
{
	local name=$1-$2 sys=$2 stats=/tmp/stats

	shift 2
	[ "$sys" != aifs-rdma ] || cp "$AIFS_RDMA_SYS/stats" "$stats"
	fio_cold "$name" "$@"
	[ "$sys" != aifs-rdma ] ||
		meta "rdma_$name" "$(rdma_moved "$stats" "$AIFS_RDMA_SYS/stats")"
}

say "data: one file of $SIZE_MIB MiB"
meta size_mib "$SIZE_MIB"
meta quick "$QUICK"
mkdir -p "$LOCAL"
# the big file, then the files written by NFS's two mounts and tmpfs
mount -t tmpfs -o size=$((4 * SIZE_MIB + 256))m tmpfs "$LOCAL"
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
say "aifs up over RDMA and TCP, data put in"
bench_systems rw nfs_writes aifs-rdma aifs-tcp nfs-rdma nfs-tcp
# the default readahead of aifs (8 MiB) on NFS too, as read-bench does
for sys in $SYSTEMS; do
	[[ $sys != nfs-* ]] || echo 8192 >"$(bdi_of "$sys")/read_ahead_kb"
done

# Each workload on every system back to back, so that the load of the
# shared host moves the systems of one row together.
for sys in $SYSTEMS; do
	run seq "$sys" "$SEQ_S" --readonly --name=seq --rw=read --bs=1M \
		--filename="$(root_of "$sys")/big"
done
# fio's fadvise_hint makes them POSIX_FADV_RANDOM: no readahead
for sys in $SYSTEMS; do
	run rand "$sys" "$RAND_S" --readonly --name=rand --rw=randread \
		--bs=4k --filename="$(root_of "$sys")/big" --time_based \
		--percentile_list=50:99
done
# a new file each, kept to the end; written as dd would (no
# preallocation), its fsync inside the time fio counts
for sys in $SYSTEMS; do
	run write "$sys" "$WRITE_S" --name=write --rw=write --bs=1M \
		--size="${SIZE_MIB}m" --fallocate=none --end_fsync=1 \
		--filename="$(root_of "$sys")/written-$sys"
done
say "all done"
