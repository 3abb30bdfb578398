// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Fixed data server ids (a static cluster's ds_id): a new server asking
 * for a free id gets that id, kept across a re-registration; another
 * server asking for it is refused with EEXIST; a server asking for none
 * gets an id past every id taken, never one a fixed server has.
 */
#include <signal.h>

#include "mds_harness.h"

static const struct aifs_ds_space space = { .capacity = 1 << 30,
					    .free = 1 << 30 };

static int reg(struct aifs_conn *conn, u8 tag, u32 id, u32 *got)
{
	struct aifs_addr addr = { .family = cpu_to_le16(AIFS_AF_INET),
				  .port = cpu_to_le16(7410) };
	struct aifs_ds_register_rep rep;
	u8 uuid[16] = { tag, 0xd5 };
	int err;

	addr.addr[0] = 127;
	addr.addr[3] = tag;
	err = aifs_ds_register(conn, uuid, id, 0, &space, &addr, &rep);
	*got = err ? 0 : le32_to_cpu(rep.id);
	return err;
}

int main(void)
{
	struct mds_harness h;
	struct aifs_conn *conn;
	u32 id;
	int err;

	if (mds_harness_init(&h, "") || mds_harness_start(&h) ||
	    mds_harness_connect(&h, &conn)) {
		printf("FAIL: cannot start aifs-mds (log in %s)\n", h.srv.dir);
		return 1;
	}
	err = reg(conn, 1, 7, &id);
	CHECK(!err && id == 7, "free fixed id 7: %d, got %u", err, id);
	err = reg(conn, 1, 7, &id);
	CHECK(!err && id == 7, "again: %d, got %u", err, id);
	err = reg(conn, 2, 7, &id);
	CHECK(err == -EEXIST, "id 7 for another server: %d, got %u", err, id);
	err = reg(conn, 2, 0, &id);
	CHECK(!err && id > 7, "assigned after a fixed 7: %d, got %u", err, id);
	err = reg(conn, 3, 3, &id);
	CHECK(!err && id == 3, "free fixed id 3 below: %d, got %u", err, id);
	aifs_close(conn);
	CHECK(!mds_harness_stop(&h, SIGTERM), "stop");
	return test_result();
}
