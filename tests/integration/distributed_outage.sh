#!/usr/bin/env bash
# A worker rides out a Redis that stops answering for less than the retry budget, and ends
# with a clear message when the outage outlasts it (bounded in time):
#  - redis-server paused (SIGSTOP) for 8 s, longer than two reply timeouts (what a worker
#    survived before), less than the budget: the study completes, every sample committed once;
#  - the worker's connections killed (CLIENT KILL) again and again: it goes on;
#  - paused longer than the budget: exit 1 naming the server.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faults_lib.sh"
start_redis --requirepass s3cret
export MERLIN_BROKER_URL=redis://:s3cret@127.0.0.1:$REDIS_PORT/0 REDISCLI_AUTH=s3cret
N=300
many_study $N
check_complete() {  # label ws
  local key; key=$(basename "$2")
  expect_eq "$1: every sample done, none failed" "sim,1,$N,$N,0" \
    "$("$MERLIN" status "$2" --format csv | tail -1 | cut -d, -f1-5)"
  expect_eq "$1: the done bitmap holds each sample once" "$N" \
    "$(redis-cli -p $REDIS_PORT bitcount "merlin:$key:done:0")"
  expect_eq "$1: nothing remaining" "0" "$(redis-cli -p $REDIS_PORT hget "merlin:$key:remaining" 0)"
  expect_eq "$1: every sample ran" "$N" "$(sort -u "$2/runs.log" | wc -l)"
}
paused() { grep -q '^State:.*stopped' /proc/$REDIS_PID/status 2>/dev/null; }
CLEANUP=("kill -CONT \$REDIS_PID" "${CLEANUP[@]}")  # a paused server would not stop

# --- paused for 8 s: four 2 s reply timeouts, a 20 s budget -----------------------------------
ws=$("$MERLIN" run many.yaml 2>/dev/null)
"$MERLIN" run-workers many.yaml --exit-when-done --lease 3 --broker-retry 20 \
  --broker-timeout 2 >p.out 2>p.err &
worker=$!
CLEANUP+=("kill -9 $worker")
wait_until 30 bash -c "[ \$('$MERLIN' status '$ws' --format csv | tail -1 | cut -d, -f4) -ge 40 ]"
kill -STOP "$REDIS_PID"
check "redis-server is paused" wait_until 5 paused  # SIGSTOP takes hold when the server is next scheduled
sleep 8  # the outage (the worker has no way to know when it ends)
check "the worker is still there after 8 s without answers" kill -0 $worker
kill -CONT "$REDIS_PID"
set +e
wait_until 120 bash -c "! kill -0 $worker 2>/dev/null"
wait $worker
rc=$?
set -e
expect_eq "pause: the worker rides it out and exits 0" 0 "$rc"
check_complete "after an 8 s pause" "$ws"

# --- connections killed every 50 ms ------------------------------------------------------------
ws=$("$MERLIN" run many.yaml 2>/dev/null)
"$MERLIN" run-workers many.yaml --exit-when-done --lease 3 >k.out 2>k.err &
worker=$!
CLEANUP+=("kill -9 $worker")
# Kills start once the worker is at work: its first connect fails fast by design (a wrong
# address must not wait out the budget), and a kill landing in it ended the test's worker.
wait_until 30 bash -c "[ \$('$MERLIN' status '$ws' --format csv | tail -1 | cut -d, -f4) -ge 10 ]"
killed=0
for _ in $(seq 400); do  # at most ~20 s
  kill -0 $worker 2>/dev/null || break
  n=$(redis-cli -p $REDIS_PORT client kill type normal 2>/dev/null || echo 0)
  killed=$((killed + ${n:-0}))
  sleep 0.05
done
set +e
wait $worker
rc=$?
set -e
expect_eq "kills: the worker rides them out and exits 0" 0 "$rc"
check "kills: its connections were killed again and again ($killed)" test "$killed" -ge 20
check_complete "after $killed killed connections" "$ws"

# --- paused longer than the budget ---------------------------------------------------------------
ws=$("$MERLIN" run many.yaml 2>/dev/null)
"$MERLIN" run-workers many.yaml --exit-when-done --lease 3 --broker-retry 3 --broker-timeout 1 \
  >b.out 2>b.err &
worker=$!
CLEANUP+=("kill -9 $worker")
wait_until 30 bash -c "[ \$('$MERLIN' status '$ws' --format csv | tail -1 | cut -d, -f4) -ge 10 ]"
kill -STOP "$REDIS_PID"
set +e
wait_until 30 bash -c "! kill -0 $worker 2>/dev/null"
wait $worker
rc=$?
set -e
kill -CONT "$REDIS_PID"
expect_eq "budget spent: the worker exits 1" 1 "$rc"
check "budget spent: the message names the server and the budget" \
  grep -q "redis 127.0.0.1:$REDIS_PORT: .*gave up after retrying for .* (the broker retry budget is 3.0 s)" b.err
check "budget spent: no password in the log" bash -c "! grep -q s3cret b.err"
"$MERLIN" run-workers many.yaml --exit-when-done --lease 3 >/dev/null 2>&1
check_complete "budget spent, then another worker" "$ws"

# --- bad settings are bad input ----------------------------------------------------------------
set +e
"$MERLIN" status many.yaml --broker-retry -1 >/dev/null 2>bad1.err
rc1=$?
MERLIN_BROKER_TIMEOUT=soon "$MERLIN" status many.yaml >/dev/null 2>bad2.err
rc2=$?
set -e
expect_eq "a negative --broker-retry exits 2" 2 "$rc1"
expect_eq "a MERLIN_BROKER_TIMEOUT that is no number exits 2" 2 "$rc2"
check "and says which setting" grep -q "MERLIN_BROKER_TIMEOUT: 'soon' is not a number of seconds" bad2.err
finish
