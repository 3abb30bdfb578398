// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Capacity: statvfs() of the data directory (one NVMe device per
 * instance), as DS_STATFS answers it and as the heartbeats report it.
 */
#include <stdlib.h>
#include <sys/statvfs.h>

#include "ds.h"

int ds_capacity(struct ds *ds, struct aifs_statfs_rep *rep)
{
	struct statvfs st;

	if (statvfs(ds->cfg.data_dir, &st))
		return -errno;
	*rep = (struct aifs_statfs_rep){
		.total_bytes = cpu_to_le64((u64)st.f_blocks * st.f_frsize),
		.free_bytes = cpu_to_le64((u64)st.f_bfree * st.f_frsize),
		.avail_bytes = cpu_to_le64((u64)st.f_bavail * st.f_frsize),
		.files = cpu_to_le64(atomic_load(&ds->nr_chunks)),
		.bsize = cpu_to_le32(DS_BLOCK_SIZE),
	};
	return 0;
}

static int ds_statfs(struct aifs_request *req)
{
	struct aifs_statfs_rep rep;
	int err;

	if (req->payload_len)
		return -EBADMSG;
	err = ds_capacity(req->data, &rep);
	if (err)
		return err;
	return ds_reply_fixed(req, &rep, sizeof(rep));
}

int ds_statfs_register(struct aifs_server *srv)
{
	return aifs_server_register(srv, AIFS_OP_DS_STATFS, ds_statfs,
				    AIFS_HANDLER_BLOCKING);
}
