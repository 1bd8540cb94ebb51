#!/usr/bin/env bash
# A tuned step (tune:, docs/tuning.md) run locally: the ASHA demo finishes with each promotion
# decided once and every promoted trial resumed from its checkpoint; a `merlin run --local`
# killed with SIGKILL mid-search and restarted ends the same way; bad tune blocks are refused.
# (tune_redis.sh: the same search on Redis workers, one of them killed.)
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
ulimit -f 200000  # 100 MB of files at most
SPEC=$SRC/examples/tune_demo/tune_demo.yaml

# 1. A whole search on 2 slots.
timeout 300 "$MERLIN" run --local -j2 --vars SECONDS_PER_EPOCH=0.005 "$SPEC" >run.log 2>&1 \
  || { cat run.log; fail "the tune demo ran"; }
ws=$(ls -d "$WORK"/studies/tune_demo_*)
check "the search's summary is there before the step after it ran" \
  cmp -s "$ws/search/best.json" "$ws/report/report.out"
if python3 "$SRC/tests/integration/tune_local/check_search.py" "$ws" >check.log; then
  pass "ASHA invariants hold ($(grep -c '^ok' check.log) checks)"
else
  cat check.log; fail "ASHA invariants"
fi
grep -q "search finished step=search best trial=" run.log && pass "the log names the winner" \
  || fail "the log names the winner"
rm -rf "$WORK/studies"

# 2. Killed mid-search (SIGKILL: no handler runs), then restarted.
"$MERLIN" run --local -j2 --vars SECONDS_PER_EPOCH=0.02 "$SPEC" >killed.log 2>&1 &
pid=$!
CLEANUP+=("kill -9 $pid")
# Wait until some trial is training at a promoted rung (its runs.log has 2 lines).
for _ in $(seq 600); do
  n=$(cat "$WORK"/studies/tune_demo_*/search/trial_*/runs.log 2>/dev/null | wc -l || true)
  [ "${n:-0}" -gt 32 ] && break
  kill -0 $pid 2>/dev/null || break
  sleep 0.1  # polling the trials' logs, not waiting for a time
done
kill -9 $pid 2>/dev/null || true
wait $pid 2>/dev/null || true
ws=$(ls -d "$WORK"/studies/tune_demo_*)
check "the search was killed before its end" test ! -e "$ws/search/best.json"
timeout 300 "$MERLIN" restart "$ws" --local -j2 >restart.log 2>&1 \
  || { cat restart.log; fail "the restart finished the search"; }
if python3 "$SRC/tests/integration/tune_local/check_search.py" "$ws" --killed >check2.log; then
  pass "after kill -9 and restart: ASHA invariants hold ($(grep -c '^ok' check2.log) checks)"
else
  cat check2.log; fail "ASHA invariants after kill -9 and restart"
fi

# 3. Bad tune blocks: exit 2, the spec's line and column.
cat >bad.yaml <<'YAML'
description: {name: bad, description: bad tune}
study:
  - name: s
    run:
      cmd: echo $(X) $(EPOCHS)
      tune:
        method: asha
        trials: 4
        space:
          X: {uniform: [1, 0]}
        metric: {file: m.jsonl}
YAML
# run_local NAME: `merlin run --local NAME.yaml`, its output in NAME.log; prints its exit code.
run_local() { local rc=0; "$MERLIN" run --local "$1.yaml" >"$1.log" 2>&1 || rc=$?; echo "$rc"; }
expect_eq "a bad tune block exits 2" 2 "$(run_local bad)"
check "it says where the bounds are inverted" grep -q "bad.yaml:10:" bad.log
check "it says asha needs a budget" grep -qi "budget" bad.log
cat >scratch.yaml <<'YAML'
description: {name: sc, description: a search in scratch}
study:
  - name: s
    run:
      cmd: echo $(X) $(EPOCHS)
      scratch: auto
      tune:
        trials: 2
        space: {X: {uniform: [0, 1]}}
        budget: {token: EPOCHS, min: 1, max: 3}
        metric: {file: m.jsonl}
YAML
expect_eq "a search in scratch exits 2" 2 "$(run_local scratch)"
check "it says why, at the scratch key" grep -q "scratch.yaml:6:.*cannot run in scratch" scratch.log

# 4. Pruning: one slot, so every trial of a rung after the first two runs with others already
# finished there; each epoch takes 0.2 s and the worker looks every 0.1 s. The configurations
# and noise are fixed by the seed, so the same trials fall behind every time.
sed 's/^\(        metric: .*\)$/\1\n        prune: 0.1/' "$SPEC" >"$WORK/prune.yaml"
cp "$SRC/examples/tune_demo/objective.py" "$WORK/"
check "the pruning spec has its prune key" grep -q "^        prune: 0.1" "$WORK/prune.yaml"
rm -rf "$WORK/studies"
timeout 300 "$MERLIN" run --local -j1 --vars SECONDS_PER_EPOCH=0.2 "$WORK/prune.yaml" >prune.log \
  2>&1 || { cat prune.log; fail "the pruned search ran"; }
ws=$(ls -d "$WORK"/studies/tune_demo_*)
n=$(ls "$ws"/search/trial_*/MERLIN_PRUNED 2>/dev/null | wc -l)
check "trials were pruned ($n)" test "$n" -ge 1
expect_eq "the log says so for each" "$n" "$(grep -c 'trial pruned step=search' prune.log)"
if python3 "$SRC/tests/integration/tune_local/check_search.py" "$ws" >check3.log; then
  pass "with pruning: ASHA invariants and every pruning verified from the trials' files \
($(grep -c '^ok' check3.log) checks)"
else
  cat check3.log; fail "ASHA invariants with pruning"
fi

finish
