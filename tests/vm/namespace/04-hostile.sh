# A metadata server whose namespace replies are spoilt (a proxy in front of
# a real aifs-mds): each gives a clean error for that call, no oops, no
# hang, no endless listing, no leak.
. "$AIFS_TOP/tests/vm/lib.sh"

load_aifs
umount_at_exit /mnt/a /mnt/h
mkdir -p /mnt/a /mnt/h
start_mds 7400
mount -t aifs -o "$(with_transport secret=$AIFS_SECRET)" "$AIFS_ADDR:/" /mnt/a
mkdir /mnt/a/dir
for i in $(seq 20); do touch /mnt/a/dir/file$i; done
ln -s target /mnt/a/link
touch /mnt/a/file
setfattr -n user.k -v value /mnt/a/file 2>/dev/null ||
	python3 -c 'import os; os.setxattr("/mnt/a/file", "user.k", b"value")'
# u::rw-,u:1000:r--,g::r--,m::r--,o::r--
python3 -c 'import os, struct
e = [(1, 6, ~0), (2, 4, 1000), (4, 4, ~0), (16, 4, ~0), (32, 4, ~0)]
os.setxattr("/mnt/a/file", "system.posix_acl_access", struct.pack("<I", 2) +
            b"".join(struct.pack("<HHI", t, p, i & 0xffffffff) for t, p, i in e))'
umount /mnt/a

# The mounts through the proxy stay on TCP whatever AIFS_VM_TRANSPORT
# says: the proxy speaks TCP only, on 127.0.0.1.
proxy_opt=secret=$AIFS_SECRET,timeo=50,transport=tcp
port=7430
# proxy MODE: a hostile proxy on a new port; sets PROXY_PORT
proxy()
{
	port=$((port + 1))
	PROXY_PORT=$port
	start_peer "$AIFS_TOP/tests/vm/namespace/hostile-proxy.py" "$1" $port \
		"$AIFS_ADDR" 7400
}

# errno of a command run in python: result CODE
result()
{
	timeout 60 python3 -c "import errno, os, sys
try:
    $1
    print('ok')
except OSError as e:
    print(errno.errorcode[e.errno])"
}

# hostile_mount MODE: mount through a proxy, short timeouts
hostile_mount()
{
	proxy "$1"
	expect_mount ok -o $proxy_opt,attr_timeout=0,dentry_timeout=0 \
		127.0.0.1:$PROXY_PORT:/ /mnt/h
}

for mode in root-notype root-ino0; do
	proxy $mode
	log_mark
	expect_mount EIO -o $proxy_opt 127.0.0.1:$PROXY_PORT:/ /mnt/h
	expect_dmesg "malformed GETATTR reply"
done

# check MODE CODE EXPECTED-ERRNO
check()
{
	hostile_mount "$1"
	assert_eq "$(result "$2")" "$3" "$1: $2"
	timeout 20 umount /mnt/h || fail "$1: umount"
}

check nlink 'os.stat("/mnt/h/file")' EIO
check errno512 'os.stat("/mnt/h/file")' EIO
check errno4095 'os.stat("/mnt/h/file")' EIO
check short 'os.stat("/mnt/h/file")' EIO
check rd-noeof 'os.listdir("/mnt/h/dir")' EIO
check rd-cookie 'os.listdir("/mnt/h/dir")' EIO
check rd-slash 'os.listdir("/mnt/h/dir")' EIO
check link-nul 'os.readlink("/mnt/h/link")' EIO
check xattr-size 'os.getxattr("/mnt/h/file", "user.k")' EIO
check retype 'os.stat("/mnt/h/file")' ESTALE
log_mark
check acl-perm 'os.getxattr("/mnt/h/file", "system.posix_acl_access")' EIO
expect_dmesg "malformed ACL of inode"

# the real server still serves, through the same module, cleanly
mount -t aifs -o "$(with_transport secret=$AIFS_SECRET)" "$AIFS_ADDR:/" /mnt/a
[ "$(ls /mnt/a/dir | wc -l)" = 20 ] || fail "listing after the hostile mounts"
umount /mnt/a
stop_servers
pgrep -x aifs-recv >/dev/null && fail "receiver thread left"
assert_eq "$(module_refcount)" 0 "module refcount"
