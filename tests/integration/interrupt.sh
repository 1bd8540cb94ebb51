#!/usr/bin/env bash
# Interrupting a local run: a concurrent restart of the same workspace is refused; the first
# SIGINT drains (running steps go on), the second terminates them without committing; restart
# finishes the study. Restart also re-runs failed tasks.
source "$(dirname "$0")/lib.sh"
cat >slow.yaml <<'Y'
description: {name: slow, description: two slow steps}
study:
  - name: nap
    run:
      cmd: |
        if [ -f $(MERLIN_WORKSPACE)/../fast ]; then echo fast > nap.txt; exit 0; fi
        exec sleep 60   # $(V)
merlin:
  samples:
    file: $(SPECROOT)/two.csv
    column_labels: [V]
Y
printf '1\n2\n' >two.csv
"$MERLIN" run --local --no-progress -j 2 slow.yaml >run.out 2>run.err &
pid=$!
# wait (bounded) until both steps run, as the live status says
for _ in $(seq 100); do
  ws=$(ls -d slow_2* 2>/dev/null || true)
  [ -n "$ws" ] && "$MERLIN" status "$ws" --format csv 2>/dev/null | grep -q '^nap,1,2,0,0,2,' && break
  sleep 0.1
done
expect_eq "both steps running" "nap,1,2,0,0,2,0" "$("$MERLIN" status "$ws" --format csv | tail -1 | cut -d, -f1-7)"
set +e
"$MERLIN" restart --no-progress "$ws" >/dev/null 2>restart.err
rc=$?
set -e
expect_eq "restart of a running workspace refused" 1 "$rc"
check "the refusal says why" grep -q "another merlin process is running this workspace" restart.err
kill -INT $pid
# Signals of one kind coalesce: wait (bounded) until merlin has seen the first one.
for _ in $(seq 100); do grep -q "stopping: running steps finish first" run.err && break; sleep 0.1; done
check "first interrupt acknowledged" grep -q "stopping: running steps finish first" run.err
check "first interrupt: still running (draining)" kill -0 $pid
kill -INT $pid
set +e
wait $pid
rc=$?
set -e
expect_eq "second interrupt ends the run with 1" 1 "$rc"
check "it says how to continue" grep -q "merlin restart" run.err
check "no step left running" test -z "$(pgrep -f "$WORK/$ws/nap" || true)"
expect_eq "nothing committed" "nap,1,2,0,0,0,2" "$("$MERLIN" status "$ws" --format csv | tail -1 | cut -d, -f1-7)"
touch fast
"$MERLIN" restart --no-progress "$ws" >/dev/null 2>&1
check "restart finishes" test $? = 0
expect_eq "both samples done" "nap,1,2,2,0,0,0" "$("$MERLIN" status "$ws" --format csv | tail -1 | cut -d, -f1-7)"

cat >flaky.yaml <<'Y'
description: {name: flaky, description: fails until fixed}
study:
  - name: f
    run:
      cmd: test -f $(MERLIN_WORKSPACE)/../fixed
Y
set +e
"$MERLIN" run --local --no-progress flaky.yaml >/dev/null 2>&1
rc=$?
set -e
expect_eq "failing study exits 1" 1 "$rc"
ws=$(ls -d flaky_2*)
expect_eq "status shows the failure" "f,1,1,0,1" "$("$MERLIN" status "$ws" --format csv | tail -1 | cut -d, -f1-5)"
touch fixed
"$MERLIN" restart --no-progress "$ws" >/dev/null 2>&1
check "restart re-runs the failed task and exits 0" test $? = 0
expect_eq "the success replaces the failure" "f,1,1,1,0" "$("$MERLIN" status "$ws" --format csv | tail -1 | cut -d, -f1-5)"
finish
