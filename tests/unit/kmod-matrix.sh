#!/bin/bash
# aifs.ko builds from one source, warning-free at W=1, against the kernel
# the guest boots (Debian 12's 6.1), Debian's 6.12 (bookworm-backports)
# and 7.3 (trixie-backports, with trixie's gcc-14), their headers and
# compiler fetched once into build/kernels/ (issue 30).  Skipped (exit
# 77) when Debian's archive cannot be reached and they never were.
set -uo pipefail
cd "$(dirname "$0")/../.."
scripts/kmod-matrix host 6.12 7.3
