#!/usr/bin/env bash
# `merlin collect` throughput: N per-sample outputs (result.json: 2 scalars and a 3-array;
# field.npy: 16 float64) made by a local study whose step writes them with bash builtins, then
# collected into one HDF5 file, twice, beside baselines run in the same place on the same
# (warm) files: `cat` of every output into one file, and `jq -s` of the JSON files when jq is
# here, and spellbook collect (the JSON files into one JSON list, merlin-spellbook's command as
# installed beside merlin). Each round also collects result.json alone (the scalars, one file
# per sample). Prints wall s, samples/s, CPU s, peak RSS and the ratios, once per file system: the
# directory of TMPDIR (disk by default) and /dev/shm (tmpfs). Exits 0 whatever the figures.
#
# Usage: tests/bench/collect_bench.sh [N] [path/to/merlin]   (N default 100000; 1000000 works,
# given ~8 GB and 2.5 million inodes free). Knobs: BENCH_FS="disk tmpfs", BENCH_THREADS,
# BENCH_BASELINE=path/to/older/merlin (its collects run first in each round, on the same files).
set -euo pipefail
repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$repo_root/tests/bench/bench_lib.sh"
n=${1:-100000}
bench_merlin "$repo_root" "${2:-}"
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time (apt-get install time)"; exit 1; }
threads=${BENCH_THREADS:-$(nproc)}

bench_on() {  # bench_on LABEL DIR
  local label=$1 base=$2 work ws wall user sys rss
  work=$(mktemp -d "$base/merlin_cbench.XXXXXX")
  trap 'rm -rf "$work"' RETURN
  seq "$n" | awk '{ printf "%d,%.6g\n", $1, $1 / 7 }' >"$work/samples.csv"
  # field.npy: '<f8', shape (16,), the values 1.0 (its 128 data bytes written by printf).
  local one='\x00\x00\x00\x00\x00\x00\xf0\x3f' data='' i
  for i in $(seq 16); do data+=$one; done
  cat >"$work/spec.yaml" <<Y
description: {name: cbench, description: collect benchmark}
env: {variables: {OUTPUT_PATH: $work/studies}}
study:
  - name: simulate
    run:
      cmd: |
        printf '{"energy": %s, "id": %s, "traj": [%s, %s, 1.5]}\n' \$(X) \$(K) \$(X) \$(K) > result.json
        printf '\x93NUMPY\x01\x00\x76\x00{'"'"'descr'"'"': '"'"'<f8'"'"', '"'"'fortran_order'"'"': False, '"'"'shape'"'"': (16,), }%*s\n$data' 59 '' > field.npy
merlin:
  samples: {file: $work/samples.csv, column_labels: [K, X]}
Y
  echo "== $label ($(stat -f -c %T "$work")): making $n samples' outputs with merlin run --local" >&2
  /usr/bin/time -f '%e' -o "$work/time" "$merlin" run --local --no-progress -j "$(nproc)" \
    "$work/spec.yaml" >"$work/run.out" 2>&1 || { tail "$work/run.out"; exit 1; }
  echo "   study: $(cat "$work/time") s" >&2
  ws=$(ls -d "$work"/studies/cbench_*)
  # collect_once BINARY FILE...: one collect of FILEs into a new out.h5; sets wall user sys rss.
  collect_once() {
    local bin=$1 f args=()
    shift
    for f in "$@"; do args+=(-f "$f"); done
    rm -f "$work/out.h5"
    /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$bin" collect "$ws" --step simulate \
      "${args[@]}" -o "$work/out.h5" -j "$threads" --no-progress 2>"$work/c.err" ||
      { cat "$work/c.err"; exit 1; }
    read -r wall user sys rss <"$work/time"
    grep -q "$n rows appended.*($n ok" "$work/c.err" || { cat "$work/c.err"; exit 1; }
  }
  # short_result BINARY FILES: the RESULT line of the last collect_once.
  short_result() {
    awk -v l="$label" -v r="$round" -v n="$n" -v w="$wall" -v u="$user" -v s="$sys" -v m="$rss" \
      -v t="$threads" -v b="$1" -v f="$2" 'BEGIN {
        printf "RESULT fs=%s round=%d n=%d threads=%d binary=%s files=%s collect_wall_s=%.2f samples_per_s=%.0f cpu_s=%.2f peak_rss_kb=%d\n", l, r, n, t, b, f, w, n / w, u + s, m }'
  }
  local round
  for round in 1 2; do
    # The scalars alone first (result.json: one file per sample), by the baseline too when
    # given; then both files.
    if [[ -n "${BENCH_BASELINE:-}" ]]; then
      collect_once "$BENCH_BASELINE" result.json
      short_result baseline result.json
      collect_once "$BENCH_BASELINE" result.json field.npy
      short_result baseline both
    fi
    collect_once "$merlin" result.json
    short_result merlin result.json
    collect_once "$merlin" result.json field.npy
    local h5_mb; h5_mb=$(du -m "$work/out.h5" | cut -f1)
    /usr/bin/time -f '%e %U %S %M' -o "$work/time" bash -c \
      "find '$ws/simulate' -name result.json -o -name field.npy | xargs cat >'$work/all.bin'"
    read -r cwall cuser csys crss <"$work/time"
    local jwall=0 jcpu=0 jrss=0
    if command -v jq >/dev/null; then
      /usr/bin/time -f '%e %U %S %M' -o "$work/time" bash -c \
        "find '$ws/simulate' -name result.json | xargs cat | jq -s . >'$work/all.json'"
      read -r jwall ju js jrss <"$work/time"
      jcpu=$(awk -v a="$ju" -v b="$js" 'BEGIN { print a + b }')
    fi
    # Baseline spellbook collect (merlin-spellbook's command, as installed beside merlin: JSON
    # files into one JSON list), called in Python with the list (10^5 paths exceed one argument).
    /usr/bin/time -f '%e %U %S %M' -o "$work/time" bash -c \
      "find '$ws/simulate' -name result.json >'$work/list.txt' && /usr/bin/python3 -c '
