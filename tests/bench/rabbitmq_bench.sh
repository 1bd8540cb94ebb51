#!/usr/bin/env bash
# The end-to-end distributed benchmark on both brokers in one run, beside xargs: a one-step
# study of trivial samples queued by `merlin run` and executed by one `run-workers` process with
# 2 slots, (a) on Redis alone, (b) on RabbitMQ with Redis as the results backend; then xargs -P 2
# doing the same work. Each figure is taken twice, interleaved, in the same temp dir. Prints
# wall rates, CPU seconds per task (merlin's processes, and each server's), and the ratios
# RabbitMQ/Redis and merlin/xargs. Exits 0 whatever the figures; non-zero only when it cannot
# measure.
#
# Usage: tests/bench/rabbitmq_bench.sh [path/to/merlin]   (default: builds build-bench/merlin)
# Knobs: BENCH_SIZES (default "2000 10000"), BENCH_ROUNDS (default 2), TMPDIR (where the
# workspaces go: run it once on disk and once with TMPDIR on a tmpfs such as /dev/shm),
# BENCH_BASELINE (another merlin, e.g. an older build: each round then also runs the RabbitMQ
# path with it and prints rabbitmq_base_tps and rabbitmq/base).
set -euo pipefail
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_root=$(cd "$script_dir/../.." && pwd)
source "$repo_root/tests/bench/bench_lib.sh"
bench_merlin "$repo_root" "${1:-}"
command -v redis-server >/dev/null || { echo "error: redis-server missing" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "error: /usr/bin/time missing (apt-get install time)" >&2; exit 2; }
read -r -a sizes <<<"${BENCH_SIZES-2000 10000}"
rounds=${BENCH_ROUNDS:-2}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/merlin_qbench.XXXXXX")
CLEANUP=()
on_exit() {
  local c
  for c in "${CLEANUP[@]}"; do eval "$c" >/dev/null 2>&1 || true; done
  rm -rf "$WORK"
}
trap on_exit EXIT
cd "$WORK"
source "$repo_root/tests/integration/rabbitmq_lib.sh"
start_rabbitmq >/dev/null
redis_port=$((20000 + RANDOM % 30000))
mkdir redis
(cd redis && exec setsid redis-server --port $redis_port --bind 127.0.0.1 --dir "$WORK/redis" \
  --appendonly yes --appendfsync everysec --save '') </dev/null >redis/log 2>&1 &
redis_pid=$!
CLEANUP+=("kill $redis_pid")
for _ in $(seq 100); do redis-cli -p $redis_port ping 2>/dev/null | grep -q PONG && break; sleep 0.05; done
redis_url=redis://127.0.0.1:$redis_port/0
rabbit_url=amqp://guest:guest@127.0.0.1:$RABBIT_PORT/

# CPU seconds (user + system) a server process has used so far, from /proc.
server_cpu() {
  local pids=$1 total=0 p
  for p in $pids; do
    total=$(awk -v t="$total" -v hz="$(getconf CLK_TCK)" '{ print t + ($14 + $15) / hz }' "/proc/$p/stat")
  done
  echo "$total"
}
beam_pid=$(pgrep -s "$RABBIT_PID" beam.smp | head -1)
[[ -n "$beam_pid" ]] || { echo "error: no beam.smp in the rabbitmq-server session" >&2; exit 2; }

cat >spec.yaml <<'Y'
description: {name: qbench, description: one-step sampled study}
study:
  - name: step
    run:
      cmd: echo $(X) > out.txt
merlin:
  samples:
    column_labels: [X]
Y
# The baseline's own study name: an older build may not take the queues a newer one declared.
sed 's/name: qbench,/name: qbench_base,/' spec.yaml >spec_base.yaml
now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"%.6g\", $1 }"; }

