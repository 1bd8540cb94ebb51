#!/usr/bin/env bash
# `merlin status` and `detailed-status` of a study queued on one Redis while merlin is now
# pointed at another (issue #25 item 5: `merlin server start` rewrote app.yaml, or another URL
# was exported). Two real redis-servers, A (with a password) and B:
#  - a study run to the end on A, then asked with B configured: both commands answer from the
#    workspace's own records (run.env says finished=1; the task journals), every task FINISHED,
#    and a note names both brokers; run.env keeps A's URL without its password;
#  - a study queued on B and not run, asked with a dead URL configured: read from B, the broker
#    run.env records (it is reachable);
#  - the same once B is stopped: refused (exit 1) with a message naming both brokers and what
#    to do, never a table of INITIALIZED tasks.
source "$(dirname "$0")/lib.sh"
set +e  # exit codes are what this test checks
export HOME=$WORK/home
mkdir -p "$HOME"

A_PASS=s3cret-of-A
start_redis --requirepass "$A_PASS"
A_PORT=$REDIS_PORT
A_URL=redis://:$A_PASS@127.0.0.1:$A_PORT/0
# B: a second server, its own directory and port; stopped at exit.
REDIS_DIR=$WORK/redis-b
mkdir -p "$REDIS_DIR"
A_PID=$REDIS_PID
for try in $(seq 20); do
  REDIS_PORT=$((20000 + RANDOM % 30000))
  [ "$REDIS_PORT" != "$A_PORT" ] && redis_launch && break
  kill "$REDIS_PID" 2>/dev/null
done
B_PID=$REDIS_PID B_PORT=$REDIS_PORT
B_URL=redis://127.0.0.1:$B_PORT/0
CLEANUP+=("kill $B_PID")
REDIS_PID=$A_PID  # lib.sh's stop_redis stops A
check "B is up" redis-cli -p "$B_PORT" ping

printf '%s\n' $(seq 8) >samples.csv
cat >moved.yaml <<'Y'
description: {name: moved, description: a study whose broker setting changes}
env:
  variables:
    OUTPUT_PATH: ./studies
study:
  - name: sim
    run: {cmd: 'echo $(X) > x.txt', task_queue: sim_q}
  - name: post
    run: {cmd: 'echo post', depends: [sim_*], task_queue: post_q}
merlin:
  resources:
    workers:
      simmer: {args: --concurrency 2, steps: [sim, post]}
  samples:
    file: $(SPECROOT)/samples.csv
    column_labels: [X]
Y

# --- Run to the end on A.
MERLIN_BROKER_URL=$A_URL "$MERLIN" run moved.yaml >runA.out 2>&1
expect_eq "run queues the study on A" 0 $?
wsA=$(ls -d studies/moved_*)
MERLIN_BROKER_URL=$A_URL timeout 120 "$MERLIN" run-workers moved.yaml --exit-when-done >wA.out 2>&1
expect_eq "the workers finish the study on A" 0 $?
check "run.env: the study finished (finished=1)" grep -qx "finished=1" "$wsA/merlin_info/run.env"
check "run.env: the broker it ran on, A" grep -qx "broker_at=redis://:\*\*\*@127.0.0.1:$A_PORT/0" "$wsA/merlin_info/run.env"
check "run.env keeps no password" bash -c "! grep -q '$A_PASS' '$wsA/merlin_info/run.env'"
MERLIN_BROKER_URL=$A_URL "$MERLIN" status "$wsA" --format csv >stA.csv 2>/dev/null
expect_eq "status on A itself: 8 done, post done" "sim,8,8,0|post,1,1,0" \
  "$(tail -n +2 stA.csv | cut -d, -f1,3,4,5 | paste -sd'|')"

