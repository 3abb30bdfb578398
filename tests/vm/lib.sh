# Helpers for guest test scripts: source "$AIFS_TOP/tests/vm/lib.sh".
# A guest test passes by exiting 0, is skipped by skip(), fails otherwise;
# the harness also fails it on any oops/BUG/WARN in the kernel log.

set -euo pipefail

fail()
{
	echo "FAIL: $*" >&2
	exit 1
}

skip()
{
	echo "$*"
	exit 77
}

# Load the module built in this tree unless it is loaded already.
load_aifs()
{
	grep -q '^aifs ' /proc/modules || insmod "$AIFS_TOP/kmod/aifs.ko"
}

module_refcount()
{
	cat /sys/module/aifs/refcnt
}

# expect_mount ERRNO-NAME|ok SOURCE TARGET [OPTIONS]: mount(2) with type aifs
# must give that result.
expect_mount()
{
	local want=$1 got
	shift
	got=$(aifs-try-mount "$@" || true)
	[ "$got" = "$want" ] || fail "mount $*: got $got, want $want"
}

# expect_dmesg REGEX: the kernel log since the test began matches.
expect_dmesg()
{
	dmesg | grep -qE -- "$1" || fail "kernel log lacks /$1/"
}

# assert_eq GOT WANT WHAT
assert_eq()
{
	[ "$1" = "$2" ] || fail "$3: got '$1', want '$2'"
}
