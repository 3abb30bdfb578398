#!/bin/bash
# The kernel-log scanner of the VM harness must flag every kind of kernel
# failure it knows, and must not flag an ordinary log.
set -uo pipefail
cd "$(dirname "$0")/../.."
check=scripts/vm/check-dmesg
status=0

clean_log='[    1.000000] aifs: loading out-of-tree module taints kernel.
[    2.100000] 9pnet: Installing 9P2000 support
[    3.000000] aifs: server address '\''foo'\'' is not numeric
[    4.000000] sysrq: Power Off'

if ! echo "$clean_log" | $check >/dev/null; then
	echo "flagged a clean log"
	status=1
fi

while IFS= read -r line; do
	[ -n "$line" ] || continue
	if printf '%s\n%s\n' "$clean_log" "$line" | $check >/dev/null; then
		echo "missed: $line"
		status=1
	fi
done <<'EOF_BAD'
[   10.1] BUG: kernel NULL pointer dereference, address: 0000000000000008
[   10.2] Oops: 0002 [#1] PREEMPT SMP NOPTI
[   10.3] kernel BUG at fs/inode.c:1700!
[   10.4] WARNING: CPU: 1 PID: 245 at fs/aifs/super.c:10 aifs_fill_super+0x10/0x20 [aifs]
[   10.5] general protection fault, probably for non-canonical address 0xdead000000000100: 0000 [#1]
[   10.6] INFO: task mount:312 blocked for more than 20 seconds.
[   10.7] watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [kworker/0:1:33]
[   10.8] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:
[   10.9] BUG: KASAN: use-after-free in aifs_put_super+0x1/0x2
[   11.0] UBSAN: shift-out-of-bounds in fs/aifs/addr.c:12:3
[   11.1] list_add corruption. prev->next should be next (ffff), but was 0000.
[   11.2] refcount_t: underflow; use-after-free.
[   11.3] Kernel panic - not syncing: Fatal exception
[   11.4] BUG aifs_inode (Tainted: G O): Objects remaining in aifs_inode on __kmem_cache_shutdown()
EOF_BAD

if $check /nonexistent/log >/dev/null 2>&1; then
	echo "an unreadable log passed"
	status=1
fi
exit $status
