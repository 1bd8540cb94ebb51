#!/usr/bin/env bash
# Steps die with their worker (#14): a step that started a background child and sleeps is
# ended, child and all, soon after `merlin run --local` or a Redis `run-workers` process is
# killed with SIGKILL (merlin-guard, workers/guarded_spawn.h). And a task run again appends
# to its .out/.err after a marker line instead of truncating them.
source "$(dirname "$0")/lib.sh"

# A step that leaves a background sleep and a foreground one, writing every pid and its
# process group (the guardian's) where the test can read them.
cat >stay.yaml <<'Y'
description: {name: stay, description: steps that would outlive their worker}
study:
  - name: nap
    run:
      cmd: |
        echo "sample $(V)"
        if [ -f $(MERLIN_WORKSPACE)/../finish ]; then exit 0; fi
        sleep 300 &
        echo $! >> $(MERLIN_WORKSPACE)/../pids
        sleep 301 &
        echo $! >> $(MERLIN_WORKSPACE)/../pids
        echo $$ >> $(MERLIN_WORKSPACE)/../pids
        ps -o pgid= $$ | tr -d ' ' >> $(MERLIN_WORKSPACE)/../groups
        wait
merlin:
  samples:
    file: $(SPECROOT)/two.csv
    column_labels: [V]
Y
printf '1\n2\n' >two.csv

# Lines in a file, 0 when it is not there.
lines() { [ -f "$1" ] && wc -l <"$1" | tr -d ' ' || echo 0; }
# Processes (not zombies) among the pids in `pids` or in the groups in `groups`.
survivors() {
  local p
  for p in $(cat pids); do
    ps -o stat= -p "$p" 2>/dev/null | grep -qv '^Z' && echo "pid $p $(ps -o args= -p "$p")"
  done
  ps -e -o pgid=,pid=,stat=,args= | awk -v groups="$(tr '\n' ' ' <groups)" '
    BEGIN { n = split(groups, g, " "); for (i = 1; i <= n; i++) want[g[i]] = 1 }
    ($1 in want) && $3 !~ /^Z/ { print "group " $2 " " $4 " " $5 }'
  return 0
}
none_left() { [ -z "$(survivors)" ]; }

# kill_and_check LABEL PID: SIGKILL the merlin process once both steps run; nothing of them
# may be left shortly after.
kill_and_check() {
  local label=$1 pid=$2
  if ! wait_until 60 bash -c "[ -f groups ] && [ \$(wc -l <groups) -ge 2 ]"; then
    fail "$label: the two steps did not start"
    return
  fi
  check "$label: the steps' processes run before the kill" test -n "$(survivors)"
  kill -9 "$pid"
  wait "$pid" 2>/dev/null || true
  if wait_until 15 none_left; then
    pass "$label: no process of the steps is left after kill -9 of merlin"
  else
    fail "$label: left after kill -9 of merlin: $(survivors | tr '\n' ';')"
    survivors | awk '{print $2}' | sort -u | xargs -r kill -9 2>/dev/null || true
  fi
}

# --- merlin run --local -------------------------------------------------------------------
"$MERLIN" run --local --no-progress -j 2 stay.yaml >local.out 2>local.err &
local_run=$!
CLEANUP+=("kill -9 $local_run")
kill_and_check "run --local" $local_run

# --- merlin run-workers on Redis ----------------------------------------------------------
rm -f pids groups
start_redis
ws=$("$MERLIN" run stay.yaml 2>queue.err)
"$MERLIN" run-workers stay.yaml --lease 2 >workers.out 2>workers.err &
worker=$!
CLEANUP+=("kill -9 $worker")
kill_and_check "run-workers (Redis)" $worker
# Another worker takes the dead one's tasks over after the lease; their runs append.
touch finish
"$MERLIN" run-workers stay.yaml --lease 2 --exit-when-done >again.out 2>again.err &
again=$!
CLEANUP+=("kill -9 $again")
if wait_until 60 bash -c "! kill -0 $again 2>/dev/null"; then
  expect_eq "the taken-over tasks finish the study" "nap,1,2,2,0" \
    "$("$MERLIN" status "$ws" --format csv | tail -1 | cut -d, -f1-5)"
  expect_eq "each .out: the killed run, a redelivery marker, the new run" \
    "sample 1|==== merlin: attempt 1 (redelivered), T ====|sample 1" \
    "$(sed -E 's/, [0-9T:-]+Z ====$/, T ====/' "$ws"/nap/*/nap.out | head -3 | paste -sd'|')"
