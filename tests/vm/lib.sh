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
	local ko=$AIFS_KMOD_TREE/kmod/aifs.ko deps
	grep -q '^aifs ' /proc/modules && return
	deps=$(modinfo -F depends "$ko")
	[ -z "$deps" ] || modprobe -a ${deps//,/ }
	insmod "$ko"
}

# Where the test servers listen and mounts connect: loopback, or the
# Soft-RoCE address after use_rdma.
AIFS_ADDR=127.0.0.1
AIFS_MOUNT_TRANSPORT=

# Soft-RoCE on a dummy interface: RDMA within the guest to $AIFS_RDMA_ADDR.
AIFS_RDMA_ADDR=10.99.0.1
rdma_setup()
{
	[ -e /sys/class/infiniband/rxe0 ] && return
	modprobe -a rdma_rxe rdma_ucm ib_uverbs ||
		skip "no Soft-RoCE here (rdma_rxe)"
	# the interface outlives a removed device (tests/vm/rdma/04)
	if ! ip link show dummy0 >/dev/null 2>&1; then
		ip link add dummy0 type dummy
		ip addr add "$AIFS_RDMA_ADDR/24" dev dummy0
		ip link set dummy0 up
	fi
	rdma link add rxe0 type rxe netdev dummy0
	# The address's GID comes in a little later; before it, connecting
	# to the address is refused.
	local end=$((SECONDS + 60))
	until grep -qs "0000:0000:0000:0000:0000:ffff:0a63:0001" \
		/sys/class/infiniband/rxe0/ports/1/gids/*; do
		[ "$SECONDS" -lt "$end" ] ||
			fail "rxe0 has no GID for $AIFS_RDMA_ADDR after 60 s"
		sleep 0.2
	done
}

# kernel_rdma_objects: how many queue pairs, CQs, PDs, MRs and rdma_cm ids
# the kernel holds (restrack shows a kernel owner's name in brackets; the
# servers' own are not counted, so they may come and go)
kernel_rdma_objects()
{
	local res

	for res in qp cq pd mr cm_id; do
		echo "$res $(rdma resource show $res 2>/dev/null |
			grep -c 'comm \[' || true)"
	done
}

# use_rdma: the servers of this test listen on the Soft-RoCE address (for
# RDMA and TCP), and mounts of them (mount_cluster, with_transport) take
# transport=rdma.
use_rdma()
{
	rdma_setup
	AIFS_ADDR=$AIFS_RDMA_ADDR
	AIFS_MOUNT_TRANSPORT=transport=rdma
}

# with_transport OPTION...: the OPTIONs as one mount option list, after
# the test's transport: every mount of the test's own servers takes it,
# not only mount_cluster's, so that AIFS_VM_TRANSPORT=rdma runs them over
# RDMA.  An OPTION transport=... comes later and wins.
with_transport()
{
	local IFS=,
	echo "${AIFS_MOUNT_TRANSPORT:+$AIFS_MOUNT_TRANSPORT${1+,}}$*"
}

# use_tcp: back to loopback and TCP (Soft-RoCE stays set up), for a test
# that reaches its servers by a name of loopback (localhost), whatever
# AIFS_VM_TRANSPORT says.
use_tcp()
{
	AIFS_ADDR=127.0.0.1
	AIFS_MOUNT_TRANSPORT=
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

# The kernel log a test's checks read starts where the harness marked the
# test's beginning (scripts/vm/guest-init), or where the test last called
# log_mark.  Tests never clear the log (dmesg -C): the harness judges all
# of it, and a WARN of an earlier case must still fail the test.
AIFS_LOG_MARK=${AIFS_TEST_MARK:-}
AIFS_LOG_MARKS=0

# log_mark: expect_dmesg and kernel_log_has read only what is logged after
# this point (a new case of a test).
log_mark()
{
	AIFS_LOG_MARKS=$((AIFS_LOG_MARKS + 1))
	AIFS_LOG_MARK="aifs-test: mark $AIFS_LOG_MARKS of $$"
	echo "$AIFS_LOG_MARK" >/dev/kmsg
}

# kernel_log: the kernel log since the mark.  A mark the buffer no longer
# holds (overwritten by more than its size of messages) is an error, not
# an empty log.
kernel_log()
{
	local log

	log=$(dmesg)
	[ -n "$AIFS_LOG_MARK" ] || { echo "$log"; return; }
	awk -v mark="] $AIFS_LOG_MARK" '
		seen { print }
		substr($0, length($0) - length(mark) + 1) == mark { seen = 1 }
		END { exit !seen }' <<<"$log" ||
		fail "the kernel log no longer holds '$AIFS_LOG_MARK'"
}

# kernel_log_has REGEX: the kernel log since the mark matches. The log is
# read whole first: in "dmesg | grep -q" grep's exit at the first match
# can kill dmesg with SIGPIPE, and under pipefail a match then reads as
# none.
kernel_log_has()
{
	local log

	log=$(kernel_log) || exit 1
	grep -qE -- "$1" <<<"$log"
}

# expect_dmesg REGEX: the kernel log since the mark matches.
expect_dmesg()
{
	kernel_log_has "$1" || fail "kernel log lacks /$1/"
}

# assert_eq GOT WANT WHAT
assert_eq()
{
	[ "$1" = "$2" ] || fail "$3: got '$1', want '$2'"
}

# expect_error MESSAGE COMMAND...: COMMAND fails, and the last line of
# its error output has ": MESSAGE", the strerror(3) of the errno wanted
# as the tools print it ("Permission denied" for EACCES, "Operation not
# permitted" for EPERM): a command that fails for another reason
# (ENOENT, a typo, a usage error) is not the refusal tested.
expect_error()
{
	local want=$1 out
	shift
	out=$("$@" 2>&1 >/dev/null) && fail "$* succeeded: want '$want'"
	[[ $(tail -n1 <<<"$out") == *": $want"* ]] ||
		fail "$*: '$out', want '$want'"
}

# The shared secret of the test servers, as given to mount with secret=.
AIFS_SECRET=test-secret-of-the-aifs-cluster
AIFS_SERVER_PIDS=()
AIFS_UMOUNT_AT_EXIT=()

# umount_at_exit DIR...: unmount these (if mounted) before the servers are
# stopped at exit, so that a failing test leaves no dead mount behind.
umount_at_exit()
{
	AIFS_UMOUNT_AT_EXIT+=("$@")
}

# umount2 DIR: umount(2) itself. umount(8) may stat the mount point first,
# which on a hard mount of a dead cluster waits like any request.
umount2()
{
	python3 -c 'import ctypes, sys
if ctypes.CDLL(None, use_errno=True).umount2(sys.argv[1].encode(), 0):
    raise OSError(ctypes.get_errno(), "umount2 " + sys.argv[1])' "$1"
}

# umount2_ms DIR: umount2 DIR, printing how many milliseconds umount(2)
# itself took (not python's start).
umount2_ms()
{
	python3 -c 'import ctypes, sys, time
umount2 = ctypes.CDLL(None, use_errno=True).umount2
start = time.monotonic()
if umount2(sys.argv[1].encode(), 0):
    raise OSError(ctypes.get_errno(), "umount2 " + sys.argv[1])
print(int((time.monotonic() - start) * 1000))' "$1"
}

stop_servers()
{
	local pid dir
	# not mountpoint(1): it stats DIR, which may wait for a dead server
	for dir in "${AIFS_UMOUNT_AT_EXIT[@]}"; do
		! grep -q " $dir aifs " /proc/mounts || umount2 "$dir" ||
			umount -l "$dir" || true
	done
	for pid in "${AIFS_SERVER_PIDS[@]}"; do
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	AIFS_SERVER_PIDS=()
}

# server_dir PORT [SETTING=VALUE...]: a directory under /tmp with
# $AIFS_SECRET in a mode 0600 file and a server config listening on
# $AIFS_ADDR:PORT; prints its path.
server_dir()
{
	local port=$1 dir kv
	shift
	dir=$(mktemp -d /tmp/aifs-server.XXXXXX)
	(umask 077 && printf '%s\n' "$AIFS_SECRET" >"$dir/secret")
	{
		echo "listen_address = $AIFS_ADDR"
		echo "listen_port = $port"
		echo "secret_file = $dir/secret"
		for kv; do echo "${kv%%=*} = ${kv#*=}"; done
	} >"$dir/server.conf"
	echo "$dir"
}

# run_server PROGRAM DIR: start PROGRAM with DIR's config, killed when the
# test exits, and wait until it listens (or exits; 60 s of wall-clock time
# is only the safety net of a server that hangs).  Sets SERVER_PID.
run_server()
{
	local prog=$1 dir=$2 end=$((SECONDS + 60))
	"$prog" -c "$dir/server.conf" >"$dir/log" 2>&1 &
	SERVER_PID=$!
	AIFS_SERVER_PIDS+=("$SERVER_PID")
	trap stop_servers EXIT
	until grep -q "listening on" "$dir/log"; do
		kill -0 "$SERVER_PID" 2>/dev/null && [ "$SECONDS" -lt "$end" ] ||
			break
		sleep 0.1
	done
	grep -q "listening on" "$dir/log" && return 0
	cat "$dir/log" >&2
	fail "$prog on $(grep listen_port "$dir/server.conf") did not start"
}

# start_server PORT [SETTING=VALUE...]: run aifs-echo-server (handshake and
# PING only) on $AIFS_ADDR:PORT.  Sets SERVER_PID.
start_server()
{
	local dir
	command -v aifs-echo-server >/dev/null ||
		fail "aifs-echo-server not built (make user)"
	dir=$(server_dir "$1" "${@:2}")
	run_server aifs-echo-server "$dir"
}

# start_mds PORT [SETTING=VALUE...]: run aifs-mds on $AIFS_ADDR:PORT on a
# new database under /tmp, formatted first.  Sets SERVER_PID and MDS_DIR.
# The database keeps AIFS_MDS_RESERVE_MIB (4) allocated ahead, not the 64
# MiB of a real server: the guest's /tmp is its memory.
start_mds()
{
	command -v aifs-mds >/dev/null || fail "aifs-mds not built (make user)"
	MDS_DIR=$(server_dir "$1" db_path="" map_size_mib=64 \
		db_reserve_mib="${AIFS_MDS_RESERVE_MIB:-4}" \
		default_replicas=1 "${@:2}")
	sed -i "s|^db_path = .*|db_path = $MDS_DIR/db|" "$MDS_DIR/server.conf"
	aifs-mds -c "$MDS_DIR/server.conf" --format >"$MDS_DIR/format.log" 2>&1 ||
		{ cat "$MDS_DIR/format.log" >&2; fail "aifs-mds --format failed"; }
	run_server aifs-mds "$MDS_DIR"
}

# start_cluster MDSPORT [key=value...]: a formatted aifs-mds on MDSPORT
# (files striped over 3 groups of one copy) and AIFS_DS_COUNT (3) aifs-ds
# on MDSPORT+1.. registered with it (data under /tmp),
# up once the cluster map has them all UP. The key=value settings go to
# the data servers (log_level=debug ...); AIFS_REBUILD_DELAY_S sets the
# MDS's rebuild_delay_s. Sets AIFS_FS_UUID, MDS_DIR and
# DS_DIRS/DS_PIDS (index 1..); put_file puts a file in.
start_cluster()
{
	local port=$1 i up end n=${AIFS_DS_COUNT:-3}
	command -v aifs-ds >/dev/null || fail "aifs-ds not built (make user)"
	# three seconds of silence are offline (a data server serves for 9/10
	# of that after a heartbeat: a guest loaded by others must not lose
	# its leases); a benchmark loading the guest's CPUs for minutes asks
	# for more (AIFS_HEARTBEAT_GRACE_MS)
	start_mds "$port" heartbeat_ms=200 \
		heartbeat_grace_ms="${AIFS_HEARTBEAT_GRACE_MS:-3000}" \
		rebuild_delay_s="${AIFS_REBUILD_DELAY_S:-600}" \
		default_stripe_count=3
	AIFS_FS_UUID=$(sed -n 's/.*formatted file system \([0-9a-f-]\{36\}\).*/\1/p' \
		"$MDS_DIR/format.log")
	[ -n "$AIFS_FS_UUID" ] || fail "no file system uuid in the MDS's log"
	DS_DIRS=() DS_PIDS=()
	for i in $(seq "$n"); do
		DS_DIRS[i]=$(server_dir $((port + i)) data_dir="" \
			fs_uuid="$AIFS_FS_UUID" mds=$AIFS_ADDR:$port "${@:2}")
		sed -i "s|^data_dir = .*|data_dir = ${DS_DIRS[i]}/data|" \
			"${DS_DIRS[i]}/server.conf"
		run_server aifs-ds "${DS_DIRS[i]}"
		DS_PIDS[i]=$SERVER_PID
	done
	end=$((SECONDS + 60))
	while :; do
		up=$(aifs-put -s "$MDS_DIR/secret" -m "$AIFS_ADDR:$port" -M) ||
			up=0
		[ "$up" = "$n" ] && return 0
		[ "$SECONDS" -lt "$end" ] || break
		sleep 0.1
	done
	fail "the data servers did not come up in 60 s ($up of $n UP)"
}

