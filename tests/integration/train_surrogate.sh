#!/usr/bin/env bash
# merlin-train (docs/training.md) on a dataset a real study makes: 300 projectiles (an awk
# formula per sample) collected into HDF5 by `merlin collect`. Trains on 1 rank and on 2 ranks
# under mpirun and checks both beat the model that predicts the mean by a wide margin; kills a
# run with SIGKILL after its first checkpoint and checks the resumed run ends where the
# uninterrupted one did (and a 2-rank run stopped and resumed, the 2-rank one); stops at the
# target with that epoch's model saved; warm-starts; predicts; bad input exits 2, divergence
# exits 1; --metrics lines, appended across a resume. A spec step runs it under $(LAUNCHER)
# with procs: 2.
source "$(dirname "$0")/lib.sh"
set +e  # exit codes are what this test checks

need_merlin_train
command -v mpirun >/dev/null || { echo "SKIP: mpirun not found (apt-get install openmpi-bin)"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1  # harmless when not root
export OMPI_MCA_rmaps_base_oversubscribe=1  # the spec step's plain `mpirun -np 2` on fewer cores
MPIRUN=(mpirun -np 2 --oversubscribe)

# The dataset: V0 (m/s), ANGLE (deg), DRAG; range and max height of a projectile with a drag
# correction. 300 rows, random in a box (awk's srand: the same file every run).
awk 'BEGIN { srand(7); for (i = 0; i < 300; i++)
  printf "%.6f,%.6f,%.6f\n", 10 + 50 * rand(), 15 + 60 * rand(), 0.001 + 0.099 * rand() }' >samples.csv
cat >proj.yaml <<'Y'
description: {name: proj, description: projectile ranges for merlin-train}
env:
  variables:
    OUTPUT_PATH: ./studies
study:
  - name: simulate
    run:
      cmd: |
        awk -v v=$(V0) -v a=$(ANGLE) -v d=$(DRAG) 'BEGIN { t = a * 3.14159265358979 / 180;
          r = v * v * sin(2 * t) / 9.81 / (1 + 2 * d * v); h = (v * sin(t))^2 / 19.62 / (1 + d * v);
          printf "{\"range\": %.10g, \"max_height\": %.10g}\n", r, h }' > result.json
  - name: gather
    run:
      cmd: merlin_bin collect $(MERLIN_WORKSPACE) --step simulate -f result.json -o $(MERLIN_WORKSPACE)/dataset.h5 --no-progress
      depends: [simulate_*]
  - name: train
    run:
      cmd: $(LAUNCHER) train_bin --data $(MERLIN_WORKSPACE)/dataset.h5 --target result/range --hidden 16 --epochs 20 --out $(WORKSPACE)/model
      depends: [gather]
      nodes: 1
      procs: 2
merlin:
  samples:
    file: $(SPECROOT)/samples.csv
    column_labels: [V0, ANGLE, DRAG]
Y
sed -i "s|merlin_bin|$MERLIN|; s|train_bin|$TRAIN|" proj.yaml
"$MERLIN" run --local --no-progress proj.yaml >run.txt 2>&1
DATA=$(ls -d "$WORK"/studies/proj_*/dataset.h5 2>/dev/null)
[ -f "$DATA" ] || { fail "the study made dataset.h5"; cat run.txt | tail -20; finish; exit 1; }
pass "the study made a dataset of 300 projectiles"
# Its train step: $(LAUNCHER) with procs: 2 under the local batch type is mpirun -np 2.
check "the spec's train step ran under mpirun -np 2" grep -q "^mpirun -np 2 $(dirname "$MERLIN")/merlin-rank-env $TRAIN " "$WORK"/studies/proj_*/train/train.sh
expect_eq "the spec's train step trained on 2 ranks" 2 \
  "$(sed -n 's/^  "ranks": \([0-9]*\),$/\1/p' "$WORK"/studies/proj_*/train/model/report.json)"

# The spread of the target over every sample (awk over what the samples wrote): an untrained
# model that predicts the mean has about this RMSE.
SPREAD=$(find "$WORK"/studies/proj_*/simulate -name result.json -exec cat {} + | sed 's/.*"range": \([^,]*\),.*/\1/' |
  awk '{ s += $1; q += $1 * $1; n++ } END { m = s / n; printf "%.6g", sqrt(q / n - m * m) }')
