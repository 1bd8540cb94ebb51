#!/usr/bin/env bash
# Loopback load test (#14): a real redis-server, a study of LOAD_N (default 3000) trivial
# samples and a funnel that counts them, 16 `merlin run-workers` processes × 2 slots. Two of
# them are killed with SIGKILL once a fifth of the samples ran; the other 14 finish the study.
# Asserted: every sample committed exactly once (status counts, done bitmap, per-sample
# outputs, the funnel's count, the task journals in merlin_info/tasks), the funnel ran once,
# every surviving worker exits 0. Printed, not asserted (the machine is shared): Redis round
# trips, script calls and commands per task (INFO stats/commandstats deltas), Redis CPU µs per
# task (INFO cpu delta), tasks/s, and the time from the kills to the end.
source "$(dirname "$0")/lib.sh"
start_redis
N=${LOAD_N:-3000}
PROCS=16
SLOTS=2
LEASE=60     # long: only the missed heartbeats can bring the killed workers' tasks back soon
DEAD_AFTER=3 # the least run-workers accepts
BOUND=45     # seconds from the kills to the study's end: the lease alone would take over 60

seq 0 $((N - 1)) >samples.csv
cat >load.yaml <<'Y'
description: {name: load, description: trivial samples and a funnel that counts them}
study:
  - name: sim
    run:
      cmd: |
        echo $(V) > out.txt
        echo $(V) >> $(MERLIN_WORKSPACE)/runs.log
  - name: count
    run:
      cmd: |
        echo ran >> $(MERLIN_WORKSPACE)/funnel.log
        cat $(sim.workspace)/$(MERLIN_GLOB_PATH)/out.txt | sort -n | uniq | wc -l > n.txt
      depends: [sim_*]
merlin:
  samples:
    file: $(SPECROOT)/samples.csv
    column_labels: [V]
Y
ws=$("$MERLIN" run load.yaml 2>enqueue.err)
key=$(basename "$ws")

# --- Redis counters before the workers start --------------------------------------------------
info() { redis-cli -p "$REDIS_PORT" info "$1"; }
stat_of() { sed -n "s/^$2:\([0-9.]*\).*/\1/p" <<<"$1"; }
# calls per command, "name calls" lines, from INFO commandstats
calls_of() { sed -n 's/^cmdstat_\([^:]*\):calls=\([0-9]*\).*/\1 \2/p' <<<"$1" | sort; }
cpu0=$(info cpu)
stats0=$(info stats)
cmds0=$(info commandstats)

# --- 16 workers × 2 slots ---------------------------------------------------------------------
t0=$(date +%s.%N)
pids=()
for i in $(seq $PROCS); do
  "$MERLIN" run-workers load.yaml --concurrency $SLOTS --lease $LEASE --dead-after $DEAD_AFTER --exit-when-done \
    >"w$i.out" 2>"w$i.err" &
  pids+=($!)
  CLEANUP+=("kill -9 $!")
done
ran() { [ -f "$ws/runs.log" ] && wc -l <"$ws/runs.log" || echo 0; }
check "a fifth of the samples ran before the kills" wait_until 60 bash -c "[ \$( (cat '$ws/runs.log' 2>/dev/null || true) | wc -l) -ge $((N / 5)) ]"
victims=("${pids[0]}" "${pids[1]}")
kill -9 "${victims[@]}"
t_kill=$(date +%s.%N)
ran_at_kill=$(ran)
for v in "${victims[@]}"; do
  set +e; wait "$v"; rc=$?; set -e
  expect_eq "victim $v died of SIGKILL" 137 "$rc"
done
# The survivors exit by themselves once the study is done (bounded: the test's own timeout).
bad=0
for i in $(seq 3 $PROCS); do
  set +e; wait "${pids[$((i - 1))]}"; rc=$?; set -e
  [ "$rc" = 0 ] || { bad=$((bad + 1)); echo "worker $i exited $rc:"; tail -5 "w$i.err"; }
done
t1=$(date +%s.%N)
expect_eq "the 14 surviving workers finish the study and exit 0" 0 "$bad"
cpu1=$(info cpu)
stats1=$(info stats)
cmds1=$(info commandstats)

# --- every sample committed exactly once --------------------------------------------------------
expect_eq "status: every sample done, none failed; the funnel done once" \
  "sim,1,$N,$N,0 count,1,1,1,0" \
  "$("$MERLIN" status "$ws" --format csv | tail -n +2 | cut -d, -f1-5 | paste -sd' ')"
expect_eq "the done bitmap holds each sample once" "$N" \
  "$(redis-cli -p "$REDIS_PORT" bitcount "merlin:$key:done:0")"
expect_eq "nothing remaining in either step" "0 0" \
  "$(redis-cli -p "$REDIS_PORT" hget "merlin:$key:remaining" 0) $(redis-cli -p "$REDIS_PORT" hget "merlin:$key:remaining" 1)"
expect_eq "every sample's output holds its own value" "$N" \
  "$(find "$ws/sim" -name out.txt -printf '%h\n' | while read -r d; do cat "$d/out.txt"; done |
     sort -n | uniq | awk -v n="$N" '$1 == NR - 1 && $1 < n' | wc -l)"
expect_eq "every sample directory has MERLIN_FINISHED" "$N" "$(find "$ws/sim" -name MERLIN_FINISHED | wc -l)"
expect_eq "every sample ran (some twice: taken over from the killed workers)" "$N" \
  "$(sort -u "$ws/runs.log" | wc -l)"
