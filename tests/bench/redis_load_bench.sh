#!/usr/bin/env bash
# One Redis under a fleet of workers whose steps run nothing (merlin-broker-load: run-workers
# with a null executor), so the broker path's own ceiling shows: tasks/s and Redis CPU µs per
# task at 2, 16, 64 and 256 slots, for one or two builds side by side (runs alternate). After
# each run it checks the study's progress in Redis: every sample committed once (the done
# bitmap counts N, the remaining count is 0, nothing failed). One private redis-server on
# loopback without persistence; the workspace on tmpfs. Prints RESULT lines and, with two
# builds, the ratios; exits 0 whatever the figures, non-zero only when it cannot measure.
#
# Usage: tests/bench/redis_load_bench.sh BUILD_DIR [BASE_BUILD_DIR]
#   each BUILD_DIR holds `merlin` and `merlin-broker-load` (ninja merlin merlin-broker-load).
# Knobs: LOAD_N (default 20000) samples; LOAD_SLOTS (default "2 16 64 256") slots in all;
# LOAD_PROCS_MAX (default 8) worker processes at most (one per 8 slots: 2 = 1x2, 16 = 2x8,
# 64 = 8x8, 256 = 8x32); LOAD_REPEAT (default 2); LOAD_DIR (default /dev/shm). Each run has
# 600 s at most. Besides Redis's CPU per task, the workers' own (user + sys of all worker
# processes, from /usr/bin/time) per task.
set -euo pipefail
[[ $# -ge 1 ]] || { sed -n 2,16p "$0" >&2; exit 2; }
builds=("$(realpath "$1")")
[[ $# -ge 2 ]] && builds+=("$(realpath "$2")")
for b in "${builds[@]}"; do
  [[ -x "$b/merlin" && -x "$b/merlin-broker-load" ]] ||
    { echo "error: $b lacks merlin or merlin-broker-load (ninja merlin merlin-broker-load)" >&2; exit 2; }
done
[[ -x /usr/bin/time ]] || apt-get install -y -qq time >/dev/null
command -v redis-server >/dev/null || { echo "error: redis-server missing" >&2; exit 2; }
n=${LOAD_N:-20000}
read -r -a slots_list <<<"${LOAD_SLOTS:-2 16 64 256}"
procs_max=${LOAD_PROCS_MAX:-8}
repeat=${LOAD_REPEAT:-2}
base=${LOAD_DIR:-/dev/shm}

work=$(mktemp -d "$base/merlin_load.XXXXXX")
redis_pid=
cleanup() {
  [[ -n "$redis_pid" ]] && kill "$redis_pid" 2>/dev/null
  pkill -f "merlin-broker-load run-workers $work/" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
port=$((20000 + RANDOM % 30000))
mkdir redis
(cd redis && exec setsid redis-server --port $port --bind 127.0.0.1 --dir "$work/redis" \
  --appendonly no --save '') </dev/null >redis/log 2>&1 &
redis_pid=$!
for _ in $(seq 100); do redis-cli -p $port ping 2>/dev/null | grep -q PONG && break; sleep 0.05; done
export MERLIN_BROKER_URL=redis://127.0.0.1:$port/0
rc() { redis-cli -p $port "$@"; }
stat() { rc info "$1" | sed -n "s/^$2:\([0-9.]*\).*/\1/p"; }
cpu() { awk -v a="$(stat cpu used_cpu_sys)" -v b="$(stat cpu used_cpu_user)" 'BEGIN { printf "%.6f", a + b }'; }
now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"%.6g\", $1 }"; }

cat >spec.yaml <<'Y'
description: {name: load, description: one sampled step and a funnel}
env: {variables: {OUTPUT_PATH: ./studies}}
study:
  - name: step
    run:
      cmd: echo $(X) > out
  - name: funnel
    run:
      cmd: echo done > funnel.txt
      depends: [step_*]
merlin:
  resources:
    workers:
      w: {args: --concurrency 2, steps: [all]}
  samples:
    column_labels: [X]
Y
seq 1 "$n" >samples.csv

# check_exactly_once: every sample of the sampled step committed once, none failed, the study
# done. The step's instance is the first with N samples in the remaining hash.
check_exactly_once() {
  local key inst bits rem failed
  key=$(rc --scan --pattern '*done:*' | head -1)
  [[ -n "$key" ]] || { echo "error: no done bitmap in Redis" >&2; exit 1; }
  local prefix=${key%done:*}
  for k in $(rc --scan --pattern "${prefix}done:*"); do
    inst=${k##*done:}
    bits=$(rc bitcount "$k")
    rem=$(rc hget "${prefix}remaining" "$inst")
    failed=$(rc hget "${prefix}failed" "$inst")
    [[ "$rem" == 0 && "${failed:-0}" == 0 ]] ||
      { echo "error: instance $inst: remaining=$rem failed=$failed" >&2; exit 1; }
    if [[ "$bits" != 1 && "$bits" != "$n" ]]; then
      echo "error: instance $inst: $bits samples done, want $n (or 1)" >&2; exit 1
    fi
  done
  [[ $(rc --scan --pattern "${prefix}done:*" | wc -l) -ge 2 ]] ||
    { echo "error: the funnel never committed" >&2; exit 1; }
}

# run_once BUILD SLOTS: queues the study with BUILD's merlin, runs the worker processes until
# done; sets wall, d_cmds, d_cpu, procs, per.
run_once() {
  local build=$1 slots=$2 pids=()
  procs=$(( slots / 8 < procs_max ? (slots / 8 > 0 ? slots / 8 : 1) : procs_max ))
  per=$(( slots / procs ))
  rc flushall >/dev/null
  "$build/merlin" run "$work/spec.yaml" --samplesfile samples.csv >/dev/null 2>run.err ||
    { cat run.err >&2; exit 1; }
  local c0 u0 t0 t1
  c0=$(stat stats total_commands_processed); u0=$(cpu)
  t0=$(now)
  for ((p = 0; p < procs; p++)); do
    /usr/bin/time -f '%U %S' -o "time$p" timeout 600 "$build/merlin-broker-load" --log-level warn run-workers "$work/spec.yaml" \
      --concurrency "$per" --exit-when-done 2>"worker$p.err" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || { cat worker*.err >&2; exit 1; }; done
  t1=$(now)
  d_cmds=$(( $(stat stats total_commands_processed) - c0 - 4 ))
  d_cpu=$(calc "$(cpu) - $u0")
  wall=$(calc "$t1 - $t0")
  w_cpu=$(cat time* | awk '{ s += $1 + $2 } END { printf "%.3f", s }')
  rm -f time*
  check_exactly_once
  rm -rf studies
}

declare -A sum_tps sum_cpu
results=()
for slots in "${slots_list[@]}"; do
  for ((i = 1; i <= repeat; i++)); do
    for ((b = 0; b < ${#builds[@]}; b++)); do
      name=$([[ $b == 0 ]] && echo new || echo base)
      run_once "${builds[$b]}" "$slots"
      tps=$(calc "$n / $wall")
      cpu_us=$(calc "$d_cpu * 1000000 / $n")
      line=$(printf 'RESULT build=%s N=%d slots=%d procs=%d run=%d tasks_per_s=%.0f redis_cpu_us_per_task=%.1f worker_cpu_us_per_task=%.1f commands_per_task=%.2f wall_s=%.2f' \
        "$name" "$n" "$slots" "$procs" "$i" "$tps" "$cpu_us" "$(calc "$w_cpu * 1000000 / $n")" \
        "$(calc "$d_cmds / $n")" "$wall")
      echo "$line"
      results+=("$line")
      sum_tps[$name.$slots]=$(calc "${sum_tps[$name.$slots]:-0} + $tps")
      sum_cpu[$name.$slots]=$(calc "${sum_cpu[$name.$slots]:-0} + $cpu_us")
    done
  done
done
if [[ ${#builds[@]} == 2 ]]; then
  for slots in "${slots_list[@]}"; do
    printf 'RATIO slots=%d new/base tasks_per_s=%.2f redis_cpu_per_task=%.2f\n' "$slots" \
      "$(calc "${sum_tps[new.$slots]} / ${sum_tps[base.$slots]}")" \
      "$(calc "${sum_cpu[new.$slots]} / ${sum_cpu[base.$slots]}")"
  done
fi