BOUND=$(awk -v s="$SPREAD" 'BEGIN { printf "%.6g", s / 5 }')
echo "range: std over samples $SPREAD m; a trained model must reach val RMSE < $BOUND m"

# field FILE KEY: a number from report.json
field() { sed -n "s/^  \"$2\": \([^,]*\),*$/\1/p" "$1"; }
below() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && a != "null" && a + 0 < b + 0) }'; }
same() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= 1e-6 * (b < 0 ? -b : b) + 1e-9) }'; }

OPTS=(--data "$DATA" --inputs V0,ANGLE,DRAG --target result/range --hidden 32,32 --lr 3e-3
      --batch 32 --epochs 120 --seed 5 --checkpoint-every 5 --target-error "$BOUND")

# 1 rank, no launcher.
"$TRAIN" "${OPTS[@]}" --checkpoint ck1 --out m1 >t1.txt 2>&1
expect_eq "1 rank: exit 0" 0 $?
R1=$(field m1/report.json final_val_rmse)
B1=$(awk -F'[][]' '/baseline_val_rmse_per_target/ { print $2 }' m1/report.json)
echo "1 rank: final val RMSE $R1, baseline (mean) $B1"
check "1 rank: the baseline is the spread's order ($B1 vs $SPREAD)" \
  awk -v b="$B1" -v s="$SPREAD" 'BEGIN { exit !(b > s / 2 && b < s * 2) }'
check "1 rank: the untrained bound is missed by the mean ($B1 >= $BOUND)" below "$BOUND" "$B1"
check "1 rank: val RMSE $R1 < $BOUND" below "$R1" "$BOUND"
expect_eq "1 rank: report says 1 rank, 120 epochs" "1 120" \
  "$(field m1/report.json ranks) $(field m1/report.json epochs)"
check "1 rank: seconds_to_target reached" below 0 "$(field m1/report.json seconds_to_target)"
check "model.json and model.pt written" test -s m1/model.json -a -s m1/model.pt
expect_eq "120 epoch lines logged" 120 "$(grep -c '^epoch=' t1.txt)"

# 2 ranks under mpirun: each rank half the training rows, gradients averaged.
"${MPIRUN[@]}" "$TRAIN" "${OPTS[@]}" --checkpoint ck2 --out m2 >t2.txt 2>&1
expect_eq "2 ranks: exit 0" 0 $?
R2=$(field m2/report.json final_val_rmse)
echo "2 ranks: final val RMSE $R2"
expect_eq "2 ranks: report says 2 ranks" 2 "$(field m2/report.json ranks)"
check "2 ranks: val RMSE $R2 < $BOUND" below "$R2" "$BOUND"
expect_eq "2 ranks: one rank logs (120 epoch lines)" 120 "$(grep -c '^epoch=' t2.txt)"
check "2 ranks: the rate is scaled by 2 after warm-up" grep -q '^epoch=120/120 .* lr=0.006$' t2.txt

# Killed after its first checkpoint, then resumed: the same end as the run of 1 rank.
"$TRAIN" "${OPTS[@]}" --checkpoint ck3 --out m3 >t3.txt 2>&1 &
pid=$!
for _ in $(seq 3000); do grep -q '^checkpoint ' t3.txt && break; kill -0 $pid 2>/dev/null || break; sleep 0.01; done
kill -9 $pid 2>/dev/null
wait $pid
rc=$?
expect_eq "the run was killed by SIGKILL (not finished before)" 137 $rc
check "killed: no model written" test ! -e m3/report.json
first=$(ls ck3 | sed -n 's/^epoch-0*\([0-9]*\)\.ckpt$/\1/p' | sort -n | head -1)
check "killed: a checkpoint is there (epoch $first)" test -n "$first"
"$TRAIN" "${OPTS[@]}" --checkpoint ck3 --out m3 >t3b.txt 2>&1
expect_eq "resumed: exit 0" 0 $?
check "resumed: from a checkpoint" grep -q '^resumed from .*ck3/epoch-0*[0-9]*\.ckpt epoch=' t3b.txt
R3=$(field m3/report.json final_val_rmse)
echo "resumed: final val RMSE $R3 (uninterrupted: $R1)"
check "resumed: the same final val RMSE as uninterrupted ($R3 vs $R1, rel 1e-6)" same "$R3" "$R1"
check "resumed: report says where it resumed" below 0 "$(field m3/report.json resumed_from_epoch)"
expect_eq "resumed: the report's history has all 120 epochs" 120 \
  "$(grep -c '{"epoch": ' m3/report.json)"
