#!/usr/bin/env bash
# Workers on nodes apart from the broker, with network delay between them (#30 §4): the network
# namespaces of tests/cluster/netns_lib.sh, a redis-server on node b reached through
# merlin-delay-proxy (D ms added each way: a round trip costs 2D more), and two worker nodes, each
# running one `run-workers --concurrency S --exit-when-done` of a one-step study of N trivial
# samples. Per D: tasks/s (the workers' wall time, both nodes together), the workers' CPU
# seconds per task, the ratio to D = 0 through the same proxy, and the round trips per task
# that the slowdown implies, and where the time goes besides the workers (the machine's idle
# share, Redis's CPU and the relay's, per task):
#   each slot spends t0 + k * 2D per task, so k = (2S/rate_D - 2S/rate_0) / (2D).
# Also the direct path (no proxy) as a reference. Prints RESULT lines; exits 0 whatever the
# figures (a measurement), 77 when this machine cannot make namespaces (with the reason).
#
# Usage: tests/bench/cluster_bench.sh BUILD_DIR   (its merlin and merlin-delay-proxy)
# Knobs: BENCH_N (3000), BENCH_DELAYS ("0 0.2 1 5", ms one way), BENCH_SLOTS (2 per node),
#        BENCH_REPEAT (2), BENCH_DIR (the workspaces' parent; default $TMPDIR or /tmp).
set -euo pipefail
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_root=$(cd "$script_dir/../.." && pwd)
build=$(realpath "${1:?usage: cluster_bench.sh BUILD_DIR}")
merlin=$build/merlin
proxy=$build/merlin-delay-proxy
for x in "$merlin" "$proxy"; do [[ -x $x ]] || { echo "error: $x not built" >&2; exit 2; }; done
command -v redis-server >/dev/null || { echo "error: redis-server missing" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "error: /usr/bin/time missing (apt-get install time)" >&2; exit 2; }
N=${BENCH_N:-3000}
read -r -a delays <<<"${BENCH_DELAYS:-0 0.2 1 5}"
S=${BENCH_SLOTS:-2}
repeat=${BENCH_REPEAT:-2}

CLEANUP=()
source "$repo_root/tests/cluster/netns_lib.sh"
if ! cluster_can; then echo "SKIP: $CLUSTER_WHY"; exit 77; fi
work=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/merlin_cbench.XXXXXX")
cleanup() {
  local c
  for c in "${CLEANUP[@]}"; do eval "$c" || true; done
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
cluster_up 2
port=6379 pass=bench$$
ip netns exec "$CLUSTER_P-b" redis-server --bind "$CLUSTER_BROKER" --port $port --requirepass "$pass" --save '' \
  --appendonly no --dir "$work" --logfile "$work/redis.log" >/dev/null &
redis_pid=$!
CLEANUP=("kill $redis_pid 2>/dev/null; wait $redis_pid 2>/dev/null" "${CLEANUP[@]}")  # before its dir goes
for _ in $(seq 100); do
  on b redis-cli -h "$CLUSTER_BROKER" -p $port -a "$pass" --no-auth-warning ping 2>/dev/null | grep -q PONG && break
  sleep 0.1
done

cat >bench.yaml <<'Y'
description: {name: cbench, description: trivial samples}
study:
  - name: step
    run:
      cmd: echo $(X) > out
merlin:
  resources:
    workers:
      w: {steps: [all]}
  samples:
    column_labels: [X]
Y
seq "$N" >samples.csv

# Where the time goes besides the workers: the machine's idle share (/proc/stat: every
# namespace shares these cores), Redis's CPU (its INFO) and the relay's (/proc/PID/stat).
idle_total() { awk '/^cpu / {print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9}' /proc/stat; }
redis_cpu() {
  on b redis-cli -h "$CLUSTER_BROKER" -p $port -a "$pass" --no-auth-warning info cpu |
    awk -F: '/^used_cpu_(sys|user):/ { s += $2 } END { print s + 0 }'
}
proc_cpu() {  # seconds of user + system time of pid $1, 0 when it is none
  [[ -n "$1" && -r /proc/$1/stat ]] || { echo 0; return; }
  awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); print ($12 + $13) / hz }' "/proc/$1/stat"
}

