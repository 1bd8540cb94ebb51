#!/usr/bin/env bash
# Distributed-mode benchmark: one private redis-server on loopback (AOF everysec), one worker
# process with 2 slots, a one-step study of trivial samples; beside it, in the same run, xargs
# doing the same work. Prints RESULT lines and ratios; exits 0 whatever the figures (it is a
# measurement), non-zero only when it cannot measure.
#
# Usage: tests/bench/redis_bench.sh [path/to/merlin]   (default: builds build-bench/merlin)
# Knobs: BENCH_SIZES (default "10000 100000"): end-to-end runs; BENCH_ENQUEUE (default
# "1000000 10000000"): enqueue-only sizes (set either empty to skip it); BENCH_SLOTS (default 2).
#
# Measured:
#  1. end to end, per N: `merlin run spec.yaml --samplesfile N.csv` then
#     `merlin run-workers spec.yaml --concurrency 2 --exit-when-done`, wall time of both
#     together → tasks/s; the worker's peak RSS (/usr/bin/time %M).
#  2. baseline: `xargs -P 2 -n 2 /bin/bash -c 'cd "$1" && echo "$2" > out.txt'` over the
#     same N (directories made before the clock starts) → tasks/s; ratio merlin/xargs.
#  3. enqueue, per size: `merlin run` wall time and the Redis part it reports; the producer's
#     peak RSS; Redis used_memory growth per queued sample.
#  4. Redis memory per sample: peak while the study runs (sampled every 0.5 s, with the number
#     of messages queued), and after it (used_memory growth; the study's own keys: done bitmap,
#     counters, emptied Streams).
set -euo pipefail
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_root=$(cd "$script_dir/../.." && pwd)
source "$repo_root/tests/bench/bench_lib.sh"
bench_merlin "$repo_root" "${1:-}"
command -v redis-server >/dev/null || { echo "error: redis-server missing" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "error: /usr/bin/time missing (apt-get install time)" >&2; exit 2; }
read -r -a sizes <<<"${BENCH_SIZES-10000 100000}"
read -r -a enqueue_sizes <<<"${BENCH_ENQUEUE-1000000 10000000}"
slots=${BENCH_SLOTS:-2}

