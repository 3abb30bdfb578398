// SPDX-License-Identifier: GPL-2.0
/*
 * aifs - the wire codec shared with userspace, compiled into the module
 * from its one source so that both sides run the same checks.
 */
#include "../libproto/proto.c"