# mount_cluster DIR [OPTION...]: load the module, start a cluster on port
# 7400 (start_cluster) and mount it at DIR with the secret and the OPTIONs;
# DIR is unmounted when the test exits.
mount_cluster()
{
	local dir=$1 opts
	shift
	opts=$(with_transport "secret=$AIFS_SECRET" "$@")
	load_aifs
	umount_at_exit "$dir"
	mkdir -p "$dir"
	start_cluster 7400
	mount -t aifs -o "$opts" "$AIFS_ADDR:/" "$dir"
}

# ds_in_use: the index (1..3) of each data server of start_cluster that
# the kernel has a connection to: TCP sockets without a process, or the
# module's own rdma_cm ids.
ds_in_use()
{
	local port=$(sed -n 's/^listen_port = //p' "$MDS_DIR/server.conf")
	{
		ss -Htnp state established \
			"( dport > :$port and dport <= :$((port + 3)) )" |
			awk '!/users:/ { sub(".*:", "", $4); print $4 }'
		rdma resource show cm_id 2>/dev/null |
			awk '/ comm \[aifs\] / { sub(".*dst-addr [^ ]*:", "");
				print $1 }'
	} | awk -v p="$port" '$1 > p && $1 <= p + 3 { print $1 - p }' |
		sort -u
}

