# lib.sh's log_mark: expect_dmesg and kernel_log_has read only what the
# kernel logged after the mark, and the harness still judges all of it.
. "$AIFS_TOP/tests/vm/lib.sh"
echo "aifs-selftest: before the mark" >/dev/kmsg
expect_dmesg "aifs-selftest: before the mark"
log_mark
! kernel_log_has "before the mark" || fail "the log since the mark has an earlier line"
echo "aifs-selftest: after the mark" >/dev/kmsg
expect_dmesg "aifs-selftest: after the mark"
