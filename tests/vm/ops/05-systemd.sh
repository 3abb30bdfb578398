# The servers under their systemd units in the guest: the server test
# tests/servers/systemd-units.py (a systemd-like supervisor reading the
# units: Type=notify, READY=1 once the port answers, STOPPING=1 and exit 0
# on SIGTERM, Restart=on-failure) run here too, on the guest's kernel.
. "$AIFS_TOP/tests/vm/lib.sh"

cd "$AIFS_TOP/tests/servers"
python3 -B systemd-units.py || fail "systemd-units.py"
