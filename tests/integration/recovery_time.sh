#!/usr/bin/env bash
# Issue #14's "done when" for dead workers, on a real redis-server: a study of 300 samples of
# ~50 ms and a funnel runs on three worker processes; once some samples are done every worker
# is killed with SIGKILL (a dozen tasks held), and one new worker starts with a 300 s lease.
# Only heartbeat detection can give the dead workers' tasks back before that lease: the study
# must finish within --dead-after (10 s, the default) + 30 s of the new worker's start, every
# sample committed exactly once and the funnel run once.
source "$(dirname "$0")/lib.sh"
start_redis
N=300
DEAD_AFTER=10  # run-workers' default, asserted below through --help
seq 0 $((N - 1)) >samples.csv
cat >recover.yaml <<'Y'
description: {name: recover, description: sampled step and a funnel}
study:
  - name: sim
    run:
      cmd: |
        echo $(V) >> $(MERLIN_WORKSPACE)/runs.log
        sleep 0.05
  - name: funnel
    run:
      cmd: echo once >> $(MERLIN_WORKSPACE)/funnel.log
      depends: [sim_*]
merlin:
  resources:
    workers:
      w: {args: --concurrency 4, steps: [all]}
  samples:
    file: $(SPECROOT)/samples.csv
    column_labels: [V]
Y
check "--dead-after defaults to $DEAD_AFTER s" \
  bash -c "'$MERLIN' run-workers --help | grep -A3 -- --dead-after | grep -q '=$DEAD_AFTER'"
ws=$("$MERLIN" run recover.yaml 2>/dev/null)
key=$(basename "$ws")
done_count() { "$MERLIN" status "$ws" --format csv | grep '^sim,' | cut -d, -f4; }
# The study's Streams: "q:<queue>" and "w:<bucket>:<queue>".
streams() { redis-cli -p $REDIS_PORT --scan --pattern "merlin:$key:[qw]:*"; }

victims=()
for i in 1 2 3; do
  "$MERLIN" run-workers recover.yaml --lease 300 >"v$i.out" 2>"v$i.err" &
  victims+=($!)
  CLEANUP+=("kill -9 $!")
done
wait_until 60 bash -c "[ \"\$('$MERLIN' status '$ws' --format csv | grep '^sim,' | cut -d, -f4)\" -ge 60 ]"
for v in "${victims[@]}"; do kill -9 "$v"; done
for v in "${victims[@]}"; do wait "$v" 2>/dev/null || true; done
held=$(for s in $(streams); do
  redis-cli -p $REDIS_PORT xpending "$s" workers | head -1; done | awk '{n += $1} END {print n + 0}')
done_at_kill=$(done_count)
check "the killed workers held tasks ($held) and left work ($done_at_kill/$N done)" \
  test "$held" -ge 1 -a "$done_at_kill" -lt "$N"

start=$(date +%s%N)
set +e
timeout 200 "$MERLIN" run-workers recover.yaml --lease 300 --exit-when-done >new.out 2>new.err
rc=$?
set -e
secs=$(( ($(date +%s%N) - start) / 1000000 ))
echo "info: new worker finished the study in ${secs} ms (held at the kill: $held tasks)"
expect_eq "the new worker finishes the study and exits 0" 0 "$rc"
check "finished within --dead-after + 30 s of the new worker's start (${secs} ms)" \
  test "$secs" -le $(( (DEAD_AFTER + 30) * 1000 ))
check "the dead workers' tasks were queued again at once ($(grep -o 'queued again [0-9]* task' new.err | head -3 | paste -sd,))" \
  grep -q "queued again [0-9]* task(s) of dead workers" new.err
expect_eq "every sample committed, none failed" "sim,1,$N,$N,0" \
  "$("$MERLIN" status "$ws" --format csv | grep '^sim,' | cut -d, -f1-5)"
expect_eq "the done bitmap holds each sample once" "$N" \
  "$(redis-cli -p $REDIS_PORT bitcount "merlin:$key:done:0")"
expect_eq "every sample ran" "$N" "$(sort -u "$ws/runs.log" | wc -l)"
expect_eq "the funnel ran once" "once" "$(cat "$ws/funnel.log")"
names=$(for s in $(streams); do
  redis-cli -p $REDIS_PORT xinfo consumers "$s" workers 2>/dev/null | grep -A1 '^name$' | grep -v -e '^name$' -e '^--$' || true
done)
check "the groups still list the live (new) worker's consumer" grep -q "\.w\$" <<<"$names"
left=0
for v in "${victims[@]}"; do grep -q "\.$v\.w\$" <<<"$names" && left=$((left + 1)); done
expect_eq "the dead consumers left the consumer groups" 0 "$left"
finish
