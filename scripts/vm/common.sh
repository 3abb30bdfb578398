# Shared settings of the VM harness; sourced, not run.
#
# The guest boots Debian's own kernel under TCG (this host cannot load
# modules and its KVM cannot run a stock kernel), mounts the host's / read
# only over 9p with a tmpfs overlay on top, and so runs the host's binaries:
# build on the host, test in the guest, no copying.

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
AIFS_TOP=$(cd "$VM_DIR/../.." && pwd)
AIFS_BUILD=${AIFS_BUILD:-$AIFS_TOP/build}
KVER=$("$AIFS_TOP/scripts/kver.sh")
VM_MEM=${VM_MEM:-2G}
VM_CPUS=${VM_CPUS:-2}
INITRAMFS=$AIFS_BUILD/vm/initramfs-$KVER.cpio.gz

# Modules the initramfs loads, in this order, to reach the host's / over 9p.
VM_BOOT_MODULES="virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev
virtio_pci 9pnet 9pnet_virtio netfs fscache 9p overlay"

# Build the initramfs if it is missing or older than what goes into it.
vm_ensure_initramfs()
{
	local newest lock
	mkdir -p "$(dirname "$INITRAMFS")"
	# Runs started together from one tree build it once, not over each other.
	exec {lock}>"$INITRAMFS.lock"
	flock "$lock"
	newest=$(ls -t "$VM_DIR/initramfs-init" "$VM_DIR/mkinitramfs" \
		"/lib/modules/$KVER/modules.dep" "$INITRAMFS" 2>/dev/null | head -1)
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
		-kernel "/boot/vmlinuz-$KVER" -initrd "$INITRAMFS"
		-append "console=ttyS0 loglevel=5 panic=-1 aifs.top=$AIFS_TOP $cmdline"
		-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
		-virtfs "local,path=$results,mount_tag=results,security_model=none,multidevs=remap"
		-nic none -no-reboot
	)
}
