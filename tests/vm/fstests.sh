#!/bin/bash
# fstests' curated generic tests on aifs (tests/fstests/run), in a boot of
# its own; skipped unless FSTESTS_DIR names a built fstests tree.
exec "$(dirname "$0")/../fstests/run"
