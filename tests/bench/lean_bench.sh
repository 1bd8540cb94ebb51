#!/usr/bin/env bash
# Lean workspace vs Merlin's layout (docs/lean-workspace.md): inodes per sample, tasks/s (wall)
# and CPU seconds per task of `merlin run --local -j J` on a one-step sampled study whose step
# writes one file (`echo $(X) > out.txt`: the user's output, one inode per sample).
#
# Usage: tests/bench/lean_bench.sh path/to/merlin [ROOT...]
#   ROOT: directories to run in (default: /dev/shm and /tmp); each run twice per layout.
# Knobs: BENCH_N (default 10000), BENCH_JOBS (default 2), BENCH_REPEAT (default 2).
# Reported per run: `RESULT root= fs= layout= n= wall_s= tasks_per_s= cpu_s_per_task=
# inodes= inodes_per_sample= merlin_inodes_per_sample=` — inodes: every inode of the
# workspace; merlin's: those less the user's N outputs, per sample. CPU is user+sys of merlin
# and every step it ran (/usr/bin/time counts waited-for children). A measurement: exits 0
# whatever the figures.
set -euo pipefail
merlin=$(realpath "$1")
shift
roots=("$@")
[ ${#roots[@]} -gt 0 ] || roots=(/dev/shm /tmp)
n=${BENCH_N:-10000}
jobs=${BENCH_JOBS:-2}
repeat=${BENCH_REPEAT:-2}

for root in "${roots[@]}"; do
  dir=$(mktemp -d "$root/merlin-lean-bench.XXXXXX")
  fs=$(df -T "$dir" | awk 'NR == 2 {print $2}')
  seq 1 "$n" >"$dir/samples.csv"
  for layout in merlin lean; do
    cat >"$dir/$layout.yaml" <<Y
description:
  name: b$layout
  description: one file per sample
env:
  variables:
    OUTPUT_PATH: $dir/out
study:
  - name: step
    run:
      cmd: echo \$(X) > out.txt
merlin:
  samples:
    file: $dir/samples.csv
    column_labels: [X]
  layout: $layout
Y
    for r in $(seq "$repeat"); do
      rm -rf "$dir/out"
      sync
      /usr/bin/time -f '%e %U %S' -o "$dir/time.txt" \
        "$merlin" run --local -j "$jobs" --no-progress "$dir/$layout.yaml" >/dev/null 2>"$dir/err.txt"
      read -r wall user sys <"$dir/time.txt"
      ws=$(ls -d "$dir"/out/b${layout}_*)
      inodes=$(find "$ws" -xdev -printf '%i\n' | sort -u | wc -l)
      outputs=$(find "$ws" -name out.txt | wc -l)
      [ "$outputs" = "$n" ] || { echo "error: $outputs of $n outputs ($dir/err.txt)" >&2; exit 1; }
      awk -v root="$root" -v fs="$fs" -v l="$layout" -v n="$n" -v w="$wall" -v u="$user" \
        -v s="$sys" -v i="$inodes" -v o="$outputs" 'BEGIN {
          printf "RESULT root=%s fs=%s layout=%s n=%d wall_s=%.2f tasks_per_s=%.0f cpu_s_per_task=%.5f inodes=%d inodes_per_sample=%.3f merlin_inodes_per_sample=%.3f\n",
            root, fs, l, n, w, n / w, (u + s) / n, i, i / n, (i - o) / n }'
    done
  done
  rm -rf "$dir"
done
