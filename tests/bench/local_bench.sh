#!/usr/bin/env bash
# Local-mode benchmark of merlin: task throughput against an xargs baseline,
# memory growth with sample count, and the time to lay out a very large study.
#
# Usage: tests/bench/local_bench.sh [path/to/merlin]
#   Without an argument the script configures and builds build-bench/merlin
#   (Release, Ninja) in the repository and uses it.  It builds nothing else.
#
# What it measures, in one go on this machine (J = number of cores, `nproc`):
#
#  1. merlin: for N in 10^4 and 10^5, a one-step sampled study whose step is
#       cmd: echo $(X) > out.txt
#     with one column label X and the values 1..N (a csv with no header row).
#     Timed: `merlin run --local spec.yaml --samplesfile samples.csv -j J
#     --no-progress` from start to exit, under `/usr/bin/time -f '%e %M'`, so
#     the wall time includes reading the samples, expanding the study, laying
#     out the workspace (one directory and one step.sh per sample), running
#     every task (merlin spawns `/bin/bash step.sh` in the sample's directory,
#     with stdout/stderr redirected to step.out/step.err) and the journal.
#     Reported: tasks/s = N / wall seconds, and merlin's peak RSS (KB).
#
#  2. The baseline, for the same N, is xargs running the same work:
#       xargs -P J -n 2 /bin/bash -c 'cd "$1" && echo "$2" > out.txt' _ < list
#     where `list` holds "DIR VALUE" pairs, one per sample.  Every one of the N
#     tasks spawns /bin/bash (the same binary merlin spawns, named by absolute
#     path so that no PATH search is charged to the baseline), which cds into its own directory and writes out.txt
#     there with the sample's value.  The N directories (two levels,
#     DIR = base/<i/1000>/<i>) are created BEFORE the clock starts (untimed,
#     with a handful of `mkdir -p` calls), so the baseline does strictly less
#     than merlin (no layout, no scripts, no step.out/step.err, no bookkeeping):
#     it is the spawn-bound upper bound a workflow tool could hope for.
#     Reported: tasks/s = N / wall seconds.
#
#  3. Ratios: merlin tasks/s / xargs tasks/s for each N (bar: >= 0.60), and
#     RSS(10^5) / RSS(10^4) of merlin (bar: <= 1.2, "memory flat").
#
#  4. Layout: `merlin run --local --dry spec.yaml --samplesfile <10^6 rows>`
#     (expands and lays out 10^6 sample directories and scripts, runs nothing).
#     Reported: seconds and tasks laid out per second.  Needs >= 10 GB free
#     (and ~3 million free inodes) under the temp dir; skipped otherwise.
#
#  5. A summary block of `RESULT key=value` lines, and a `BELOW BAR` line for
#     every bar missed.  The exit status is 0 whatever the figures: this is a
#     measurement, not a pass/fail test (it exits non-zero only when it cannot
#     measure, e.g. merlin fails or the output files are missing).
#
# Knobs (environment): BENCH_SIZES (default "10000 100000"; the first two are
# used for the memory ratio), BENCH_LAYOUT_N (default 1000000; 0 skips the
# layout benchmark), BENCH_JOBS (default nproc), TMPDIR (where the temp
# workspace goes, default /tmp).
set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_root=$(cd "$script_dir/../.." && pwd)

