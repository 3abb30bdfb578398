#!/bin/bash
# aifs.ko builds from one source, warning-free at W=1, against the kernel
# the guest boots (Debian 12's 6.1) and Debian's 6.12 (bookworm-
# backports, its headers fetched once into build/kernels/): the kernels
# make test builds for (issue 30). `make kmod-matrix` tries 7.3 too.
# Skipped (exit 77) when Debian's archive cannot be reached and the
# headers were never fetched.
set -uo pipefail
cd "$(dirname "$0")/../.."
scripts/kmod-matrix host 6.12
