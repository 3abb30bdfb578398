#!/bin/bash
# Install every Debian package that building, testing and benchmarking aifs
# need; "scripts/deps.sh demo" also those of the demo and the benchmark
# suite's loader and plots (PyTorch, matplotlib: large, and no test needs
# them).  Idempotent: when everything is present it only runs dpkg-query
# and exits.
set -euo pipefail

PACKAGES=(
	# build
	build-essential pkg-config clang libclang-rt-14-dev sparse
	linux-headers-amd64 kmod
	# the kernels of make kmod-matrix (scripts/kernels/fetch): pahole makes
	# the BTF of modules for kernels whose headers ship a vmlinux (6.12)
	dwarves
	# userspace libraries
	liblmdb-dev lmdb-utils libjerasure-dev libgf-complete-dev
	libnl-3-dev libnl-genl-3-dev libinih-dev libmicrohttpd-dev libjson-c-dev
	libsystemd-dev libssl-dev libisal-dev
	# RDMA
	rdma-core libibverbs-dev librdmacm-dev ibverbs-utils rdmacm-utils
	ibverbs-providers
	# VM harness: the guest boots Debian's kernel with the host's / over 9p
	qemu-system-x86 linux-image-amd64 busybox-static cpio iproute2
	# tests, benchmarks and peers measured beside aifs
	nfs-kernel-server fio stress-ng fsmark dbench python3 acl attr nftables
	python3-hypothesis python3-prometheus-client jq
	# systemd's fstab generator judges the fstab lines of tests/vm/ops
	systemd
	# manual pages: rendered and checked by tests/unit/man-pages.sh
	groff-base
	# packaging
	dkms
)
if [ "${1:-}" = demo ]; then
	PACKAGES+=(python3-torch python3-numpy python3-matplotlib)
fi

missing=()
for pkg in "${PACKAGES[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
	[ "$status" = "install ok installed" ] || missing+=("$pkg")
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#PACKAGES[@]} packages present"
	exit 0
fi

echo "deps: installing ${missing[*]}"
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"

# The module is built against the headers of the kernel the guest boots:
# both come from the -amd64 metapackages and must be the same version.
"$(dirname "$0")/kver.sh" >/dev/null
