#!/usr/bin/env bash
# What a task costs Redis in the distributed mode: client round trips, commands (those inside
# scripts included) and Redis CPU per task, and tasks/s, for one worker process x 2 slots and
# for 8 worker processes x 2 slots. One private redis-server on loopback (no persistence: the
# figures are the broker's work, not the disk's), the workspace on tmpfs (/dev/shm), a study of
# one sampled step `echo $(X) > out` and a funnel after it. Prints RESULT lines; exits 0 whatever
# the figures, non-zero only when it cannot measure (a run fails or outputs are missing).
#
# Usage: tests/bench/redis_cost_bench.sh [path/to/merlin]   (default: builds build-bench/merlin)
# Knobs: COST_N (default 10000) samples; COST_PROCS (default "1 8") worker processes per run;
# COST_REPEAT (default 2) runs of each; COST_MONITOR (default 1): one more run of 1 process under
# MONITOR, which tells the client's own commands from those run inside scripts and which script
# or command they were (MONITOR slows Redis: no CPU or time is taken from that run);
# COST_DIR (default /dev/shm) where the workspace goes.
#
# Per task = per sample of the sampled step (the funnel, the splits and the skipped leaves are
# part of what the study costs). From INFO before and after each run:
#   commands/task  = delta of total_commands_processed (client commands + commands in scripts)
#   cpu_us/task    = delta of used_cpu_sys + used_cpu_user, in µs
#   scripts/task   = delta of evalsha + eval calls
#   tasks/s        = N / wall time of `run-workers --exit-when-done` (all processes)
# From the MONITOR run: client commands/task (lines not marked "lua"), round trips/task (the
# same with MULTI...EXEC counted once), and the client commands by name (scripts by the first
# command they run).
set -euo pipefail
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_root=$(cd "$script_dir/../.." && pwd)
source "$repo_root/tests/bench/bench_lib.sh"
bench_merlin "$repo_root" "${1:-}"
command -v redis-server >/dev/null || { echo "error: redis-server missing" >&2; exit 2; }
n=${COST_N:-10000}
read -r -a procs_list <<<"${COST_PROCS-1 8}"
repeat=${COST_REPEAT:-2}
monitor=${COST_MONITOR:-1}
base=${COST_DIR:-/dev/shm}

work=$(mktemp -d "$base/merlin_cost.XXXXXX")
redis_pid=
mon_pid=
cleanup() {
  [[ -n "$mon_pid" ]] && kill "$mon_pid" 2>/dev/null
  [[ -n "$redis_pid" ]] && kill "$redis_pid" 2>/dev/null
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
scripts() { rc info commandstats | sed -n 's/^cmdstat_eval\(sha\)\{0,1\}:calls=\([0-9]*\),.*/\2/p' | awk '{s+=$1} END {print s+0}'; }
cpu() { awk -v a="$(stat cpu used_cpu_sys)" -v b="$(stat cpu used_cpu_user)" 'BEGIN { printf "%.6f", a + b }'; }
now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"%.6g\", $1 }"; }

funnel_spec cost >spec.yaml
seq 1 "$n" >samples.csv

# run_once PROCS: queues the study, runs PROCS worker processes of 2 slots until done; sets
# wall, d_cmds, d_cpu, d_scripts.
run_once() {
  local procs=$1 pids=() ws
  ws=$("$merlin" run spec.yaml --samplesfile samples.csv 2>run.err) || { cat run.err >&2; exit 1; }
  local c0 u0 s0 t0 t1
  c0=$(stat stats total_commands_processed); u0=$(cpu); s0=$(scripts)
  t0=$(now)
  for ((p = 0; p < procs; p++)); do
    "$merlin" --log-level warn run-workers spec.yaml --concurrency 2 --exit-when-done \
      2>"worker$p.err" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || { cat worker*.err >&2; exit 1; }; done
  t1=$(now)
  # The INFO calls themselves (3 before, 3 after) are not the study's.
  d_cmds=$(( $(stat stats total_commands_processed) - c0 - 6 ))
  d_cpu=$(calc "$(cpu) - $u0")
  d_scripts=$(( $(scripts) - s0 ))
  wall=$(calc "$t1 - $t0")
  local got
  got=$(find "$ws/step" -name out | wc -l)
  [[ "$got" == "$n" && -e "$ws/funnel/funnel.txt" ]] ||
    { echo "error: $got of $n outputs, funnel: $(ls "$ws/funnel" 2>&1)" >&2; exit 1; }
  rm -rf "$ws"
}