check "at most 2 checkpoints kept" test "$(ls ck3 | grep -c '\.ckpt$')" -le 2
# 2 ranks: stopped after 40 epochs, resumed to 120 (every rank reads the checkpoint): the end
# of the uninterrupted 2-rank run.
"${MPIRUN[@]}" "$TRAIN" "${OPTS[@]}" --epochs 40 --checkpoint ck5 --out m5 >t5.txt 2>&1
"${MPIRUN[@]}" "$TRAIN" "${OPTS[@]}" --checkpoint ck5 --out m5 >t5b.txt 2>&1
expect_eq "2 ranks resumed: exit 0" 0 $?
check "2 ranks resumed: from epoch 40" grep -q '^resumed from .*ck5/epoch-000040\.ckpt epoch=40 ' t5b.txt
R5=$(field m5/report.json final_val_rmse)
check "2 ranks resumed: the same final val RMSE as uninterrupted ($R5 vs $R2)" same "$R5" "$R2"
# Resuming with other options is refused (its checkpoint holds another run).
"$TRAIN" "${OPTS[@]}" --lr 1e-2 --checkpoint ck3 --out m4 >t4.txt 2>&1
expect_eq "resume with another --lr: exit 2" 2 $?
check "resume with another --lr: says why" grep -q 'written by a run with other options' t4.txt

# Both clocks: from the process start (data reading, set-up) and the epochs' own seconds.
check "1 rank: seconds_to_target (process) >= epoch_seconds_to_target" awk \
  -v a="$(field m1/report.json seconds_to_target)" -v b="$(field m1/report.json epoch_seconds_to_target)" \
  'BEGIN { exit !(b > 0 && a >= b) }'
check "1 rank: total_seconds (process) >= epoch_seconds_total" awk \
  -v a="$(field m1/report.json total_seconds)" -v b="$(field m1/report.json epoch_seconds_total)" \
  'BEGIN { exit !(b > 0 && a >= b) }'
expect_eq "all epochs: model.pt is the best epoch's" "$(field m1/report.json best_epoch)" \
  "$(field m1/report.json saved_epoch)"

# --stop-at-target: the first epoch within the bound ends the run, on 1 and on 2 ranks, and
# model.pt is that epoch's (model.json says which, with its validation RMSE).
for ranks in 1 2; do
  if [ "$ranks" = 2 ]; then RUN=("${MPIRUN[@]}" "$TRAIN"); else RUN=("$TRAIN"); fi
  "${RUN[@]}" "${OPTS[@]}" --stop-at-target --out ms$ranks >ts$ranks.txt 2>&1
  expect_eq "$ranks rank(s), --stop-at-target: exit 0" 0 $?
  E=$(field ms$ranks/report.json epochs)
  check "$ranks rank(s), --stop-at-target: stopped before 120 epochs (at $E)" below "$E" 120
  expect_eq "$ranks rank(s), --stop-at-target: stopped at the epoch to target" \
    "$(field ms$ranks/report.json epoch_to_target) true" "$E $(field ms$ranks/report.json stopped_at_target)"
  expect_eq "$ranks rank(s), --stop-at-target: model.pt is that epoch's" "$E $E" \
    "$(field ms$ranks/report.json saved_epoch) $(field ms$ranks/model.json saved_epoch)"
  SV=$(field ms$ranks/model.json saved_val_rmse)
  check "$ranks rank(s), --stop-at-target: the saved model's val RMSE $SV <= $BOUND" \
    awk -v a="$SV" -v b="$BOUND" 'BEGIN { exit !(a != "" && a + 0 <= b + 0) }'
  check "$ranks rank(s), --stop-at-target: model.json and report.json agree ($SV)" same "$SV" \
    "$(field ms$ranks/report.json best_val_rmse)"
  check "$ranks rank(s), --stop-at-target: logged" grep -q "^target reached: epoch=$E " ts$ranks.txt
