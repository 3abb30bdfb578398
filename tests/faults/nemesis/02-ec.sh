# The nemesis of 01-replicas on files of ec=4+2 over six data servers
# (fragments of 256 KiB: a 4 KiB write is a partial-stripe write, its
# parity read, changed and written back by the stripe's leader), one
# fault at a time, within the layout's tolerance of two. The seeds come
# from AIFS_NEMESIS_SEEDS ("26" in make test: every kind of fault on
# data servers, kills, stops, cuts and full disks); history kept as
# nemesis-ec-SEED*.
. "$AIFS_TOP/tests/vm/lib.sh"
. "$AIFS_TOP/tests/faults/replica/helpers"
. "$AIFS_TOP/tests/faults/nemesis/helpers"

nemesis_cluster nemesis-ec 6
mkdir /mnt/a/ec
aifs setlayout /mnt/a/ec ec=4+2 >/dev/null || fail "setlayout ec=4+2"
# shellcheck disable=SC2086
nemesis_seeds /mnt/a/ec /mnt/a/ec ${AIFS_NEMESIS_SEEDS:-26}
