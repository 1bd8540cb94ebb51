#!/usr/bin/env bash
# Data-dependent fan-out and loops (docs/fanout.md): a step's samples are the rows of a file an
# upstream step writes. Local run: counts per instance, directories, the funnel once. kill -9
# mid-fan-out then `merlin restart`: every row done, only in-flight ones twice, from the copied
# rows even if the producer's file changed. Bad files fail their instance alone (exit 1).
# Successive halving as one study (propose → trial → select loops back, 16/8/4 rows, stops
# after 3 of at most 4 iterations; report once), locally, killed mid-loop and restarted, and
# with two Redis run-workers.
source "$(dirname "$0")/lib.sh"
cp "$SRC/tests/integration/specs/fanout.yaml" "$SRC/tests/integration/specs/fanout_bad.yaml" \
  "$SRC/tests/integration/specs/fanout_loop.yaml" "$SRC/tests/integration/specs/fanout_loop_params.yaml" .
# check_loop DIR WORKSPACE WHAT: the halving study's outcome.
check_loop() {
  expect_eq "$3: iterations 1-3 ran 16, 8 and 4 rows, each once" \
    "$( (seq 1 16 | sed 's/^/1 /'; seq 1 8 | sed 's/^/2 /'; seq 1 4 | sed 's/^/3 /') | sort)" \
    "$(sort -u "$1/trials.log")"
  expect_eq "$3: select decided three times" "1 16
2 8
3 4" "$(cat "$1/selects.log")"
  expect_eq "$3: report ran once, after the loop" 1 "$(grep -c report "$1/report.log")"
  expect_eq "$3: status counts each iteration's rows, the 4th skipped" \
    "propose,4,3,3,0
trial,4,28,28,0
select,4,3,3,0
report,1,1,1,0" "$("$MERLIN" status "$2" --format csv | tail -n +2 | cut -d, -f1-5)"
}

# --- local ------------------------------------------------------------------------------------
mkdir local && cd local
"$MERLIN" run --local --no-progress -j 2 ../fanout.yaml >out.txt 2>err.txt
check "local: exits 0" test $? = 0
ws=$(ls -d fanout_2*)
expect_eq "local: 5 + 30 trials" 35 "$(wc -l <trials.log)"
expect_eq "local: each row of K=5 once" "$(seq 1 5)" "$(awk '$1 == 5 {print $2}' trials.log | sort -n)"
expect_eq "local: each row of K=30 once" "$(seq 1 30)" "$(awk '$1 == 30 {print $2}' trials.log | sort -n)"
expect_eq "local: a row's values and sample id" "30 7 0.7 6" "$(awk '$1 == 30 && $2 == 7' trials.log)"
expect_eq "local: the funnel ran once" report "$(cat report.log)"
expect_eq "local: status counts the rows" "trial,2,35,35,0,0,0" \
  "$("$MERLIN" status "$ws" --format csv | grep '^trial,' | cut -d, -f1-7)"
expect_eq "local: K=5 has one level of directories" "00 01 02 03 04" "$(ls "$ws/trial/K.5" | xargs)"
expect_eq "local: K=30 has two levels (25 per level)" "00 01" "$(ls "$ws/trial/K.30" | xargs)"
check "local: row 30 lives at 01/04" test -f "$ws/trial/K.30/01/04/MERLIN_FINISHED"
check "local: the rows are copied into merlin_info" cmp "$ws/propose/K.30/next.csv" "$ws/merlin_info/fanout/trial_K.30.csv"
set +e
"$MERLIN" collect "$ws" --step trial -f out.json -o c.h5 >/dev/null 2>c.err
rc=$?
set -e
expect_eq "local: collect refuses a fan-out step of two combinations, saying why" "2 1" \
  "$rc $(grep -c 'it runs for 2 parameter combinations; merlin collect takes a step of one' c.err)"
cd ..