else
  fail "the second worker did not finish the study within 60 s"
fi

# --- retries append to .out/.err -----------------------------------------------------------
cat >retry.yaml <<'Y'
description: {name: again, description: a step that asks for two retries}
study:
  - name: flaky
    run:
      cmd: |
        n=$(( $(cat count 2>/dev/null || echo 0) + 1 ))
        echo $n > count
        echo "run $n"
        echo "err $n" >&2
        if [ $n -lt 3 ]; then exit $(MERLIN_RETRY); fi
      max_retries: 3
      retry_delay: 0
Y
"$MERLIN" run --local --no-progress retry.yaml >retry.out 2>retry.err
check "the retried study succeeds" test $? = 0
ws=$(ls -d again_2*)
out=$(cat "$ws/flaky/flaky.out")
expect_eq ".out holds every run, each retry after a marker" \
  "run 1|==== merlin: attempt 2 (retry), T ====|run 2|==== merlin: attempt 3 (retry), T ====|run 3" \
  "$(sed -E 's/, [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z ====$/, T ====/' "$ws/flaky/flaky.out" | paste -sd'|')"
expect_eq ".err too" "err 1|err 2|err 3" "$(grep -v '^====' "$ws/flaky/flaky.err" | paste -sd'|')"
expect_eq ".err has the two markers" 2 "$(grep -c '^==== merlin: attempt' "$ws/flaky/flaky.err")"

# A guardian killed under its step (as a batch system killing a job's processes one by one
# may do a moment before it reaches the worker) is not the step's failure: the step is killed
# with it, counts as killed by a signal, and runs again.
cat >orphan.yaml <<'Y'
description: {name: orphan, description: a step whose guardian dies}
study:
  - name: held
    run:
      cmd: |
        n=$(( $(cat count 2>/dev/null || echo 0) + 1 ))
        echo $n > count
        if [ $n = 1 ]; then echo $PPID > $(MERLIN_WORKSPACE)/../guardian.pid; sleep 300; fi
Y
rm -f guardian.pid
"$MERLIN" run --local --no-progress orphan.yaml >orphan.out 2>orphan.err &
run=$!
CLEANUP+=("kill -9 $run")
if wait_until 30 test -s guardian.pid; then
  g=$(cat guardian.pid)
  check "the step's parent is its guardian ($(ps -o comm= -p "$g"))" \
    bash -c "ps -o comm= -p $g | grep -q merlin-guard"
  kill -9 "$g"
  set +e
  timeout 60 tail --pid=$run -f /dev/null
  wait $run
  rc=$?
  set -e
  expect_eq "guardian killed: the study still succeeds" 0 "$rc"
  ws=$(ls -d orphan_2*)
  expect_eq "guardian killed: the step ran again (twice in all)" 2 "$(cat "$ws/held/count")"
  "$MERLIN" status "$ws" --format csv >orphan.csv 2>/dev/null
  check "guardian killed: status counts it done, not failed" grep -q '^held,1,1,1,0' orphan.csv
  check "guardian killed: the log says what happened" \
    grep -q "step guardian (pid $g) died under step=held .* counts as killed by a signal" orphan.err
else
  fail "the step under a guardian started ($(cat orphan.err))"
fi

# A first run is as before: no marker.
cat >once.yaml <<'Y'
description: {name: once, description: one run}
study:
  - name: one
    run:
      cmd: echo hello
Y
"$MERLIN" run --local --no-progress once.yaml >/dev/null 2>&1
expect_eq "a first run's .out has no marker" "hello" "$(cat once_2*/one/one.out)"
finish
