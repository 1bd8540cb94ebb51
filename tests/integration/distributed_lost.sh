#!/usr/bin/env bash
# The broker loses a study (issue #9): after FLUSHALL, a Redis restarted without persistence,
# or the queue Streams deleted mid-run, no worker or `monitor` reports success; `merlin
# restart WS` queues again exactly the samples whose MERLIN_FINISHED marker is missing. Also:
# a worker that cannot open a study's workspace exits 1, and a purged study is not "lost".
source "$(dirname "$0")/lib.sh"
start_redis
set +e  # exit codes are what this test checks
N=60
seq 0 $((N - 1)) >samples.csv
cat >lost.yaml <<'Y'
description: {name: lost, description: a sampled step and a funnel after it}
study:
  - name: sim
    run:
      cmd: |
        echo $(V) > v.txt
        echo $(V) >> $(MERLIN_WORKSPACE)/runs.log
        sleep 0.05
  - name: collect
    run:
      cmd: ls $(sim.workspace) > listed.txt
      depends: [sim_*]
merlin:
  resources:
    workers:
      w: {args: --concurrency 2, steps: [all]}
  samples:
    file: $(SPECROOT)/samples.csv
    column_labels: [V]
Y
done_count() { "$MERLIN" status "$1" --format csv 2>/dev/null | grep '^sim,' | cut -d, -f4; }
at_least() { local n; n=$(done_count "$1"); [ -n "$n" ] && [ "$n" -ge "$2" ]; }
markers() { find "$1/sim" -name MERLIN_FINISHED | sort; }
finished_samples() { find "$1/sim" -name MERLIN_FINISHED -execdir cat v.txt \; | sort -n; }
no_steps() { ! pgrep -f "$1/sim/" >/dev/null; }

# Runs a worker until at least 10 samples are done, then kills it (-9): a study half done.
half_run() {
  "$MERLIN" run-workers lost.yaml >half.out 2>half.err &
  local w=$!
  CLEANUP+=("kill -9 $w")
  wait_until 60 at_least "$1" 10 || fail "a worker got 10 samples done"
  kill -9 $w 2>/dev/null || true
  wait $w 2>/dev/null || true
  # Steps it started finish by themselves (own process group): let them write their marker.
  wait_until 10 no_steps "$1" || true
}

# Checks the restarted study ends complete, and that no sample done before the loss ran again.
finish_and_check() {  # label ws before-markers-file
  "$MERLIN" run-workers lost.yaml --exit-when-done >after.out 2>after.err
  expect_eq "$1: a worker finishes the re-queued study (exit 0)" 0 $?
  expect_eq "$1: every sample has its marker" "$N" "$(markers "$2" | wc -l)"
  check "$1: the funnel step ran after all samples" test -f "$2/collect/MERLIN_FINISHED"
  local again=0 s
  for s in $(cat "$3"); do
    [ "$(grep -c "^$s\$" "$2/runs.log")" = 1 ] || again=$((again + 1))
  done
  expect_eq "$1: samples finished before the loss did not run again" 0 "$again"
  expect_eq "$1: every sample ran" "$N" "$(sort -u "$2/runs.log" | wc -l)"
}

# --- FLUSHALL mid-run -------------------------------------------------------------------------
ws=$("$MERLIN" run lost.yaml 2>/dev/null)
half_run "$ws"
finished_samples "$ws" >before.txt
check "flush: some but not all samples finished before" test "$(wc -l <before.txt)" -lt "$N"
redis-cli -p "$REDIS_PORT" flushall >/dev/null
"$MERLIN" run-workers lost.yaml --exit-when-done >w.out 2>w.err
expect_eq "flush: run-workers --exit-when-done exits 1, not 0" 1 $?
check "flush: the worker says the broker has no record and names restart" \
  grep -q "study $(basename "$ws") lost its work: the broker at .* has no record of it.*merlin restart $ws" w.err
"$MERLIN" monitor lost.yaml --sleep 1 >m.out 2>m.err
expect_eq "flush: monitor exits 1" 1 $?
check "flush: monitor names restart" grep -q "merlin restart $ws" m.err
"$MERLIN" status "$ws" >s.out 2>s.err
check "flush: status names restart" grep -q "merlin restart $ws" s.err
"$MERLIN" restart "$ws" >r.out 2>r.err
expect_eq "flush: restart re-registers the study (exit 0)" 0 $?
check "flush: restart counts the markers found" \
  grep -q "re-queued study $(basename "$ws") on .*: $(wc -l <before.txt)/$((N + 1)) tasks finished" r.err
finish_and_check flush "$ws" before.txt
"$MERLIN" run-workers lost.yaml --exit-when-done >w.out 2>w.err
expect_eq "flush: with everything done, a worker exits 0" 0 $?
check "flush: the finished study is marked in its workspace" grep -qx finished=1 "$ws/merlin_info/run.env"
"$MERLIN" monitor lost.yaml --sleep 1 >m.out 2>m.err
expect_eq "flush: monitor then exits 0" 0 $?