done

# Warm start from the 1-rank model: epoch 0, fresh optimizer, already near the bound.
"$TRAIN" "${OPTS[@]}" --epochs 1 --init-from m1 --out mw >tw.txt 2>&1
expect_eq "--init-from: exit 0" 0 $?
check "--init-from: says where from" grep -q "^warm start from m1/model.pt" tw.txt
check "--init-from: 1 epoch from the trained weights beats the mean by 5x" below \
  "$(field mw/report.json final_val_rmse)" "$BOUND"
"$TRAIN" "${OPTS[@]}" --hidden 16 --epochs 1 --init-from m1 --out mx >tw2.txt 2>&1
expect_eq "--init-from another --hidden: exit 2" 2 $?
check "--init-from another --hidden: names the file and the widths" \
  grep -q "hidden widths: it has 32,32, this run 16" tw2.txt
check "--init-from another --hidden: names the file" grep -q "m1/model.pt is a model of another architecture" tw2.txt

# Predictions for inputs the model has seen as rows of the study: closer than the mean.
head -20 samples.csv >x.csv
"$TRAIN" predict --model m1 --inputs x.csv --out p.csv >tp.txt 2>&1
expect_eq "predict: exit 0" 0 $?
expect_eq "predict: header and 20 rows" "result/range 21" "$(head -1 p.csv) $(wc -l <p.csv)"
truth=$(awk -F, '{ t = $2 * 3.14159265358979 / 180; printf "%.10g\n", $1 * $1 * sin(2 * t) / 9.81 / (1 + 2 * $3 * $1) }' x.csv)
err=$(paste -d, <(echo "$truth") <(tail -n +2 p.csv) | awk -F, '{ d = $1 - $2; e += d * d; n++ } END { printf "%.6g", sqrt(e / n) }')
check "predict: RMSE on 20 rows $err < $BOUND" below "$err" "$BOUND"
# The same inputs as .npy (float64, 20 × 3) give the same predictions.
if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  /usr/bin/python3 -c "import numpy as np; np.save('x.npy', np.loadtxt('x.csv', delimiter=','))"
  "$TRAIN" predict --model m1 --inputs x.npy >p_npy.csv 2>tp2.txt
  expect_eq "predict: .npy inputs, to stdout: exit 0" 0 $?
  expect_eq "predict: .npy and .csv inputs predict the same" "$(cat p.csv)" "$(cat p_npy.csv)"
else
  echo "note: no numpy for /usr/bin/python3: the .npy predict check is not run"
fi
"$TRAIN" predict --model nowhere --inputs x.csv >tp3.txt 2>&1
expect_eq "predict: no model there: exit 2" 2 $?
check "predict: no model there: named" grep -q 'nowhere/model.pt: no such file' tp3.txt

# --metrics (a tuned step's result file, docs/tuning.md): one JSON line per epoch, flushed; the
# last one is the report's final RMSE. Resumed with a larger --epochs (a promotion: one
# checkpoint per rung), the run appends only its new epochs, and they are the uninterrupted
# run's: epoch 40's RMSE is the 120-epoch run's epoch 40 (t1.txt, 6 digits).
budgets() { sed -n 's/^{"budget": \([0-9]*\), "value": [-0-9.e+]*, .*}$/\1/p' "$1" | xargs; }
value_at() { sed -n "s/^{\"budget\": $2, \"value\": \([^,]*\),.*/\1/p" "$1" | tail -1; }
"$TRAIN" "${OPTS[@]}" --epochs 20 --checkpoint-every 1000 --checkpoint ckm --metrics trial/metrics.jsonl --out mm >tm1.txt 2>&1
expect_eq "--metrics: exit 0" 0 $?
expect_eq "--metrics: a line per epoch, budgets 1..20, its parent made" "$(seq 20 | xargs)" "$(budgets trial/metrics.jsonl)"
check "--metrics: the last value is the report's final val RMSE" same \
  "$(value_at trial/metrics.jsonl 20)" "$(field mm/report.json final_val_rmse)"
