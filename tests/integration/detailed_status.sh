#!/usr/bin/env bash
# `merlin detailed-status` (issue #10): Merlin's task-by-task status and its filters, on a local
# run (its journal) and on a study run by workers through a real redis-server (their task
# journals beside the broker's record of what is done): statuses, return codes, restarts,
# workers, RUNNING while a step runs, and bad filters refused.
source "$(dirname "$0")/lib.sh"
set +e  # exit codes are what this test checks

printf '%s\n' 1 2 3 4 5 6 >samples.csv
cat >ds.yaml <<'Y'
description: {name: ds, description: detailed-status}
env:
  variables:
    OUTPUT_PATH: ./studies
study:
  - name: sim
    run:
      cmd: |
        if [ $(X) -eq 3 ] && [ -e $(SPECROOT)/fail3 ]; then exit $(MERLIN_SOFT_FAIL); fi
        if [ $(X) -eq 5 ]; then while [ -e $(SPECROOT)/hold5 ]; do sleep 0.05; done; fi
        echo $(X) > x.txt
      task_queue: sim_q
  - name: post
    run: {cmd: 'cat $(sim.workspace)/$(MERLIN_GLOB_PATH)x.txt | wc -l', depends: [sim_*], task_queue: post_q}
merlin:
  resources:
    workers:
      simmer: {args: --concurrency 2, steps: [sim]}
      poster: {args: --concurrency 1, steps: [post]}
  samples:
    file: $(SPECROOT)/samples.csv
    column_labels: [X]
    level_max_dirs: 10
Y

# --- A local run: sample 3 soft-fails, then a restart runs it again and it finishes.
touch fail3
"$MERLIN" run --local --no-progress ds.yaml >run.out 2>&1
ws=$(ls -d studies/ds_*)
"$MERLIN" detailed-status ds.yaml --format csv >all.csv 2>/dev/null
expect_eq "detailed-status: exit 0" 0 $?
expect_eq "a row per task: 6 sim samples and post" 7 "$(tail -n +2 all.csv | wc -l)"
expect_eq "the failed sample: its directory, FAILED, MERLIN_SOFT_FAIL" "sim,sim/02,FAILED,MERLIN_SOFT_FAIL" \
  "$("$MERLIN" detailed-status ds.yaml --task-status failed --format csv 2>/dev/null | tail -n +2 | cut -d, -f1-4)"
expect_eq "--return-code soft_fail (any case, no MERLIN_) finds it too" "sim/02" \
  "$("$MERLIN" detailed-status "$ws" --return-code soft_fail --format csv 2>/dev/null | tail -n +2 | cut -d, -f2)"
expect_eq "--return-code MERLIN_SUCCESS: the 5 others and post" 6 \
  "$("$MERLIN" detailed-status "$ws" --return-code MERLIN_SUCCESS --format csv 2>/dev/null | tail -n +2 | wc -l)"
expect_eq "--steps post --task-status FINISHED: post's one task" "post,post,FINISHED" \
  "$("$MERLIN" detailed-status "$ws" --steps post --task-status FINISHED --format csv 2>/dev/null | tail -n +2 | cut -d, -f1-3)"
expect_eq "--task-queues post_q chooses post" "post" \
  "$("$MERLIN" detailed-status "$ws" --task-queues post_q --format csv 2>/dev/null | tail -n +2 | cut -d, -f1)"
expect_eq "--steps all (Merlin's default) is every step" 7 \
  "$("$MERLIN" detailed-status "$ws" --steps all --format csv 2>/dev/null | tail -n +2 | wc -l)"
expect_eq "--max-tasks 2: two rows" 2 \
  "$("$MERLIN" detailed-status "$ws" --max-tasks 2 --format csv 2>/dev/null | tail -n +2 | wc -l)"
"$MERLIN" detailed-status ds.yaml --layout table --dump ds.json >table.out 2>/dev/null
check "--layout table: one table with a STEP column" grep -q "^STEP  *TASK  *STATUS" table.out
check "--dump ds.json: every task as JSON, run times as numbers" python3 -c '
import json; rows = json.load(open("ds.json"))
assert len(rows) == 7, rows
assert all(isinstance(r["run_time"], (int, float)) for r in rows), rows'
"$MERLIN" detailed-status ds.yaml --disable-pager --disable-theme --no-prompts --task_server celery >default.out 2>/dev/null
expect_eq "Merlin's display flags are accepted" 0 $?
check "default layout: a block per step, naming its queue" grep -q "^sim (queue sim_q, 6 tasks)" default.out