# ds_index ID: the index in DS_PIDS/DS_DIRS of the data server the MDS
# registered as ID (the order of registration is not that of the start).
ds_index()
{
	local i
	for i in "${!DS_DIRS[@]}"; do
		grep -q "registered with the MDS as ds $1 " "${DS_DIRS[i]}/log" &&
			{ echo "$i"; return 0; }
	done
	fail "no data server registered as $1"
}

# ds_id INDEX: the id the MDS registered data server INDEX (of DS_PIDS
# and DS_DIRS) as, from its log's last registration.
ds_id()
{
	local id
	id=$(sed -n 's/.*registered with the MDS as ds \([0-9]*\) .*/\1/p' \
		"${DS_DIRS[$1]}/log" | tail -1)
	[ -n "$id" ] || fail "data server $1 has not registered"
	echo "$id"
}

# cluster_fsck [--repair]: aifs fsck of the cluster of start_cluster; its
# report on stdout, its exit code (fsck(8)'s: 0 clean, 1 all repaired).
cluster_fsck()
{
	aifs -s "$MDS_DIR/secret" fsck "$AIFS_ADDR:$(sed -n \
		's/^listen_port = //p' "$MDS_DIR/server.conf")" "$@"
}

# put_file SRC DESTPATH [replicas]: SRC into the cluster of start_cluster.
put_file()
{
	aifs-put -s "$MDS_DIR/secret" -m "$AIFS_ADDR:$(sed -n \
		's/^listen_port = //p' "$MDS_DIR/server.conf")" \
		-u "$AIFS_FS_UUID" ${3:+-r $3} "$1" "$2" >/dev/null ||
		fail "aifs-put $1 $2"
}

