#!/usr/bin/env bash
# The distributed mode against a real redis-server: `merlin run` queues, two `run-workers`
# processes execute; the workspace and outputs equal a local run's. Bad broker input (server
# down, malformed URL, open password file, wrong password) fails cleanly and queues nothing.
# Two studies share one Redis; purge, queue-info, query-workers, stop-workers, monitor, restart.
source "$(dirname "$0")/lib.sh"
start_redis
psf=$SRC/tests/integration/specs/param_samples_funnel.yaml
cp "$SRC/tests/integration/specs/psf_samples.csv" .
cp "$psf" psf.yaml

# --- bad input -----------------------------------------------------------------------------
closed=$((REDIS_PORT + 1))
set +e
"$MERLIN" run psf.yaml --broker redis://127.0.0.1:$closed/0 >out.txt 2>err.txt
rc=$?
set -e
expect_eq "server down: exit 1" 1 "$rc"
expect_eq "server down: one line naming the address" \
  "merlin: redis 127.0.0.1:$closed: connection refused" "$(cat err.txt)"
check "server down: no workspace left" test ! -e out
expect_eq "server down: nothing queued" 0 "$(redis-cli -p $REDIS_PORT zcard merlin:studies)"

set +e
"$MERLIN" run psf.yaml --broker redis://127.0.0.1:notaport/0 2>err.txt
rc=$?
set -e
expect_eq "malformed URL: exit 2" 2 "$rc"
check "malformed URL: says what" grep -q "port 'notaport' is not a number" err.txt

mkdir -p home/.merlin
printf 'secret\n' >home/.merlin/redis.pass
chmod 644 home/.merlin/redis.pass
cat >home/.merlin/app.yaml <<Y
broker:
  name: redis
  server: 127.0.0.1
  port: $REDIS_PORT
  password: ~/.merlin/redis.pass
  db_num: 0
results_backend:
  name: redis
  server: 127.0.0.1
  port: $REDIS_PORT
Y
set +e
HOME=$WORK/home MERLIN_BROKER_URL= "$MERLIN" info >info.txt 2>err.txt
rc=$?
set -e
expect_eq "world-readable password file: exit 2" 2 "$rc"
check "world-readable password file: says how to fix" grep -q "readable by everyone (mode 0644); run: chmod 600" err.txt
chmod 600 home/.merlin/redis.pass
redis-cli -p $REDIS_PORT config set requirepass right >/dev/null
set +e
HOME=$WORK/home MERLIN_BROKER_URL= "$MERLIN" run psf.yaml >out.txt 2>err.txt
rc=$?
set -e
expect_eq "wrong password: exit 1" 1 "$rc"
check "wrong password: says so" grep -q "WRONGPASS" err.txt
printf 'right\n' >home/.merlin/redis.pass
HOME=$WORK/home MERLIN_BROKER_URL= "$MERLIN" info >info.txt 2>&1
check "app.yaml + password file: info connects" grep -q "connection:  ok (redis" info.txt
check "info never prints the password" bash -c "! grep -q right info.txt"
redis-cli -p $REDIS_PORT -a right --no-auth-warning config set requirepass "" >/dev/null

# --- a study end to end, two worker processes ------------------------------------------------
"$MERLIN" run psf.yaml >ws.txt 2>run.err
ws=$(cat ws.txt)
check "run prints the workspace" test -d "$ws/merlin_info"
check "run says how many tasks it queued" grep -q "queued study psf_.*: 22 tasks in 1 messages" run.err
"$MERLIN" queue-info psf.yaml --format csv >qi.csv
expect_eq "queue-info: one message waiting" "$(basename "$ws"),merlin,1,0,0,0" "$(tail -1 qi.csv)"
"$MERLIN" run-workers psf.yaml --exit-when-done --concurrency 2 >w1.out 2>w1.err &
w1=$!
"$MERLIN" run-workers psf.yaml --exit-when-done --concurrency 2 >w2.out 2>w2.err &
w2=$!
CLEANUP+=("kill -9 $w1 $w2")
wait $w1; r1=$?
wait $w2; r2=$?
expect_eq "both workers exit 0 when done" "0 0" "$r1 $r2"
"$MERLIN" status "$ws" --format csv >status.csv
expect_eq "status from the broker: every task done" \
  "step,instances,total,done,failed
setup,1,1,1,0
sim,2,10,10,0
post,2,10,10,0
collect,1,1,1,0" "$(cut -d, -f1-5 status.csv)"
mkdir local && (cd local && "$MERLIN" run --local --no-progress ../psf.yaml >/dev/null 2>&1)
lws=$(ls -d local/out/psf_*)
expect_eq "the funnel's output equals a local run's" "$(cat "$lws/collect/all.txt")" "$(cat "$ws/collect/all.txt")"
# The journals differ by mode: the local run's merlin.journal, each worker's in merlin_info/tasks.
expect_eq "the workspace tree equals a local run's (but for the task journals)" \
  "$(tree_of "$lws" | grep -v -e merlin.journal -e run.lock)" "$(tree_of "$ws" | grep -v -e '^./merlin_info/tasks')"
check "each worker process kept a task journal" test "$(ls "$ws"/merlin_info/tasks/*.journal | wc -l)" -ge 1
executed=$(cat w1.err w2.err | sed -n 's/.* executed=\([0-9]*\) .*/\1/p' | awk '{s+=$1} END {print s}')
expect_eq "each of the 22 tasks ran once over the two workers" 22 "$executed"

