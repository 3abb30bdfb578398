#!/bin/bash
# The manual pages (Documentation/man) render without a single groff
# warning, and every command has one: each subcommand of the aifs CLI's
# usage text (utils/aifs/aifs.c), the commands issue 11 specifies (status,
# df, stats), the programs `make install` installs, and their config files.
set -euo pipefail
cd "$(dirname "$0")/../.."
MAN=Documentation/man

command -v groff >/dev/null || { echo "groff not installed (groff-base)"; exit 77; }
status=0

bad()
{
	echo "FAIL: $*"
	status=1
}

# -ww: every warning; -z: no output, only the diagnostics.
for page in "$MAN"/*.[0-9]; do
	out=$(groff -man -Tutf8 -ww -z "$page" 2>&1) || bad "$page: groff failed"
	[ -z "$out" ] || bad "$page: $out"
	# the .TH title is the page's name, as man(1) finds it
	name=$(basename "$page")
	th=$(sed -n 's/^\.TH \([^ ]*\) \([0-9]\) .*/\1.\2/p' "$page" | sed 's/\\-/-/g')
	[ "${th,,}" = "$name" ] || bad "$page: .TH says '$th'"
done

# Subcommands: the lines of cli_usage() that begin with two spaces and a
# lowercase word ("  fsck HOST:PORT ..."); options begin with '-'.
usage_commands()
{
	sed -n '/^void cli_usage/,/^}/p' utils/aifs/aifs.c |
		sed -n 's/^[[:space:]]*"  \([a-z][a-z-]*\)[ \\].*/\1/p'
}

cmds=$(usage_commands)
[ "$(wc -w <<<"$cmds")" -ge 5 ] || bad "found only '$cmds' in aifs.c's usage"
for cmd in $cmds status df stats; do
	[ -f "$MAN/aifs-$cmd.8" ] || bad "aifs $cmd has no page $MAN/aifs-$cmd.8"
	grep -q "^\.BR aifs\\\\-$cmd (8)" "$MAN/aifs.8" ||
		bad "aifs.8 does not refer to aifs-$cmd(8)"
done
for page in aifs.8 aifs-mds.8 aifs-ds.8 mount.aifs.8 aifs.conf.5; do
	[ -f "$MAN/$page" ] || bad "no $MAN/$page"
done
[ $status = 0 ] && echo "$(ls "$MAN" | wc -l) pages render cleanly; commands: $(echo $cmds) status df stats"
exit $status
