#!/usr/bin/env bash
# Scale benchmark (#14): the same trivial per-sample work done by xargs, by `merlin run
# --local`, and by Redis workers (1 and 16 processes), on disk and on tmpfs; the recovery after
# kill -9 of every worker; the lean layout when it exists; and one large distributed run with
# its memory and `merlin status` time sampled while it runs. Prints a table, ratios and RESULT
# key=value lines; exits 0 whatever the figures (a measurement), non-zero only when it cannot
# measure.
#
# Usage: tests/bench/scale_bench.sh [path/to/merlin]   (default: builds build-bench/merlin)
# Knobs (environment):
#   BENCH_N       samples per throughput run (default 20000)
#   BENCH_FS      file systems, any of "disk tmpfs" (default both): disk is $BENCH_DISK
#                 (default /work/tmp, else $TMPDIR or /tmp), tmpfs is /dev/shm
#   BENCH_PROCS   worker processes of the many-workers runs (default 16); BENCH_SLOTS slots
#                 each (default 2; also xargs -P and run --local -j)
#   BENCH_KILL_N  samples of the recovery run (default 4000; 0 skips it); BENCH_LEASE its
#                 --lease (default 10); BENCH_DEAD_AFTER, when set, its --dead-after (a merlin
#                 with heartbeat-based recovery)
#   BENCH_BIG_N   samples of the large distributed run (default 1000000; 0 skips it)
#   BENCH_BIG_LAYOUT  its layout: lean (the default when this merlin has it) or default
#   BENCH_IDLE_S  seconds of the heartbeat measurement (default 10; 0 skips it)
#
# Measured, per file system:
#  1. baseline: `xargs -P SLOTS /bin/bash -c 'cd DIR && echo X > out.txt'` (directories made
#     before the clock starts);
#  2. `merlin run --local -j SLOTS`;
#  3. Redis, 1 worker process × SLOTS slots: `merlin run` (enqueue) then `run-workers
#     --exit-when-done`;
#  4. Redis, PROCS worker processes × SLOTS slots, the same;
#  5. (if `merlin validate` accepts `merlin: {layout: lean}`) 2 and 4 with the lean layout.
#  For each: wall tasks/s; CPU s per task = user+sys of every process of the run (merlin, and
#  the bash steps it spawns, as for xargs), all under one /usr/bin/time; inodes per sample
#  (entries created under the run's directory ÷ N). For Redis runs: round trips (client reads
#  less connection closes), script calls (EVALSHA/EVAL), all commands (inside scripts and
#  out) and Redis CPU (INFO cpu), each per task.
# Then, on the first file system:
#  5b. heartbeats: PROCS idle worker processes (no study queued) for IDLE_S s: Redis
#     connections, commands and CPU per process and second;
#  6. recovery: PROCS workers on a KILL_N-sample study whose steps take 50 ms, all killed with
#     SIGKILL once a third ran, PROCS new ones started at once; takeover_s = time from the kill
#     until no dead worker holds a message (XPENDING), kill_to_done_s = until the study ends;
#  7. large run: BIG_N samples, PROCS workers; peak RSS of the largest worker sampled each
#     second (early vs late: flat memory), `merlin status` wall time sampled while it runs
#     (target < 0.5 s). Skipped with a message when free space or inodes are short.
set -euo pipefail
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_root=$(cd "$script_dir/../.." && pwd)
source "$repo_root/tests/bench/bench_lib.sh"
bench_merlin "$repo_root" "${1:-}"
for tool in redis-server redis-cli; do
  command -v $tool >/dev/null || { echo "error: $tool missing (apt-get install redis-server)" >&2; exit 2; }
