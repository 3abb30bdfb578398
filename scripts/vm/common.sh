# Shared settings of the VM harness; sourced, not run.
#
# The guest boots Debian's own kernel under TCG (this host cannot load
# modules and its KVM cannot run a stock kernel), mounts the host's / read
# only over 9p with a tmpfs overlay on top, and so runs the host's binaries:
# build on the host, test in the guest, no copying.

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
AIFS_TOP=$(cd "$VM_DIR/../.." && pwd)
AIFS_BUILD=${AIFS_BUILD:-$AIFS_TOP/build}
VM_MEM=${VM_MEM:-2G}
VM_CPUS=${VM_CPUS:-2}

# The kernel the guest boots: the host's Debian kernel (scripts/kver.sh),
# or with AIFS_VM_KERNEL=NAME one of scripts/kernels/kernels (6.12),
# fetched with its modules into build/kernels/RELEASE/ (VM_KERNEL_ROOT,
# which the guest's /lib/modules/RELEASE is bound to: aifs.kroot=).
if [ -n "${AIFS_VM_KERNEL:-}" ]; then
	kdir=$("$AIFS_TOP/scripts/kernels/fetch" --image "$AIFS_VM_KERNEL") ||
		exit $?
	VM_KERNEL_ROOT=${kdir%/usr/src/*}
	KVER=${kdir##*/linux-headers-}
	unset kdir
else
	VM_KERNEL_ROOT=
	KVER=$("$AIFS_TOP/scripts/kver.sh")
fi
VM_KERNEL_IMAGE=$VM_KERNEL_ROOT/boot/vmlinuz-$KVER
VM_MODULES=$VM_KERNEL_ROOT/lib/modules/$KVER
INITRAMFS=$AIFS_BUILD/vm/initramfs-$KVER.cpio.gz

# Modules the initramfs loads, in this order, to reach the host's / over
# 9p; those a kernel builds in or does not have (fscache is part of netfs
# from 6.12 on, where 9pnet needs netfs) are left out.
VM_BOOT_MODULES="virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev
virtio_pci netfs fscache 9pnet 9pnet_virtio 9p overlay"

# Build the initramfs if it is missing or older than what goes into it.
vm_ensure_initramfs()
{
	local newest lock
	mkdir -p "$(dirname "$INITRAMFS")"
	# Runs started together from one tree build it once, not over each other.
	exec {lock}>"$INITRAMFS.lock"
	flock "$lock"
	newest=$(ls -t "$VM_DIR/initramfs-init" "$VM_DIR/mkinitramfs" \
		"$VM_DIR/common.sh" "$VM_MODULES/modules.dep" "$INITRAMFS" \
		2>/dev/null | head -1)
	[ "$newest" = "$INITRAMFS" ] || "$VM_DIR/mkinitramfs" "$INITRAMFS"
	local rc=$?
	exec {lock}>&-
	return $rc
}

# qemu arguments common to batch runs and the interactive shell.  $1 is the
# host directory shared writable as the guest's /aifs-results, $2 extra
# kernel command line.
vm_qemu_args()
{
	local results=$1 cmdline=$2

	QEMU_ARGS=(
		-accel tcg,thread=multi -cpu max -m "$VM_MEM" -smp "$VM_CPUS"
		-kernel "$VM_KERNEL_IMAGE" -initrd "$INITRAMFS"
		-append "console=ttyS0 loglevel=5 panic=-1 aifs.top=$AIFS_TOP ${VM_KERNEL_ROOT:+aifs.kroot=$VM_KERNEL_ROOT }$cmdline"
		-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
		-virtfs "local,path=$results,mount_tag=results,security_model=none,multidevs=remap"
		-nic none -no-reboot
	)
}