expect_eq "the funnel counted every sample" "$N" "$(cat "$ws/count/n.txt" 2>/dev/null)"
expect_eq "the funnel ran once" "ran" "$(cat "$ws/funnel.log" 2>/dev/null)"

# Task journals: one per worker process; a record is 24 bytes after a 16-byte header
# (instance u32, time u32, sample u64, outcome/started/count bytes, seconds f32).
journals=("$ws"/merlin_info/tasks/*.journal)
# A process that started after the work ran out has none; each killed one has its own.
check "at most one task journal per worker process (${#journals[@]})" test "${#journals[@]}" -le "$PROCS"
for v in "${victims[@]}"; do
  check "killed worker $v has its own task journal" test -n "$(ls "$ws"/merlin_info/tasks/*."$v".journal 2>/dev/null)"
done
# "pid instance sample started" per record
records() {
  local j pid
  for j in "${journals[@]}"; do
    pid=${j%.journal}; pid=${pid##*.}
    od -An -v -j16 -w24 -tu4 "$j" |
      awk -v pid="$pid" 'NF == 6 { print pid, $1, $3 + $4 * 4294967296, int($5 / 256) % 256 }'
  done
}
records >records.txt
finished=$(awk '$4 == 0 && $2 == 0' records.txt | wc -l)
unique=$(awk '$4 == 0 && $2 == 0 { print $3 }' records.txt | sort -u | wc -l)
expect_eq "the journals hold no sample finished twice" "$unique" "$finished"
# A killed worker may die between its commit and its journal record (microseconds); such a
# sample must then have been started by a killed worker.
victim_re="^(${victims[0]}|${victims[1]}) "
missing=$(awk '$4 == 0 && $2 == 0 { print $3 }' records.txt | sort -n | comm -13 - <(seq 0 $((N - 1)) | sort -n) || true)
unexplained=0
for s in $missing; do
  grep -Eq "${victim_re}0 $s 1\$" records.txt || unexplained=$((unexplained + 1))
done
expect_eq "every sample's commit is in a journal (missing: $(wc -w <<<"$missing"), each started by a killed worker)" 0 "$unexplained"
expect_eq "the funnel's commit is journaled once" 1 "$(awk '$4 == 0 && $2 == 1' records.txt | wc -l)"
check "the killed workers had started tasks" grep -Eq "$victim_re" records.txt

# --- figures (printed, not asserted) ------------------------------------------------------------
tasks=$((N + 1))
calc() { awk "BEGIN { printf \"%.${2:-1}f\", $1 }"; }
d_stat() { echo $(($(stat_of "$stats1" "$1") - $(stat_of "$stats0" "$1"))); }
cpu_s=$(calc "$(stat_of "$cpu1" used_cpu_user) + $(stat_of "$cpu1" used_cpu_sys) - $(stat_of "$cpu0" used_cpu_user) - $(stat_of "$cpu0" used_cpu_sys)" 3)
reads=$(d_stat total_reads_processed)
conns=$(d_stat total_connections_received)
all_cmds=$(d_stat total_commands_processed)
join -a2 -e0 -o '0,1.2,2.2' <(calls_of "$cmds0") <(calls_of "$cmds1") |
  awk '{ d = $3 - $2; if (d > 0) print $1, d }' | sort -k2,2nr >cmd_deltas.txt
scripts=$(awk '$1 == "evalsha" || $1 == "eval" { s += $2 } END { print s + 0 }' cmd_deltas.txt)
wall=$(calc "$t1 - $t0" 2)
recover=$(calc "$t1 - $t_kill" 2)
check "the study ended within $BOUND s of the kills ($recover s; lease $LEASE s, dead after $DEAD_AFTER s)" \
  awk "BEGIN { exit !($recover < $BOUND) }"
echo "info: $tasks tasks ($N samples + funnel) by $PROCS processes x $SLOTS slots in $wall s: $(calc "$tasks / $wall") tasks/s"
echo "info: killed 2 workers after $ran_at_kill samples ran; the study ended $recover s after the kills (lease $LEASE s, dead after $DEAD_AFTER s); $(($(wc -l <"$ws/runs.log") - N)) samples ran twice"
echo "info: Redis per task: $(calc "($reads - $conns) / $tasks" 2) round trips (client reads, less connection closes)," \
  "$(calc "$scripts / $tasks" 2) script calls (EVALSHA/EVAL), $(calc "$all_cmds / $tasks" 2) commands in all" \
  "(inside scripts and out), $(calc "$cpu_s * 1000000 / $tasks" 0) us of Redis CPU ($cpu_s s in all)"
echo "info: commands per task by name: $(awk -v t=$tasks '{ printf "%s %.2f, ", $1, $2 / t }' cmd_deltas.txt | sed 's/, $//')"
echo "RESULT load_tasks=$tasks load_tps=$(calc "$tasks / $wall") redis_round_trips_per_task=$(calc "($reads - $conns) / $tasks" 2) redis_script_calls_per_task=$(calc "$scripts / $tasks" 2) redis_commands_per_task=$(calc "$all_cmds / $tasks" 2) redis_cpu_us_per_task=$(calc "$cpu_s * 1000000 / $tasks" 0) recovery_s=$recover"
finish
