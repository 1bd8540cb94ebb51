#!/usr/bin/env bash
# Dead workers on Redis (issue #14): every worker of a study SIGKILLed, a new one with a 300 s
# lease finishes it within --dead-after + 30 s (faults_lib.sh recovery_scenario), and the dead
# consumers leave the consumer groups.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/faults_lib.sh"
start_redis
# The study's Streams: "q:<queue>" and "w:<bucket>:<queue>".
streams() { redis-cli -p $REDIS_PORT --scan --pattern "merlin:$key:[qw]:*"; }
held_tasks() {
  for s in $(streams); do redis-cli -p $REDIS_PORT xpending "$s" workers | head -1; done |
    awk '{n += $1} END {print n + 0}'
}
TAKEN_OVER='queued again [0-9]+ task\(s\) of dead workers'
recovery_scenario
names=$(for s in $(streams); do
  redis-cli -p $REDIS_PORT xinfo consumers "$s" workers 2>/dev/null | grep -A1 '^name$' | grep -v -e '^name$' -e '^--$' || true
done)
check "the groups still list the live (new) worker's consumer" grep -q "\.w\$" <<<"$names"
left=0
for v in "${victims[@]}"; do grep -q "\.$v\.w\$" <<<"$names" && left=$((left + 1)); done
expect_eq "the dead consumers left the consumer groups" 0 "$left"
finish