# --- kill -9 mid-fan-out, then restart ----------------------------------------------------------
mkdir crash && cd crash
set +e
CRASH_AT=12 "$MERLIN" run --local --no-progress -j 2 ../fanout.yaml >/dev/null 2>&1
rc=$?
set -e
expect_eq "crash: the run was killed" 137 "$rc"
ws=$(ls -d fanout_2*)
check "crash: killed before every trial ran" test "$(wc -l <trials.log)" -lt 35
check "crash: before the funnel" test ! -e report.log
"$MERLIN" status "$ws" >status.txt
# The producer rewrites its file: the restart keeps the rows it expanded.
seq 1 3 | awk '{print $1 ",9.9"}' >"$ws/propose/K.30/next.csv"
"$MERLIN" restart --no-progress -j 2 "$ws" >/dev/null 2>&1
check "crash: restart exits 0" test $? = 0
expect_eq "crash: every row of K=30 ran" "$(seq 1 30)" "$(awk '$1 == 30 {print $2}' trials.log | sort -un)"
expect_eq "crash: every row of K=5 ran" "$(seq 1 5)" "$(awk '$1 == 5 {print $2}' trials.log | sort -un)"
check "crash: no row from the rewritten file" bash -c "! grep -q ' 9.9 ' trials.log"
runs=$(wc -l <trials.log)
check "crash: only in-flight rows re-ran ($runs runs for 35 rows, 2 slots)" test "$runs" -le 38
expect_eq "crash: the funnel ran once" report "$(cat report.log)"
expect_eq "crash: status after restart" "trial,2,35,35,0,0,0" \
  "$("$MERLIN" status "$ws" --format csv | grep '^trial,' | cut -d, -f1-7)"
cd ..

# --- bad files ------------------------------------------------------------------------------
mkdir bad && cd bad
set +e
"$MERLIN" run --local --no-progress ../fanout_bad.yaml >out.txt 2>err.txt
rc=$?
set -e
expect_eq "bad: the study ends with exit 1" 1 "$rc"
ws=$(ls -d fanout_bad_2*)
expect_eq "bad: only the good file's rows ran" "good 1 2
good 3 4" "$(sort trials.log)"
expect_eq "bad: the funnel still ran once" report "$(cat report.log)"
expect_eq "bad: six instances failed, one task each" "trial,7,8,2,6" \
  "$("$MERLIN" status "$ws" --format csv | grep '^trial,' | cut -d, -f1-5)"
f="$PWD/$ws/propose/MODE"
check "bad: missing file named" grep -q "samples_from $f.missing/next.csv): file not found" err.txt
check "bad: empty file named" grep -q "samples_from $f.empty/next.csv): the file is empty" err.txt
check "bad: malformed file named, with its line" grep -q "samples_from $f.ragged/next.csv): .*next.csv:2: row has 1 columns, expected 2" err.txt
check "bad: too many rows" grep -q "samples_from $f.toomany/next.csv): more than max_rows (4) rows" err.txt
check "bad: wrong column count" grep -q "samples_from $f.columns/next.csv): rows have 3 columns but column_labels names 2" err.txt
check "bad: unsafe value" grep -q "samples_from $f.unsafe/next.csv): row 1, column 'B', has shell metacharacters" err.txt
# Fix one file and restart: that instance is expanded again and runs its rows.
printf '5,6\n7,8\n9,10\n' >"$f.missing/next.csv"
set +e
"$MERLIN" restart --no-progress "$ws" >/dev/null 2>err2.txt
set -e
check "bad: after a fix, restart runs the fixed instance's rows" grep -q "missing 9 10" trials.log
expect_eq "bad: the fixed instance counts its rows" "trial,7,10,5,5" \
  "$("$MERLIN" status "$ws" --format csv | grep '^trial,' | cut -d, -f1-5)"
cd ..