done
[[ -x /usr/bin/time ]] || { echo "error: /usr/bin/time missing (apt-get install time)" >&2; exit 2; }
N=${BENCH_N:-20000}
read -r -a fss <<<"${BENCH_FS-disk tmpfs}"
PROCS=${BENCH_PROCS:-16}
SLOTS=${BENCH_SLOTS:-2}
KILL_N=${BENCH_KILL_N:-4000}
LEASE=${BENCH_LEASE:-10}
dead_after=()
[[ -n "${BENCH_DEAD_AFTER:-}" ]] && dead_after=(--dead-after "$BENCH_DEAD_AFTER")
BIG_N=${BENCH_BIG_N:-1000000}
IDLE_S=${BENCH_IDLE_S:-10}
disk_root=${BENCH_DISK:-}
if [[ -z "$disk_root" ]]; then
  disk_root=${TMPDIR:-/tmp}
  [[ -d /work ]] && mkdir -p /work/tmp 2>/dev/null && disk_root=/work/tmp
fi

work=$(mktemp -d "$disk_root/merlin_scale.XXXXXX")
shm=
redis_pid=
pids=()  # worker processes started by this script, killed (by id) if it stops early
cleanup() {  # every step may fail (processes already gone): none stops the removal
  if ((${#pids[@]})); then kill -9 "${pids[@]}" 2>/dev/null || true; fi
  if [[ -n "$redis_pid" ]]; then kill "$redis_pid" 2>/dev/null || true; fi
  rm -rf "$work" ${shm:+"$shm"}
}
trap cleanup EXIT
cd "$work"

# --- Redis, AOF everysec as production should run it, its files on disk ------------------------
port=$((20000 + RANDOM % 30000))
mkdir redis
(cd redis && exec setsid redis-server --port $port --bind 127.0.0.1 --dir "$work/redis" \
  --appendonly yes --appendfsync everysec --save '') </dev/null >redis/log 2>&1 &
redis_pid=$!
for _ in $(seq 100); do redis-cli -p $port ping 2>/dev/null | grep -q PONG && break; sleep 0.05; done
export MERLIN_BROKER_URL=redis://127.0.0.1:$port/0
rc() { redis-cli -p $port "$@"; }
stat_of() { sed -n "s/^$2:\([0-9.]*\).*/\1/p" <<<"$1"; }
snap() { rc info all; }  # stats, cpu and commandstats in one reply
calc() { awk "BEGIN { printf \"%.${2:-1}f\", $1 }"; }
now() { date +%s.%N; }
# redis_delta BEFORE AFTER TASKS: "round_trips script_calls commands cpu_us", each per task
redis_delta() {
  local a=$1 b=$2 t=$3 d
  d() { echo $(($(stat_of "$b" "$1") - $(stat_of "$a" "$1"))); }
  local reads conns cmds cpu scripts
  reads=$(d total_reads_processed)
  conns=$(d total_connections_received)
  cmds=$(d total_commands_processed)
  cpu=$(calc "$(stat_of "$b" used_cpu_user) + $(stat_of "$b" used_cpu_sys) - $(stat_of "$a" used_cpu_user) - $(stat_of "$a" used_cpu_sys)" 6)
  scripts=0
  for s in evalsha eval; do
    local x y
    x=$(sed -n "s/^cmdstat_$s:calls=\([0-9]*\).*/\1/p" <<<"$a"); y=$(sed -n "s/^cmdstat_$s:calls=\([0-9]*\).*/\1/p" <<<"$b")
    scripts=$((scripts + ${y:-0} - ${x:-0}))
  done
  echo "$(calc "($reads - $conns) / $t" 2) $(calc "$scripts / $t" 2) $(calc "$cmds / $t" 2) $(calc "$cpu * 1000000 / $t" 0)"
}

layout=default
lean=no
cat >spec_lean_probe.yaml <<'Y'
description: {name: probe, description: does this merlin know the lean layout}
study:
  - name: step
    run: {cmd: echo $(X) > out.txt}
merlin:
  layout: lean
  samples: {column_labels: [X], file: probe.csv}
Y
echo 1 >probe.csv
if "$merlin" validate spec_lean_probe.yaml >/dev/null 2>&1; then lean=yes; else
  echo "== lean layout: skipped (this merlin's validate refuses 'merlin: {layout: lean}')" >&2
fi
# spec NAME LAYOUT CMD DIR: a one-step sampled study (samples from --samplesfile), its
# workspace under DIR
spec() {
  {
    printf 'description: {name: %s, description: one trivial step per sample}\n' "$1"
    printf 'env: {variables: {OUTPUT_PATH: %s}}\nstudy:\n' "$4"
    printf '  - name: step\n    run:\n      cmd: %s\nmerlin:\n' "$3"
    [[ "$2" == lean ]] && printf '  layout: lean\n'
    printf '  samples:\n    column_labels: [X]\n'
  } >"$1.yaml"
}

rows=()      # table rows
results=()   # RESULT lines
# record FS MODE WALL CPU INODES [REDIS]: a table row and a RESULT line
record() {
  local fs=$1 mode=$2 wall=$3 cpu=$4 inodes=$5 redis=${6:-"- - - -"} tps cpt
  tps=$(calc "$N / $wall")
  cpt=$(calc "$cpu / $N" 5)
  read -r rt sc cm cu <<<"$redis"
  rows+=("$(printf '| %s | %s | %.2f | %s | %s | %.3f | %s | %s | %s | %s |' "$fs" "$mode" "$wall" "$tps" \
    "$(calc "$cpt * 1000" 2)" "$inodes" "$rt" "$sc" "$cm" "$cu")")
  results+=("RESULT fs=$fs mode=$mode n=$N tps=$tps cpu_ms_per_task=$(calc "$cpt * 1000" 2) inodes_per_sample=$inodes${6:+ redis_round_trips_per_task=$rt redis_script_calls_per_task=$sc redis_commands_per_task=$cm redis_cpu_us_per_task=$cu}")
  eval "tps_${fs}_${mode//-/_}=$tps"
}
# timed OUT CMD...: /usr/bin/time of CMD (and every process it waits for) → "wall cpu" in OUT
timed() {
  local out=$1; shift
  /usr/bin/time -f '%e %U %S' -o "$out.time" "$@"
  awk '{ printf "%s %.3f\n", $1, $2 + $3 }' "$out.time" >"$out"
}
inodes_under() { calc "($(find "$1" -mindepth 1 | wc -l)) / $N" 3; }
# redis_run FS MODE PROCS LAYOUT: enqueue + PROCS workers, all under one parent
redis_run() {
  local fs=$1 mode=$2 procs=$3 lay=$4 dir=$5 before after ws
  spec "r_$mode" "$lay" 'echo $(X) > out.txt' "$dir"
  before=$(snap)
  timed run.t bash -c '
    set -e
    ws=$("$0" run "$1" --samplesfile s.csv 2>/dev/null); echo "$ws" >ws.txt
    for i in $(seq "$2"); do "$0" --log-level warn run-workers "$1" --concurrency "$4" --exit-when-done 2>>workers.err & done
    wait' "$merlin" "r_$mode.yaml" "$procs" "$dir" "$SLOTS"
  after=$(snap)
  ws=$(cat ws.txt)
  # Every sample's own output (the lean layout writes no MERLIN_FINISHED)
  local got; got=$(find "$ws/step" -name out.txt | wc -l)
  [[ "$got" == "$N" ]] || { echo "error: $mode on $fs: $got of $N samples finished" >&2; exit 1; }
  read -r wall cpu <run.t
  record "$fs" "$mode" "$wall" "$cpu" "$(inodes_under "$ws")" "$(redis_delta "$before" "$after" $((N)))"
  rm -rf "$ws"
}

seq 1 "$N" >s.csv
for fs in "${fss[@]}"; do
  case $fs in
    disk) dir=$work/d ;;
    tmpfs) shm=$(mktemp -d /dev/shm/merlin_scale.XXXXXX); dir=$shm ;;
    *) echo "error: BENCH_FS: disk or tmpfs, not $fs" >&2; exit 2 ;;
  esac
  mkdir -p "$dir"
  echo "== $fs ($(df -PT "$dir" | awk 'NR == 2 { print $2 }') at $dir), N=$N" >&2

  echo "== xargs -P $SLOTS" >&2
  base=$dir/x
  awk -v b="$base" '{ printf "%s/%d/%d %s\n", b, int(NR / 1000), NR, $1 }' s.csv >list.txt
  cut -d' ' -f1 list.txt | xargs mkdir -p
  timed run.t xargs -P "$SLOTS" -n 2 /bin/bash -c 'cd "$1" && echo "$2" > out.txt' _ <list.txt
  read -r wall cpu <run.t
  record "$fs" xargs "$wall" "$cpu" "$(inodes_under "$base")"
  rm -rf "$base"

  for lay in default $([[ $lean == yes ]] && echo lean); do
    sfx=$([[ $lay == lean ]] && echo -lean || true)
    echo "== run --local -j $SLOTS ($lay layout)" >&2
    spec "l$sfx" "$lay" 'echo $(X) > out.txt' "$dir"
    timed run.t "$merlin" run --local "l$sfx.yaml" --samplesfile s.csv -j "$SLOTS" --no-progress \
      >/dev/null 2>&1
    read -r wall cpu <run.t
    ws=$(ls -d "$dir"/l*_[0-9]*)
    record "$fs" "local$sfx" "$wall" "$cpu" "$(inodes_under "$ws")"
    rm -rf "$ws"
    echo "== redis, 1 worker process x $SLOTS slots ($lay layout)" >&2
    redis_run "$fs" "redis-1$sfx" 1 "$lay" "$dir"
    echo "== redis, $PROCS worker processes x $SLOTS slots ($lay layout)" >&2
    redis_run "$fs" "redis-$PROCS$sfx" "$PROCS" "$lay" "$dir"
  done
