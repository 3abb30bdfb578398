# Changes whose reply is lost with the connection are sent again on a new
# one under the same request id, and the MDS's reply cache answers them:
# every change is applied once, and the program sees no EEXIST or ENOENT.
. "$AIFS_TOP/tests/vm/lib.sh"
. "$AIFS_TOP/tests/vm/session/helpers"

load_aifs
umount_at_exit /mnt/a
mkdir -p /mnt/a
start_mds 7400
# The mount stays on TCP whatever AIFS_VM_TRANSPORT says: the proxy speaks
# TCP only, on 127.0.0.1.
log=$(mktemp /tmp/aifs-proxy.XXXXXX)
python3 "$AIFS_TOP/tests/vm/session/cutting-proxy.py" 7 7410 "$AIFS_ADDR" 7400 \
	>"$log" 2>&1 &
AIFS_SERVER_PIDS+=($!)
for i in $(seq 100); do
	grep -q ready "$log" && break
	sleep 0.1
done
grep -q ready "$log" || fail "proxy did not start: $(cat "$log")"

log_mark
mount -t aifs -o secret=$AIFS_SECRET,timeo=20,transport=tcp \
	127.0.0.1:7410:/ /mnt/a
# per i: mkdir, exclusive create, rename, and for some unlink and rmdir
python3 - <<'PY' || fail "a change failed"
import os
for i in range(40):
    os.mkdir(f"/mnt/a/d{i}")
    os.close(os.open(f"/mnt/a/f{i}", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    os.rename(f"/mnt/a/f{i}", f"/mnt/a/g{i}")
    if i % 2:
        os.unlink(f"/mnt/a/g{i}")
    if i % 3 == 0:
        os.rmdir(f"/mnt/a/d{i}")
PY

cuts=$(grep -c '^cut' "$log" || true)
[ "$cuts" -ge 20 ] || fail "the proxy cut only $cuts connections: $(cat "$log")"
want=$(python3 -c 'print(" ".join(sorted(
    [f"d{i}" for i in range(40) if i % 3] +
    [f"g{i}" for i in range(40) if i % 2 == 0])))')
got=$(ls -A /mnt/a | LC_ALL=C sort | tr '\n' ' ')
assert_eq "$got" "$want " "entries after $cuts cut connections"
expect_dmesg "aifs: server 127.0.0.1:7410 not responding, still trying"
expect_dmesg "aifs: server 127.0.0.1:7410 OK"
umount /mnt/a
