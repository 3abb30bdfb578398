# The servers' RDMA transport, through libaifs's: the C server tests of the
# connection layer, the data server and the metadata server, run again with
# every test connection over RDMA (AIFS_TEST_RDMA) on Soft-RoCE, and
# ds-rdma: bulk data moved by the data server's RDMA READs and WRITEs.
. "$AIFS_TOP/tests/vm/lib.sh"

rdma_setup
export AIFS_TEST_RDMA=$AIFS_RDMA_ADDR
cd "$AIFS_TOP"
for t in libaifs-client libaifs-messages ds-io ds-replication ds-rdma mds-ops; do
	echo "== $t over RDMA"
	timeout 300 "$AIFS_BUILD/tests/servers/$t" || fail "$t over RDMA"
done
