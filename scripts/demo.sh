#!/bin/bash
# The main job, shown.  Boots the test guest and runs the demo there.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
"$TOP/scripts/vm/run" -n demo -t 600 "$TOP/scripts/demo/guest.sh" >/dev/null
status=$?
cat "$TOP/build/vm-results/demo/1.out"
exit $status
