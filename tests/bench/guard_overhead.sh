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
#   back: the per-task cost of preparing, checking and cleaning a scratch dir).
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
      read -r wall user sys < <(cd "$run_dir" && MERLIN_SCRATCH="$run_dir/scratch" /usr/bin/time -f '%e %U %S' \
        "$bin" run --local --no-progress -j "$jobs" spec.yaml 2>&1 >/dev/null | tail -1)
      done_n=$(find "$run_dir"/bench_*/step -name out.txt | wc -l)
      [ "$done_n" -eq "$n" ] || { echo "error: $which ran $done_n of $n tasks" >&2; exit 1; }
      awk -v d="$dir" -v sc="${BENCH_SCRATCH:-0}" -v w="$which" -v r="$round" -v n="$n" -v wall="$wall" -v u="$user" -v s="$sys" \
        'BEGIN { printf "RESULT dir=%s scratch=%s binary=%s round=%s tasks=%d wall_s=%.2f tasks_per_s=%.0f cpu_ms_per_task=%.3f\n",
                 d, sc, w, r, n, wall, n / wall, 1000 * (u + s) / n }'
      rate[$which]=$wall
    done
    awk -v d="$dir" -v r="$round" -v f="$fwall" -v b="${rate[before]}" -v a="${rate[after]}" \
      'BEGIN { printf "RATIO dir=%s round=%s before/floor=%.2f after/floor=%.2f after/before=%.2f\n",
               d, r, f / b, f / a, b / a }'
  done
  rm -rf "$work"
  trap - EXIT
done
