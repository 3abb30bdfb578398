# Makes the kernel WARN, then erases the kernel's log buffer and floods it
# past its size: the harness judges its own copy of the log, so it must
# still say FAIL.
rmmod aifs_selftest 2>/dev/null
insmod "$AIFS_KMOD_TREE/tests/harness/kmod/aifs_selftest.ko" warn=1
dmesg -C
for i in $(seq 2000); do
	echo "aifs-selftest: line $i of a log larger than the kernel's buffer" >/dev/kmsg
done