results=()
for procs in "${procs_list[@]}"; do
  for ((i = 1; i <= repeat; i++)); do
    echo "== N=$n, $procs worker process(es) x 2 slots, run $i" >&2
    run_once "$procs"
    line=$(printf 'RESULT N=%d procs=%d slots=2 run=%d tasks_per_s=%.1f commands_per_task=%.2f scripts_per_task=%.2f redis_cpu_us_per_task=%.1f wall_s=%.2f' \
      "$n" "$procs" "$i" "$(calc "$n / $wall")" "$(calc "$d_cmds / $n")" \
      "$(calc "$d_scripts / $n")" "$(calc "$d_cpu * 1000000 / $n")" "$wall")
    echo "$line" >&2
    results+=("$line")
  done
done

if [[ "$monitor" == 1 ]]; then
  echo "== N=$n, 1 worker process x 2 slots under MONITOR" >&2
  rc monitor >monitor.txt 2>/dev/null &
  mon_pid=$!
  sleep 0.2  # let MONITOR attach; its lines before the run are dropped below by the marker
  rc set merlin_cost_bench_marker 1 >/dev/null
  run_once 1
  rc set merlin_cost_bench_marker 2 >/dev/null
  for _ in $(seq 100); do grep -q '"merlin_cost_bench_marker" "2"' monitor.txt && break; sleep 0.05; done
  kill "$mon_pid" 2>/dev/null || true
  mon_pid=
  # Lines: <time> [<db> <client addr>|lua] "cmd" "args"... Between the two markers only, and
  # without this script's INFO/SET calls (which come from redis-cli, not from merlin).
  awk -v n="$n" '
    /"merlin_cost_bench_marker" "1"/ { on = 1; next }
    /"merlin_cost_bench_marker" "2"/ { on = 0 }
    !on { next }
    {
      lua = ($3 == "lua]")
      match($0, /\] "[^"]*"/); cmd = tolower(substr($0, RSTART + 3, RLENGTH - 4))
      if (cmd == "info") next
      if (lua) { inner++; if (want != "") { name["evalsha:" want "->" cmd]++; want = "" } ; next }
      if (want != "") { name["evalsha:" want "->(none)"]++; want = "" }
      client = $3
      cmds++
      if (cmd == "multi") { inmulti[client] = 1; trips++; name["multi..exec"]++; next }
      if (cmd == "exec") { inmulti[client] = 0; next }
      if (inmulti[client]) { name["multi..exec:" cmd]++; next }
      trips++
      if (cmd == "evalsha" || cmd == "eval") { match($0, /\] "[^"]*" "[^"]*"/); want = substr($0, RSTART + RLENGTH - 9, 8); next }
      name[cmd]++
    }
    END {
      printf "RESULT N=%d monitor client_commands_per_task=%.3f round_trips_per_task=%.3f commands_in_scripts_per_task=%.3f\n", n, cmds / n, trips / n, inner / n
      for (k in name) printf "  %-48s %10d  %.3f per task\n", k, name[k], name[k] / n | "sort -k2 -nr"
    }' monitor.txt >monitor_summary.txt
  cat monitor_summary.txt >&2
  results+=("$(head -1 monitor_summary.txt)")
fi
printf '%s\n' "${results[@]}"
