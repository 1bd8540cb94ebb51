#!/usr/bin/env bash
# Optuna done right (issue 27 §3): examples/ml_campaign/optuna_search.yaml — an asynchronous
# search. Lanes (tasks of the `search` step) each ask Optuna for one trial, train it with
# merlin-train while reporting every epoch, tell the result and ask again at once; the pruner
# (here asynchronous successive halving) stops bad trials, and the lane stops their merlin-train.
# Checks that Optuna's study holds the trials the lanes trained, each complete one with the
# last RMSE its own train.log shows, that pruned ones stopped early and saved epochs, and that
# the best is the lowest. Locally (a journal file in the workspace), then on two Redis workers at
# once (the study in the study's own Redis, JournalRedisStorage).
source "$(dirname "$0")/lib.sh"
set +e  # exit codes are what this test checks
need_merlin_train
need_python optuna h5py numpy
command -v c++ >/dev/null || { echo "SKIP: no c++ compiler for the example's build step"; exit 77; }
export PATH=$(dirname "$MERLIN"):$PATH
ulimit -f 200000  # KiB
N=10 EPOCHS=40
VARS=(--vars N_SAMPLES=200 N_TRIALS=$N EPOCHS=$EPOCHS PRUNE=asha)
"$MERLIN" example ml_campaign >/dev/null 2>&1
spec=$WORK/ml_campaign/optuna_search.yaml

# check_search WS WHAT STORAGE_URL: Optuna's study against what the lanes' trials did.
check_search() {
  local ws=$1 w=$2 url=$3
  expect_eq "$w: every task done" "collect,1,1,1,0
search,4,4,4,0
best,1,1,1,0" "$("$MERLIN" status "$ws" --format csv | grep -E '^(collect|search|best),' | cut -d, -f1-5)"
  local out
  out=$(MERLIN_WORKSPACE=$ws MERLIN_BROKER_URL=$url "$PY" - "$ws" "$N" "$EPOCHS" <<'PYEOF'
import glob, json, os, re, sys
import optuna
from optuna.storages import JournalFileStorage, JournalRedisStorage, JournalStorage
from optuna.trial import TrialState as S
ws, n, epochs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
url = os.environ.get("MERLIN_BROKER_URL")
storage = JournalStorage(JournalRedisStorage(url) if url else JournalFileStorage(ws + "/optuna.journal"))
study = optuna.load_study(study_name=os.path.basename(ws), storage=storage)
trials = study.get_trials()
best = json.load(open(ws + "/best/best.json"))
logs = {int(d.split("/")[-1]): d for d in glob.glob(ws + "/search/LANE.*/trials/*")}
last = {}
for k, d in logs.items():
    vals = re.findall(r"^epoch=(\d+)/\d+ .*?val_rmse=(\S+)", open(d + "/train.log").read(), re.M)
    last[k] = (int(vals[-1][0]), float(vals[-1][1])) if vals else (0, None)
complete = [t for t in trials if t.state == S.COMPLETE]
pruned = [t for t in trials if t.state == S.PRUNED]
print("trials", n <= len(trials) < n + 4)
print("only_complete_or_pruned", len(complete) + len(pruned) == len(trials))
print("one_dir_per_trial", sorted(logs) == sorted(t.number for t in trials))
print("some_pruned", len(pruned) >= 1)
print("pruned_stopped_early", all(last[t.number][0] < epochs and t.user_attrs["epochs_run"] == last[t.number][0] for t in pruned))
print("complete_ran_all", all(last[t.number][0] == epochs for t in complete))
print("value_is_the_logs", all(abs(last[t.number][1] - t.value) <= 1e-9 * max(1, t.value) for t in complete))
print("intermediate_values", all(len(t.intermediate_values) == last[t.number][0] for t in trials))
print("best_is_lowest", best["val_rmse"] == min(t.value for t in complete) and best["number"] == study.best_trial.number)
print("epochs_saved", best["trainer_epochs"] < len(trials) * epochs, best["trainer_epochs"], len(trials) * epochs)
PYEOF
)
  echo "$w: $(grep -o 'best of .*' "$ws/best/best.out")"
  local c
  for c in trials only_complete_or_pruned one_dir_per_trial some_pruned pruned_stopped_early \
    complete_ran_all value_is_the_logs intermediate_values best_is_lowest; do
    expect_eq "$w: $c" "$c True" "$(grep "^$c " <<<"$out")"
  done
  check "$w: pruning saved trainer epochs ($(grep '^epochs_saved' <<<"$out" | cut -d' ' -f3-4 | sed 's/ / of /'))" \
    grep -q "^epochs_saved True" <<<"$out"
  [ $FAILS = 0 ] || echo "$out"
}

# --- locally: the study in a journal file in the workspace
mkdir local
(cd local && "$MERLIN" run --local -j 2 --no-progress "$spec" "${VARS[@]}" >run.out 2>run.err)
expect_eq "local: the search ran" 0 $?
ws=$(ls -d "$WORK"/local/studies/optuna_search_* | head -1)
check "local: Optuna's journal is in the workspace" test -s "$ws/optuna.journal"
check_search "$ws" local ""

# --- two Redis workers at once: the study in the study's own Redis
start_redis
mkdir dist
(cd dist && "$MERLIN" run "$spec" "${VARS[@]}" >run.out 2>run.err)
expect_eq "workers: the study is queued" 0 $?
for w in 1 2; do
  (cd dist && timeout 300 "$MERLIN" run-workers "$spec" --concurrency 2 --exit-when-done >"workers$w.out" 2>"workers$w.err") &
done
wait %1; rc1=$?
wait %2; rc2=$?
expect_eq "workers: both exit 0" "0 0" "$rc1 $rc2"
ws=$(ls -d "$WORK"/dist/studies/optuna_search_* | head -1)
check "workers: no journal file: the study is in Redis" test ! -e "$ws/optuna.journal"
check_search "$ws" workers "$MERLIN_BROKER_URL"
# Each worker runs 2 tasks at once: more than 2 lanes running at one moment means both ran lanes.
at_once=$("$MERLIN" detailed-status "$ws" --format csv | awk -F, '$1 == "search" { print $10 "," $11 }' |
  "$PY" -c "
import sys
spans = [l.strip().split(',') for l in sys.stdin if l.strip()]
print(max(sum(s <= start < e for s, e in spans) for start, _ in spans))")
check "workers: the lanes ran on both workers ($at_once at once, 2 per worker)" test "$at_once" -gt 2
finish