import sys; sys.path.insert(0, sys.argv[1]); import spellbook_ml
spellbook_ml.collect([\"-instring\", open(sys.argv[2]).read(), \"-outfile\", sys.argv[3]])
' '$repo_root/adapters/ml/python' '$work/list.txt' '$work/all.json'"
    read -r swall su ss srss <"$work/time"
    local scpu; scpu=$(awk -v a="$su" -v b="$ss" 'BEGIN { print a + b }')
    rm -f "$work/all.bin" "$work/all.json" "$work/list.txt"
    awk -v l="$label" -v r="$round" -v n="$n" -v w="$wall" -v u="$user" -v s="$sys" -v m="$rss" \
      -v cw="$cwall" -v cc="$cuser" -v cs="$csys" -v cr="$crss" -v jw="$jwall" -v jc="$jcpu" \
      -v jr="$jrss" -v mb="$h5_mb" -v t="$threads" -v sw="$swall" -v sc="$scpu" -v sr="$srss" 'BEGIN {
        printf "RESULT fs=%s round=%d n=%d threads=%d binary=merlin files=both collect_wall_s=%.2f samples_per_s=%.0f cpu_s=%.2f peak_rss_kb=%d h5_mb=%d cat_wall_s=%.2f cat_cpu_s=%.2f collect/cat=%.2f", l, r, n, t, w, n / w, u + s, m, mb, cw, cc + cs, w / cw
        if (jw > 0) printf " jq_wall_s=%.2f jq_cpu_s=%.2f jq_rss_kb=%d collect/jq=%.2f", jw, jc, jr, w / jw
        printf " spellbook_wall_s=%.2f spellbook_cpu_s=%.2f spellbook_rss_kb=%d collect/spellbook=%.2f", sw, sc, sr, w / sw
        printf "\n" }'
  done
}

for fs in ${BENCH_FS:-disk tmpfs}; do
  case $fs in
    disk) bench_on disk "${TMPDIR:-/tmp}" ;;
    tmpfs) bench_on tmpfs /dev/shm ;;
  esac
done
