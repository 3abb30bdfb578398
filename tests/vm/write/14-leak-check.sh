# The leak check of the cycle tests (expect_no_slab_leak) sees a real
# leak: the test-only module, loaded with leak_bytes=200, loses one
# kmalloc-256 object per load, and the check must fail naming that cache
# at about one object per cycle (0.9 to 1.4: the guest's own allocations
# share the cache, 6.12 once counted 17 in 16 cycles); four windows of 4
# loads, as the slab counts are exact, to keep it short.  (Its passes are the cycle tests
# themselves: module/04, read/07, write/06.)
. "$AIFS_TOP/tests/vm/lib.sh"

ko=$AIFS_KMOD_TREE/tests/harness/kmod/aifs_selftest.ko
[ -f "$ko" ] || skip "aifs_selftest.ko not built (make test-kmods)"

leaky()
{
	local i
	for i in $(seq "$1"); do
		insmod "$ko" leak_bytes=200
		rmmod aifs_selftest
	done
}

out=$( (expect_no_slab_leak leaky 4) 2>&1) &&
	{ echo "$out"; fail "a leak of one object per cycle passed the check"; }
echo "$out"
grep -Eq 'kmalloc-256: [0-9 ]* \((0\.9|1\.[0-4]) objects per cycle\)' \
	<<<"$out" || fail "the check did not name kmalloc-256 at one object per cycle"
