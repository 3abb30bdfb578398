#!/bin/bash
# Print the version of aifs being built, for the DKMS source tree
# (usr/src/aifs-<version>) and the install: VERSION's number, with the
# commit appended when this is a git work tree, so that two installs of
# different code never share a DKMS version ("0.1+g0f76ff7", ".dirty"
# when the tree has uncommitted changes).  A tag vX.Y names the release
# itself: "X.Y", or "X.Y+N.gHASH" N commits after it.  Only characters
# DKMS takes in a version: no '-', no '/'.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
base=$(tr -d ' \n' <"$TOP/VERSION" 2>/dev/null || echo 0.1)
[ -n "$base" ] || base=0.1

if ! git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1; then
	echo "$base"
	exit 0
fi
dirty=
git -C "$TOP" update-index -q --refresh >/dev/null 2>&1 || true
git -C "$TOP" diff-index --quiet HEAD -- 2>/dev/null || dirty=.dirty
if desc=$(git -C "$TOP" describe --tags --match 'v[0-9]*' 2>/dev/null); then
	# v0.2 or v0.2-12-gabcdef0
	desc=${desc#v}
	case $desc in
	*-*-g*) ver="${desc%%-*}+$(echo "${desc#*-}" | tr - .)" ;;
	*) ver=$desc ;;
	esac
else
	ver="$base+g$(git -C "$TOP" rev-parse --short=7 HEAD)"
fi
echo "$ver$dirty"
