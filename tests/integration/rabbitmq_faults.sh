#!/usr/bin/env bash
# Faults with RabbitMQ as the broker and Redis as the results backend (issue #11), against real
# servers: workers killed with SIGKILL again and again during a 600-sample study (every sample
# committed once, none lost), and a task that kills every worker that runs it (given up after
# --max-deliveries, the study goes on). The broker restart and a bad message are in
# rabbitmq_run.sh and the contract suite.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/rabbitmq_lib.sh"
source "$(dirname "$0")/faults_lib.sh"
start_redis
start_rabbitmq
export MERLIN_RESULTS_BACKEND_URL=$MERLIN_BROKER_URL
export MERLIN_BROKER_URL=amqp://guest:guest@127.0.0.1:$RABBIT_PORT/
N=600
many_study $N

# --- SIGKILL of workers, repeatedly --------------------------------------------------------
ws=$("$MERLIN" run many.yaml 2>/dev/null)
"$MERLIN" run-workers many.yaml --exit-when-done --lease 1 >steady.out 2>steady.err &
steady=$!
CLEANUP+=("kill -9 $steady")
kills=0
for round in 1 2 3 4; do
  "$MERLIN" run-workers many.yaml --lease 1 >victim.out 2>victim.err &
  victim=$!
  CLEANUP+=("kill -9 $victim")
  before=$(done_count "$ws")
  wait_until 10 bash -c "[ \$('$MERLIN' status '$ws' --format csv | tail -1 | cut -d, -f4) -ge $((before + 40)) ]" || true
  kill -9 $victim 2>/dev/null && kills=$((kills + 1))
  wait $victim 2>/dev/null || true
done
wait $steady
expect_eq "the steady worker finishes the study and exits 0" 0 $?
check "workers were killed mid-study ($kills times)" test "$kills" -ge 3
expect_eq "after $kills SIGKILLs: every sample done, none failed" "sim,1,$N,$N,0" \
  "$("$MERLIN" status "$ws" --format csv | tail -1 | cut -d, -f1-5)"
expect_eq "every sample directory has MERLIN_FINISHED" "$N" "$(find "$ws/sim" -name MERLIN_FINISHED | wc -l)"
expect_eq "every sample ran" "$N" "$(sort -u "$ws/runs.log" | wc -l)"
echo "info: $(($(wc -l <"$ws/runs.log") - N)) of $N samples ran twice (killed mid-task, taken over)"
expect_eq "nothing left in RabbitMQ or reserved" "$(basename "$ws"),merlin,0,0,0,0" \
  "$("$MERLIN" queue-info many.yaml --format csv | grep "^$(basename "$ws"),")"

# --- a task that kills every worker that runs it is given up ----------------------------------
poison_scenario
finish
