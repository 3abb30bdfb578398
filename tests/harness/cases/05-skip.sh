# A test that cannot run here: the harness must say SKIP with the reason.
echo "needs something this guest lacks"
exit 77