"$TRAIN" "${OPTS[@]}" --epochs 40 --checkpoint-every 1000 --checkpoint ckm --metrics trial/metrics.jsonl --out mm >tm2.txt 2>&1
expect_eq "--metrics, resumed to 40 epochs: exit 0" 0 $?
check "--metrics, resumed: from the 20-epoch checkpoint" grep -q '^resumed from ckm/epoch-000020\.ckpt epoch=20 ' tm2.txt
expect_eq "--metrics, resumed: epochs 21..40 appended, none again" "$(seq 40 | xargs)" "$(budgets trial/metrics.jsonl)"
check "--metrics, resumed: the last value is the report's final val RMSE" same \
  "$(value_at trial/metrics.jsonl 40)" "$(field mm/report.json final_val_rmse)"
check "--metrics, resumed: epoch 40 as in the uninterrupted run ($(sed -n 's/^epoch=40\/120 .* val_rmse=\([^ ]*\) .*/\1/p' t1.txt))" \
  awk -v a="$(value_at trial/metrics.jsonl 40)" -v b="$(sed -n 's/^epoch=40\/120 .* val_rmse=\([^ ]*\) .*/\1/p' t1.txt)" \
  'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && b != "" && d <= 1e-5 * b) }'
"${MPIRUN[@]}" "$TRAIN" "${OPTS[@]}" --epochs 10 --metrics m2.jsonl --out mm2 >tm3.txt 2>&1
expect_eq "--metrics on 2 ranks: exit 0, rank 0 alone writes (10 lines)" "0 $(seq 10 | xargs)" "$? $(budgets m2.jsonl)"
"$TRAIN" "${OPTS[@]}" --metrics t1.txt/metrics.jsonl --out mx >tm4.txt 2>&1
expect_eq "--metrics in a path that cannot be made: exit 2" 2 $?
check "--metrics in a path that cannot be made: named" grep -q -- '--metrics: cannot open t1.txt/metrics.jsonl' tm4.txt
check "--help lists --metrics" bash -c "'$TRAIN' --help | grep -q -- '--metrics FILE'"

# Bad input: exit 2, naming the file or field.
"$TRAIN" --data nope.h5 --target result/range --out mx >b1.txt 2>&1
expect_eq "missing data file: exit 2" 2 $?
check "missing data file: named" grep -q 'nope.h5: no such file' b1.txt
"$TRAIN" --data "$DATA" --target result/nope --out mx >b2.txt 2>&1
expect_eq "unknown field: exit 2" 2 $?
check "unknown field: named, with the fields there" grep -q "no field 'result/nope' (fields: result/max_height, result/range)" b2.txt
"$TRAIN" --data "$DATA" --inputs V0,MASS --target result/range --out mx >b3.txt 2>&1
expect_eq "unknown input column: exit 2" 2 $?
"$TRAIN" --data "$DATA" --target result/range --min-rows 1000 --out mx >b4.txt 2>&1
expect_eq "too few rows: exit 2" 2 $?
check "too few rows: says how many" grep -q '300 usable rows' b4.txt
"$TRAIN" --data "$DATA" --target result/range --lr=-1 >b5.txt 2>&1
expect_eq "bad option value: exit 2" 2 $?
"${MPIRUN[@]}" "$TRAIN" --data "$DATA" --target result/nope --out mx >b6.txt 2>&1
expect_eq "unknown field under mpirun: exit 2" 2 $?
check "no model directory made by failed runs" test ! -e mx
# Divergence: a huge SGD rate makes the loss overflow: exit 1, saying so.
"$TRAIN" --data "$DATA" --target result/range --optimizer sgd --lr 1e6 --epochs 5 --out md >d1.txt 2>&1
expect_eq "diverged: exit 1" 1 $?
check "diverged: says so" grep -q 'training diverged' d1.txt
finish
