#!/usr/bin/env bash
# Asynchronous successive halving (merlin's tune:, docs/tuning.md) against synchronous
# successive halving on the same configurations, objective and budgets, on the same 2 slots.
# Trials differ in speed (each epoch takes SECONDS_PER_EPOCH × (1 + SPREAD·u), u fixed per
# configuration), which is what makes a rung's barrier cost. Prints, per run and method: the
# wall time of the whole search, the time of the first full-budget result, the final best
# value, and when (if ever) ASHA held a full-budget result as good as synchronous halving's
# final one; then the ratios. A measurement, not a test: exits 0 whatever the figures.
#
# usage: tests/bench/tune_bench.sh [path/to/merlin]   (BENCH_REPEAT=2, BENCH_SPE=0.2,
#        BENCH_SPREAD=2, BENCH_JOBS=2, BENCH_PRUNE=true|false|SECONDS: tune_demo's `prune`;
#        BENCH_TRIALS=27: configurations drawn; BENCH_SEED=11: run r draws with seed
#        BENCH_SEED + r - 1; BENCH_BROKER=local|redis: `run --local -jBENCH_JOBS`, or a
#        redis-server of its own and BENCH_JOBS `run-workers --concurrency 1` processes;
#        TMPDIR picks the file system)
set -euo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
MERLIN=$(realpath "${1:-$SRC/build/merlin}")
REPEAT=${BENCH_REPEAT:-2}
SPE=${BENCH_SPE:-0.2}
SPREAD=${BENCH_SPREAD:-2}
JOBS=${BENCH_JOBS:-2}
# The same python3 for both (the first in PATH may be a version manager's shim, whose start
# alone can cost ten times the interpreter's: 0.4 s against 0.04 s on our test VM).
PY=$(command -v /usr/bin/python3 || command -v python3)
export PATH="$(dirname "$PY"):$PATH"
BROKER=${BENCH_BROKER:-local}
WORK=$(mktemp -d)
redis_pid=
cleanup() {
  [[ -n "$redis_pid" ]] && kill "$redis_pid" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
ulimit -f 100000
cd "$WORK"
case $BROKER in
  local) ;;
  redis)
    port=$((20000 + RANDOM % 30000))
    mkdir redis
    (cd redis && exec setsid redis-server --port $port --bind 127.0.0.1 --dir "$WORK/redis" \
      --save '' --appendonly no) </dev/null >redis/log 2>&1 &
    redis_pid=$!
    for _ in $(seq 100); do redis-cli -p $port ping 2>/dev/null | grep -q PONG && break; sleep 0.05; done
    export MERLIN_BROKER_URL=redis://127.0.0.1:$port/0 ;;
  *) echo "tune_bench: BENCH_BROKER is local or redis, not '$BROKER'" >&2; exit 2 ;;
esac
# search: the whole ASHA search of tune_demo.yaml, on the chosen broker.
search() {
  local vars=(--vars SECONDS_PER_EPOCH="$SPE" --vars SPREAD="$SPREAD")
  if [[ $BROKER == local ]]; then
    "$MERLIN" run --local -j"$JOBS" --no-progress "${vars[@]}" tune_demo.yaml >asha.log 2>&1
    return
  fi
  redis-cli -p "$port" flushall >/dev/null
  "$MERLIN" run "${vars[@]}" tune_demo.yaml >asha.log 2>&1
  local pids=() i
  for i in $(seq "$JOBS"); do
    "$MERLIN" run-workers tune_demo.yaml --concurrency 1 --exit-when-done >"worker$i.log" 2>&1 &
    pids+=($!)
  done
  for i in "${pids[@]}"; do wait "$i"; done
}
PRUNE=${BENCH_PRUNE:-false}
TRIALS=${BENCH_TRIALS:-27}
SEED=${BENCH_SEED:-11}
cp "$SRC/examples/tune_demo/objective.py" .
echo "tune_bench: $TRIALS trials, budgets 1 3 9 27, eta 3, $JOBS slots ($BROKER), ${SPE}s/epoch x (1 + $SPREAD u), prune: $PRUNE, in $WORK"
for r in $(seq "$REPEAT"); do
  rm -rf studies sync
  sed -e "s/^\(        metric: .*\)$/\1\n        prune: $PRUNE/" -e "s/^        trials: 27$/        trials: $TRIALS/" \
    -e "s/^        seed: 11$/        seed: $((SEED + r - 1))/" "$SRC/examples/tune_demo/tune_demo.yaml" >tune_demo.yaml
  t0=$(date +%s.%N)
  search
  t1=$(date +%s.%N)
  ws=$(ls -d studies/tune_demo_*)
  sync=$(python3 "$SRC/tests/bench/tune_sync_sh.py" "$ws/search/trials.csv" \
    "$SRC/examples/tune_demo/objective.py" sync "$JOBS" "$SPE" "$SPREAD")
  python3 - "$ws" "$t0" "$t1" "$sync" "$r" <<'PY'
import csv, glob, json, os, sys
ws, t0, t1, sync, run = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), json.loads(sys.argv[4]), sys.argv[5]
full = []  # (time, value) of every full-budget result of the ASHA run
for path in glob.glob(os.path.join(ws, "search", "trial_*", "metrics.jsonl")):
    for line in open(path):
        m = json.loads(line)
        if m["budget"] == 27:
            full.append((m["t"] - t0, m["value"]))
full.sort()
epochs = sum(1 for path in glob.glob(os.path.join(ws, "search", "trial_*", "metrics.jsonl"))
             for line in open(path) if line.strip())
sync_epochs = sum(1 for path in glob.glob(os.path.join("sync", "trial_*", "metrics.jsonl"))
                  for line in open(path) if line.strip())
pruned = len(glob.glob(os.path.join(ws, "search", "trial_*", "MERLIN_PRUNED")))
tasks = sum(1 for path in glob.glob(os.path.join(ws, "search", "trial_*", "runs.log"))
            for line in open(path) if line.strip())
best = min(v for _, v in full)
reach = next((t for t, v in full if v <= sync["best_value"]), None)
wall = t1 - t0
print(f"run {run}: ASHA  wall {wall:6.1f} s  first full-budget result {full[0][0]:6.1f} s  best {best:.4f}"
      f"  {tasks} tasks, {pruned} pruned, {epochs} epochs")
print(f"run {run}: sync  wall {sync['wall']:6.1f} s  first full-budget result {sync['first_full']:6.1f} s  best {sync['best_value']:.4f}"
      f"  {sync_epochs} epochs")
with open("ratios", "a") as f:
    f.write(f"{reach / sync['wall'] if reach is not None else float('inf')}\n")
print(f"run {run}: ASHA/sync wall {wall / sync['wall']:.2f}, first full-budget result "
      f"{full[0][0] / sync['first_full']:.2f}, time to sync's final quality "
      + (f"{reach:.1f} s = {reach / sync['wall']:.2f} of sync's wall" if reach is not None
         else "never (ASHA's best full-budget value is worse)"))
PY
done
# One seed is one draw: whether ASHA's early full-budget trials include one as good as the
# trial synchronous halving ends with is luck. The median over the runs is the figure.
python3 - <<'PY'
import statistics
r = sorted(float(x) for x in open("ratios"))
print(f"time to sync's final quality / sync's wall over {len(r)} runs: median {statistics.median(r):.2f}"
      f" (min {r[0]:.2f}, max {r[-1]:.2f}; <= 0.75 in {sum(x <= 0.75 for x in r)} of {len(r)})")
PY
