# Runs past its limit: the harness must kill it and say FAIL.
sleep 600