done
first_dir=$([[ ${fss[0]:-disk} == tmpfs ]] && echo "$shm" || echo "$work/d")
mkdir -p "$first_dir"

# --- heartbeat load: idle worker processes ------------------------------------------------------
if ((IDLE_S > 0)); then
  echo "== heartbeats: $PROCS idle worker processes for $IDLE_S s" >&2
  spec idle default 'true' "$first_dir"  # never queued: the workers wait for a study
  pids=()
  for i in $(seq "$PROCS"); do
    "$merlin" --log-level warn run-workers idle.yaml --concurrency "$SLOTS" 2>>idle.err &
    pids+=($!)
  done
  sleep 2  # let them start: the window below is meant to hold only their steady state
  before=$(snap)
  sleep "$IDLE_S"
  after=$(snap)
  kill -TERM "${pids[@]}"
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  pids=()
  per() { calc "($(stat_of "$after" "$1") - $(stat_of "$before" "$1")) / ($PROCS * $IDLE_S)" 2; }
  hb_cpu=$(calc "($(stat_of "$after" used_cpu_user) + $(stat_of "$after" used_cpu_sys) - $(stat_of "$before" used_cpu_user) - $(stat_of "$before" used_cpu_sys)) * 1000000 / ($PROCS * $IDLE_S)" 0)
  echo "heartbeats: per idle worker process and second: $(per total_connections_received) connections, $(per total_commands_processed) commands, $hb_cpu us of Redis CPU" >&2
  results+=("RESULT heartbeat procs=$PROCS connections_per_proc_s=$(per total_connections_received) commands_per_proc_s=$(per total_commands_processed) redis_cpu_us_per_proc_s=$hb_cpu")
