# Parallel checkpoint writers: six processes, three on each of two mounts
# of the file system, write disjoint ranges of one file (ranges crossing
# chunk boundaries, not chunk-aligned), fsync and close it. Afterwards
# the file reads right (sha256 against a local copy) and has the right
# size through both mounts after a new open (close-to-open), again from
# a cold cache, and on the MDS and data servers without the kernel.
# Cases: range boundaries on page boundaries with the fsyncs at once, the
# same with the fsyncs in turn from the last range down (each commit of a
# smaller size comes after a larger one), and boundaries inside pages
# (neighbours on two mounts share a page).
. "$AIFS_TOP/tests/vm/lib.sh"

MiB=1048576
mount_cluster /mnt/a
umount_at_exit /mnt/b
mkdir -p /mnt/b
mount -t aifs -o "$(with_transport secret=$AIFS_SECRET)" "$AIFS_ADDR:/" /mnt/b
src=$(mktemp -d /tmp/aifs-src.XXXXXX)
size=$((13 * MiB + 4321))
head -c $size /dev/urandom >"$src/data"
# range i is [bounds[i], bounds[i + 1]); ranges 1, 3 and 5 hold the chunk
# boundaries at 4, 8 and 12 MiB
bounds=(0 $((3 * MiB + 1001)) $((5 * MiB + 17)) $((7 * MiB + 3333))
	$((9 * MiB + 4097)) $((11 * MiB + 555)) $size)
mounts=(a b)
failed=()

# sha256 and size (fstat) of a file, by a new open of it
open_sum()
{
	python3 -c 'import hashlib, os, sys
with open(sys.argv[1], "rb") as f:
    print(hashlib.sha256(f.read()).hexdigest(), os.fstat(f.fileno()).st_size)' "$1"
}

want="$(sha256sum <"$src/data" | cut -d' ' -f1) $size"

# check NAME WHEN: the file NAME reads as $src/data through both mounts
check()
{
	local m got
	for m in a b; do
		got=$(open_sum "/mnt/$m/$1")
		[ "$got" = "$want" ] && continue
		echo "$1 through /mnt/$m $2: got $got, want $want"
		return 1
	done
}

# run_case NAME ALIGN ORDER: the six writers of file NAME, boundaries
# rounded down to ALIGN bytes, fsyncs together or lastfirst
run_case()
{
	local name=$1 align=$2 order=$3 i lo hi turn pids=() go=()

	for i in 0 1 2 3 4 5; do
		lo=$((bounds[i] / align * align))
		hi=$((i == 5 ? size : bounds[i + 1] / align * align))
		[ "$order" = together ] || go[i]=$src/go.$name.$i
		python3 "$AIFS_TOP/tests/vm/write/range-writer.py" \
			"$src/data" "/mnt/${mounts[i % 2]}/$name" $lo $hi \
			${go[i]:-} >"$src/out.$name.$i" &
		pids[i]=$!
	done
	turn="0 1 2 3 4 5"
	if [ "$order" = lastfirst ]; then
		turn="5 4 3 2 1 0"
		for i in 0 1 2 3 4 5; do
			until grep -q written "$src/out.$name.$i"; do
				kill -0 ${pids[i]} || break
				sleep 0.1
			done
		done
	fi
	for i in $turn; do
		[ -z "${go[i]:-}" ] || touch "${go[i]}"
		wait ${pids[i]} || fail "$name: writer $i failed"
	done
	# what the MDS and the data servers hold, without the kernel
	aifs-put -s "$MDS_DIR/secret" -m "$AIFS_ADDR:7400" -u "$AIFS_FS_UUID" \
		-g "/$name" >"$src/servers" || fail "aifs-put -g /$name"
	if ! cmp "$src/data" "$src/servers"; then
		echo "$name on the servers: size $(stat -c %s "$src/servers"), want $size"
		failed+=("$name")
		return
	fi
	check "$name" "after close" || { failed+=("$name"); return; }
	echo 3 >/proc/sys/vm/drop_caches
	check "$name" "from a cold cache" || failed+=("$name")
}

run_case paged 4096 together
run_case paged-lastfirst 4096 lastfirst
run_case bytes 1 together
run_case bytes-lastfirst 1 lastfirst
[ ${#failed[@]} = 0 ] || fail "wrong file in case(s): ${failed[*]}"
umount /mnt/b
umount /mnt/a
rm -rf "$src"
