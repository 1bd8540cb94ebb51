#!/usr/bin/env bash
# One Redis under a fleet of workers whose steps run nothing (merlin-broker-load: run-workers
# with a null executor), so the broker path's own ceiling shows: tasks/s and Redis CPU µs per
# task at 2, 16, 64 and 256 slots, for one or two builds side by side (runs alternate). After
# each run it checks the study's progress in Redis: every sample committed once (the done
# bitmap counts N, the remaining count is 0, nothing failed). Private redis-servers on
# loopback without persistence; the workspace on tmpfs. Prints RESULT lines and, with two
# builds, the ratios; exits 0 whatever the figures, non-zero only when it cannot measure.
#
# Usage: tests/bench/redis_load_bench.sh BUILD_DIR [BASE_BUILD_DIR]
#   each BUILD_DIR holds `merlin` and `merlin-broker-load` (ninja merlin merlin-broker-load).
# Knobs: LOAD_N (default 20000) samples in all; LOAD_SLOTS (default "2 16 64 256") slots in
# all; LOAD_PROCS_MAX (default 8) worker processes at most (one per 8 slots: 2 = 1x2,
# 16 = 2x8, 64 = 8x8, 256 = 8x32); LOAD_REPEAT (default 2); LOAD_DIR (default /dev/shm).
# LOAD_SERVERS (default 1): that many Redis servers, each with a study of N/LOAD_SERVERS
# samples and its share of the worker processes (at least one each): a campaign split one
# study per server (docs/scaling.md §4); the CPU and commands are summed over the servers.
# LOAD_REDIS_ARGS: more redis-server options (e.g. "--stream-node-max-entries 16").
# LOAD_COMMANDSTATS=1: Redis's time per command (INFO commandstats) per task, first server.
# LOAD_PERF=PREFIX: a `perf record -g` of the first redis-server during each run, to
# PREFIX.<build>.<slots>. Each run has 600 s at most.
# LOAD_BROKER=rabbitmq: the tasks go through a private RabbitMQ (the first Redis keeps the
# progress and reservations, as --results-backend); RESULT lines then add rabbitmq_cpu_us_per_task.
set -euo pipefail
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$script_dir/bench_lib.sh"
[[ $# -ge 1 ]] || { sed -n 2,24p "$0" >&2; exit 2; }
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
servers=${LOAD_SERVERS:-1}
per_study=$(( n / servers ))
(( per_study * servers == n )) || { echo "error: LOAD_N must be a multiple of LOAD_SERVERS" >&2; exit 2; }

work=$(mktemp -d "$base/merlin_load.XXXXXX")
redis_pids=()
rabbit=${LOAD_BROKER:-redis}
[[ $rabbit == redis || ( $rabbit == rabbitmq && $servers == 1 ) ]] ||
  { echo "error: LOAD_BROKER is redis or rabbitmq (with one server)" >&2; exit 2; }
cleanup() {
  [[ $rabbit == rabbitmq ]] && stop_rabbitmq >/dev/null 2>&1
  for p in "${redis_pids[@]}"; do kill "$p" 2>/dev/null; done
  pkill -f "merlin-broker-load run-workers $work/" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
ports=()
for ((s = 0; s < servers; s++)); do
  port=$((20000 + RANDOM % 30000))
  mkdir "redis$s"
  (cd "redis$s" && exec setsid redis-server --port $port --bind 127.0.0.1 --dir "$work/redis$s" \
    --appendonly no --save '' ${LOAD_REDIS_ARGS:-}) </dev/null >"redis$s/log" 2>&1 &
  redis_pids+=($!)
  ports+=("$port")
  for _ in $(seq 100); do redis-cli -p $port ping 2>/dev/null | grep -q PONG && break; sleep 0.05; done
done
# broker_args S: the broker flags of study S's `merlin run` and workers.
broker_args() {
  if [[ $rabbit == rabbitmq ]]; then
    echo "--broker amqp://guest:guest@127.0.0.1:$RABBIT_PORT/ --results-backend redis://127.0.0.1:${ports[$1]}/0"
  else
    echo "--broker redis://127.0.0.1:${ports[$1]}/0"
  fi
}
beam_cpu() { echo 0; }
if [[ $rabbit == rabbitmq ]]; then
  source "$script_dir/../integration/rabbitmq_lib.sh"
  WORK=$work start_rabbitmq >/dev/null
  beam_pid=$(pgrep -s "$RABBIT_PID" beam.smp | head -1)
  [[ -n "$beam_pid" ]] || { echo "error: no beam.smp in the rabbitmq-server session" >&2; exit 2; }
  beam_cpu() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.6f", ($14 + $15) / hz }' "/proc/$beam_pid/stat"; }
fi
rc() { local s=$1; shift; redis-cli -p "${ports[$s]}" "$@"; }
stat() { rc "$1" info "$2" | sed -n "s/^$3:\([0-9.]*\).*/\1/p"; }
cpu() { awk -v a="$(stat "$1" cpu used_cpu_sys)" -v b="$(stat "$1" cpu used_cpu_user)" 'BEGIN { printf "%.6f", a + b }'; }
now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"%.6g\", $1 }"; }

funnel_spec load >spec.yaml
seq 1 "$per_study" >samples.csv

# check_exactly_once S: every sample of the sampled step committed once on server S, none
# failed, the funnel committed.
check_exactly_once() {
  local s=$1 key inst bits rem failed prefix
  key=$(rc "$s" --scan --pattern '*done:*' | head -1)
  [[ -n "$key" ]] || { echo "error: no done bitmap in Redis $s" >&2; exit 1; }
  prefix=${key%done:*}
  for k in $(rc "$s" --scan --pattern "${prefix}done:*"); do
    inst=${k##*done:}
    bits=$(rc "$s" bitcount "$k")
    rem=$(rc "$s" hget "${prefix}remaining" "$inst")
    failed=$(rc "$s" hget "${prefix}failed" "$inst")
    [[ "$rem" == 0 && "${failed:-0}" == 0 ]] ||
      { echo "error: server $s instance $inst: remaining=$rem failed=$failed" >&2; exit 1; }
    if [[ "$bits" != 1 && "$bits" != "$per_study" ]]; then
      echo "error: server $s instance $inst: $bits samples done, want $per_study (or 1)" >&2; exit 1
    fi
  done
  [[ $(rc "$s" --scan --pattern "${prefix}done:*" | wc -l) -ge 2 ]] ||
    { echo "error: server $s: the funnel never committed" >&2; exit 1; }
}

# run_once BUILD SLOTS: queues the study on each server with BUILD's merlin, runs the worker
# processes until done; sets wall, d_cmds, d_cpu, w_cpu, procs, per.
run_once() {
  local build=$1 slots=$2 pids=() s p
  procs=$(( slots / 8 < procs_max ? (slots / 8 > 0 ? slots / 8 : 1) : procs_max ))
  (( procs < servers )) && procs=$servers
  per=$(( slots / procs > 0 ? slots / procs : 1 ))
  local c0=() u0=()
  for ((s = 0; s < servers; s++)); do
    rc "$s" flushall >/dev/null
    rc "$s" config resetstat >/dev/null
    # shellcheck disable=SC2046
    "$build/merlin" run "$work/spec.yaml" $(broker_args "$s") \
      --samplesfile samples.csv >/dev/null 2>run.err || { cat run.err >&2; exit 1; }
    c0+=("$(stat "$s" stats total_commands_processed)")
    u0+=("$(cpu "$s")")
  done
  local perf_pid=
  if [[ -n "${LOAD_PERF:-}" ]]; then
    perf record -q -g -p "${redis_pids[0]}" -o "$LOAD_PERF.$(basename "$build").$slots" 2>/dev/null &
    perf_pid=$!
  fi
  local t0 t1 b0
  b0=$(beam_cpu)
  t0=$(now)
  for ((p = 0; p < procs; p++)); do
    s=$(( p % servers ))
    # shellcheck disable=SC2046
    /usr/bin/time -f '%U %S' -o "time$p" timeout 600 "$build/merlin-broker-load" \
      --log-level warn run-workers "$work/spec.yaml" $(broker_args "$s") --concurrency "$per" \
      --exit-when-done 2>"worker$p.err" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || { cat worker*.err >&2; exit 1; }; done
  t1=$(now)
  [[ -n "$perf_pid" ]] && { kill -INT "$perf_pid"; wait "$perf_pid" || true; }
  d_cmds=0
  d_cpu=0
  for ((s = 0; s < servers; s++)); do
    # The INFO calls themselves (2 before, 2 after) are not the study's.
    d_cmds=$(( d_cmds + $(stat "$s" stats total_commands_processed) - ${c0[$s]} - 4 ))
    d_cpu=$(calc "$d_cpu + $(cpu "$s") - ${u0[$s]}")
  done
  wall=$(calc "$t1 - $t0")
  b_cpu=$(calc "$(beam_cpu) - $b0")
  w_cpu=$(cat time* | awk '{ s += $1 + $2 } END { printf "%.3f", s }')
  rm -f time*
  [[ -n "${LOAD_COMMANDSTATS:-}" ]] && rc 0 info commandstats |
    awk -F'[:=,]' -v n="$per_study" '/^cmdstat_/ { sub("cmdstat_", "", $1); printf "  %-20s calls/task=%.3f usec/task=%.2f\n", $1, $3 / n, $5 / n }' |
    sort -t= -k3 -nr >&2
  for ((s = 0; s < servers; s++)); do check_exactly_once "$s"; done
  rm -rf load_*/
}

declare -A sum_tps sum_cpu
for slots in "${slots_list[@]}"; do
  for ((i = 1; i <= repeat; i++)); do
    for ((b = 0; b < ${#builds[@]}; b++)); do
      name=$([[ $b == 0 ]] && echo new || echo base)
      run_once "${builds[$b]}" "$slots"
      tps=$(calc "$n / $wall")
      cpu_us=$(calc "$d_cpu * 1000000 / $n")
      extra=""
      [[ $rabbit == rabbitmq ]] && extra=$(printf ' rabbitmq_cpu_us_per_task=%.1f' "$(calc "$b_cpu * 1000000 / $n")")
      printf 'RESULT build=%s broker=%s N=%d servers=%d slots=%d procs=%d run=%d tasks_per_s=%.0f redis_cpu_us_per_task=%.1f worker_cpu_us_per_task=%.1f commands_per_task=%.2f wall_s=%.2f%s\n' \
        "$name" "$rabbit" "$n" "$servers" "$slots" "$procs" "$i" "$tps" "$cpu_us" \
        "$(calc "$w_cpu * 1000000 / $n")" "$(calc "$d_cmds / $n")" "$wall" "$extra"
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