# dead PID: the process is gone, or a zombie
dead()
{
	[ ! -e "/proc/$1" ] ||
		[ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)" = Z ]
}

# expect_killable PID...: these tasks, still running, die within 10 s of
# SIGKILL; else their wait channels are printed and the test fails.
expect_killable()
{
	local pid alive i

	for pid; do
		! dead "$pid" || fail "task $pid finished before SIGKILL"
	done
	kill -KILL "$@"
	for i in $(seq 100); do
		alive=0
		for pid; do dead "$pid" || alive=$((alive + 1)); done
		[ "$alive" = 0 ] && return 0
		sleep 0.1
	done
	for pid; do
		dead "$pid" || echo "$pid: $(cat /proc/$pid/wchan)" >&2
	done
	fail "$alive tasks still alive 10 s after SIGKILL"
}

# wait_blocked_in_aifs PID [WCHAN]: until task PID sleeps (state S or D)
# with the module on its kernel stack, and, if given, in a function
# matching the regex WCHAN (the wait the test means: aifs_dio_run,
# folio_wait.*); fails if the task ends first, or is not there within
# 60 s.  A test that kills or outwaits a task shows nothing about the
# module's waits unless the task is in one.
wait_blocked_in_aifs()
{
	local pid=$1 want=${2:-.} state end=$((SECONDS + 60))

	while :; do
		! dead "$pid" || fail "task $pid ended before it blocked in aifs"
		state=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -c1)
		if [[ $state = [SD] ]] &&
			grep -qE -- "^$want" "/proc/$pid/wchan" 2>/dev/null &&
			grep -q '\[aifs\]' "/proc/$pid/stack" 2>/dev/null; then
			return 0
		fi
		[ "$SECONDS" -lt "$end" ] || break
		sleep 0.1
	done
	echo "$pid: $(cat "/proc/$pid/wchan")" >&2 || true
	cat "/proc/$pid/stack" >&2 || true
	fail "task $pid not blocked in ${2:-aifs} after 60 s"
}

