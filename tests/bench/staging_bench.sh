#!/usr/bin/env bash
# Staging on vs off (docs/staging.md): one sampled step whose samples each write BENCH_MB MB
# (after BENCH_STEP_S seconds of "compute"), run locally with -j BENCH_JOBS, once writing into
# the workspace directly and once in scratch (MERLIN_SCRATCH) with `stage_out`. Prints tasks/s,
# CPU seconds, the stager's busy time and how much of it the slots did not wait for:
#   hidden = 1 - max(0, wall_on - wall_off) / stager_busy   (clamped to [0, 1])
# Run it with TMPDIR on disk and on a tmpfs (the workspace and scratch both go under TMPDIR).
# Exits 0 whatever the figures: a measurement, not a test.
#
# Usage: tests/bench/staging_bench.sh [path/to/merlin]
# Knobs: BENCH_N (2000), BENCH_MB (2), BENCH_STEP_S (0.02), BENCH_JOBS (nproc), BENCH_ROUNDS (2).
set -euo pipefail
repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$repo_root/tests/bench/bench_lib.sh"
bench_merlin "$repo_root" "${1:-}"
n=${BENCH_N:-2000}
mb=${BENCH_MB:-2}
step_s=${BENCH_STEP_S:-0.02}
jobs=${BENCH_JOBS:-$(nproc)}
rounds=${BENCH_ROUNDS:-2}
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time (apt-get install time)"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/merlin_stbench.XXXXXX")
trap 'rm -rf "$work"' EXIT
seq 1 "$n" >"$work/samples.csv"
write_spec() {  # $1 = on|off
  local extra=""
  [ "$1" = on ] && extra='      scratch: auto
      stage_out: [out.bin, result.txt]'
  cat >"$work/$1.yaml" <<Y
description: {name: stbench_$1, description: staging benchmark}
env:
  variables:
    OUTPUT_PATH: $work/out_$1
study:
  - name: sim
    run:
      cmd: |
        sleep $step_s
        dd if=/dev/zero of=out.bin bs=1M count=$mb status=none
        echo \$(X) > result.txt
$extra
merlin:
  samples:
    file: $work/samples.csv
    column_labels: [X]
Y
}
write_spec on
write_spec off
fs=$(stat -f -c %T "$work")
for round in $(seq "$rounds"); do
  declare -A wall=()
  for mode in off on; do
    rm -rf "$work/out_$mode" "$work/scratch"
    MERLIN_SCRATCH=$work/scratch /usr/bin/time -f '%e %U %S' -o "$work/time" \
      "$merlin" run --local --no-progress -j "$jobs" "$work/$mode.yaml" >/dev/null 2>"$work/$mode.err"
    read -r w u s <"$work/time"
    wall[$mode]=$w
    busy=$(sed -n 's/.*stager_busy_seconds=\([0-9.]*\).*/\1/p' "$work/$mode.err" | tail -1)
    files=$(find "$work/out_$mode" -name out.bin | wc -l)
    [ "$files" = "$n" ] || { echo "only $files of $n outputs in $mode mode"; tail "$work/$mode.err"; exit 1; }
    hidden=""
    if [ "$mode" = on ] && [ -n "$busy" ]; then
      hidden=$(awk -v on="$w" -v off="${wall[off]}" -v b="$busy" \
        'BEGIN { d = on - off; if (d < 0) d = 0; h = (b > 0) ? 1 - d / b : 1; if (h < 0) h = 0; printf "%.2f", h }')
    fi
    awk -v r="$round" -v fs="$fs" -v m="$mode" -v n="$n" -v mb="$mb" -v w="$w" -v u="$u" -v s="$s" \
      -v b="${busy:-0}" -v h="${hidden:--}" \
      'BEGIN { printf "RESULT round=%d fs=%s staging=%s tasks=%d mb_per_task=%s wall_s=%.2f tasks_per_s=%.1f cpu_s=%.2f stager_busy_s=%.2f hidden=%s\n", r, fs, m, n, mb, w, n / w, u + s, b, h }'
  done
done
