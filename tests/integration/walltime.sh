#!/usr/bin/env bash
# A step's `walltime` is enforced in every mode (#16): past it, merlin-guard ends the step's
# whole process group (SIGTERM, then SIGKILL after --kill-wait), the task is recorded as timed
# out (MERLIN_TIMED_OUT in detailed-status, failed in status, a line in its .err), its
# dependents go on (soft fail semantics), and a step with a `restart:` command runs again with
# it. Covers `run --local`, a distributed Redis worker and, when rabbitmq-server is installed,
# a RabbitMQ one (workers/guard/, docs/user-guide.md §6.4).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/rabbitmq_lib.sh"

# `slow` sleeps far past its walltime (given through a variable, so the resolved value is
# what counts) and leaves a background grandchild; `after` depends on it; `fixed` times out
# once and its restart command succeeds; `quick` has a walltime it never reaches.
cat >wall.yaml <<'Y'
description: {name: wall, description: steps past their walltime}
env:
  variables:
    WALL: "00:00:02"
study:
  - name: slow
    run:
      cmd: |
        (sleep 300; echo grandchild survived) &
        echo $! > $(MERLIN_WORKSPACE)/../bg.pid
        echo started
        sleep 300
        echo not reached
      walltime: $(WALL)
  - name: after
    run:
      cmd: echo after ran
      depends: [slow]
  - name: fixed
    run:
      cmd: sleep 300
      restart: echo restarted
      walltime: 2
      max_retries: 1
      retry_delay: 0
  - name: quick
    run:
      cmd: echo quick
      walltime: "01:00:00"
Y

alive() { [ -f "$1" ] && ps -o stat= -p "$(cat "$1")" 2>/dev/null | grep -qv '^Z'; }
gone() { ! alive "$1"; }
# The counts of a step in `status --format csv`: total,done,failed (columns 2-4).
counts() { "$MERLIN" status "$1" --format csv | awk -F, -v s="$2" '$1 == s {print $3","$4","$5}'; }

# check_study LABEL WS: what every mode must have recorded.
check_study() {
  local label=$1 ws=$2
  expect_eq "$label: status counts slow failed, not done" "1,0,1" "$(counts "$ws" slow)"
  expect_eq "$label: after ran (the study goes on past a timed-out step)" "1,1,0" \
    "$(counts "$ws" after)"
  expect_eq "$label: fixed succeeded through its restart command" "1,1,0" "$(counts "$ws" fixed)"
  expect_eq "$label: quick ran within its walltime" "1,1,0" "$(counts "$ws" quick)"
  check "$label: slow's .err says it was killed after its walltime" \
    grep -qx 'merlin: step killed after its walltime 00:00:02' "$ws/slow/slow.err"
  check "$label: slow did not reach its end" bash -c "! grep -q 'not reached' $ws/slow/slow.out"
  check "$label: fixed's .err says so for its first run" \
    grep -qx 'merlin: step killed after its walltime 00:00:02' "$ws/fixed/fixed.err"
  expect_eq "$label: fixed's restart ran, after a restart marker" "restart|restarted" \
    "$(grep -v '^$' "$ws/fixed/fixed.out" | sed -E 's/^==== merlin: attempt 2 \((restart)\).*/\1/' | paste -sd'|')"
  check "$label: the grandchild of slow is gone" wait_until 15 gone bg.pid
  check "$label: the grandchild never printed" bash -c "! grep -q survived $ws/slow/slow.out"
  local ds
  ds=$("$MERLIN" detailed-status "$ws" --format csv 2>&1)
  check "$label: detailed-status shows slow as MERLIN_TIMED_OUT" \
    bash -c "grep '^slow,' <<<'$ds' | grep -q MERLIN_TIMED_OUT"
  check "$label: detailed-status keeps --return-code TIMED_OUT to slow alone" \
    bash -c "[ \"\$('$MERLIN' detailed-status '$ws' --return-code TIMED_OUT --format csv | tail -n +2 | cut -d, -f1)\" = slow ]"
}

# --- merlin run --local --------------------------------------------------------------------
"$MERLIN" run --local --no-progress -j 2 wall.yaml >local.out 2>local.err &
run=$!
CLEANUP+=("kill -9 $run")
if wait_until 90 bash -c "! kill -0 $run 2>/dev/null"; then
  rc=0
  wait $run || rc=$?
  expect_eq "run --local: exit 1 (a sample failed)" 1 "$rc"
  ws=$(ls -d wall_2* | head -1)
  check_study "run --local" "$ws"
  check "run --local: the log names the timeout" grep -q 'timed out' local.err
else
  fail "run --local did not end within 90 s: the walltime was not enforced"
  cat local.err | tail -5
fi

# --- a distributed worker on Redis ----------------------------------------------------------
rm -f bg.pid
start_redis
ws=$("$MERLIN" run wall.yaml 2>queue.err)
"$MERLIN" run-workers wall.yaml --exit-when-done --concurrency 2 >workers.out 2>workers.err &
worker=$!
CLEANUP+=("kill -9 $worker")
if wait_until 90 bash -c "! kill -0 $worker 2>/dev/null"; then
  check_study "run-workers (Redis)" "$ws"
else
  fail "run-workers did not end within 90 s: the walltime was not enforced"
  tail -5 workers.err
fi

# --- a distributed worker on RabbitMQ (Redis as the results backend) ------------------------
if [ ! -x /usr/lib/rabbitmq/bin/rabbitmq-server ]; then
  echo "note: rabbitmq-server not installed: its section is not run"
  finish
  exit $?
fi
rm -f bg.pid
redis-cli -p "$REDIS_PORT" flushall >/dev/null
start_rabbitmq
unset MERLIN_BROKER_URL
printf 'guest\n' >rabbit.pass
chmod 600 rabbit.pass
cat >app.yaml <<Y
broker:
    name: amqp
    username: guest
    password: $WORK/rabbit.pass
    server: 127.0.0.1
    port: $RABBIT_PORT
    vhost: /
results_backend:
    name: redis
    server: 127.0.0.1
    port: $REDIS_PORT
    db_num: 0
Y
ws=$("$MERLIN" run wall.yaml 2>queue_amqp.err)
"$MERLIN" run-workers wall.yaml --exit-when-done --concurrency 2 >amqp.out 2>amqp.err &
worker=$!
CLEANUP+=("kill -9 $worker")
if wait_until 90 bash -c "! kill -0 $worker 2>/dev/null"; then
  check_study "run-workers (RabbitMQ)" "$ws"
else
  fail "run-workers on RabbitMQ did not end within 90 s: the walltime was not enforced"
  tail -5 amqp.err
fi
finish
