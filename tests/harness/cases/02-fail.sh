# A failing guest script: the harness must say FAIL.
echo "this test fails on purpose"
exit 1
