#!/usr/bin/env bash
# examples/active_learning end to end: a Latin-hypercube start, then a loop (propose ->
# simulate, a samples_from fan-out -> collect -> learn, the decider) where an MLP ensemble picks
# the next simulations, until the held-out error reaches the target or the budget is spent.
# Locally (run --local) and on Redis with two run-workers, with a small budget and a smaller
# ensemble (--vars). Checks: more than one iteration ran, the dataset holds every iteration's
# rows with their iteration, the held-out error went down, and the loop stopped by its rule
# (every iteration but the last asked for another; the last reached the target or the budget).
source "$(dirname "$0")/lib.sh"
set +e  # exit codes are what this test checks
ulimit -f 200000  # 100 MB of files at most
need_python h5py numpy torch
command -v c++ >/dev/null || { echo "SKIP: no c++ compiler for the example's build step"; exit 77; }
export PATH=$(dirname "$MERLIN"):$PATH  # the spec's steps call merlin sample
# 40 simulations at most: 20 LHS + 10 + 10, so at most 3 iterations (the ensemble as by default).
VARS=(--vars BUDGET=40 N_HELDOUT=200)

# The pure pieces first: the stopping rule and the acquisition.
if "$PY" "$SRC/tests/integration/active_learning/check_rounds.py" "$SRC/examples/active_learning" >rounds.log 2>&1; then
  pass "the stopping rule and the acquisition ($(grep -c '^ok' rounds.log) checks)"
else
  cat rounds.log; fail "the stopping rule and the acquisition"
fi

"$MERLIN" example active_learning >/dev/null 2>&1
spec=$WORK/active_learning/active_learning.yaml
check "example active_learning is copied" test -f "$spec" -a -f "$WORK/active_learning/resonator.cc"
check "example list offers it, with its description" \
  bash -c "'$MERLIN' example list | grep -q '^active_learning .*surrogate'"

# check_study WS WHAT: the outcome of one run of the example.
check_study() {
  local ws=$1 w=$2 n i
  n=$(ls -d "$ws"/learn/iter.* 2>/dev/null | wc -l)
  check "$w: the loop ran more than one iteration ($n)" test "$n" -gt 1
  expect_eq "$w: every step's tasks done, none failed" "" \
    "$("$MERLIN" status "$ws" --format csv | tail -n +2 | awk -F, '$4 != $3 || $5 != 0')"
  expect_eq "$w: the last dataset holds 20, then 10 per iteration, each row with its iteration" \
    "$(echo 20; seq 2 "$n" | sed 's/.*/10/')" \
    "$("$PY" -c "
import h5py, sys, numpy as np
f = h5py.File(sys.argv[1])
it = f['iteration'][:int(f.attrs['rows_committed'])]
print('\n'.join(str(c) for c in np.bincount(it)[1:]))" "$ws/collect/iter.$n/dataset.h5")"
  check "$w: merlin collect wrote it (one file, every iteration so far)" "$PY" -c "
import h5py, sys
sys.exit(h5py.File(sys.argv[1]).attrs['format'] != 'merlin-collect')" "$ws/collect/iter.$n/dataset.h5"
  # The rule: iterations 1..n-1 said 'again' and left MERLIN_LOOP_AGAIN; the last did not, and
  # its decision holds (target: RMSE <= target; budget: samples + K > BUDGET).
  local rule
  rule=$("$PY" -c "
import json, os, sys
ws, n = sys.argv[1], int(sys.argv[2])
m = [json.load(open(f'{ws}/learn/iter.{i}/metrics.json')) for i in range(1, n + 1)]
again = [os.path.exists(f'{ws}/learn/iter.{i}/MERLIN_LOOP_AGAIN') for i in range(1, n + 1)]
last = m[-1]
ok = (all(x['decision'] == 'again' for x in m[:-1]) and all(again[:-1]) and not again[-1]
      and (last['decision'] == 'target' and last['heldout_rmse'] <= last['target']
           or last['decision'] == 'budget' and last['samples'] + 10 > last['budget']))
print(ok, last['decision'], ' '.join('%.3g' % x['heldout_rmse'] for x in m))" "$ws" "$n")
  echo "$w: decision and held-out RMSE per iteration: ${rule#* }"
  check "$w: the loop stopped by its rule (${rule#* })" test "${rule%% *}" = True
  check "$w: the held-out error went down" "$PY" -c "
import json, sys
m = [json.load(open(f'{sys.argv[1]}/learn/iter.{i}/metrics.json')) for i in (1, int(sys.argv[2]))]
sys.exit(not m[1]['heldout_rmse'] < m[0]['heldout_rmse'])" "$ws" "$n"
  check "$w: report wrote the curve and why it stopped" \
    grep -q "^stopped after $n iterations" "$ws/report/report.out"
}

# --- locally
mkdir local
start=$(date +%s)
(cd local && "$MERLIN" run --local --no-progress "$spec" "${VARS[@]}" >run.out 2>run.err)
rc=$?
expect_eq "local: run exits 0 (in $(( $(date +%s) - start )) s)" 0 "$rc"
[ "$rc" = 0 ] || tail -20 local/run.err
ws=$(ls -d "$WORK"/local/studies/active_learning_* 2>/dev/null | head -1)
check_study "$ws" local

# --- with two workers on Redis
start_redis
two_workers dist "$spec" 240 "${VARS[@]}"
ws=$(ls -d "$WORK"/dist/studies/active_learning_* 2>/dev/null | head -1)
check_study "$ws" workers
check "workers: both workers ran tasks" bash -c \
  "ls '$ws'/merlin_info/tasks/*.journal 2>/dev/null | wc -l | grep -qx 2"
finish
