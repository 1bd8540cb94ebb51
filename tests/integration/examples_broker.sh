#!/usr/bin/env bash
# Bundled examples on a real redis-server: iterative_demo queues its own next iterations from
# a step, and one `run-workers --exit-when-done` serves all of them and exits after the last;
# feature_demo (funnels, parameters, samples, a Python step) runs through the broker as well.
# The demo's broker is in ~/.merlin/app.yaml, which the step's `merlin run` reads too (steps
# are not given MERLIN_BROKER_URL: docs/security.md); with MERLIN_BROKER_URL alone the step
# is told how to ask for it.
source "$(dirname "$0")/lib.sh"
start_redis
set +e  # exit codes are what this test checks
export PATH="$(dirname "$MERLIN"):$PATH"  # the demo's last step calls `merlin run`
export HOME=$WORK/home
mkdir -p "$HOME/.merlin"
printf 'broker:\n  name: redis\n  server: 127.0.0.1\n  port: %s\n' "$REDIS_PORT" >"$HOME/.merlin/app.yaml"
URL=$MERLIN_BROKER_URL
unset MERLIN_BROKER_URL

"$MERLIN" example iterative_demo >/dev/null 2>&1
cd iterative_demo
"$MERLIN" run iterative_demo.yaml >run.out 2>run.err
expect_eq "iterative_demo: iteration 1 queued" 0 $?
timeout 120 "$MERLIN" run-workers iterative_demo.yaml --exit-when-done >workers.out 2>workers.err
expect_eq "iterative_demo: the workers exit 0 after the last iteration" 0 $?
expect_eq "iterative_demo: three iterations, one workspace each" 3 "$(ls -d studies/iterative_demo_* | wc -l)"
expect_eq "iterative_demo: every iteration counted its names" \
  "iter_1_counts.txt iter_2_counts.txt iter_3_counts.txt" "$(cd iter_outputs && echo iter_*_counts.txt)"
expect_eq "iterative_demo: the totals hold 3 x 20 names" 60 \
  "$(awk '{s += $1} END {print s}' iter_outputs/all_counts.txt)"
for ws in studies/iterative_demo_*; do
  expect_eq "iterative_demo: $(basename "$ws") complete in the broker" \
    "run-more-samples,1,1,1,0" "$("$MERLIN" status "$ws" --format csv | grep '^run-more' | cut -d, -f1-5)"
done

# The broker from MERLIN_BROKER_URL only: the step's `merlin run` says what to do.
mkdir -p "$WORK/by_url" && cd "$WORK/by_url"
"$MERLIN" example iterative_demo >/dev/null 2>&1
cd iterative_demo
mv "$HOME/.merlin/app.yaml" "$HOME/.merlin/app.yaml.off"
export MERLIN_BROKER_URL=$URL
"$MERLIN" run iterative_demo.yaml --vars MAX_ITER=2 >run.out 2>run.err
timeout 120 "$MERLIN" run-workers iterative_demo.yaml --exit-when-done >workers.out 2>workers.err
expect_eq "iterative_demo by MERLIN_BROKER_URL: one iteration only" 1 "$(ls -d studies/iterative_demo_* | wc -l)"
check "iterative_demo by MERLIN_BROKER_URL: the step is told to add pass_broker or use app.yaml" \
  grep -q "add 'pass_broker: true' to the step's run: block, or name the broker in ~/.merlin/app.yaml" \
  studies/iterative_demo_*/run-more-samples/run-more-samples.err
mv "$HOME/.merlin/app.yaml.off" "$HOME/.merlin/app.yaml"

cd "$WORK"
"$MERLIN" example feature_demo >/dev/null 2>&1
cd feature_demo
"$MERLIN" run feature_demo.yaml >run.out 2>run.err
expect_eq "feature_demo: queued" 0 $?
timeout 120 "$MERLIN" run-workers feature_demo.yaml --exit-when-done >workers.out 2>workers.err
expect_eq "feature_demo: the workers exit 0" 0 $?
ws=$(ls -d studies/feature_demo_*)
expect_eq "feature_demo: every step done in the broker, none failed" "0" \
  "$("$MERLIN" status "$ws" --format csv | tail -n +2 | awk -F, '$3 != $4 || $5 != 0 { bad++ } END { print (NR ? bad + 0 : "no rows") }')"
check "feature_demo: verify wrote FINISHED" test -f "$ws/verify/N_NEW.10.X2.0.5/FINISHED"
finish
