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

# Load the module built in this tree unless it is loaded already; insmod
# does not load what it depends on (libcrc32c), so modprobe that first.
load_aifs()
{
	local ko=$AIFS_TOP/kmod/aifs.ko deps
	grep -q '^aifs ' /proc/modules && return
	deps=$(modinfo -F depends "$ko")
	[ -z "$deps" ] || modprobe -a ${deps//,/ }
	insmod "$ko"
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

# The shared secret of the test servers, as given to mount with secret=.
AIFS_SECRET=test-secret-of-the-aifs-cluster
AIFS_SERVER_PIDS=()

stop_servers()
{
	local pid
	for pid in "${AIFS_SERVER_PIDS[@]}"; do
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	AIFS_SERVER_PIDS=()
}

# start_server PORT [SETTING=VALUE...]: run aifs-echo-server on
# 127.0.0.1:PORT with $AIFS_SECRET in a mode 0600 file and its own config
# under /tmp; it is killed when the test exits.  Sets SERVER_PID.
start_server()
{
	local port=$1 dir kv i
	shift
	command -v aifs-echo-server >/dev/null ||
		skip "aifs-echo-server not built (make user)"
	dir=$(mktemp -d /tmp/aifs-server.XXXXXX)
	(umask 077 && printf '%s\n' "$AIFS_SECRET" >"$dir/secret")
	{
		echo "listen_address = 127.0.0.1"
		echo "listen_port = $port"
		echo "secret_file = $dir/secret"
		for kv; do echo "${kv%%=*} = ${kv#*=}"; done
	} >"$dir/echo.conf"
	aifs-echo-server -c "$dir/echo.conf" >"$dir/log" 2>&1 &
	SERVER_PID=$!
	AIFS_SERVER_PIDS+=("$SERVER_PID")
	trap stop_servers EXIT
	for i in $(seq 100); do
		grep -q "listening on" "$dir/log" && return 0
		kill -0 "$SERVER_PID" 2>/dev/null || break
		sleep 0.1
	done
	cat "$dir/log" >&2
	fail "aifs-echo-server on port $port did not start"
}

# start_fake_server MODE PORT: the hostile server of
# tests/vm/module/fake-server.py, killed when the test exits.  Sets
# SERVER_PID.
start_fake_server()
{
	local log i
	log=$(mktemp /tmp/aifs-fake.XXXXXX)
	python3 "$AIFS_TOP/tests/vm/module/fake-server.py" "$1" "$2" \
		"$AIFS_SECRET" >"$log" 2>&1 &
	SERVER_PID=$!
	AIFS_SERVER_PIDS+=("$SERVER_PID")
	trap stop_servers EXIT
	for i in $(seq 100); do
		grep -q ready "$log" && return 0
		kill -0 "$SERVER_PID" 2>/dev/null || break
		sleep 0.1
	done
	cat "$log" >&2
	fail "fake server $1 on port $2 did not start"
}
