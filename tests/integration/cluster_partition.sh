#!/usr/bin/env bash
# Nodes really apart (tests/cluster/netns_lib.sh): a redis-server on its own network namespace,
# two worker nodes on a bridge. Node w1 is cut off (its switch port down: its packets go
# nowhere, as with a pulled cable) for longer than its lease while its tasks run; w2 takes them
# over and runs them. w1 is fenced: it ends its two steps once their lease is out (it cannot
# renew it), before they finish, and commits nothing for them. When w1 comes back, nothing is
# lost and nothing counted twice. Then the broker is cut off from every node for 12 s: a worker
# whose retry budget is longer rides it out, one whose budget is shorter exits 1 naming the
# server and the budget; the steps running then are ended by their leases and run again; the
# study completes, each sample once. PARTITION_BROKER=rabbitmq: the same with RabbitMQ as the
# broker, beside Redis as the results backend, both on the broker's node
# (cluster_partition_rabbitmq.sh).
source "$(dirname "$0")/lib.sh"
source "$SRC/tests/cluster/netns_lib.sh"
kind=${PARTITION_BROKER:-redis}
if [ "$kind" = rabbitmq ]; then
  source "$SRC/tests/integration/rabbitmq_lib.sh"
  [ -x /usr/lib/rabbitmq/bin/rabbitmq-server ] ||
    { echo "SKIP: rabbitmq-server not found (containers/install-deps.sh installs it)"; exit 77; }
fi
if ! cluster_can; then echo "SKIP: $CLUSTER_WHY"; exit 77; fi
cluster_up 2
pass=p$$
ip netns exec "$CLUSTER_P-b" redis-server --bind "$CLUSTER_BROKER" --port 6379 --requirepass "$pass" \
  --save '' --appendonly yes --appendfsync everysec --dir "$WORK" --logfile "$WORK/redis.log" >/dev/null &
redis_pid=$!
CLEANUP=("kill $redis_pid 2>/dev/null; wait $redis_pid 2>/dev/null" "${CLEANUP[@]}")  # before its dir goes
rcli() { on b redis-cli -h "$CLUSTER_BROKER" -a "$pass" --no-auth-warning "$@"; }
up=0
for _ in $(seq 100); do rcli ping 2>/dev/null | grep -q PONG && { up=1; break; }; sleep 0.1; done
[ $up = 1 ] || { fail "redis-server up on node b: $(tail -3 redis.log)"; finish; exit 1; }
export MERLIN_BROKER_URL="redis://:$pass@$CLUSTER_BROKER:6379/0"
gave_up="redis $CLUSTER_BROKER:6379: .*gave up after retrying for .* (the broker retry budget is 4.0 s)"
if [ "$kind" = rabbitmq ]; then
  RABBIT_NETNS=$CLUSTER_P-b RABBIT_ADDR=$CLUSTER_BROKER start_rabbitmq
  CLEANUP=("stop_rabbitmq" "${CLEANUP[@]}")  # while its namespace is there
  export MERLIN_RESULTS_BACKEND_URL=$MERLIN_BROKER_URL
  export MERLIN_BROKER_URL="amqp://guest:guest@$CLUSTER_BROKER:$RABBIT_PORT/"
  gave_up="$CLUSTER_BROKER"
fi

# Each sample notes which node ran it, when it started and ended; samples 0..3 take 6 s.
cat >apart.yaml <<Y
description: {name: apart, description: samples run on nodes apart}
study:
  - name: sim
    run:
      cmd: |
        echo "start \$(X) \$NODE" >> $WORK/runs.log
        sleep 6
        echo "end \$(X) \$NODE" >> $WORK/runs.log
        echo \$NODE > node.txt
merlin:
  samples:
    column_labels: [X]
Y
seq 0 5 >samples.csv
on w1 "$MERLIN" run apart.yaml --samplesfile samples.csv >ws.txt 2>run.err
ws=$(cat ws.txt)
check "queued from node w1 ($(tail -1 run.err))" test -d "$ws"

# w1 starts two samples; then it is cut off for 14 s (the lease is 3 s).
on w1 env NODE=w1 "$MERLIN" run-workers apart.yaml --concurrency 2 --lease 3 --dead-after 3 \
  --broker-retry 60 --broker-timeout 2 --exit-when-done >w1.out 2>w1.err &
