#!/usr/bin/env bash
# `merlin collect` on arrays against a plain h5py script: N samples (default 1000) each leave a
# 128x128 float32 image (img.npy: a smooth pattern plus noise, 64 KiB), made by a local study;
# then merlin collect and an h5py loop (np.load each file, write its row of a chunked
# (N, 128, 128) float32 dataset, python3 from /usr/bin) gather them into one HDF5 file, at each
# compression (none, gzip:4 with shuffle on both sides, lz4 when Debian's hdf5-filter-plugin is
# here). Prints samples/s, MB/s of image data, peak RSS (/usr/bin/time -v) and the ratios, twice.
# Files go to a mktemp directory under BENCH_DIR (default /dev/shm), removed at the end; file
# sizes are bounded by ulimit -f. Exits 0 whatever the figures.
#
# Usage: tests/bench/collect_array_bench.sh [N] [path/to/merlin]
# Knobs: BENCH_DIR, BENCH_THREADS (merlin's -j; default the cores), BENCH_COMPRESSION
# ("none gzip:4 lz4"), BENCH_ROUNDS (2).
set -euo pipefail
repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$repo_root/tests/bench/bench_lib.sh"
n=${1:-1000}
bench_merlin "$repo_root" "${2:-}"
py=/usr/bin/python3
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time (apt-get install time)"; exit 1; }
"$py" -c "import h5py, numpy" 2>/dev/null || { echo "needs python3-h5py and python3-numpy"; exit 1; }
threads=${BENCH_THREADS:-$(nproc)}
ulimit -f $((n * 200 + 100000))  # KB: the outputs, the study, two files of every compression

work=$(mktemp -d "${BENCH_DIR:-/dev/shm}/merlin_abench.XXXXXX")
trap 'rm -rf "$work"' EXIT
plugins=$(dpkg -L hdf5-filter-plugin 2>/dev/null | grep -m1 'libh5lz4.so$' | xargs -r dirname || true)
export HDF5_PLUGIN_PATH=$plugins

"$py" - "$work/imgs" "$n" <<'P'
import os, sys, numpy as np
out, n = sys.argv[1], int(sys.argv[2])
os.makedirs(out)
rng = np.random.default_rng(0)
y, x = np.mgrid[0:128, 0:128].astype(np.float32) / 128
for i in range(n):
    img = np.sin(6 * x + i / 50) * np.cos(4 * y) + 0.01 * rng.standard_normal((128, 128))
    np.save(os.path.join(out, "%d.npy" % i), img.astype(np.float32))
P
seq 0 $((n - 1)) >"$work/samples.csv"
cat >"$work/spec.yaml" <<Y
description: {name: abench, description: collect array benchmark}
env: {variables: {OUTPUT_PATH: $work/studies}}
study:
  - name: simulate
    run:
      cmd: cp $work/imgs/\$(K).npy img.npy
merlin:
  samples: {file: $work/samples.csv, column_labels: [K]}
Y
echo "== making $n samples' 128x128 float32 images with merlin run --local ($(stat -f -c %T "$work"))" >&2
"$merlin" run --local --no-progress -j "$(nproc)" "$work/spec.yaml" >"$work/run.out" 2>&1 ||
  { tail "$work/run.out"; exit 1; }
rm -rf "$work/imgs"
ws=$(ls -d "$work"/studies/abench_*)
find "$ws/simulate" -name img.npy | sort >"$work/files.txt"

cat >"$work/by_hand.py" <<'P'
# The plain script: one row per file, written as it is read.
import sys, h5py, numpy as np
files, out, comp = open(sys.argv[1]).read().split(), sys.argv[2], sys.argv[3]
kw = {}
if comp.startswith("gzip"):
    kw = dict(compression="gzip", compression_opts=int(comp.split(":")[1]), shuffle=True)
elif comp == "lz4":
    kw = dict(compression=32004, compression_opts=(0,))
with h5py.File(out, "w") as f:
    d = f.create_dataset("img", (len(files), 128, 128), np.float32, chunks=(16, 128, 128), **kw)
    for i, p in enumerate(files):
        d[i] = np.load(p)
P

mb=$(awk -v n="$n" 'BEGIN { print n * 128 * 128 * 4 / 1048576 }')
measure() {  # measure CMD...: sets wall and rss (KB) from /usr/bin/time -v
  /usr/bin/time -v -o "$work/time" "$@" >/dev/null 2>"$work/err" || { cat "$work/err"; exit 1; }
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0
    for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s }' "$work/time")
  rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$work/time")
}
for round in $(seq "${BENCH_ROUNDS:-2}"); do
  for c in ${BENCH_COMPRESSION:-none gzip:4 lz4}; do
    if [ "$c" = lz4 ] && [ -z "$plugins" ]; then
      echo "skip lz4: no hdf5-filter-plugin (apt-get install hdf5-filter-plugin)" >&2
      continue
    fi
    rm -f "$work/m.h5" "$work/p.h5"
    measure "$merlin" collect "$ws" --step simulate -f img.npy -o "$work/m.h5" -j "$threads" \
      --compression "$c" --no-progress
    mw=$wall mr=$rss msz=$(du -m "$work/m.h5" | cut -f1)
    measure "$py" "$work/by_hand.py" "$work/files.txt" "$work/p.h5" "$c"
    pw=$wall pr=$rss psz=$(du -m "$work/p.h5" | cut -f1)
    "$py" - "$work/m.h5" "$work/p.h5" <<'P' || { echo "the two files differ"; exit 1; }
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as a, h5py.File(sys.argv[2], "r") as b:
    ids, m, p = a["sample_ids"][()], a["fields/img"], b["img"]
    i = np.argsort(ids)
    assert m.dtype == np.float32 and m.shape == p.shape
    assert np.array_equal(m[()][i][:: max(1, len(ids) // 50)], p[()][:: max(1, len(ids) // 50)])
P
    awk -v r="$round" -v c="$c" -v n="$n" -v mb="$mb" -v t="$threads" -v mw="$mw" -v mr="$mr" \
      -v ms="$msz" -v pw="$pw" -v pr="$pr" -v ps="$psz" 'BEGIN {
      printf "RESULT round=%d compression=%s n=%d threads=%d merlin_samples_per_s=%.0f merlin_MB_per_s=%.1f merlin_peak_rss_mb=%.0f merlin_file_mb=%d h5py_samples_per_s=%.0f h5py_MB_per_s=%.1f h5py_peak_rss_mb=%.0f h5py_file_mb=%d speedup=%.2f\n", r, c, n, t, n / mw, mb / mw, mr / 1024, ms, n / pw, mb / pw, pr / 1024, ps, pw / mw }'
  done
done
