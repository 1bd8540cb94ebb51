#!/usr/bin/env bash
# Faults in the distributed mode, against a real redis-server (bounded in time):
#  - workers killed with SIGKILL again and again during a study of 2000 samples: every sample
#    ends committed exactly once, none lost;
#  - redis-server killed (SIGKILL) and restarted from its AOF mid-run: the study completes;
#  - SIGTERM drains a worker: running tasks finish and commit, reserved ones go back at once;
#  - a malformed message in a queue is dead-lettered and the worker goes on.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faults_lib.sh"
start_redis
N=2000
many_study $N
check_complete() {  # label ws n
  local key; key=$(basename "$2")
  expect_eq "$1: status shows every sample done, none failed" "sim,1,$3,$3,0" \
    "$("$MERLIN" status "$2" --format csv | tail -1 | cut -d, -f1-5)"
  expect_eq "$1: the done bitmap holds each sample once" "$3" \
    "$(redis-cli -p $REDIS_PORT bitcount "merlin:$key:done:0")"
  expect_eq "$1: nothing remaining" "0" "$(redis-cli -p $REDIS_PORT hget "merlin:$key:remaining" 0)"
  expect_eq "$1: every sample directory has MERLIN_FINISHED" "$3" \
    "$(find "$2/sim" -name MERLIN_FINISHED | wc -l)"
  expect_eq "$1: every sample ran" "$3" "$(sort -u "$2/runs.log" | wc -l)"
}

# --- SIGKILL of workers, repeatedly --------------------------------------------------------
ws=$("$MERLIN" run many.yaml 2>/dev/null)
"$MERLIN" run-workers many.yaml --exit-when-done --lease 1 >steady.out 2>steady.err &
steady=$!
CLEANUP+=("kill -9 $steady")
kills=0
for round in 1 2 3 4 5 6; do
  "$MERLIN" run-workers many.yaml --lease 1 >victim.out 2>victim.err &
  victim=$!
  CLEANUP+=("kill -9 $victim")
  before=$(done_count "$ws")
  # Let it work a little (bounded), then kill it mid-task.
  wait_until 10 bash -c "[ \$('$MERLIN' status '$ws' --format csv | tail -1 | cut -d, -f4) -ge $((before + 60)) ]" || true
  kill -9 $victim 2>/dev/null && kills=$((kills + 1))
  wait $victim 2>/dev/null || true
done
wait $steady
rc=$?
expect_eq "the steady worker finishes the study and exits 0" 0 "$rc"
check "workers were killed mid-study ($kills times)" test "$kills" -ge 5
check_complete "after $kills SIGKILLs" "$ws" $N
dups=$(($(wc -l <"$ws/runs.log") - N))
echo "info: $dups of $N samples ran twice (killed mid-task, taken over after the lease)"
check "some samples were taken over from killed workers" test "$dups" -ge 1

# --- SIGKILL during a pipelined chain: follow-ups of killed workers are not lost -------------
head -600 samples.csv >chain.csv
cat >chain.yaml <<'Y'
description: {name: chain, description: sim and post per sample then a funnel}
study:
  - name: sim
    run:
      cmd: |
        echo $(V) > v.txt
        sleep 0.02
  - name: post
    run:
      cmd: cat $(sim.workspace)/$(MERLIN_SAMPLE_PATH)/v.txt > w.txt  # $(MERLIN_SAMPLE_ID)
      depends: [sim]
  - name: collect
    run:
      cmd: cat $(post.workspace)/$(MERLIN_GLOB_PATH)/w.txt | sort -n | uniq | wc -l > n.txt
      depends: [post]
merlin:
  samples:
    file: $(SPECROOT)/chain.csv
    column_labels: [V]
Y
ws=$("$MERLIN" run chain.yaml 2>/dev/null)
"$MERLIN" run-workers chain.yaml --exit-when-done --lease 1 >cs.out 2>cs.err &
steady=$!
CLEANUP+=("kill -9 $steady")
for round in 1 2 3 4; do
  "$MERLIN" run-workers chain.yaml --lease 1 >cv.out 2>cv.err &
  victim=$!
  CLEANUP+=("kill -9 $victim")
  wait_until 5 bash -c "grep -q 'serving study' cv.err" || true
  sleep 0.$((RANDOM % 9 + 1))  # a random point of the study, not a synchronisation
  kill -9 $victim 2>/dev/null || true
  wait $victim 2>/dev/null || true