w1=$!
CLEANUP+=("kill -9 $w1 2>/dev/null")
started() { [ "$(cat runs.log 2>/dev/null | grep -c "^start .* $1$")" -ge "$2" ]; }
# both_exit SECONDS: waits for the workers $w1 and $w2; their exit codes in rc1 and rc2.
both_exit() {
  set +e
  wait_until "$1" bash -c "! kill -0 $w1 2>/dev/null && ! kill -0 $w2 2>/dev/null"
  wait "$w1"; rc1=$?
  wait "$w2"; rc2=$?
  set -e
}
wait_until 30 started w1 2 || fail "w1 started two samples"
cut_off w1
t_cut=$SECONDS
on w2 env NODE=w2 "$MERLIN" run-workers apart.yaml --concurrency 2 --lease 3 --dead-after 3 \
  --exit-when-done >w2.out 2>w2.err &
w2=$!
CLEANUP+=("kill -9 $w2 2>/dev/null")
# w2 takes w1's two samples over once their lease has passed, besides the four others.
if wait_until 60 bash -c "[ \$(grep -c '^start .* w2$' runs.log) -ge 6 ]"; then
  pass "w2 ran all six samples, w1's two among them, while w1 was cut off ($((SECONDS - t_cut)) s after the cut)"
else
  fail "w2 took w1's samples over ($(grep -c '^start .* w2$' runs.log) started on w2)"
fi
sleep_left=$((14 - (SECONDS - t_cut)))
[ $sleep_left -gt 0 ] && sleep $sleep_left  # the partition lasts 14 s in all
heal w1
both_exit 90
expect_eq "w2 exits 0" 0 "$rc2"
expect_eq "w1, back after the partition, exits 0" 0 "$rc1"
on w2 "$MERLIN" status "$ws" --format csv >status.csv
expect_eq "every sample done once, none failed" "sim,1,6,6,0" "$(tail -1 status.csv | cut -d, -f1-5)"
expect_eq "the done bitmap holds each sample once" 6 "$(rcli bitcount "merlin:$(basename "$ws"):done:0")"
expect_eq "nothing remaining" 0 "$(rcli hget "merlin:$(basename "$ws"):remaining" 0)"
expect_eq "w1's two steps were ended, not run to their end (fenced)" 0 "$(grep -c '^end .* w1$' runs.log)"
expect_eq "w1 says it gave both tasks up" 2 "$(grep -c 'task given up step=sim' w1.err)"
check "w1 names why: its lease or its heartbeat ($(grep -m1 -o 'task given up.*' w1.err | cut -c1-160))" \
  grep -Eq 'task given up step=sim sample=[0-9]: (its lease was last renewed|no heartbeat of this worker reached the broker)' w1.err
check "w1 committed nothing of them (no late commit to refuse)" bash -c "! grep -q 'late commit refused' w1.err"

# --- the broker cut off from every node for 12 s --------------------------------------------------
: >runs.log
on w1 "$MERLIN" run apart.yaml --samplesfile samples.csv >ws2.txt 2>run2.err
ws2=$(cat ws2.txt)
on w1 env NODE=w1 "$MERLIN" run-workers apart.yaml --concurrency 2 --lease 3 --dead-after 3 \
  --broker-retry 60 --broker-timeout 2 --exit-when-done >o1.out 2>o1.err &
w1=$!
on w2 env NODE=w2 "$MERLIN" run-workers apart.yaml --concurrency 2 --lease 3 --dead-after 3 \
  --broker-retry 4 --broker-timeout 1 --exit-when-done >o2.out 2>o2.err &
w2=$!
CLEANUP+=("kill -9 $w1 $w2 2>/dev/null")
wait_until 30 started "w[12]" 4 || fail "both nodes at work"
cut_off b
sleep 12
heal b
both_exit 120
expect_eq "broker cut off 12 s: the worker with a 60 s retry budget rides it out (exit 0)" 0 "$rc1"
expect_eq "broker cut off 12 s: the one with a 4 s budget exits 1" 1 "$rc2"
check "and names the server: $(grep "$CLUSTER_BROKER" o2.err | tail -1 | cut -c1-220)" \
  grep -q "$gave_up" o2.err
check "broker cut off: the steps running then were ended by their leases" grep -q 'task given up step=sim' o1.err
on w2 "$MERLIN" status "$ws2" --format csv >status2.csv
expect_eq "broker cut off: every sample done once, none failed" "sim,1,6,6,0" "$(tail -1 status2.csv | cut -d, -f1-5)"
expect_eq "broker cut off: the done bitmap holds each sample once" 6 \
  "$(rcli bitcount "merlin:$(basename "$ws2"):done:0")"
finish
