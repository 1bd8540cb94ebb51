#!/usr/bin/env bash
# Time from kill -9 of workers to the end of the study, on a private redis-server (issue #14:
# dead workers' tasks come back at once). Not part of the suite: it takes a minute or more
# per scenario with leases, and its figures depend on the machine.
#
#   bash tests/bench/recovery_bench.sh MERLIN_BINARY SCENARIO [extra run-workers flags]
#
# SCENARIO
#   all-at-once  400 samples of 0.2 s, one worker process with 8 slots; after 80 are done it
#                is killed and a new one (same flags) starts at once.
#   in-turn      3000 samples of 20 ms, 8 worker processes of 2 slots and one steady worker of
#                2 slots; after 300 are done the 8 are killed one per second.
# Prints "kill->finish: S s" (from the last kill to the study's end) and the checks.
set -uo pipefail
MERLIN=$(realpath "$1")
SCENARIO=$2
shift 2
EXTRA=("$@")
HERE=$(dirname "$(realpath "${BASH_SOURCE[0]}")")
source "$HERE/../integration/lib.sh" "$MERLIN" "$HERE/../.."
set +e
start_redis

case $SCENARIO in
  all-at-once) N=400 SLEEP=0.2 FIRST=80 ;;
  in-turn) N=3000 SLEEP=0.02 FIRST=300 ;;
  *) echo "unknown scenario $SCENARIO"; exit 2 ;;
esac
seq 0 $((N - 1)) >samples.csv
cat >bench.yaml <<Y
description: {name: bench, description: recovery time}
study:
  - name: sim
    run:
      cmd: |
        echo \$(V) >> \$(MERLIN_WORKSPACE)/runs.log
        sleep $SLEEP
  - name: funnel
    run:
      cmd: echo once >> \$(MERLIN_WORKSPACE)/funnel.log
      depends: [sim_*]
merlin:
  samples:
    file: \$(SPECROOT)/samples.csv
    column_labels: [V]
Y
ws=$("$MERLIN" run bench.yaml 2>/dev/null)
key=$(basename "$ws")
done_n() { "$MERLIN" status "$ws" --format csv | grep '^sim,' | cut -d, -f4; }
victims=()
if [ "$SCENARIO" = all-at-once ]; then
  "$MERLIN" run-workers bench.yaml --concurrency 8 "${EXTRA[@]}" >v.out 2>v.err &
  victims+=($!)
else
  for i in 1 2 3 4 5 6 7 8; do
    "$MERLIN" run-workers bench.yaml --concurrency 2 "${EXTRA[@]}" >"v$i.out" 2>"v$i.err" &
    victims+=($!)
  done
  "$MERLIN" run-workers bench.yaml --concurrency 2 --exit-when-done "${EXTRA[@]}" >steady.out 2>steady.err &
  steady=$!
fi
for v in "${victims[@]}"; do CLEANUP+=("kill -9 $v"); done
wait_until 300 bash -c "[ \"\$('$MERLIN' status '$ws' --format csv | grep '^sim,' | cut -d, -f4)\" -ge $FIRST ]"
for v in "${victims[@]}"; do
  kill -9 "$v"
  last_kill=$(date +%s%N)
  [ "$SCENARIO" = in-turn ] && sleep 1  # the scenario: one kill per second
done
echo "killed ${#victims[@]} worker(s); $(done_n)/$N done at the last kill"
if [ "$SCENARIO" = all-at-once ]; then
  "$MERLIN" run-workers bench.yaml --concurrency 8 --exit-when-done "${EXTRA[@]}" >new.out 2>new.err
  rc=$?
else
  wait "$steady"
  rc=$?
fi
end=$(date +%s%N)
echo "kill->finish: $(( (end - last_kill) / 1000000 )) ms (rc $rc)"
# When the dead workers' tasks were queued again, by the log lines' clock (this host's).
kill_s=$(( last_kill / 1000000 ))
for f in new.err steady.err; do
  [ -f "$f" ] || continue
  grep 'queued again' "$f" | while read -r line; do
    t=${line:1:12}
    ms=$(( $(date -d "$(date +%F) $t" +%s%N) / 1000000 ))
    echo "  $(( ms - kill_s )) ms after the last kill: ${line#*] }"
  done
done
expect_eq "every sample committed once" "sim,1,$N,$N,0" \
  "$("$MERLIN" status "$ws" --format csv | grep '^sim,' | cut -d, -f1-5)"
expect_eq "every sample ran" "$N" "$(sort -u "$ws/runs.log" | wc -l)"
expect_eq "the funnel ran once" once "$(cat "$ws/funnel.log")"
echo "samples run twice: $(( $(wc -l <"$ws/runs.log") - N ))"
finish
