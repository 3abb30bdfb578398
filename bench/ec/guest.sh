# The guest side of bench/ec-read-bench (run by scripts/vm/run): one MDS
# and six data servers on loopback TCP, the kernel client; the same data
# as a replicated file (two copies, three groups) and as a 4+2 EC file
# (256 KiB fragments), read sequentially with 1 MiB reads from a cold
# cache: healthy; with the server of one EC data fragment dead (the
# replicated file read then too: its chunks there fail over); with a
# second dead (M). The tmpfs the data came from is the limit. Results as
# "CASE MB/s" lines in /aifs-results/ec-read.
. "$AIFS_TOP/tests/vm/lib.sh"
. "$AIFS_BUILD/ec-read-bench/params"	# SIZE_MIB
LOCAL=/srv/ecb
. "$AIFS_TOP/bench/common/guest.sh"

read_rate()	# CASE FILE: a cold sequential read, MB/s into the results
{
	local start end mbs
	echo 3 >/proc/sys/vm/drop_caches
	start=$(date +%s.%N)
	dd if="$2" of=/dev/null bs=1M status=none || fail "$1: read failed"
	end=$(date +%s.%N)
	mbs=$(echo "$SIZE_MIB * 1.048576 / ($end - $start)" | bc -l)
	printf '%s %.1f\n' "$1" "$mbs" >>"$OUT/ec-read"
	say "$1: $(printf '%.1f' "$mbs") MB/s"
}

mkdir -p "$LOCAL" "$OUT"
mount -t tmpfs -o size=$((SIZE_MIB + 64))m tmpfs "$LOCAL"
head -c $((SIZE_MIB << 20)) /dev/urandom >"$LOCAL/data"
export AIFS_DS_COUNT=6
mount_cluster "$AIFS"
mkdir "$AIFS/rep" "$AIFS/ec"
aifs setlayout "$AIFS/rep" replicas=2 chunk=4M stripes=3 >/dev/null ||
	fail "setlayout replicas=2"
aifs setlayout "$AIFS/ec" ec=4+2 >/dev/null || fail "setlayout ec=4+2"
say "writing $SIZE_MIB MiB twice"
cp "$LOCAL/data" "$AIFS/rep/data" && cp "$LOCAL/data" "$AIFS/ec/data" ||
	fail "cp"
sync
want=$(sha256sum <"$LOCAL/data")
[ "$(sha256sum <"$AIFS/ec/data")" = "$want" ] || fail "ec: wrong bytes"
meta size_mib "$SIZE_MIB"
meta ec_layout "$(aifs getlayout "$AIFS/ec/data" | head -n1)"

read_rate "tmpfs" "$LOCAL/data"
read_rate "replicas=2" "$AIFS/rep/data"
read_rate "ec=4+2" "$AIFS/ec/data"
# shellcheck disable=SC2207
targets=($(aifs getlayout "$AIFS/ec/data" | sed -n 's/^targets: //p'))
kill -KILL "${DS_PIDS[$(ds_index "${targets[1]}")]}"
read_rate "replicas=2, one server dead" "$AIFS/rep/data"
read_rate "ec=4+2, one data server dead" "$AIFS/ec/data"
kill -KILL "${DS_PIDS[$(ds_index "${targets[3]}")]}"
read_rate "ec=4+2, two data servers dead" "$AIFS/ec/data"
[ "$(sha256sum <"$AIFS/ec/data")" = "$want" ] ||
	fail "ec: wrong bytes with two dead"
umount "$AIFS"
