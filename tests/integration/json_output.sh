#!/usr/bin/env bash
# JSON output (#15, docs/json-output.md): status, detailed-status, queue-info and
# query-workers as JSON, from the real commands on a study run by workers through a real
# redis-server — one worker in a batch job (SLURM_JOB_ID), one outside — while a task runs and
# after the study ends. Every document is validated against its schema in docs/schema/ and its
# types checked: counts are integers, times numbers, absent values null, queues arrays. A tuned
# study run locally checks status --searches (its leaderboards) against its schema too.
source "$(dirname "$0")/lib.sh"
need_python jsonschema
start_redis

printf '%s\n' 1 2 3 4 >samples.csv
cat >js.yaml <<'Y'
description: {name: js, description: JSON output}
env:
  variables:
    OUTPUT_PATH: ./studies
study:
  - name: sim
    run:
      cmd: |
        if [ $(X) -eq 2 ]; then exit $(MERLIN_SOFT_FAIL); fi
        if [ $(X) -eq 4 ]; then while [ -e $(SPECROOT)/hold ]; do sleep 0.05; done; fi
        echo $(X) > x.txt
      task_queue: sim_q
  - name: post
    run: {cmd: 'echo done', depends: [sim_*], task_queue: post_q}
merlin:
  resources:
    workers:
      simmer: {args: --concurrency 2, steps: [sim]}
      poster: {args: --concurrency 1, steps: [post]}
  samples:
    file: $(SPECROOT)/samples.csv
    column_labels: [X]
Y

# validate SCHEMA FILE [PYTHON-ASSERTIONS]: FILE is JSON valid against docs/schema/SCHEMA, and
# the assertions (Python, `rows` is the document) hold.
validate() {
  "$PY" - "$SRC/docs/schema/$1.schema.json" "$2" "${3:-pass}" <<'PYEOF'
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
rows = json.load(open(sys.argv[2]))
jsonschema.Draft202012Validator(schema).validate(rows)
def ints(*keys):  # integers, and never booleans (Python's bool is an int)
    return all(type(r[k]) is int for r in rows for k in keys)
exec(sys.argv[3])
PYEOF
}

touch hold
"$MERLIN" run js.yaml >ws.txt 2>run.err
ws=$(cat ws.txt)
key=$(basename "$ws")
SLURM_JOB_ID=4242 "$MERLIN" run-workers js.yaml --worker simmer >simmer.out 2>&1 &
simmer=$!
env -u SLURM_JOB_ID "$MERLIN" run-workers js.yaml --worker poster >poster.out 2>&1 &
poster=$!
disown $simmer $poster
CLEANUP+=("kill -9 $simmer $poster")

# --- while sample 4 is held: one task running, post not released -----------------------------
running() { "$MERLIN" status "$ws" --format csv | grep -q '^sim,1,4,2,1,1,0,'; }
check "the study reaches: 2 done, 1 failed, 1 running" wait_until 60 running
"$MERLIN" status "$ws" --format json >st.json
check "status: valid, counts are integers, mean_seconds a number" validate status st.json '
assert [r["step"] for r in rows] == ["sim", "post"], rows
assert ints("instances", "total", "done", "failed", "running", "queued"), rows
assert all(type(r["mean_seconds"]) in (int, float) for r in rows), rows
sim = rows[0]
assert (sim["total"], sim["done"], sim["failed"], sim["running"]) == (4, 2, 1, 1), sim'

both() { [ "$("$MERLIN" query-workers --spec js.yaml --format csv | grep -c ',alive$')" -eq 2 ]; }
check "both workers are registered" wait_until 30 both
"$MERLIN" query-workers --spec js.yaml --format json >qw.json
check "query-workers: valid; job a string in a batch job, null outside; queues arrays" \
  validate query-workers qw.json '
by = {r["worker"]: r for r in rows}
assert set(by) == {"simmer", "poster"}, rows
assert by["simmer"]["job"] == "4242", by["simmer"]
assert by["poster"]["job"] is None, by["poster"]
assert by["simmer"]["queues"] == ["sim_q"] and by["poster"]["queues"] == ["post_q"], rows
assert ints("pid", "slots", "seen_s_ago"), rows
assert by["simmer"]["slots"] == 2 and by["poster"]["slots"] == 1, rows
assert all(r["state"] == "alive" for r in rows), rows'
check "query-workers CSV: a null job is '-' (as before)" \
  grep -q '^poster,[^,]*,[0-9]*,-,' <("$MERLIN" query-workers --spec js.yaml --format csv)
check "query-workers table: a null job is '-'" \
  grep -qE '^poster +[^ ]+ +[0-9]+ +- ' <("$MERLIN" query-workers --spec js.yaml)

"$MERLIN" queue-info js.yaml --format json --dump qi-dump.json >qi.json 2>/dev/null
check "queue-info: valid, counts are integers, the held task reserved" validate queue-info qi.json "
assert ints('queued', 'reserved', 'delayed', 'consumers'), rows
by = {r['queue']: r for r in rows}
assert all(r['study'] == '$key' for r in rows), rows
assert by['sim_q']['reserved'] == 1, by"
check "queue-info --dump x.json: the same document" cmp qi.json qi-dump.json

