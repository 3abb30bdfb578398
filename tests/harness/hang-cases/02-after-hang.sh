# Must not run: the group stops at a hang.
exit 0