# wait_kernel_log REGEX [SECONDS]: until the kernel log since the mark
# matches (expect_dmesg once the module has had time to say it); fails
# after SECONDS (30) of wall-clock time.
wait_kernel_log()
{
	local end=$((SECONDS + ${2:-30}))

	until kernel_log_has "$1"; do
		[ "$SECONDS" -lt "$end" ] ||
			fail "kernel log lacks /$1/ after ${2:-30} s"
		sleep 0.1
	done
}

# freeze_data_servers: SIGSTOP every data server of start_cluster, so
# that requests to them wait; thaw_data_servers lets them go on (so does
# the test's exit, before it stops them for good).
freeze_data_servers()
{
	trap 'thaw_data_servers; stop_servers' EXIT
	kill -STOP "${DS_PIDS[@]}"
}

thaw_data_servers()
{
	kill -CONT "${DS_PIDS[@]}" 2>/dev/null || true
}

# remount_after_thaw SRC FILE: with the data servers thawed, /mnt/a
# unmounts (its killed tasks hold nothing) and, mounted again, reads FILE
# as the local file SRC.
remount_after_thaw()
{
	thaw_data_servers
	timeout 120 umount /mnt/a || fail "umount"
	mount -t aifs -o "$(with_transport "secret=$AIFS_SECRET")" \
		"$AIFS_ADDR:/" /mnt/a
	cmp "$1" "/mnt/a/$2" || fail "read after the servers resumed"
}

# unload_clean: /mnt/a unmounts, no receiver thread is left, and the
# module unloads.
unload_clean()
{
	umount /mnt/a
	! pgrep -x aifs-recv >/dev/null || fail "receiver threads left"
	rmmod aifs || fail "unload"
}