fi

# --- recovery after kill -9 of every worker -----------------------------------------------------
if ((KILL_N > 0)); then
  echo "== recovery: $PROCS workers x $SLOTS slots, --lease $LEASE, all killed with SIGKILL" >&2
  seq 1 "$KILL_N" >k.csv
  spec kill default 'echo $(X) > out.txt; sleep 0.05' "$first_dir"
  ws=$("$merlin" run kill.yaml --samplesfile k.csv 2>/dev/null)
  key=$(basename "$ws")
  done_n() { rc bitcount "merlin:$key:done:0"; }
  pids=()
  for i in $(seq "$PROCS"); do
    "$merlin" --log-level warn run-workers kill.yaml --concurrency "$SLOTS" --lease "$LEASE" \
      "${dead_after[@]}" 2>>kill.err &
    pids+=($!)
  done
  until (($(done_n) >= KILL_N / 3)); do sleep 0.1; done
  kill -9 "${pids[@]}"
  t_kill=$(now)
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  # Every message pending now is held by a dead worker.
  streams=$(rc --scan --pattern "merlin:$key:[qw]:*")
  for s in $streams; do rc xpending "$s" workers | sed -n '4~2p'; done | grep -v '^$' | sort -u >dead.txt || true
  in_flight=0
  for s in $streams; do in_flight=$((in_flight + $(rc xpending "$s" workers | head -1))); done
  pids=()
  for i in $(seq "$PROCS"); do
    "$merlin" --log-level warn run-workers kill.yaml --concurrency "$SLOTS" --lease "$LEASE" \
      "${dead_after[@]}" --exit-when-done 2>>kill.err &
    pids+=($!)
  done
  takeover=
  while true; do
    if [[ -z "$takeover" ]]; then
      pend=0
      for s in $streams; do
        rc xpending "$s" workers - + 100000 | paste - - - - | awk '{print $2}' >cons.txt
        pend=$((pend + $(grep -cxF -f dead.txt cons.txt || true)))
      done
      ((pend == 0)) && takeover=$(calc "$(now) - $t_kill" 2)
    fi
    alive=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    ((alive)) || break
    sleep 0.1
  done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  kill_done=$(calc "$(now) - $t_kill" 2)
  got=$(done_n)
  [[ "$got" == "$KILL_N" ]] || { echo "error: recovery run: $got of $KILL_N samples done" >&2; exit 1; }
  echo "recovery: $in_flight messages held by the $PROCS killed workers; all taken over ${takeover:-?} s after the kill (lease $LEASE s); study done $kill_done s after it" >&2
  results+=("RESULT recovery procs=$PROCS lease_s=$LEASE dead_after_s=${BENCH_DEAD_AFTER:-default} in_flight=$in_flight takeover_s=${takeover:-nan} kill_to_done_s=$kill_done")
  rm -rf "$ws"
