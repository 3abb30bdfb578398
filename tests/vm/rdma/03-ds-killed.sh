# A data server killed (SIGKILL) in the middle of a read and of a write
# over RDMA: read/05-ds-killed and write/03-ds-killed over Soft-RoCE, where
# the other copy must take over as it does over TCP. The peer that
# vanished mid-transfer leaves nothing behind: after the unmounts, and
# after rmmod, the kernel holds no more queue pairs, CQs, PDs, MRs or
# rdma_cm ids than before.
. "$AIFS_TOP/tests/vm/lib.sh"
rdma_setup
load_aifs
before=$(kernel_rdma_objects)
echo "kernel RDMA objects before:" $before

for t in read/05-ds-killed write/03-ds-killed; do
	echo "== $t over RDMA"
	AIFS_VM_TRANSPORT=rdma bash "$AIFS_TOP/tests/vm/$t.sh" ||
		fail "$t over RDMA"
done
assert_eq "$(kernel_rdma_objects)" "$before" "kernel RDMA objects after umount"
rmmod aifs
assert_eq "$(kernel_rdma_objects)" "$before" "kernel RDMA objects after rmmod"
