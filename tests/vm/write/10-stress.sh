# Debian's load generators on an aifs mount: stress-ng's file-system
# stressors that apply to a network file system, all at once for 20 s
# (hdd and its reads checked with --verify), then fio with
# --verify=crc32c under four parallel jobs — sequential writes, random
# writes of 4 to 64 KiB — each checked as it ran (page cache) and again
# from a cold cache (the data servers). Any failure, verification error or
# kernel warning fails the test.
#
# Left out, for the client does not have them yet: fallocate, fpunch and
# fsize (fallocate(2)), and the stressors that write through a shared mmap.
. "$AIFS_TOP/tests/vm/lib.sh"

# eight stressors load the guest's two CPUs for 20 s: a data server's
# heartbeat may come late without the server being gone
AIFS_HEARTBEAT_GRACE_MS=10000
mount_cluster /mnt/a
mkdir /mnt/a/stress-ng /mnt/a/fio
log=$(mktemp /tmp/aifs-stress.XXXXXX)

stress-ng --temp-path /mnt/a/stress-ng --timeout 20s --verify \
	--metrics-brief --hdd 2 --hdd-bytes 8m --seek 1 --seek-size 64m \
	--readahead 1 --readahead-bytes 1m --iomix 1 --iomix-bytes 4m \
	--sync-file 1 --sync-file-bytes 4m --rename 1 --dentry 1 \
	--dentries 256 --dir 1 --dir-dirs 256 >"$log" 2>&1 ||
	{ rc=$?; cat "$log"; fail "stress-ng: exit $rc"; }
cat "$log"
grep -q "successful run completed" "$log" || fail "stress-ng did not complete"

# fio_verify NAME FIO-OPTION...: write and verify in one run, then verify
# alone after the page cache was dropped
fio_verify()
{
	local name=$1
	shift
	fio --name="$name" --directory=/mnt/a/fio --numjobs=4 \
		--ioengine=psync --verify=crc32c --verify_fatal=1 \
		--end_fsync=1 --group_reporting "$@" >"$log" 2>&1 ||
		{ rc=$?; cat "$log"; fail "fio $name: exit $rc"; }
	cat "$log"
	echo 3 >/proc/sys/vm/drop_caches
	fio --name="$name" --directory=/mnt/a/fio --numjobs=4 \
		--ioengine=psync --verify=crc32c --verify_fatal=1 \
		--verify_only --group_reporting "$@" >"$log" 2>&1 ||
		{ rc=$?; cat "$log"; fail "fio $name --verify_only: exit $rc"; }
	cat "$log"
}

fio_verify seq --rw=write --bs=256k --size=8m
fio_verify rand --rw=randwrite --bsrange=4k-64k --size=4m
rm -f "$log"
umount /mnt/a
