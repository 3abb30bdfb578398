# Stuck in the kernel past its limit and beyond SIGKILL: the harness must
# report a hang and stop the group.
insmod "$AIFS_KMOD_TREE/tests/harness/kmod/aifs_selftest.ko" stall_s=60
