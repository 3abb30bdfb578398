# aifs-fsx mode mmap: the ops of 05-fsx with every read and write through
# a shared mapping of the file (page_mkwrite, writeback of mapped pages).
. "$AIFS_TOP/tests/vm/lib.sh"

mount_cluster /mnt/a
run_fsx mmap 9 /mnt/a/fsx-mmap
umount /mnt/a
