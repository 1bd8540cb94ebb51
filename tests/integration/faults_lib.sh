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
