# Sourced by the fault tests of each broker (distributed_faults.sh on Redis, rabbitmq_faults.sh
# on RabbitMQ): scenarios that need nothing of the broker but the merlin binary, so each runs
# the same steps and checks on both. Needs lib.sh and a broker in the environment.

# many_study N: samples.csv with 0..N-1 and many.yaml, one short step per sample (each run
# appended to the workspace's runs.log), for tests that kill things while it runs.
many_study() {
  seq 0 $(($1 - 1)) >samples.csv
  cat >many.yaml <<'Y'
description: {name: many, description: one short step per sample}
study:
  - name: sim
    run:
      cmd: |
        echo $(V) >> $(MERLIN_WORKSPACE)/runs.log
        sleep 0.02
merlin:
  resources:
    workers:
      w: {args: --concurrency 2, steps: [all]}
  samples:
    file: $(SPECROOT)/samples.csv
    column_labels: [V]
Y
}
# done_count WS: committed samples of the study's single step, from the broker.
done_count() { "$MERLIN" status "$1" --format csv | tail -1 | cut -d, -f4; }

# A task that kills every worker that runs it is given up after --max-deliveries, recorded as
# failed, and the study goes on past it.
poison_scenario() {
  cat >poison.yaml <<'Y'
description: {name: poison, description: sample 1 kills its worker process}
study:
  - name: boom
    run:
      cmd: |
        # kill the worker: the parent of the step's guardian
        if [ $(X) = 1 ]; then kill -9 `ps -o ppid= -p $PPID`; sleep 5; fi
        echo $(X) > x.txt
  - name: after
    run:
      cmd: echo after > after.txt
      depends: [boom_*]
merlin:
  samples: {column_labels: [X], file: three.csv}
Y
  printf '0\n1\n2\n' >three.csv
  ws=$("$MERLIN" run poison.yaml 2>/dev/null)
  deaths=0
  for attempt in 1 2 3 4 5 6; do
    set +e
    # One task at a time: only the poison sample is in flight when its worker dies, so no other
    # sample collects deliveries from those deaths.
    "$MERLIN" run-workers poison.yaml --exit-when-done --lease 0.3 --max-deliveries 3 --concurrency 1 >p.out 2>p.err
    rc=$?
    set -e
    [ "$rc" = 137 ] || break
    deaths=$((deaths + 1))
  done
  expect_eq "poison: three workers die on it, the fourth gives it up and exits 0" "3 0" "$deaths $rc"
  check "poison: the giving up is logged" grep -q "step given up step=boom sample=1 deliveries=4" p.err
  "$MERLIN" status "$ws" --format csv >pst.csv
  check "poison: recorded as failed, the others done ($(grep '^boom,' pst.csv))" grep -q '^boom,1,3,2,1,' pst.csv
  expect_eq "poison: the study goes on past it" after "$(cat "$ws/after/after.txt")"
}

# Issue #14's "done when" for dead workers: a study of 300 samples of ~50 ms and a funnel runs
# on three worker processes; once some samples are done every worker is killed with SIGKILL,
# and one new worker starts with a 300 s lease. Only heartbeat detection can give the dead
# workers' tasks back before that lease: the study must finish within --dead-after (10 s, the
# default) + 30 s of the new worker's start, every sample committed exactly once and the
# funnel run once. The caller defines `held_tasks` (tasks the broker counts as reserved, given
# $key) and TAKEN_OVER (a regex of the new worker's log line for a task taken over); sets ws,
# key and victims (the killed workers' pids) for its own checks.
recovery_scenario() {
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

  victims=()
  for i in 1 2 3; do
    "$MERLIN" run-workers recover.yaml --lease 300 >"v$i.out" 2>"v$i.err" &
    victims+=($!)
    CLEANUP+=("kill -9 $!")
  done
  wait_until 60 bash -c "[ \"\$('$MERLIN' status '$ws' --format csv | grep '^sim,' | cut -d, -f4)\" -ge 60 ]"
  for v in "${victims[@]}"; do kill -9 "$v"; done
  for v in "${victims[@]}"; do wait "$v" 2>/dev/null || true; done
  held=$(held_tasks)
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
  check "the dead workers' tasks came back ($(grep -c -E "$TAKEN_OVER" new.err) log lines)" \
    grep -q -E "$TAKEN_OVER" new.err
  expect_eq "every sample committed, none failed" "sim,1,$N,$N,0" \
    "$("$MERLIN" status "$ws" --format csv | grep '^sim,' | cut -d, -f1-5)"
  expect_eq "the done bitmap holds each sample once" "$N" \
    "$(redis-cli -p $REDIS_PORT bitcount "merlin:$key:done:0")"
  expect_eq "every sample ran" "$N" "$(sort -u "$ws/runs.log" | wc -l)"
  expect_eq "the funnel ran once" "once" "$(cat "$ws/funnel.log")"
}