fi

# --- a large distributed run: memory and status over time -----------------------------------------
if ((BIG_N > 0)); then
  need_inodes=$((BIG_N * 8))
  need_kb=$((BIG_N * 28))  # ~6 files/dirs of a 4 KB block each, plus the journals
  free_inodes=$(df -P -i "$first_dir" | awk 'NR == 2 { print $4 }')
  free_kb=$(df -P -k "$first_dir" | awk 'NR == 2 { print $4 }')
  if ((free_inodes < need_inodes || free_kb < need_kb)); then
    echo "== large run: skipped: $BIG_N samples need ~$need_inodes inodes and ~$((need_kb / 1048576)) GB free under $first_dir; there are $free_inodes inodes and $((free_kb / 1048576)) GB" >&2
    results+=("RESULT big_n=$BIG_N skipped=short_of_space")
  else
    echo "== large run: $BIG_N samples, $PROCS workers x $SLOTS slots, layout ${BENCH_BIG_LAYOUT:-$([[ $lean == yes ]] && echo lean || echo default)}" >&2
    seq 1 "$BIG_N" >big.csv
    big_layout=${BENCH_BIG_LAYOUT:-$([[ $lean == yes ]] && echo lean || echo default)}
    spec big "$big_layout" 'echo $(X) > out.txt' "$first_dir"
    before=$(snap)
    t0=$(now)
    ws=$("$merlin" run big.yaml --samplesfile big.csv 2>/dev/null)
    key=$(basename "$ws")
    pids=()
    for i in $(seq "$PROCS"); do
      "$merlin" --log-level warn run-workers big.yaml --concurrency "$SLOTS" --exit-when-done 2>>big.err &
      pids+=($!)
    done
    : >rss.log; : >status.log
    mem0=$(rc info memory | sed -n 's/^used_memory:\([0-9]*\).*/\1/p')
    next_status=0
    while true; do
      alive=0; max_rss=0
      for p in "${pids[@]}"; do
        r=$(awk '/^VmRSS/ { print $2 }' /proc/$p/status 2>/dev/null || true)
        [[ -n "$r" ]] && { alive=1; ((r > max_rss)) && max_rss=$r; }
      done
      ((alive)) || break
      d=$(rc bitcount "merlin:$key:done:0")
      echo "$d $max_rss $(rc info memory | sed -n 's/^used_memory:\([0-9]*\).*/\1/p')" >>rss.log
      if ((SECONDS >= next_status)); then  # merlin status every 5 s: wall and CPU seconds
        /usr/bin/time -f '%e %U %S' -o st.time "$merlin" status "$ws" >/dev/null 2>&1 || true
        echo "$d $(awk '{ printf "%s %.3f", $1, $2 + $3 }' st.time)" >>status.log
        next_status=$((SECONDS + 5))
      fi
      sleep 1
    done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
    t1=$(now)
    after=$(snap)
    got=$(rc bitcount "merlin:$key:done:0")
    [[ "$got" == "$BIG_N" ]] || { echo "error: large run: $got of $BIG_N samples done" >&2; exit 1; }
    wall=$(calc "$t1 - $t0" 2)
    # RSS early (first fifth of the samples) against late (last fifth): flat memory keeps it ~1.
    early=$(awk -v n="$BIG_N" '$1 <= n / 5 && $2 > m { m = $2 } END { print m + 0 }' rss.log)
    late=$(awk -v n="$BIG_N" '$1 >= n * 4 / 5 && $2 > m { m = $2 } END { print m + 0 }' rss.log)
    peak=$(awk '$2 > m { m = $2 } END { print m + 0 }' rss.log)
    redis_peak=$(awk -v m0="$mem0" -v n="$BIG_N" '$3 > m { m = $3 } END { printf "%.2f", (m - m0) / n }' rss.log)
    st_max=$(awk '$2 > m { m = $2 } END { print m + 0 }' status.log)
    st_med=$(sort -k2,2n status.log | awk '{ v[NR] = $2 } END { print v[int((NR + 1) / 2)] + 0 }')
    st_cpu=$(awk '$3 > m { m = $3 } END { print m + 0 }' status.log)  # wall above it is waiting
    read -r rt sc cm cu <<<"$(redis_delta "$before" "$after" "$BIG_N")"
    echo "large run: $BIG_N samples in $wall s ($(calc "$BIG_N / $wall") tasks/s); largest worker RSS: early $early KB, late $late KB, peak $peak KB; merlin status: median $st_med s, max $st_max s (wall; at most $st_cpu s of CPU) over $(wc -l <status.log) calls; Redis used_memory peak growth $redis_peak B per sample; Redis per task: $rt round trips, $sc script calls, $cm commands, $cu us CPU" >&2
    results+=("RESULT big_n=$BIG_N layout=$big_layout tps=$(calc "$BIG_N / $wall") worker_rss_early_kb=$early worker_rss_late_kb=$late worker_rss_peak_kb=$peak rss_late_over_early=$(calc "$late / ($early > 0 ? $early : 1)" 3) status_median_s=$st_med status_max_s=$st_max status_max_cpu_s=$st_cpu redis_peak_bytes_per_sample=$redis_peak redis_round_trips_per_task=$rt redis_script_calls_per_task=$sc redis_commands_per_task=$cm redis_cpu_us_per_task=$cu")
    echo "== removing the large workspace" >&2
    rm -rf "$ws"
  fi
fi

# --- summary ----------------------------------------------------------------------------------
echo
echo "N=$N per run; slots $SLOTS; merlin $merlin; disk = $(df -PT "$work" | awk 'NR == 2 { print $2 }') under $work"
echo "| fs | mode | wall s | tasks/s | CPU ms/task | inodes/sample | Redis round trips/task | script calls/task | commands/task | Redis CPU us/task |"
echo "|---|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
for fs in "${fss[@]}"; do
  x=$(eval echo "\${tps_${fs}_xargs:-}")
  [[ -n "$x" ]] || continue
  for m in local redis_1 "redis_$PROCS"; do
    v=$(eval echo "\${tps_${fs}_${m}:-}")
    [[ -n "$v" ]] && echo "ratio $fs ${m//_/-}/xargs = $(calc "$v / $x" 2)"
  done
done
printf '%s\n' "${results[@]}"