# merlin_run N BROKER_FLAGS...: queue and execute with $use (default: $merlin); prints
# "wall_s merlin_cpu_s redis_cpu_s rabbit_cpu_s".
merlin_run() {
  local n=$1 merlin=${use:-$merlin} spec=spec.yaml
  [[ -n "${use:-}" ]] && spec=spec_base.yaml
  shift
  local r0 q0 t0 t1
  r0=$(server_cpu "$redis_pid")
  q0=$(server_cpu "$beam_pid")
  t0=$(now)
  /usr/bin/time -f '%U %S' -o run.time "$merlin" --log-level warn run "$spec" \
    --samplesfile "s$n.csv" "$@" >ws.txt 2>/dev/null
  /usr/bin/time -f '%U %S' -o workers.time "$merlin" --log-level warn run-workers "$spec" \
    --concurrency 2 --exit-when-done "$@" 2>/dev/null
  t1=$(now)
  local ws
  ws=$(cat ws.txt)
  local got
  got=$(find "$ws/step" -name out.txt | wc -l)
  [[ "$got" == "$n" ]] || { echo "error: $got of $n outputs" >&2; exit 1; }
  rm -rf "$ws"
  echo "$(calc "$t1 - $t0") $(cat run.time workers.time | awk '{s += $1 + $2} END {print s}') \
$(calc "$(server_cpu "$redis_pid") - $r0") $(calc "$(server_cpu "$beam_pid") - $q0")"
}

xargs_run() {
  local n=$1 base=$WORK/x$n t0 t1
  awk -v b="$base" '{ printf "%s/%d/%d %s\n", b, int(NR / 1000), NR, $1 }' "s$n.csv" >list.txt
  cut -d' ' -f1 list.txt | xargs mkdir -p
  t0=$(now)
  /usr/bin/time -f '%U %S' -o x.time xargs -P 2 -n 2 /bin/bash -c 'cd "$1" && echo "$2" > out.txt' _ <list.txt
  t1=$(now)
  rm -rf "$base"
  echo "$(calc "$t1 - $t0") $(awk '{print $1 + $2}' x.time)"
}

results=()
for n in "${sizes[@]}"; do
  seq 1 "$n" >"s$n.csv"
  for round in $(seq "$rounds"); do
    echo "== N=$n round $round: redis, rabbitmq, xargs" >&2
    read -r r_s r_cpu r_redis _ < <(merlin_run "$n" --broker "$redis_url")
    read -r q_s q_cpu q_redis q_rabbit < <(merlin_run "$n" --broker "$rabbit_url" --results-backend "$redis_url")
    read -r x_s x_cpu < <(xargs_run "$n")
    base=""
    if [[ -n "${BENCH_BASELINE:-}" ]]; then
      read -r b_s b_cpu b_redis b_rabbit < <(use=$BENCH_BASELINE merlin_run "$n" --broker "$rabbit_url" --results-backend "$redis_url")
      base=$(printf ' | baseline rabbitmq_base_tps=%.1f rabbitmq/base=%.2f cpu ms/task merlin %.3f + redis-server %.3f + rabbitmq %.3f' \
        "$(calc "$n / $b_s")" "$(calc "$b_s / $q_s")" "$(calc "1000 * $b_cpu / $n")" \
        "$(calc "1000 * $b_redis / $n")" "$(calc "1000 * $b_rabbit / $n")")
    fi
    line=$(printf 'RESULT N=%d round=%d fs=%s redis_tps=%.1f rabbitmq_tps=%.1f xargs_tps=%.1f rabbitmq/redis=%.2f redis/xargs=%.2f rabbitmq/xargs=%.2f | cpu ms/task: redis path merlin %.3f + redis-server %.3f; rabbitmq path merlin %.3f + redis-server %.3f + rabbitmq %.3f; xargs %.3f' \
      "$n" "$round" "$(stat -f -c %T "$WORK")" \
      "$(calc "$n / $r_s")" "$(calc "$n / $q_s")" "$(calc "$n / $x_s")" \
      "$(calc "$r_s / $q_s")" "$(calc "$x_s / $r_s")" "$(calc "$x_s / $q_s")" \
      "$(calc "1000 * $r_cpu / $n")" "$(calc "1000 * $r_redis / $n")" \
      "$(calc "1000 * $q_cpu / $n")" "$(calc "1000 * $q_redis / $n")" "$(calc "1000 * $q_rabbit / $n")" \
      "$(calc "1000 * $x_cpu / $n")")$base
    echo "$line" >&2
    results+=("$line")
  done
done
printf '%s\n' "${results[@]}"