work=$(mktemp -d "${TMPDIR:-/tmp}/merlin_rbench.XXXXXX")
redis_pid=
cleanup() {
  [[ -n "$redis_pid" ]] && kill "$redis_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
port=$((20000 + RANDOM % 30000))
mkdir redis
(cd redis && exec setsid redis-server --port $port --bind 127.0.0.1 --dir "$work/redis" \
  --appendonly yes --appendfsync everysec --save '') </dev/null >redis/log 2>&1 &
redis_pid=$!
for _ in $(seq 100); do redis-cli -p $port ping 2>/dev/null | grep -q PONG && break; sleep 0.05; done
export MERLIN_BROKER_URL=redis://127.0.0.1:$port/0
used_memory() { redis-cli -p $port info memory | sed -n 's/^used_memory:\([0-9]*\).*/\1/p'; }

cat >spec.yaml <<'Y'
description: {name: bench, description: one-step sampled study}
study:
  - name: step
    run:
      cmd: echo $(X) > out.txt
merlin:
  resources:
    workers:
      bench_worker: {args: --concurrency 2, steps: [all]}
  samples:
    column_labels: [X]
Y
now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"%.6g\", $1 }"; }
results=()
for n in "${sizes[@]}"; do
  seq 1 "$n" >"s$n.csv"
  echo "== merlin run + run-workers --concurrency $slots, N=$n" >&2
  mem0=$(used_memory)
  t0=$(now)
  ws=$("$merlin" run spec.yaml --samplesfile "s$n.csv" 2>/dev/null)
  # Peak Redis memory and queue length while the study runs, sampled every 0.5 s.
  (peak_mem=0; peak_len=0
   while [[ ! -e stop_sampler ]]; do
     m=$(used_memory)
     l=$(redis-cli -p $port --scan --pattern "merlin:$(basename "$ws"):[qw]:*" |
         while read -r k; do redis-cli -p $port xlen "$k"; done | awk '{s+=$1} END {print s+0}')
     ((m > peak_mem)) && peak_mem=$m
     ((l > peak_len)) && peak_len=$l
     echo "$peak_mem $peak_len" >peak.txt
     sleep 0.5
   done) &
  sampler=$!
  /usr/bin/time -f '%M' -o rss.txt "$merlin" --log-level warn run-workers spec.yaml \
    --concurrency "$slots" --exit-when-done 2>worker.err
  t1=$(now)
  touch stop_sampler
  wait $sampler
  rm -f stop_sampler
  read -r peak_mem peak_len <peak.txt
  peak_per=$(calc "($peak_mem - $mem0) / $n")
  got=$(find "$ws/step" -name out.txt | wc -l)
  [[ "$got" == "$n" ]] || { echo "error: $got of $n outputs" >&2; exit 1; }
  mem1=$(used_memory)
  key=$(basename "$ws")
  keys_bytes=0  # what the study's own keys hold (done bitmap, counters, emptied stream)
  for k in $(redis-cli -p $port --scan --pattern "merlin:$key:*"); do
    keys_bytes=$((keys_bytes + $(redis-cli -p $port memory usage "$k")))
  done
  per_key=$(calc "$keys_bytes / $n")
  m_s=$(calc "$t1 - $t0")
  m_tps=$(calc "$n / $m_s")
  rss=$(tail -1 rss.txt)
  per_commit=$(calc "($mem1 - $mem0) / $n")
  echo "== xargs -P $slots, N=$n" >&2
  base=$work/x$n
  awk -v b="$base" '{ printf "%s/%d/%d %s\n", b, int(NR / 1000), NR, $1 }' "s$n.csv" >list.txt
  cut -d' ' -f1 list.txt | xargs mkdir -p
  t0=$(now)
  xargs -P "$slots" -n 2 /bin/bash -c 'cd "$1" && echo "$2" > out.txt' _ <list.txt
  t1=$(now)
  x_s=$(calc "$t1 - $t0")
  x_tps=$(calc "$n / $x_s")
  ratio=$(calc "$m_tps / $x_tps")
  printf 'N=%d merlin %.2f s %.1f tasks/s (worker RSS %d KB) | xargs %.2f s %.1f tasks/s | ratio %.2f | redis after: used_memory +%.2f B, study keys %.3f B per sample; peak while running: +%.2f B per sample, %d messages queued\n' \
    "$n" "$m_s" "$m_tps" "$rss" "$x_s" "$x_tps" "$ratio" "$per_commit" "$per_key" "$peak_per" "$peak_len"
  results+=("$(printf 'RESULT N=%d merlin_tps=%.1f xargs_tps=%.1f ratio=%.2f worker_rss_kb=%d redis_used_memory_per_sample=%.2f redis_key_bytes_per_sample=%.3f redis_peak_bytes_per_sample=%.2f peak_queued=%d' \
    "$n" "$m_tps" "$x_tps" "$ratio" "$rss" "$per_commit" "$per_key" "$peak_per" "$peak_len")")
  rm -rf "$ws" "$base"
done

for n in "${enqueue_sizes[@]}"; do
  seq 1 "$n" >"e$n.csv"
  echo "== merlin run (enqueue only), N=$n" >&2
  mem0=$(used_memory)
  t0=$(now)
  /usr/bin/time -f '%M' -o rss.txt "$merlin" run spec.yaml --samplesfile "e$n.csv" >ws.txt 2>run.err &
  # Peak anonymous memory (RssAnon) beside the RSS: the samples file is memory-mapped, so the
  # RSS counts its pages; what the producer itself allocates is the anonymous part.
  anon=0
  while kill -0 $! 2>/dev/null; do
    for pid in $(pgrep -P $! 2>/dev/null); do
      a=$(awk '/^RssAnon/ {print $2}' /proc/$pid/status 2>/dev/null || true)
      [[ -n "$a" ]] && ((a > anon)) && anon=$a
    done
    sleep 0.01
  done
  wait $!
  t1=$(now)
  mem1=$(used_memory)
  redis_s=$(sed -n 's/.* in \([0-9.]*\) s;.*/\1/p' run.err)
  total_s=$(calc "$t1 - $t0")
  per=$(calc "($mem1 - $mem0) / $n")
  printf 'N=%d enqueue: merlin run %.2f s in all (samples read, copied, checked), Redis part %s s, producer RSS %d KB (anonymous %d KB; the rest is the mapped samples file), redis +%d B = %.5f B per queued sample\n' \
    "$n" "$total_s" "$redis_s" "$(tail -1 rss.txt)" "$anon" "$((mem1 - mem0))" "$per"
  results+=("$(printf 'RESULT enqueue_N=%d run_s=%.2f redis_s=%s producer_rss_kb=%d producer_anon_kb=%d redis_bytes_per_queued_sample=%.5f' \
    "$n" "$total_s" "$redis_s" "$(tail -1 rss.txt)" "$anon" "$per")")
  rm -rf "$(cat ws.txt)"
done
printf '%s\n' "${results[@]}"