# --- two studies on one Redis; purge touches one ---------------------------------------------
sed 's/name: psf/name: other/' psf.yaml >other.yaml
"$MERLIN" run other.yaml >other_ws.txt 2>/dev/null
"$MERLIN" run psf.yaml >ws2.txt 2>/dev/null
set +e
"$MERLIN" purge psf.yaml </dev/null >purge.out 2>purge.err
rc=$?
set -e
expect_eq "purge without -f and no terminal: refused (exit 2)" 2 "$rc"
"$MERLIN" purge -f psf.yaml >purge.out 2>purge.err
check "purge says what it removed" grep -q "$(basename "$(cat ws2.txt)"): removed 1 tasks (queued, reserved and delayed) from every queue" purge.out
other_key=$(basename "$(cat other_ws.txt)")
expect_eq "the other study keeps its message" "1" \
  "$("$MERLIN" queue-info other.yaml --format csv | grep "^$other_key," | cut -d, -f3)"

# --- restart re-queues the unfinished work of a purged study ---------------------------------
"$MERLIN" restart "$(cat ws2.txt)" 2>restart.err
check "restart says what it queued" grep -q "re-queued study .*: 0/22 tasks finished are kept (0 of them known by their marker only: their worker died before its commit), 0 failed ones run again, 1 messages queued" restart.err
"$MERLIN" run-workers psf.yaml --exit-when-done >/dev/null 2>&1
expect_eq "the restarted study completes" "22" \
  "$("$MERLIN" status "$(cat ws2.txt)" --format csv | tail -n +2 | cut -d, -f4 | awk '{s+=$1} END {print s}')"

# --- monitor, query-workers, stop-workers ----------------------------------------------------
set +e
"$MERLIN" monitor other.yaml --sleep 0.2 --stall-timeout 1 >mon.out 2>mon.err
rc=$?
set -e
expect_eq "monitor: waiting work and no worker → exit 1" 1 "$rc"
check "monitor says why" grep -q "no worker has served them for 1 s" mon.err
"$MERLIN" run-workers psf.yaml --concurrency 1 >idle.out 2>idle.err &
idle=$!
CLEANUP+=("kill -9 $idle")
wait_until 20 bash -c "'$MERLIN' query-workers --spec psf.yaml --format csv | grep -q ',alive$'"
check "query-workers lists the waiting worker" \
  bash -c "'$MERLIN' query-workers --spec psf.yaml --format csv | grep -q '^default_worker,.*,-,merlin,1,[0-9]*,alive$'"
"$MERLIN" stop-workers --spec psf.yaml >stop.out 2>stop.err
check "stop-workers names what it asked to stop" grep -q "asked 1 worker to stop" stop.err
set +e
wait_until 20 bash -c "! kill -0 $idle 2>/dev/null"
wait $idle
rc=$?
set -e
expect_eq "the stopped worker exits 0" 0 "$rc"
check "the stopped worker leaves the registry" \
  bash -c "! '$MERLIN' query-workers --spec psf.yaml --format csv | grep -q default_worker"
"$MERLIN" run-workers other.yaml --exit-when-done >/dev/null 2>&1
"$MERLIN" monitor other.yaml --sleep 0.2 >mon.out 2>mon.err
check "monitor exits 0 once there is no work" grep -q "no work left for study other (22/22 tasks finished)" mon.err

# --- restart runs failed samples again ---------------------------------------------------------------
cat >flaky.yaml <<Y
description: {name: flaky, description: sample 1 fails until a marker exists}
study:
  - name: f
    run:
      cmd: |
        if [ \$(X) = 1 ] && [ ! -e $WORK/fixed ]; then exit \$(MERLIN_SOFT_FAIL); fi
        echo \$(X) > x.txt
        echo \$(X) >> $WORK/flaky_runs.log
merlin:
  samples: {column_labels: [X], file: three.csv}
Y
printf '0\n1\n2\n' >three.csv
"$MERLIN" run flaky.yaml >ws.txt 2>/dev/null
fws=$(cat ws.txt)
"$MERLIN" run-workers flaky.yaml --exit-when-done >/dev/null 2>&1
check "flaky: one sample failed" grep -q '^f,1,3,2,1,' <("$MERLIN" status "$fws" --format csv)
touch fixed
"$MERLIN" restart "$fws" >/dev/null 2>restart.err
check "restart: the failed sample is queued again ($(cat restart.err))" \
  grep -q "2/3 tasks finished are kept (0 of them known by their marker only: their worker died before its commit), 1 failed ones run again" restart.err
"$MERLIN" run-workers flaky.yaml --exit-when-done >/dev/null 2>&1
check "restart: it ran again and succeeded, the others did not rerun" \
  grep -q '^f,1,3,3,0,' <("$MERLIN" status "$fws" --format csv)
expect_eq "restart: each sample succeeded exactly once over both runs" "0 1 2" \
  "$(sort flaky_runs.log | paste -sd' ')"

# --- machines: a worker starts only on the hosts it names ------------------------------------------
cat >machines.yaml <<Y
description: {name: mach, description: machines of a worker}
study:
  - name: s
    run: {cmd: echo s > s.txt}
merlin:
  resources:
    workers:
      elsewhere: {steps: [s], machines: [no-such-host-anywhere]}
Y
set +e
"$MERLIN" run-workers machines.yaml --exit-when-done >out.txt 2>err.txt
rc=$?
set -e
expect_eq "machines elsewhere: nothing to start here, exit 2" 2 "$rc"
check "machines elsewhere: says why" grep -q "not started: its machines (no-such-host-anywhere) do not include this host" err.txt
sed -i "s/no-such-host-anywhere/$(hostname)/" machines.yaml
"$MERLIN" run machines.yaml >ws.txt 2>/dev/null
"$MERLIN" run-workers machines.yaml --exit-when-done >/dev/null 2>err.txt
expect_eq "machines naming this host: the worker runs here" s "$(cat "$(cat ws.txt)"/s/s.txt)"
finish