# --- loops -------------------------------------------------------------------------------
mkdir loop && cd loop
"$MERLIN" run --local --no-progress -j 2 ../fanout_loop.yaml >/dev/null 2>err.txt
check "loop: exits 0" test $? = 0
ws=$(ls -d fanout_loop_2*)
check_loop . "$ws" loop
expect_eq "loop: one directory per iteration" "iter.1 iter.2 iter.3" "$(ls "$ws/trial" | xargs)"
expect_eq "loop: iteration 2's rows in its own hierarchy" "00 01 02 03 04 05 06 07" "$(ls "$ws/trial/iter.2" | xargs)"
check "loop: iteration 3's rows copied under its own name" test -f "$ws/merlin_info/fanout/trial_iter.3.csv"
expect_eq "loop: detailed-status lists every iteration's rows" "28 FINISHED" \
  "$("$MERLIN" detailed-status "$ws" --format csv | awk -F, '$1 == "trial" {print $3}' | sort | uniq -c | xargs)"
check "loop: detailed-status names a row of iteration 2" \
  grep -q "^trial,trial/iter.2/07,FINISHED" <("$MERLIN" detailed-status "$ws" --format csv)
cd ..
# A parameterised body (K = 2, 3) whose decider is a funnel over every combination.
mkdir ploop && cd ploop
"$MERLIN" run --local --no-progress ../fanout_loop_params.yaml >/dev/null 2>&1
check "params loop: exits 0" test $? = 0
expect_eq "params loop: each combination's rows in each of the 2 iterations" \
  "$(for it in 1 2; do for k in 2 3; do seq 1 $k | sed "s/^/$k $it /"; done; done | sort)" "$(sort trials.log)"
expect_eq "params loop: one directory per iteration and combination" "K.2 K.3" "$(ls ploop_*/trial/iter.2 | xargs)"
expect_eq "params loop: report once" report "$(cat report.log)"
cd ..
mkdir loopcrash && cd loopcrash
set +e
CRASH_AT=5 "$MERLIN" run --local --no-progress -j 2 ../fanout_loop.yaml >/dev/null 2>&1
rc=$?
set -e
expect_eq "loop crash: the run was killed in iteration 2" 137 "$rc"
ws=$(ls -d fanout_loop_2*)
check "loop crash: before the loop ended" test ! -e report.log
"$MERLIN" restart --no-progress -j 2 "$ws" >/dev/null 2>&1
check "loop crash: restart exits 0" test $? = 0
check_loop . "$ws" "loop crash"
runs=$(wc -l <trials.log)
check "loop crash: only in-flight rows re-ran ($runs runs for 28 rows, 2 slots)" test "$runs" -le 30
cd ..

