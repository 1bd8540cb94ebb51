#!/usr/bin/env bash
# The bundled examples that need no server run to the end under `run --local`: every step
# of each has all its tasks done and none failed, and `example list` offers each of them.
# This is also the "Merlin tutorial" test: our equivalents of Merlin's hello, hello_samples,
# simple_chain, restart and feature_demo, run for real.
source "$(dirname "$0")/lib.sh"
set +e  # exit codes are what this test checks

# all_done DIR SPEC: status says every step's tasks are done, none failed.
all_done() {
  (cd "$1" && "$MERLIN" status "$2" --format csv 2>/dev/null) | tail -n +2 |
    awk -F, 'BEGIN { ok = 1; n = 0 } { n++; if ($3 != $4 || $5 != 0) ok = 0 } END { exit !(ok && n > 0) }'
}

for ex in hello hello_samples simple_chain restart restart_delay null_spec hpc_demo feature_demo; do
  mkdir "$ex"
  (cd "$ex" && "$MERLIN" example "$ex" >/dev/null 2>&1)
  # As Merlin's: simple_chain is one spec, copied into the current directory.
  spec="$ex/$ex.yaml"
  [ "$ex" = simple_chain ] && spec="$ex.yaml"
  (cd "$ex" && "$MERLIN" run --local --no-progress "$spec" >run.out 2>run.err)
  expect_eq "$ex: run --local exits 0" 0 $?
  check "$ex: every step done, none failed" all_done "$ex" "$spec"
  check "$ex: offered by example list" bash -c "'$MERLIN' example list | grep -q '^$ex\b'"
done

"$MERLIN" example list >list.txt
expect_eq "example list is sorted by name" "$(sort list.txt)" "$(cat list.txt)"
check "example list gives every example a description" awk 'NF < 2 { exit 1 }' list.txt

ws=$(ls -d simple_chain/studies/simple_chain_*)
expect_eq "simple_chain: step2 saw step1 over, for each value" 2 \
  "$(cat "$ws"/step2/*/*.out | grep -c 'is over')"
ws=$(ls -d restart/studies/restart_*)
check "restart: the restart command ran for runs_rs" \
  grep -q "restart command of first, built: built" "$ws/runs_rs/CASE.first/runs_rs_CASE.first.out"
# Each .out holds both attempts, the second after a marker line (docs/user-guide.md, 6.1).
expect_eq "restart: data collected both second runs and both restart commands" 4 \
  "$(grep -cE '^(second run of|restart command of)' "$ws/data/all.txt")"
expect_eq "restart: each of them after its attempt-2 marker" 4 \
  "$(grep -c '^==== merlin: attempt 2 (restart), ' "$ws/data/all.txt")"
# Each step ran again no sooner than its retry_delay (2, 3 and 1 s).
ws=$(ls -d restart_delay/studies/restart_delay_*)
check "restart_delay: every step waited at least its retry_delay" awk \
  '{ want = ($1 == "run_2") ? 2 : ($1 == "runs_rt_3") ? 3 : 1; if ($3 + 0 < want) bad = 1 } \
   END { exit bad || NR != 3 }' "$ws/data/waits.txt"
ws=$(ls -d null_spec/studies/null_spec_*)
expect_eq "null_spec: verify counted every sample" "100 of 100 samples finished" "$(cat "$ws/verify/verify.out")"
(cd null_spec && "$MERLIN" run --local --no-progress null_spec/null_spec.yaml --vars N_SAMPLES=7 >/dev/null 2>&1)
ws7=$(ls -d null_spec/studies/null_spec_* | grep -vx "$ws")
expect_eq "null_spec: --vars N_SAMPLES=7 makes 7 samples" "7 of 7 samples finished" \
  "$(cat "$ws7/verify/verify.out")"
ws=$(ls -d feature_demo/studies/feature_demo_*)
expect_eq "feature_demo: collect found every sample below \$(simulate.workspace)" \
  "collected 10 records -> results.json" "$(tail -1 "$ws/collect/X2.0.5/collect_X2.0.5.out")"
check "feature_demo: verify checked the predictions and wrote FINISHED" \
  test -f "$ws/verify/N_NEW.10.X2.0.5/FINISHED"
check "feature_demo: 100 predictions within tolerance" \
  grep -q "^100 predictions, largest error .*: ok" "$ws/verify/N_NEW.10.X2.0.5/verify_N_NEW.10.X2.0.5.out"
expect_eq "hpc_demo: post-process counted every sample" 200 \
  "$(awk '{s += $1} END {print s}' hpc_demo/studies/hpc_demo_*/post-process/counts.txt)"

# Variables reach the batch block and worker args: the job scripts say pdebug, not $(PARTITION).
(cd hpc_demo && MERLIN_BROKER_URL=redis://127.0.0.1:1/0 "$MERLIN" run-workers hpc_demo/hpc_demo.yaml \
  --echo --vars PARTITION=pdebug >echo.txt 2>&1)
expect_eq "hpc_demo: both job scripts take the partition from --vars" 2 \
  "$(grep -c '^#SBATCH --partition=pdebug$' hpc_demo/echo.txt)"
check "hpc_demo: no token is left in the job scripts" bash -c "! grep -q '\$(' hpc_demo/echo.txt"

# optimization iterates through nested local runs; the best value never gets worse.
"$MERLIN" example optimization >/dev/null 2>&1
(cd optimization && PATH="$(dirname "$MERLIN"):$PATH" "$MERLIN" run --local --no-progress \
  optimization.yaml --vars "RUN=merlin run --local --no-progress" >run.out 2>run.err)
expect_eq "optimization: run exits 0" 0 $?
expect_eq "optimization: four iterations in the history" "1 2 3 4" \
  "$(cut -d' ' -f1 optimization/opt_outputs/history.txt | tr '\n' ' ' | sed 's/ $//')"
check "optimization: the best value never gets worse" awk 'NR > 1 && $4 > prev { bad = 1 } { prev = $4 } END { exit bad }' \
  optimization/opt_outputs/history.txt
finish