# start_peer SCRIPT ARG...: a Python test peer that prints "ready" once it
# listens, killed when the test exits.  Sets SERVER_PID.
start_peer()
{
	local log end
	log=$(mktemp /tmp/aifs-peer.XXXXXX)
	python3 "$@" >"$log" 2>&1 &
	SERVER_PID=$!
	AIFS_SERVER_PIDS+=("$SERVER_PID")
	trap stop_servers EXIT
	# a deadline of wall-clock time: Python starts slowly in a loaded
	# guest, and turns of the loop are slower there too
	end=$((SECONDS + 60))
	until grep -q ready "$log"; do
		kill -0 "$SERVER_PID" 2>/dev/null && [ "$SECONDS" -lt "$end" ] ||
			break
		sleep 0.1
	done
	grep -q ready "$log" && return 0
	cat "$log" >&2
	fail "$(basename "$1") $2 on port $3 did not start"
}

# start_fake_server MODE PORT: the hostile server of
# tests/vm/module/fake-server.py.  Sets SERVER_PID.
start_fake_server()
{
	start_peer "$AIFS_TOP/tests/vm/module/fake-server.py" "$1" "$2" \
		"$AIFS_SECRET"
}

# slab_objects CACHE...: /proc/slabinfo's lines after the CACHEs (its
# names of caches with slabs) were shrunk, the objects in use counted
# exactly enough to see a leak of one object per cycle.  /proc/slabinfo
# counts each CPU's current and partial slabs as wholly in use (up to a
# few hundred objects of a small cache, changing with what ran where
# last); shrinking a cache first puts its per-CPU slabs back on the node
# lists, where the free objects are counted.  Nothing between the shrink
# and the read may fork or exit (a new process takes per-CPU slabs for its
# pid, creds and files, and its exit frees them after an RCU grace period
# onto a CPU's partial list): builtins only.
slab_objects()
{
	local cache lines

	for cache; do
		echo 1 >"/sys/kernel/slab/$cache/shrink" 2>/dev/null || true
	done
	mapfile -t lines </proc/slabinfo
	printf '%s\n' "${lines[@]:2}"
}

# settled_slab_objects FILE: into FILE, "CACHE OBJECTS" for every slab
# cache, its least over a few readings of slab_objects half a second
# apart: objects in flight (a server's heartbeat, a socket closing) and
# objects freed after an RCU grace period (the files, inodes and processes
# of the cycles), which a busy host delays, are not counted; a leak stays.
# The waits are builtins too.
settled_slab_objects()
{
	local i fifo=$1.fifo fd caches

	sync
	echo 3 >/proc/sys/vm/drop_caches
	# each cache once (the names of caches merged into it are links to
	# it), and only one that has slabs
	caches=($(awk 'NR > 2 && $3 > 0 { print $1 }' /proc/slabinfo))
	mkfifo "$fifo"
	exec {fd}<>"$fifo"
	for i in 1 2 3 4; do
		read -r -t 0.5 -u "$fd" || true
		slab_objects "${caches[@]}"
	done >"$1.all"
	exec {fd}>&-
	awk '!($1 in n) || $2 < n[$1] { n[$1] = $2 }
		END { for (c in n) print c, n[c] }' "$1.all" | sort >"$1"
	rm -f "$fifo" "$1.all"
}

