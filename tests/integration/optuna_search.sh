#!/usr/bin/env bash
# Optuna interop (issue 13): examples/ml_campaign/optuna_search.yaml — Optuna's ask-and-tell in
# a Merlin loop. Each of 3 rounds Optuna proposes 4 trials (`ask`), Merlin trains one per task
# (a samples_from fan-out), `tell` reports each validation RMSE back; `best` reads Optuna's
# best. Checks that Optuna's study holds exactly the 12 trials Merlin ran, each round its own
# 4, each complete with the value of its own report and the parameters its task trained with,
# and that the best is the lowest and far better than the mean. Locally, then on two Redis workers.
source "$(dirname "$0")/lib.sh"
set +e  # exit codes are what this test checks
need_merlin_train
need_python optuna h5py numpy
command -v c++ >/dev/null || { echo "SKIP: no c++ compiler for the example's build step"; exit 77; }
export PATH=$(dirname "$MERLIN"):$PATH
VARS=(--vars N_SAMPLES=200 EPOCHS=60)
"$MERLIN" example ml_campaign >/dev/null 2>&1
spec=$WORK/ml_campaign/optuna_search.yaml

# check_search WS WHAT
check_search() {
  local ws=$1 w=$2
  expect_eq "$w: 3 rounds of 4 trials, every task done" "ask,3,3,3,0
trial,3,12,12,0
tell,3,3,3,0
best,1,1,1,0" "$("$MERLIN" status "$ws" --format csv | grep -E '^(ask|trial|tell|best),' | cut -d, -f1-5)"
  check "$w: rounds 1 and 2 asked for another, round 3 did not" \
    test -e "$ws/tell/iter.1/MERLIN_LOOP_AGAIN" -a -e "$ws/tell/iter.2/MERLIN_LOOP_AGAIN" -a ! -e "$ws/tell/iter.3/MERLIN_LOOP_AGAIN"
  # Optuna's study against what Merlin's tasks did, trial by trial.
  local out
  out=$("$PY" - "$ws" <<'PYEOF'
import glob, json, os, sys, optuna
ws = sys.argv[1]
s = optuna.load_study(study_name="surrogate", storage=f"sqlite:///{ws}/optuna.db")
by_number = {t.number: t for t in s.trials}
problems, rounds, values = [], [], {}
for i in (1, 2, 3):
    numbers = []
    for cfg in glob.glob(f"{ws}/trial/iter.{i}/**/config.csv", recursive=True):
        number, lr, width, batch = open(cfg).read().strip().split(",")
        t = by_number[int(number)]
        numbers.append(t.number)
        value = json.load(open(os.path.join(os.path.dirname(cfg), "model/report.json")))["final_val_rmse"]
        values[t.number] = value
        if t.state != optuna.trial.TrialState.COMPLETE or t.value != value:
            problems.append(f"trial {t.number}: {t.state.name} {t.value} vs report {value}")
        if (float(lr), int(width), int(batch)) != (float(f"{t.params['lr']:.6g}"), t.params["width"], t.params["batch"]):
            problems.append(f"trial {t.number}: trained {lr},{width},{batch}, Optuna asked {t.params}")
    rounds.append(" ".join(map(str, sorted(numbers))))
best = json.load(open(f"{ws}/best/best.json"))
baseline = json.load(open(glob.glob(f"{ws}/trial/iter.1/**/report.json", recursive=True)[0]))["baseline_val_rmse_per_target"][0]
print(len(s.trials), "|".join(rounds), problems or "ok")
print(best["number"] == min(values, key=values.get) and best["val_rmse"] == min(values.values()),
      best["val_rmse"] < baseline / 5, f"(best {best['val_rmse']:.3g} m, mean predictor {baseline:.3g} m)")
PYEOF
)
  echo "$w: $out"
  expect_eq "$w: Optuna holds the 12 trials, each round its own, complete with their reports' values and params" \
    "12 0 1 2 3|4 5 6 7|8 9 10 11 ok" "$(echo "$out" | head -1)"
  expect_eq "$w: best.json is the lowest trial, under a fifth of the mean predictor's RMSE" "True True" \
    "$(echo "$out" | sed -n 2p | cut -d' ' -f1-2)"
}

mkdir local
(cd local && "$MERLIN" run --local --no-progress "$spec" "${VARS[@]}" >run.out 2>run.err)
rc=$?
expect_eq "local: run exits 0" 0 "$rc"
[ "$rc" = 0 ] || tail -20 local/run.err
check_search "$(ls -d "$WORK"/local/studies/optuna_search_* | head -1)" local

start_redis
mkdir dist
(cd dist && "$MERLIN" run "$spec" "${VARS[@]}" >run.out 2>run.err)
expect_eq "workers: the study is queued" 0 $?
for w in 1 2; do
  (cd dist && timeout 300 "$MERLIN" run-workers "$spec" --exit-when-done >"workers$w.out" 2>"workers$w.err") &
done
wait %1; rc1=$?
wait %2; rc2=$?
expect_eq "workers: both exit 0" "0 0" "$rc1 $rc2"
check_search "$(ls -d "$WORK"/dist/studies/optuna_search_* | head -1)" workers
finish
