# Exits 0 but makes the kernel WARN: the harness must say FAIL.
insmod "$AIFS_KMOD_TREE/tests/harness/kmod/aifs_selftest.ko" warn=1