# --- Redis restarted without persistence -----------------------------------------------------
ws=$("$MERLIN" run lost.yaml 2>/dev/null)
half_run "$ws"
finished_samples "$ws" >before.txt
stop_redis -9
rm -rf "$REDIS_DIR"/appendonly*
redis_launch || { fail "redis restarts"; finish; exit 1; }
"$MERLIN" run-workers lost.yaml --exit-when-done >w.out 2>w.err
expect_eq "no persistence: run-workers --exit-when-done exits 1" 1 $?
expect_eq "no persistence: only the unfinished study is reported (the finished one is marked)" \
  "study $(basename "$ws") lost its work" "$(grep -o 'study [^ ]* lost its work' w.err)"
"$MERLIN" restart "$ws" >r.out 2>r.err
expect_eq "no persistence: restart (exit 0)" 0 $?
finish_and_check "no persistence" "$ws" before.txt

# --- the queue Streams deleted mid-run (the study's counters stay) ---------------------------
ws=$("$MERLIN" run lost.yaml 2>/dev/null)
half_run "$ws"
finished_samples "$ws" >before.txt
key=$(basename "$ws")
redis-cli -p "$REDIS_PORT" --scan --pattern "merlin:$key:q:*" | xargs redis-cli -p "$REDIS_PORT" del >/dev/null
"$MERLIN" run-workers lost.yaml --exit-when-done >w.out 2>w.err
expect_eq "streams deleted: run-workers --exit-when-done exits 1" 1 $?
check "streams deleted: the worker counts what is unfinished" \
  grep -q "study $key lost its work: [0-9]* of $((N + 1)) tasks are unfinished and none is queued" w.err
"$MERLIN" monitor lost.yaml --sleep 1 >m.out 2>m.err
expect_eq "streams deleted: monitor exits 1" 1 $?
"$MERLIN" restart "$ws" >r.out 2>r.err
expect_eq "streams deleted: restart (exit 0)" 0 $?
finish_and_check "streams deleted" "$ws" before.txt

# --- a worker killed between a task's marker and its commit -----------------------------------
# The broker holds the study but never got the commit of a task whose marker exists (the worker
# died in between: with batched finishes the window is a held call long). Planted here: sample
# dirs are sim/<s/25>/<s%25>, and the sample chosen never started.
ws=$("$MERLIN" run lost.yaml 2>/dev/null)
half_run "$ws"
planted=""
for s in $(seq $((N - 1)) -1 0); do
  d=$(printf '%s/sim/%02d/%02d' "$ws" $((s / 25)) $((s % 25)))
  [ -d "$d" ] && continue
  mkdir -p "$d" && echo "$s" >"$d/v.txt" && : >"$d/MERLIN_FINISHED" && echo "$s" >>"$ws/runs.log"
  planted=$s
  break
done
check "marker without commit: a sample that never started is planted" test -n "$planted"
finished_samples "$ws" >before.txt
"$MERLIN" restart "$ws" >r.out 2>r.err
expect_eq "marker without commit: restart (exit 0)" 0 $?
check "marker without commit: restart commits what the markers say finished" \
  grep -q "known by their marker only" r.err
check "marker without commit: ... at least the planted one" \
  grep -q "([1-9][0-9]* of them known by their marker only" r.err
finish_and_check "marker without commit" "$ws" before.txt

# --- a purged study is not lost ----------------------------------------------------------------
ws=$("$MERLIN" run lost.yaml 2>/dev/null)
"$MERLIN" purge -f lost.yaml >p.out 2>p.err
"$MERLIN" run-workers lost.yaml --exit-when-done >w.out 2>w.err
expect_eq "purged: a worker exits 0 (the work was removed on purpose)" 0 $?
"$MERLIN" restart "$ws" >r.out 2>r.err
"$MERLIN" run-workers lost.yaml --exit-when-done >w.out 2>w.err
expect_eq "purged then restarted: the study finishes" "$N" "$(markers "$ws" | wc -l)"

# --- a workspace the worker cannot open ----------------------------------------------------------
ws=$("$MERLIN" run lost.yaml 2>/dev/null)
mv "$ws/merlin_info" "$ws/merlin_info.away"
"$MERLIN" run-workers lost.yaml --exit-when-done >w.out 2>w.err
expect_eq "unopenable workspace: run-workers exits 1, not 0" 1 $?
check "unopenable workspace: it names the study" grep -q "could not be opened: $(basename "$ws")" w.err
mv "$ws/merlin_info.away" "$ws/merlin_info"
"$MERLIN" run-workers lost.yaml --exit-when-done >w.out 2>w.err
expect_eq "unopenable workspace: once back, the study finishes" "$N" "$(markers "$ws" | wc -l)"
finish