# run_once URL: queue the study from w1, then both nodes' workers; prints "<seconds> <worker
# cpu seconds> <idle %> <redis cpu seconds> <relay cpu seconds>".
run_once() {
  local url=$1 t0 t1 cpu i0 a0 i1 a1 r0 r1 p0 p1
  on w1 env MERLIN_BROKER_URL="$url" "$merlin" run bench.yaml --samplesfile samples.csv \
    >/dev/null 2>"$work/run.err" || { tail -3 "$work/run.err" >&2; return 1; }
  read -r i0 a0 < <(idle_total)
  r0=$(redis_cpu) p0=$(proc_cpu "$proxy_pid")
  t0=$(date +%s.%N)
  for k in 1 2; do
    on "w$k" env MERLIN_BROKER_URL="$url" /usr/bin/time -f "%U %S" -o "$work/cpu.$k" \
      "$merlin" run-workers bench.yaml --concurrency "$S" --exit-when-done >/dev/null 2>"$work/w$k.err" &
  done
  wait
  t1=$(date +%s.%N)
  read -r i1 a1 < <(idle_total)
  r1=$(redis_cpu) p1=$(proc_cpu "$proxy_pid")
  cpu=$(awk '{s += $1 + $2} END {print s}' "$work/cpu.1" "$work/cpu.2")
  echo "$t0 $t1 $cpu $i0 $a0 $i1 $a1 $r0 $r1 $p0 $p1" |
    awk '{printf "%.3f %.3f %.1f %.3f %.3f\n", $2 - $1, $3, 100 * ($6 - $4) / ($7 - $5), $9 - $8, $11 - $10}'
}

# start_proxy D: the relay on node b, port 6390, D ms each way.
proxy_pid=
start_proxy() {
  # `ip netns exec` itself, not the `on` function: $! is then the relay's own pid.
  ip netns exec "$CLUSTER_P-b" "$proxy" "$CLUSTER_BROKER:6390" "$CLUSTER_BROKER:$port" "$1" \
    >"$work/proxy.out" 2>&1 &
  proxy_pid=$!
  CLEANUP=("kill $proxy_pid 2>/dev/null" "${CLEANUP[@]}")
  for _ in $(seq 50); do grep -q listening "$work/proxy.out" && return 0; sleep 0.1; done
  echo "error: the delay proxy did not start: $(cat "$work/proxy.out")" >&2
  return 1
}

echo "== $N samples, 2 worker nodes x $S slots, broker on its own node; repeat $repeat"
direct="redis://:$pass@$CLUSTER_BROKER:$port/0"
via="redis://:$pass@$CLUSTER_BROKER:6390/0"
declare -A rate
per_task() {  # the figures of run_once after the rate, per task
  awk -v n="$N" -v c="$2" -v i="$3" -v r="$4" -v p="$5" \
    'BEGIN {printf "cpu_ms_per_task=%.3f idle_pct=%.1f redis_ms_per_task=%.3f relay_ms_per_task=%.3f", 1000 * c / n, i, 1000 * r / n, 1000 * p / n}'
}
for r in $(seq "$repeat"); do
  proxy_pid=
  read -r secs cpu idle rcpu pcpu < <(run_once "$direct")
  echo "RESULT direct round=$r tasks_per_s=$(awk -v n="$N" -v s="$secs" 'BEGIN {printf "%.0f", n / s}') $(per_task "$secs" "$cpu" "$idle" "$rcpu" "$pcpu")"
  for d in "${delays[@]}"; do
    start_proxy "$d"
    read -r secs cpu idle rcpu pcpu < <(run_once "$via")
    kill "$proxy_pid" 2>/dev/null || true
    wait "$proxy_pid" 2>/dev/null || true
    rate[$d.$r]=$(awk -v n="$N" -v s="$secs" 'BEGIN {printf "%.1f", n / s}')
    line="RESULT delay_ms=$d round=$r tasks_per_s=$(printf '%.0f' "${rate[$d.$r]}") $(per_task "$secs" "$cpu" "$idle" "$rcpu" "$pcpu")"
    if [[ $d != 0 && -n "${rate[0.$r]:-}" ]]; then
      line+=" vs_no_delay=$(awk -v a="${rate[$d.$r]}" -v b="${rate[0.$r]}" 'BEGIN {printf "%.2f", a / b}')"
      line+=" round_trips_per_task=$(awk -v a="${rate[$d.$r]}" -v b="${rate[0.$r]}" -v s=$((2 * S)) -v d="$d" 'BEGIN {printf "%.2f", (s / a - s / b) / (2 * d / 1000)}')"
    fi
    echo "$line"
  done
done