"$MERLIN" detailed-status "$ws" --format json >ds.json 2>/dev/null
check "detailed-status while running: nulls for what has not happened" validate detailed-status ds.json '
assert [r["status"] for r in rows].count("RUNNING") == 1, rows
held = [r for r in rows if r["status"] == "RUNNING"][0]
assert held["return_code"] is None and held["run_time"] is None and held["ended"] is None, held
assert type(held["started"]) is int and held["worker"] == "simmer", held
post = [r for r in rows if r["step"] == "post"][0]
assert post["status"] == "INITIALIZED" and post["worker"] is None and post["started"] is None, post
failed = [r for r in rows if r["status"] == "FAILED"]
assert len(failed) == 1 and failed[0]["return_code"] == "MERLIN_SOFT_FAIL", rows
assert all(type(r["run_time"]) in (int, float) for r in rows if r["status"] == "FINISHED"), rows
assert ints("restarts"), rows'

# --- the study ends ---------------------------------------------------------------------------
rm hold
ended() { "$MERLIN" status "$ws" --format csv | grep -q '^post,1,1,1,0,'; }
check "the study ends" wait_until 60 ended
"$MERLIN" status "$ws" --dump st-end.json >/dev/null 2>&1
check "status --dump x.json: valid, post done" validate status st-end.json '
assert rows[1]["done"] == 1 and rows[0]["done"] == 3 and rows[0]["failed"] == 1, rows
assert all(r["mean_seconds"] > 0 for r in rows), rows'
"$MERLIN" detailed-status "$ws" --dump ds-end.json >/dev/null 2>&1
check "detailed-status --dump x.json: valid, every task ended, times ordered" \
  validate detailed-status ds-end.json '
assert len(rows) == 5, rows
assert all(r["return_code"] is not None and type(r["run_time"]) in (int, float) for r in rows), rows
assert all(r["started"] <= r["ended"] for r in rows), rows
assert {r["worker"] for r in rows} == {"simmer", "poster"}, rows'
"$MERLIN" query-workers --spec js.yaml --workers nobody --format json >none.json
check "query-workers matching nothing: an empty array" validate query-workers none.json \
  'assert rows == [], rows'

"$MERLIN" stop-workers --spec js.yaml >/dev/null 2>&1
check "the workers stop" wait_until 30 bash -c "! kill -0 $simmer 2>/dev/null && ! kill -0 $poster 2>/dev/null"

# --- a tuned study (docs/tuning.md), run locally: its search under "searches" ---------------
cat >jt.yaml <<'Y'
description: {name: jt, description: a tuned study's status}
env: {variables: {OUTPUT_PATH: ./studies}}
study:
  - name: search
    run:
      cmd: |
        echo "{\"budget\": $(EPOCHS), \"value\": $(X), \"act\": \"$(ACT)\"}" >>$(TRIAL_DIR)/m.jsonl
      tune:
        trials: 5
        seed: 2
        space:
          X: {uniform: [0, 1]}
          N: {integer: [1, 9]}
          ACT: {choice: [relu, tanh]}
        budget: {token: EPOCHS, min: 1, max: 3, eta: 3}
        metric: {file: m.jsonl, key: value, mode: max}
Y
# N is not in the command: a warning, and still a dimension of the search. One slot: the
# results come in one order, so the promotions are always the same.
"$MERLIN" run --local -j1 jt.yaml >jt.out 2>&1 || { cat jt.out; fail "the tuned study ran"; }
jt=$(ls -d "$WORK"/studies/jt_*)
"$MERLIN" status "$jt" --format json >jt-steps.json
check "status of a tuned study: the step rows, as for any study" validate status jt-steps.json '
assert [r["step"] for r in rows] == ["search"], rows'
"$MERLIN" status "$jt" --searches --format json --trials 0 >jt.json
check "status --searches of a tuned study: valid; its search, every trial, typed configuration" \
  validate status-searches jt.json '
(s,) = rows
assert (s["step"], s["labels"], s["instance"], s["method"], s["mode"]) == ("search", None, "search", "asha", "max"), s
assert s["trials"] == 5 and s["budget"] == 3 and s["full_budget"] == 1 and s["completed"] == 1, s
assert s["waiting"] == 0 and s["running"] == 0 and s["failed"] == 0 and s["stopped"] == 4, s
board = s["leaderboard"]
assert [r["rank"] for r in board] == [1, 2, 3, 4, 5], board
assert board[0]["trial"] == s["best_trial"] and board[0]["value"] == s["best_value"], s
assert board[0]["state"] == "completed" and board[0]["rung"] == 1 and board[0]["budget"] == 3, board
assert all(type(r["N"]) is int and type(r["X"]) is float and r["ACT"] in ("relu", "tanh") for r in board), board
assert all(r["X"] == r["value"] for r in board), board'
"$MERLIN" status "$jt" --searches --dump jt-dump.json --trials 0 >/dev/null 2>&1
check "status --searches --dump x.json: the same document" cmp jt.json jt-dump.json
"$MERLIN" status "$ws" --searches --format json >none.json
check "status --searches of a study without tune: steps: []" validate status-searches none.json '
assert rows == [], rows'


set +e
"$MERLIN" status "$ws" --format yaml >/dev/null 2>bad.err
expect_eq "--format yaml: bad input, exit 2" 2 $?
check "... naming the formats" grep -q "table, json or csv, got 'yaml'" bad.err
"$MERLIN" queue-info js.yaml --dump q.txt >/dev/null 2>bad.err
expect_eq "--dump q.txt: bad input, exit 2" 2 $?
set -e
finish