done
wait $steady
rc=$?
expect_eq "chain: the steady worker finishes and exits 0" 0 "$rc"
expect_eq "chain: every step of the chain complete" "sim,1,600,600,0 post,1,600,600,0 collect,1,1,1,0" \
  "$("$MERLIN" status "$ws" --format csv | tail -n +2 | cut -d, -f1-5 | paste -sd' ')"
expect_eq "chain: the funnel saw all 600 samples" 600 "$(cat "$ws/collect/n.txt")"

# --- redis-server SIGKILLed and restarted from its AOF mid-run --------------------------------
ws=$("$MERLIN" run many.yaml 2>/dev/null)
"$MERLIN" run-workers many.yaml --exit-when-done --lease 2 >r.out 2>r.err &
worker=$!
CLEANUP+=("kill -9 $worker")
wait_until 30 bash -c "[ \$('$MERLIN' status '$ws' --format csv | tail -1 | cut -d, -f4) -ge 300 ]"
stop_redis -9
check "redis-server restarts from its AOF" redis_launch
set +e
wait_until 120 bash -c "! kill -0 $worker 2>/dev/null"
wait $worker
rc=$?
set -e
expect_eq "the worker rides out the restart and exits 0" 0 "$rc"
check_complete "after a redis-server SIGKILL" "$ws" $N

# --- SIGTERM drains ------------------------------------------------------------------------
seq 0 3 >four.csv
cat >slow.yaml <<'Y'
description: {name: slow, description: four slow samples}
study:
  - name: sim
    run:
      cmd: |
        sleep 1.5
        echo $(V) >> $(MERLIN_WORKSPACE)/runs.log
merlin:
  samples:
    file: $(SPECROOT)/four.csv
    column_labels: [V]
Y
# The two running tasks must still run when SIGTERM comes, after queue-info and status: a
# sanitized merlin takes seconds for those on a loaded machine (tests/sanitize/run.sh).
[[ -z ${MERLIN_SANITIZED:-} ]] || sed -i 's/sleep 1.5/sleep 12/' slow.yaml
ws=$("$MERLIN" run slow.yaml 2>/dev/null)
key=$(basename "$ws")
"$MERLIN" run-workers slow.yaml --concurrency 2 >d.out 2>d.err &
drained=$!
CLEANUP+=("kill -9 $drained")
wait_until 20 bash -c "'$MERLIN' queue-info slow.yaml --format csv | grep -q '^$key,merlin,[0-9]*,2,'"
st=$("$MERLIN" status "$ws" --format csv | grep '^sim,')
check "status of a broker study counts the running tasks ($st)" grep -q '^sim,1,4,0,0,2,2,' <<<"$st"
kill -TERM $drained
set +e
wait $drained
rc=$?
set -e
expect_eq "SIGTERM: the worker drains and exits 0" 0 "$rc"
expect_eq "SIGTERM: the two running tasks finished and committed" 2 "$(done_count "$ws")"
expect_eq "SIGTERM: nothing left reserved (handed back, no lease to wait for)" "0" \
  "$("$MERLIN" queue-info slow.yaml --format csv | tail -1 | cut -d, -f4)"
"$MERLIN" run-workers slow.yaml --concurrency 2 --exit-when-done >/dev/null 2>&1
expect_eq "SIGTERM: another worker finishes the rest" 4 "$(done_count "$ws")"

# --- a malformed message is dead-lettered ----------------------------------------------------
printf '0\n1\n' >two.csv
sed 's/four.csv/two.csv/; s/name: slow,/name: tiny,/; s/sleep 1.5/true/' slow.yaml >tiny.yaml
ws=$("$MERLIN" run tiny.yaml 2>/dev/null)
key=$(basename "$ws")
redis-cli -p $REDIS_PORT xadd "merlin:$key:q:merlin" '*' m "v9 from the future" >/dev/null
redis-cli -p $REDIS_PORT xadd "merlin:$key:q:merlin" '*' m "garbage" >/dev/null
"$MERLIN" run-workers tiny.yaml --exit-when-done >t.out 2>t.err
expect_eq "garbage: the study completes" 2 "$(done_count "$ws")"
expect_eq "garbage: both bad messages are in the dead-letter stream" 2 \
  "$(redis-cli -p $REDIS_PORT xlen "merlin:$key:dead")"
check "garbage: the worker logs each one" test "$(grep -c 'dead-lettered an undecodable message' t.err)" = 2

# --- a task that kills every worker that runs it is given up ----------------------------------
poison_scenario
finish
