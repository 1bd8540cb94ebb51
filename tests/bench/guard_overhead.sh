#!/usr/bin/env bash
# The step guardian's cost (#14): `merlin run --local -j J` of N trivial tasks (the step of
# local_bench.sh: `echo $(X) > out.txt`) with two merlin binaries, alternating A B A B ... so
# that a loaded machine's drift hits both alike. Per run: wall s, tasks/s, and CPU s per task
# (user + sys of merlin and everything it waited for: guardians, shells), from /usr/bin/time.
#
# Usage: tests/bench/guard_overhead.sh BEFORE_MERLIN AFTER_MERLIN [DIR...]
#   DIR: where the workspaces go, one series per DIR (e.g. /dev/shm for tmpfs, /var/tmp for
#   disk); default $TMPDIR or /tmp. Knobs: BENCH_N (10000), BENCH_JOBS (2), BENCH_REPEAT (2),
#   BENCH_SCRATCH=1 (the step runs in scratch under DIR, `scratch: auto`, and stages out.txt
#   back: the per-task cost of preparing, checking and cleaning a scratch dir),
#   BENCH_BROKER=redis (the distributed mode instead of --local: a private redis-server on
#   loopback, no persistence, started once per DIR; per run `merlin run spec.yaml` queues the
#   study and `merlin run-workers spec.yaml --concurrency J --exit-when-done` runs it, both
#   timed together; CPU per task then adds Redis's own, from its INFO, as `redis_ms_per_task`).
# Each round also times the launch floor: `xargs -P J bash -c 'echo > /dev/null'` N times (no
# workspace, no bookkeeping: what starting N shells costs here), and prints each binary's rate
# as a ratio of that round's floor (`RATIO` lines).
# Prints one `RESULT` line per run; exits non-zero only when a run fails.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 BEFORE_MERLIN AFTER_MERLIN [DIR...]" >&2; exit 2; }
before=$(realpath "$1") after=$(realpath "$2")
shift 2
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=("${TMPDIR:-/tmp}")
n=${BENCH_N:-10000} jobs=${BENCH_JOBS:-2} repeat=${BENCH_REPEAT:-2}

for dir in "${dirs[@]}"; do
  work=$(mktemp -d "$dir/guard_bench.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  staging=""
  [ "${BENCH_SCRATCH:-0}" = 1 ] && staging='      scratch: auto
      stage_out: [out.txt]'
  redis_cpu() { :; }
  if [ "${BENCH_BROKER:-local}" = redis ]; then
    command -v redis-server >/dev/null || { echo "error: redis-server missing" >&2; exit 2; }
    port=$((20000 + RANDOM % 30000))
    mkdir "$work/redis"
    (cd "$work/redis" && exec setsid redis-server --port $port --bind 127.0.0.1 --save '' \
      --appendonly no) </dev/null >"$work/redis/log" 2>&1 &
    redis_pid=$!
    trap 'kill $redis_pid 2>/dev/null; rm -rf "$work"' EXIT
    for _ in $(seq 100); do redis-cli -p $port ping 2>/dev/null | grep -q PONG && break; sleep 0.05; done
    redis-cli -p $port ping 2>/dev/null | grep -q PONG ||
      { echo "error: redis-server on port $port did not answer (see $work/redis/log)" >&2; exit 2; }
    export MERLIN_BROKER_URL=redis://127.0.0.1:$port/0
    redis_cpu() { redis-cli -p $port info cpu | awk -F: '/^used_cpu_(sys|user):/ { s += $2 } END { print s }'; }
  fi
  cat >"$work/spec.yaml" <<Y
description: {name: bench, description: one-step sampled study whose step is trivial}
study:
  - name: step
    run:
      cmd: echo \$(X) > out.txt
$staging
merlin:
  samples:
    file: \$(SPECROOT)/samples.csv
    column_labels: [X]
Y
  seq 1 "$n" >"$work/samples.csv"
  for round in $(seq "$repeat"); do
    read -r fwall fuser fsys < <(seq "$n" | /usr/bin/time -f '%e %U %S' \
      xargs -P "$jobs" -n 1 bash -c 'echo > /dev/null' 2>&1 >/dev/null | tail -1)
    awk -v d="$dir" -v r="$round" -v n="$n" -v wall="$fwall" -v u="$fuser" -v s="$fsys" \
      'BEGIN { printf "RESULT dir=%s binary=floor round=%s tasks=%d wall_s=%.2f tasks_per_s=%.0f cpu_ms_per_task=%.3f\n",
               d, r, n, wall, n / wall, 1000 * (u + s) / n }'
    declare -A rate=()
    for which in before after; do
      bin=$before
      [ $which = after ] && bin=$after
      # A fresh directory per run, all removed at the end: removing 10^4 directories between
      # runs left the disk busy (discard, journal) for the next one, whichever binary it was.
      run_dir="$work/$which.$round"
      mkdir "$run_dir"
      cp "$work/spec.yaml" "$work/samples.csv" "$run_dir/"
      sync
      mkdir "$run_dir/scratch"
      if [ "${BENCH_BROKER:-local}" = redis ]; then
        r0=$(redis_cpu)
        read -r wall user sys < <(cd "$run_dir" && MERLIN_SCRATCH="$run_dir/scratch" /usr/bin/time -f '%e %U %S' \
          bash -c '"$1" run spec.yaml >/dev/null && "$1" --log-level warn run-workers spec.yaml --concurrency "$2" --exit-when-done' \
          _ "$bin" "$jobs" 2>&1 >/dev/null | tail -1)
        r1=$(redis_cpu)
        extra=$(awk -v a="$r0" -v b="$r1" -v n="$n" 'BEGIN { printf " redis_ms_per_task=%.3f", 1000 * (b - a) / n }')
      else
        extra=""
        read -r wall user sys < <(cd "$run_dir" && MERLIN_SCRATCH="$run_dir/scratch" /usr/bin/time -f '%e %U %S' \
          "$bin" run --local --no-progress -j "$jobs" spec.yaml 2>&1 >/dev/null | tail -1)
      fi
      done_n=$(find "$run_dir"/bench_*/step -name out.txt | wc -l)
      [ "$done_n" -eq "$n" ] || { echo "error: $which ran $done_n of $n tasks" >&2; exit 1; }
      awk -v d="$dir" -v sc="${BENCH_SCRATCH:-0}" -v br="${BENCH_BROKER:-local}" -v w="$which" -v r="$round" -v n="$n" -v wall="$wall" -v u="$user" -v s="$sys" -v x="$extra" \
        'BEGIN { printf "RESULT dir=%s scratch=%s broker=%s binary=%s round=%s tasks=%d wall_s=%.2f tasks_per_s=%.0f cpu_ms_per_task=%.3f%s\n",
                 d, sc, br, w, r, n, wall, n / wall, 1000 * (u + s) / n, x }'
      rate[$which]=$wall
    done
    awk -v d="$dir" -v r="$round" -v f="$fwall" -v b="${rate[before]}" -v a="${rate[after]}" \
      'BEGIN { printf "RATIO dir=%s round=%s before/floor=%.2f after/floor=%.2f after/before=%.2f\n",
               d, r, f / b, f / a, b / a }'
  done
  [ -n "${redis_pid:-}" ] && kill "$redis_pid" 2>/dev/null && wait "$redis_pid" 2>/dev/null
  redis_pid=
  rm -rf "$work"
  trap - EXIT
done