# --- Now B is the broker configured: status and detailed-status answer from the workspace.
export MERLIN_BROKER_URL=$B_URL
"$MERLIN" status "$wsA" --format csv >stB.csv 2>stB.err
expect_eq "status with B configured: exit 0" 0 $?
expect_eq "status with B configured: the finished counts, from the journals" "sim,8,8,0|post,1,1,0" \
  "$(tail -n +2 stB.csv | cut -d, -f1,3,4,5 | paste -sd'|')"
check "status: a note names both brokers" grep -qF "redis://:***@127.0.0.1:$A_PORT/0" stB.err
check "status: ... and the one configured now" grep -qF "$B_URL" stB.err
check "status: no suggestion to restart a finished study" bash -c "! grep -q restart stB.err"
check "status: no password shown" bash -c "! grep -q '$A_PASS' stB.err stB.csv"
"$MERLIN" detailed-status "$wsA" --format csv >dsB.csv 2>dsB.err
expect_eq "detailed-status with B configured: exit 0" 0 $?
expect_eq "detailed-status with B configured: all 9 tasks FINISHED" "FINISHED 9" \
  "$(tail -n +2 dsB.csv | cut -d, -f3 | sort | uniq -c | awk '{print $2, $1}')"
check "detailed-status: never INITIALIZED for a finished task" bash -c "! grep -q INITIALIZED dsB.csv"
check "detailed-status: the worker that ran each task, from its journal" \
  bash -c "[ \$(tail -n +2 dsB.csv | cut -d, -f9 | grep -c simmer) -eq 9 ]"
check "detailed-status: a note names both brokers" grep -qF "redis://:***@127.0.0.1:$A_PORT/0" dsB.err

# --- A study queued on B, not run; the configured URL is a port where no server listens.
"$MERLIN" run moved.yaml >runB.out 2>&1
expect_eq "run queues a second study on B" 0 $?
wsB=$(ls -td studies/moved_* | head -1)
DEAD_URL=redis://127.0.0.1:$((A_PORT == 65000 ? 65001 : 65000))/0
export MERLIN_BROKER_URL=$DEAD_URL MERLIN_BROKER_RETRY=0
"$MERLIN" status "$wsB" --format csv >q.csv 2>q.err
expect_eq "status of a study on B with a dead URL configured: exit 0 (read from B)" 0 $?
expect_eq "status: B's counts (nothing done yet)" "sim,8,0,0|post,1,0,0" \
  "$(tail -n +2 q.csv | cut -d, -f1,3,4,5 | paste -sd'|')"
check "status: the note says B is where it was read" grep -qF "$B_URL" q.err
"$MERLIN" detailed-status "$wsB" --format csv >qd.csv 2>qd.err
expect_eq "detailed-status of the study on B: exit 0" 0 $?
expect_eq "detailed-status: 9 tasks INITIALIZED (queued on B)" "INITIALIZED 9" \
  "$(tail -n +2 qd.csv | cut -d, -f3 | sort | uniq -c | awk '{print $2, $1}')"

# --- B stopped: the study is neither reachable nor finished: refused, naming both brokers.
kill "$B_PID"
wait_until 10 bash -c "! kill -0 $B_PID 2>/dev/null"
timeout 60 "$MERLIN" status "$wsB" >r.out 2>r.err
expect_eq "status, recorded broker down, not finished: exit 1" 1 $?
check "status: names the broker it was queued on" grep -qF "$B_URL" r.err
check "status: names the broker configured now" grep -qF "$DEAD_URL" r.err
check "status: says how to point merlin at it" grep -q -- "--broker" r.err
expect_eq "status: one line" 1 "$(grep -c '^merlin:' r.err)"
timeout 60 "$MERLIN" detailed-status "$wsB" >rd.out 2>rd.err
expect_eq "detailed-status, recorded broker down, not finished: exit 1" 1 $?
check "detailed-status: no table of INITIALIZED tasks" bash -c "! grep -q INITIALIZED rd.out"
check "detailed-status: names both brokers" bash -c "grep -qF '$B_URL' rd.err && grep -qF '$DEAD_URL' rd.err"
finish
