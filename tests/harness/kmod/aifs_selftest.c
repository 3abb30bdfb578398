// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module for the VM harness's self-test, never installed.
 * Loading it with warn=1 makes the kernel print a WARN; with stall_s=N the
 * loading task sleeps uninterruptibly for N seconds, as a task stuck in the
 * kernel would.  The harness must report both as failed tests.  With
 * leak_bytes=N each load allocates N bytes that nothing frees, as a leak
 * would: the slab leak check of tests/vm/lib.sh must see it.
 */
#include <linux/module.h>
#include <linux/bug.h>
#include <linux/delay.h>
#include <linux/slab.h>

static bool warn;
module_param(warn, bool, 0444);
MODULE_PARM_DESC(warn, "Trigger a WARN when loaded");

static unsigned int stall_s;
module_param(stall_s, uint, 0444);
MODULE_PARM_DESC(stall_s, "Sleep uninterruptibly this many seconds when loaded");

static unsigned int leak_bytes;
module_param(leak_bytes, uint, 0444);
MODULE_PARM_DESC(leak_bytes, "Allocate this many bytes when loaded and never free them");

static int __init aifs_selftest_init(void)
{
	WARN(warn, "aifs_selftest: deliberate warning for the harness self-test\n");
	if (stall_s)
		ssleep(stall_s);
	/* lost on purpose: nothing keeps the pointer */
	if (leak_bytes && !kmalloc(leak_bytes, GFP_KERNEL))
		return -ENOMEM;
	return 0;
}

static void __exit aifs_selftest_exit(void)
{
}

module_init(aifs_selftest_init);
module_exit(aifs_selftest_exit);
MODULE_DESCRIPTION("aifs VM harness self-test module (test only)");
MODULE_LICENSE("GPL");