"$MERLIN" detailed-status ds.yaml --task-status DONE >/dev/null 2>bad.err
expect_eq "--task-status with an unknown state: exit 2" 2 $?
check "... listing the states" grep -q "none of INITIALIZED, RUNNING, FINISHED, FAILED" bad.err
"$MERLIN" detailed-status ds.yaml --steps sims >/dev/null 2>bad.err
expect_eq "--steps with an unknown step: exit 2" 2 $?
check "... with a suggestion" grep -q "did you mean 'sim'" bad.err
"$MERLIN" detailed-status ds.yaml --return-code OK >/dev/null 2>bad.err
expect_eq "--return-code with an unknown code: exit 2" 2 $?
"$MERLIN" detailed-status ds.yaml --max-tasks 0 >/dev/null 2>bad.err
expect_eq "--max-tasks 0: exit 2" 2 $?

rm fail3
"$MERLIN" restart --local --no-progress "$ws" >/dev/null 2>&1
expect_eq "after the restart sample 3 finished, one restart" "sim/02,FINISHED,MERLIN_SUCCESS,1" \
  "$("$MERLIN" detailed-status "$ws" --steps sim --format csv 2>/dev/null | grep '^sim,sim/02,' | cut -d, -f2-4,7)"
# Merlin's elapsed_time: whole seconds from the first attempt's start (the failed run, before the
# restart) to the end, so never less than the last attempt's run time.
row=$("$MERLIN" detailed-status "$ws" --steps sim --format csv 2>/dev/null | grep '^sim,sim/02,')
check "elapsed_time: whole seconds, at least the last run's time ($row)" \
  awk -F, '{ exit !($5 ~ /^[0-9]+$/ && $5 + 1 > $6) }' <<<"$row"
expect_eq "no task failed any more" "" \
  "$("$MERLIN" detailed-status "$ws" --task-status FAILED --format csv 2>/dev/null | tail -n +2)"

# --- Through Redis with workers: INITIALIZED when queued, RUNNING with its worker while it
# runs, then the worker that ran each task.
start_redis
touch hold5
"$MERLIN" run ds.yaml >qrun.out 2>&1
expect_eq "run queues the study" 0 $?
qws=$(ls -td studies/ds_* | head -1)
expect_eq "queued, before any worker: every task INITIALIZED" "INITIALIZED 7" \
  "$("$MERLIN" detailed-status "$qws" --format csv 2>/dev/null | tail -n +2 | cut -d, -f3 | sort | uniq -c | awk '{print $2, $1}')"
"$MERLIN" run-workers ds.yaml --exit-when-done >w.out 2>w.err &
WPID=$!
CLEANUP+=("kill $WPID")
running5() {
  "$MERLIN" detailed-status "$qws" --task-status RUNNING --format csv 2>/dev/null | tail -n +2 | cut -d, -f2,3,9 | grep -qx "sim/04,RUNNING,simmer"
}
check "sample 5 is RUNNING, by simmer" wait_until 60 running5
five_finished() {
  [ "$("$MERLIN" detailed-status "$qws" --steps sim --task-status finished --format csv 2>/dev/null | tail -n +2 | wc -l)" -eq 5 ]
}
check "the other samples finish meanwhile (the other slot)" wait_until 60 five_finished
rm hold5
wait $WPID
expect_eq "the workers finish the study" 0 $?
expect_eq "--workers poster: post's task" "post,FINISHED,poster" \
  "$("$MERLIN" detailed-status "$qws" --workers poster --format csv 2>/dev/null | tail -n +2 | cut -d, -f1,3,9)"
expect_eq "--workers simmer: the six sim tasks" 6 \
  "$("$MERLIN" detailed-status "$qws" --workers simmer --format csv 2>/dev/null | tail -n +2 | wc -l)"
check "each worker kept its own journal in merlin_info/tasks" test "$(ls "$qws"/merlin_info/tasks/ | grep -c '^simmer@.*\.journal$')" -eq 1
finish