# --- two Redis workers --------------------------------------------------------------------------
if command -v redis-server >/dev/null && command -v redis-cli >/dev/null; then
  start_redis
  mkdir dist && cd dist
  "$MERLIN" run ../fanout.yaml >ws.txt 2>run.err
  ws=$(cat ws.txt)
  expect_eq "redis: status before workers: trial's counts unknown" \
    "trial: 2 instances pending, count unknown (not released yet)" \
    "$("$MERLIN" status "$ws" | grep '^trial:')"
  "$MERLIN" run-workers ../fanout.yaml --exit-when-done --concurrency 2 >w1.out 2>w1.err &
  w1=$!
  "$MERLIN" run-workers ../fanout.yaml --exit-when-done --concurrency 2 >w2.out 2>w2.err &
  w2=$!
  CLEANUP+=("kill -9 $w1 $w2")
  wait $w1; r1=$?
  wait $w2; r2=$?
  expect_eq "redis: both workers exit 0" "0 0" "$r1 $r2"
  expect_eq "redis: every row once" "$(seq 1 5; seq 1 30)" "$(awk '$1 == 5 {print $2}' trials.log | sort -n; awk '$1 == 30 {print $2}' trials.log | sort -n)"
  expect_eq "redis: the funnel ran once" report "$(cat report.log)"
  expect_eq "redis: status from the broker" "trial,2,35,35,0" \
    "$("$MERLIN" status "$ws" --format csv | grep '^trial,' | cut -d, -f1-5)"
  cd ..
  mkdir distloop && cd distloop
  "$MERLIN" run ../fanout_loop.yaml >ws.txt 2>run.err
  ws=$(cat ws.txt)
  "$MERLIN" run-workers ../fanout_loop.yaml --exit-when-done --concurrency 2 >w1.out 2>w1.err &
  w1=$!
  "$MERLIN" run-workers ../fanout_loop.yaml --exit-when-done --concurrency 2 >w2.out 2>w2.err &
  w2=$!
  CLEANUP+=("kill -9 $w1 $w2")
  wait $w1; r1=$?
  wait $w2; r2=$?
  expect_eq "redis loop: both workers exit 0" "0 0" "$r1 $r2"
  check_loop . "$ws" "redis loop"
  expect_eq "redis loop: no row ran twice" 28 "$(wc -l <trials.log)"
  expect_eq "redis loop: detailed-status lists every iteration's rows" "28 FINISHED" \
    "$("$MERLIN" detailed-status "$ws" --format csv | awk -F, '$1 == "trial" {print $3}' | sort | uniq -c | xargs)"
  cd ..
  # Bad files on Redis: the same failures; after a fix, `merlin restart` expands again.
  mkdir distbad && cd distbad
  "$MERLIN" run ../fanout_bad.yaml >ws.txt 2>run.err
  ws=$(cat ws.txt)
  "$MERLIN" run-workers ../fanout_bad.yaml --exit-when-done >w.out 2>w.err
  expect_eq "redis bad: only the good file's rows ran" "good 1 2
good 3 4" "$(sort trials.log)"
  expect_eq "redis bad: six instances failed, one task each" "trial,7,8,2,6" \
    "$("$MERLIN" status "$ws" --format csv | grep '^trial,' | cut -d, -f1-5)"
  check "redis bad: the worker names the file" grep -q "MODE.missing/next.csv): file not found" w.err
  printf '5,6\n7,8\n9,10\n' >"$ws/propose/MODE.missing/next.csv"
  "$MERLIN" restart "$ws" >/dev/null 2>r.err
  "$MERLIN" run-workers ../fanout_bad.yaml --exit-when-done >w2.out 2>w2.err
  check "redis bad: after a fix, restart runs the fixed instance's rows" grep -q "missing 9 10" trials.log
  expect_eq "redis bad: the fixed instance counts its rows" "trial,7,10,5,5" \
    "$("$MERLIN" status "$ws" --format csv | grep '^trial,' | cut -d, -f1-5)"
  cd ..
  # A worker killed (SIGKILL, by its own step) in iteration 2; two others finish the study.
  mkdir distcrash && cd distcrash
  "$MERLIN" run ../fanout_loop.yaml >ws.txt 2>run.err
  ws=$(cat ws.txt)
  set +e
  CRASH_AT=5 "$MERLIN" run-workers ../fanout_loop.yaml --lease 1 --concurrency 2 >v.out 2>v.err
  rc=$?
  set -e
  expect_eq "redis crash: the worker was killed in iteration 2" 137 "$rc"
  "$MERLIN" run-workers ../fanout_loop.yaml --lease 1 --exit-when-done --concurrency 2 >w1.out 2>w1.err &
  w1=$!
  "$MERLIN" run-workers ../fanout_loop.yaml --lease 1 --exit-when-done --concurrency 2 >w2.out 2>w2.err &
  w2=$!
  CLEANUP+=("kill -9 $w1 $w2")
  wait $w1; r1=$?
  wait $w2; r2=$?
  expect_eq "redis crash: the other workers exit 0" "0 0" "$r1 $r2"
  check_loop . "$ws" "redis crash"
  runs=$(wc -l <trials.log)
  check "redis crash: only in-flight rows re-ran ($runs runs for 28 rows)" test "$runs" -le 30
  cd ..
else
  echo "skip: redis-server not found, the distributed part is not run"
fi
finish