# --- the merlin binary -------------------------------------------------------
source "$repo_root/tests/bench/bench_lib.sh"
bench_merlin "$repo_root" "${1:-}"
[[ "$merlin" == /* ]] || merlin=$(cd "$(dirname "$merlin")" && pwd)/$(basename "$merlin")
if [[ ! -x "$merlin" ]]; then
  echo "error: $merlin is not an executable" >&2
  exit 2
fi

# --- /usr/bin/time (for peak RSS) --------------------------------------------
if [[ ! -x /usr/bin/time ]]; then
  echo "== /usr/bin/time missing, installing the 'time' package" >&2
  if command -v apt-get >/dev/null; then
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time; } >/dev/null 2>&1 || true
  fi
  if [[ ! -x /usr/bin/time ]]; then
    echo "error: /usr/bin/time is needed (apt-get install time)" >&2
    exit 2
  fi
fi

read -r -a sizes <<<"${BENCH_SIZES:-10000 100000}"
layout_n=${BENCH_LAYOUT_N:-1000000}
jobs=${BENCH_JOBS:-$(nproc)}

# --- temp workspace and cleanup -----------------------------------------------
work=$(mktemp -d "${TMPDIR:-/tmp}/merlin_bench.XXXXXX")
bg_rm_pids=()
cleanup() {
  local pid
  for pid in "${bg_rm_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# Removes a directory tree in the background (after the measurement that made
# it); the EXIT trap waits for every such removal.
rm_bg() {
  local target
  target="$work/trash.$RANDOM.$RANDOM"
  mv "$1" "$target"
  rm -rf "$target" &
  bg_rm_pids+=("$!")
}
# Waits for the background removals so that they do not steal CPU or disk
# bandwidth from the next timed run.
rm_wait() {
  local pid
  for pid in "${bg_rm_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  bg_rm_pids=()
}

cat >"$work/spec.yaml" <<'EOF'
description:
  name: bench
  description: one-step sampled study whose step is a trivial shell command

study:
  - name: step
    description: write the sample's value into the sample's directory
    run:
      cmd: echo $(X) > out.txt

merlin:
  samples:
    column_labels: [X]
EOF

# fdiv A B [digits] prints A/B.
fdiv() { awk -v a="$1" -v b="$2" -v d="${3:-1}" 'BEGIN { if (b == 0) print "nan"; else printf "%.*f\n", d, a / b }'; }
# fge A B: true when A >= B (floats).
fge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }

count_outputs() { find "$1" -name out.txt -type f | wc -l; }

echo "== merlin: $merlin" >&2
echo "== temp dir: $work, jobs: $jobs, cores: $(nproc), sizes: ${sizes[*]}, layout: $layout_n" >&2
echo "== load average at start: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

declare -A m_sec m_tps m_rss x_sec x_tps ratio

# --- 1 + 2: merlin and xargs for each N ---------------------------------------
for n in "${sizes[@]}"; do
  seq 1 "$n" >"$work/samples_$n.csv"

  # merlin
  rm_wait
  sync
  run="$work/merlin_$n"
  mkdir "$run"
  echo "== merlin run --local -j $jobs, N=$n" >&2
  if ! (cd "$run" && /usr/bin/time -f '%e %M' -o "$run/time.txt" \
        "$merlin" run --local "$work/spec.yaml" --samplesfile "$work/samples_$n.csv" \
        -j "$jobs" --no-progress >"$run/merlin.log" 2>&1); then
    echo "error: merlin run failed for N=$n; log:" >&2
    tail -20 "$run/merlin.log" >&2
    exit 1
  fi
  read -r sec rss <"$run/time.txt"
  got=$(count_outputs "$run")
  if [[ "$got" -ne "$n" ]]; then
    echo "error: merlin N=$n wrote $got out.txt files, expected $n" >&2
    exit 1
  fi
  m_sec[$n]=$sec; m_rss[$n]=$rss; m_tps[$n]=$(fdiv "$n" "$sec")
  echo "   ${sec} s, ${m_tps[$n]} tasks/s, peak RSS ${rss} KB" >&2
  rm_bg "$run"

  # xargs baseline
  rm_wait
  base="$work/xargs_$n"
  mkdir "$base"
  awk -v b="$base" '{ printf "%s/%d/%d %s\n", b, int((NR - 1) / 1000), NR - 1, $1 }' \
    "$work/samples_$n.csv" >"$work/list_$n.txt"
  cut -d' ' -f1 "$work/list_$n.txt" | xargs mkdir -p # untimed: directories pre-created
  sync
  echo "== xargs -P $jobs /bin/bash -c 'cd DIR && echo V > out.txt', N=$n" >&2
  /usr/bin/time -f '%e %M' -o "$base.time" \
    xargs -P "$jobs" -n 2 /bin/bash -c 'cd "$1" && echo "$2" > out.txt' _ <"$work/list_$n.txt"
  read -r sec _ <"$base.time"
  got=$(count_outputs "$base")
  if [[ "$got" -ne "$n" ]]; then
    echo "error: xargs N=$n wrote $got out.txt files, expected $n" >&2
    exit 1
  fi
  x_sec[$n]=$sec; x_tps[$n]=$(fdiv "$n" "$sec")
  ratio[$n]=$(fdiv "${m_tps[$n]}" "${x_tps[$n]}" 3)
  echo "   ${sec} s, ${x_tps[$n]} tasks/s; merlin/xargs = ${ratio[$n]}" >&2
  rm_bg "$base"
done

# --- 4: lay out 10^6 samples (--dry) -----------------------------------------
layout_status=skipped
layout_sec=""; layout_tps=""; layout_rss=""
if [[ "$layout_n" -gt 0 ]]; then
  rm_wait
  free_kb=$(df -Pk "$work" | awk 'NR == 2 { print $4 }')
  free_inodes=$(df -Pi "$work" | awk 'NR == 2 { print $4 }')
  need_inodes=$((3 * layout_n))
  if [[ "$free_kb" -lt $((10 * 1024 * 1024)) ]]; then
    echo "== SKIP layout of $layout_n samples: only $((free_kb / 1024 / 1024)) GB free under $work (need 10 GB)" >&2
    layout_status="skipped(disk<10GB)"
  elif [[ "$free_inodes" =~ ^[0-9]+$ && "$free_inodes" -lt "$need_inodes" ]]; then
    echo "== SKIP layout of $layout_n samples: only $free_inodes free inodes (need $need_inodes)" >&2
    layout_status="skipped(inodes)"
  else
    seq 1 "$layout_n" >"$work/samples_layout.csv"
    sync
    run="$work/layout"
    mkdir "$run"
    echo "== merlin run --local --dry, N=$layout_n" >&2
    if ! (cd "$run" && /usr/bin/time -f '%e %M' -o "$run/time.txt" \
          "$merlin" run --local --dry "$work/spec.yaml" --samplesfile "$work/samples_layout.csv" \
          >"$run/merlin.log" 2>&1); then
      echo "error: merlin --dry failed for N=$layout_n; log:" >&2
      tail -20 "$run/merlin.log" >&2
      exit 1
    fi
    read -r layout_sec layout_rss <"$run/time.txt"
    got=$(find "$run" -name step.sh -type f | wc -l)
    if [[ "$got" -ne "$layout_n" ]]; then
      echo "error: --dry N=$layout_n wrote $got step.sh files, expected $layout_n" >&2
      exit 1
    fi
    layout_tps=$(fdiv "$layout_n" "$layout_sec")
    layout_status=done
    echo "   ${layout_sec} s, ${layout_tps} tasks/s laid out, peak RSS ${layout_rss} KB" >&2
    rm_bg "$run"
  fi
fi

# --- table and summary ----------------------------------------------------------
echo
echo "merlin local benchmark  ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, -j $jobs, load avg now $(cut -d' ' -f1-3 /proc/loadavg))"
printf '%-10s %12s %12s %14s %12s %12s %10s %8s\n' \
  N merlin_s merlin_tps merlin_rss_KB xargs_s xargs_tps ratio bar
for n in "${sizes[@]}"; do
  bar=ok
  fge "${ratio[$n]}" 0.60 || bar=BELOW
  printf '%-10s %12s %12s %14s %12s %12s %10s %8s\n' \
    "$n" "${m_sec[$n]}" "${m_tps[$n]}" "${m_rss[$n]}" "${x_sec[$n]}" "${x_tps[$n]}" "${ratio[$n]}" "$bar"
done
mem_ratio=""
if [[ ${#sizes[@]} -ge 2 ]]; then
  s0=${sizes[0]}; s1=${sizes[1]}
  mem_ratio=$(fdiv "${m_rss[$s1]}" "${m_rss[$s0]}" 3)
  echo "memory: RSS($s1)/RSS($s0) = ${m_rss[$s1]} KB / ${m_rss[$s0]} KB = $mem_ratio  (bar <= 1.2)"
fi
if [[ "$layout_status" == done ]]; then
  echo "layout: --dry of $layout_n samples: $layout_sec s, $layout_tps tasks/s, peak RSS $layout_rss KB"
else
  echo "layout: --dry of $layout_n samples: $layout_status"
fi

# exp_key 100000 -> 1e5 (plain N when not a power of ten)
exp_key() {
  local n=$1 e=0
  while [[ $n -ge 10 && $((n % 10)) -eq 0 ]]; do n=$((n / 10)); e=$((e + 1)); done
  if [[ $n -eq 1 ]]; then echo "1e$e"; else echo "$1"; fi
}

echo
line="RESULT"
for n in "${sizes[@]}"; do
  k=$(exp_key "$n")
  line+=" merlin_local_${k}_tps=${m_tps[$n]} xargs_${k}_tps=${x_tps[$n]} ratio_${k}=${ratio[$n]} merlin_rss_${k}_kb=${m_rss[$n]}"
done
[[ -n "$mem_ratio" ]] && line+=" rss_ratio=$mem_ratio"
if [[ "$layout_status" == done ]]; then
  k=$(exp_key "$layout_n")
  line+=" layout_${k}_s=$layout_sec layout_${k}_tps=$layout_tps"
else
  line+=" layout=$layout_status"
fi
echo "$line"
for n in "${sizes[@]}"; do
  if ! fge "${ratio[$n]}" 0.60; then
    echo "BELOW BAR: N=$n merlin ${m_tps[$n]} tasks/s is ${ratio[$n]} of xargs ${x_tps[$n]} tasks/s (bar >= 0.60)"
  fi
done
if [[ -n "$mem_ratio" ]] && ! fge 1.2 "$mem_ratio"; then
  echo "BELOW BAR: memory RSS(${sizes[1]})/RSS(${sizes[0]}) = $mem_ratio (bar <= 1.2)"
fi

echo "== waiting for background removals" >&2
rm_wait
exit 0
