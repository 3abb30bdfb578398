# A test that passes: the harness must say PASS.
echo "all good"
exit 0
