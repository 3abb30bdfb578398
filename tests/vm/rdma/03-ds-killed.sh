# A data server killed (SIGKILL) in the middle of a read and of a write
# over RDMA: read/05-ds-killed and write/03-ds-killed over Soft-RoCE, where
# the other copy must take over as it does over TCP.
. "$AIFS_TOP/tests/vm/lib.sh"

for t in read/05-ds-killed write/03-ds-killed; do
	echo "== $t over RDMA"
	AIFS_VM_TRANSPORT=rdma bash "$AIFS_TOP/tests/vm/$t.sh" ||
		fail "$t over RDMA"
done
