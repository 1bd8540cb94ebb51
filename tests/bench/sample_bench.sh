#!/usr/bin/env bash
# `merlin sample` throughput: 10^7 rows of 5 columns (.npy, float64) per method, beside `dd`
# writing the same number of bytes to the same directory (the I/O floor), each twice. Prints
# rows/s, the ratio to dd, CPU seconds and peak RSS (flat in the row count: blocks of 32768
# rows). Run it once on disk and once with TMPDIR on a tmpfs. Exits 0 whatever the figures.
#
# Usage: tests/bench/sample_bench.sh [path/to/merlin]   Knobs: BENCH_ROWS (default 10000000).
set -euo pipefail
repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$repo_root/tests/bench/bench_lib.sh"
bench_merlin "$repo_root" "${1:-}"
rows=${BENCH_ROWS:-10000000}
work=$(mktemp -d "${TMPDIR:-/tmp}/merlin_sbench.XXXXXX")
trap 'rm -rf "$work"' EXIT
bytes=$((rows * 5 * 8))
for round in 1 2; do
  t0=$(date +%s.%N)
  dd if=/dev/zero of="$work/dd.bin" bs=1M count=$((bytes / 1048576)) conv=fsync status=none
  dd_s=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
  rm -f "$work/dd.bin"
  for method in uniform lhs sobol halton normal; do
    /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$merlin" sample -n "$rows" -d 5 -m "$method" \
      -o "$work/s.npy" 2>/dev/null
    read -r wall user sys rss <"$work/time"
    rm -f "$work/s.npy"
    awk -v m="$method" -v n="$rows" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" \
      -v d="$dd_s" -v fs="$(stat -f -c %T "$work")" -v round="$round" \
      'BEGIN { printf "RESULT round=%d fs=%s method=%s rows=%d wall_s=%.2f rows_per_s=%.0f cpu_s=%.2f peak_rss_kb=%d dd_same_bytes_s=%.2f merlin/dd=%.2f\n", round, fs, m, n, w, n / w, u + s, r, d, d / w }'
  done
done
