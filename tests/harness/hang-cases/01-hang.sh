# Stuck in the kernel past its limit and beyond SIGKILL: the harness must
# report a hang and stop the group.
insmod "$AIFS_TOP/tests/harness/kmod/aifs_selftest.ko" stall_s=60