# slab_traces DIR: when the guest tracks allocations (booted with
# AIFS_VM_KERNEL_ARGS=slub_debug=U, or slub_debug=U,CACHE for one cache),
# into DIR/CACHE for every cache, its live objects by allocating stack:
# "COUNT<tab>SITE < CALLER < ..."; else nothing.
slab_traces()
{
	local traces

	for traces in /sys/kernel/debug/slab/*/alloc_traces; do
		[ -r "$traces" ] || continue
		awk 'NF == 0 { if (rec != "") print n "\t" rec; rec = ""; next }
			rec == "" { n = $1; rec = site = $2; frames = 0; next }
			frames < 8 && $1 != site &&
			$1 !~ /^_*(kmem_cache|kmalloc|slab_)/ {
				rec = rec " < " $1; frames++ }
			END { if (rec != "") print n "\t" rec }' "$traces" \
			>"$1/$(basename "$(dirname "$traces")")" 2>/dev/null || true
	done
}

# slab_callers BEFORE AFTER CACHE: the allocating stacks of CACHE that
# hold more objects in AFTER than in BEFORE (slab_traces), most first:
# "+GROWTH SITE < CALLER < ..." (a site in a module since unloaded shows
# as a bare address).
slab_callers()
{
	[ -f "$2/$3" ] || return 0
	awk -F'\t' 'FILENAME == ARGV[1] { was[$2] += $1; next }
		{ now[$2] += $1 }
		END { for (r in now) if (now[r] > was[r])
			print "+" now[r] - was[r] "\t" r }' \
		"$1/$3" "$2/$3" 2>/dev/null | sort -t+ -k2 -rn | awk 'NR <= 5'
}

# expect_no_slab_leak CYCLE [N [WINDOWS]]: "CYCLE N" repeats something N
# (default 9) times; after a warm-up of 5 cycles (caches that grow once),
# no slab cache may grow steadily over WINDOWS (default 4) windows of N
# cycles: in every window, in none by less than a quarter of its mean, and
# by half an object per cycle or more over all.  The counts are exact but
# for objects in use at the time (a heartbeat's buffers, a socket
# closing, the 9p fids of open files: kmalloc-96 moves by up to a few
# hundred): those come and go, and seldom grow four times in a row, never
# evenly; a leak grows by the same in every window.  A failure names the
# cache, its counts, its growth per cycle, and, when the guest tracks
# allocations (slub_debug=U), the stacks whose objects grew.  Not judged:
# the TIME_WAIT sockets of closed TCP connections and their port buckets,
# which live 60 s, so count the connections of the last minute (more as
# the cycles speed up); a socket the module kept would stay in TCP and
# sock_inode_cache.  A cache that grew steadily is counted again after a
# minute of rest, and must still have grown by half an object per cycle
# (the log says so when the rest cleared it).  Nor vmap_area: a freed
# vmalloc area (a kernel thread's stack, a kvmalloc buffer) keeps its
# vmap_area until the kernel purges them all at once, lazily, once they
# span tens of MiB (module/04 grew it by 3.4 per mount over 152 mounts
# without a purge).  Nor filp: the module opens no file and holds none,
# a file on the mount left open keeps it busy (the umount fails), and
# the guest's processes open files at their own pace (read/07 saw filp
# grow by 16 in a minute of rest with the module unloaded).  Nor the
# memory maps of processes (vm_area_struct, anon_vma, anon_vma_chain):
# only a process maps memory and its exit frees the maps; aifs.ko takes
# no reference on a process or its mm, so these move with the servers
# and shells in the guest (module/04 once saw anon_vma_chain grow by one
# a mount, 94 of them still there after a minute of rest, while the
# same run on 6.12 and three quiet and busy reruns saw no growth).
expect_no_slab_leak()
{
	local n=${2:-9} windows=${3:-4} dir w leaks cache counting=0 t

	dir=$(mktemp -d /dev/shm/aifs-slab.XXXXXX)
	mkdir "$dir/traces0" "$dir/traces"
	"$1" 5
	for w in $(seq 0 "$windows"); do
		[ "$w" = 0 ] || "$1" "$n"
		t=$(date +%s%N)
		settled_slab_objects "$dir/$w"
		counting=$((counting + $(date +%s%N) - t))
		[ "$w" != 0 ] || slab_traces "$dir/traces0"
	done
	# a cache that grows in every window, in none by less than a quarter
	# of its mean, by 0.5 object per cycle in all
	leaks=$(cd "$dir" && awk -v windows="$windows" -v n="$n" '
		{ w = FILENAME + 0; count[$1, w] = $2; caches[$1] = 1 }
		END {
			for (c in caches) {
				if (c ~ /^(tw_sock_TCP|tcp_bind2?_bucket|vmap_area$|filp$|vm_area_struct$|anon_vma)/)
					continue
				total = count[c, windows] - count[c, 0]
				steady = total * 2 >= windows * n
				for (w = 1; w <= windows; w++) {
					g = count[c, w] - count[c, w - 1]
					if (g <= 0 || g * 4 * windows < total)
						steady = 0
				}
				if (!steady)
					continue
				line = c ":"
				for (w = 0; w <= windows; w++)
					line = line " " count[c, w]
				printf "%s (%.1f objects per cycle)\n", line,
					total / (windows * n)
			}
		}' $(seq 0 "$windows"))
	echo "slab objects before and after each $n cycles (counting them took" \
		"$((counting / 1000000)) ms), caches that changed:"
	(cd "$dir" && awk -v windows="$windows" '
		{ w = FILENAME + 0; count[$1, w] = $2; caches[$1] = 1 }
		END {
			for (c in caches) {
				if (count[c, windows] == count[c, 0])
					continue
				line = c ":"
				for (w = 0; w <= windows; w++)
					line = line " " count[c, w]
				print line
			}
		}' $(seq 0 "$windows") | sort)
	# Objects that live a minute after their cycle (the pids and thread
	# stacks of the servers' connections, as TIME_WAIT sockets) grow
	# steadily while the windows are short (a quiet guest: 13 s for 9
	# cycles); after a minute of rest they are gone, a leak stays.
	if [ -n "$leaks" ]; then
		sleep 61
		settled_slab_objects "$dir/rested"
		leaks=$(awk -v n="$n" -v windows="$windows" '
			FILENAME == ARGV[1] { first[$1] = $2; next }
			FILENAME == ARGV[2] { rested[$1] = $2; next }
			{ c = $1; sub(":$", "", c)
			  total = rested[c] - first[c]
			  printf "%s %s, %d after a minute of rest\n",
				(total * 2 >= windows * n) ? "leak" : "rested",
				$0, rested[c] }' \
			"$dir/0" "$dir/rested" - <<<"$leaks")
		# said, so that a slow guest's near miss shows in the log
		sed -n 's/^rested /grew steadily, not after a rest (no leak): /p' \
			<<<"$leaks"
		leaks=$(sed -n 's/^leak //p' <<<"$leaks")
	fi
	if [ -z "$leaks" ]; then
		rm -rf "$dir"
		echo "no cache grew steadily: no leak"
		return 0
	fi
	echo "growing steadily:"
	echo "$leaks"
	slab_traces "$dir/traces"
	for cache in $(cut -d: -f1 <<<"$leaks"); do
		slab_callers "$dir/traces0" "$dir/traces" "$cache" |
			sed "s|^|$cache: |"
	done
	rm -rf "$dir"
	fail "slab objects grew steadily: $(tr '\n' ';' <<<"$leaks" | sed 's/;$//')"
}

# aifs_stat SYSDIR KEY: one counter of a mount's stats file
# (/sys/fs/aifs/aifs-<id>/stats, "key value" lines).
aifs_stat()
{
	local v
	v=$(awk -v k="$2" '$1 == k { print $2 }' "$1/stats")
	[ -n "$v" ] || fail "no $2 in $1/stats"
	echo "$v"
}

# run_fsx MODE SEED FILE [-P FILE2]: aifs-fsx of AIFS_FSX_OPS (20,000) ops
# over a file of up to 9 MiB (three chunks), seeded by AIFS_FSX_SEED if
# set, else SEED; fails on a mismatch and when it turns a kind of op off
# as unsupported.
run_fsx()
{
	local mode=$1 seed=${AIFS_FSX_SEED:-$2} file=$3 out
	shift 3
	out=$(aifs-fsx -q -S "$seed" -N "${AIFS_FSX_OPS:-20000}" -l 9m \
		-m "$mode" "$@" "$file" 2>&1) ||
		{ echo "$out"; fail "aifs-fsx $mode"; }
	echo "$out"
	case $out in
	*"not supported here, turned off"*)
		fail "aifs-fsx $mode turned an operation off" ;;
	esac
}

# AIFS_VM_TRANSPORT=rdma runs a test over Soft-RoCE (tests/vm/rdma).
[ "${AIFS_VM_TRANSPORT:-tcp}" != rdma ] || use_rdma
