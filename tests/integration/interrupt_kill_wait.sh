#!/usr/bin/env bash
# The second interrupt ends running steps: SIGTERM, then SIGKILL after --kill-wait for those
# still running. The log says what became of each (killed by SIGKILL, or exited 0 by itself),
# nothing is committed, and no step process is left. Local runs, then run-workers.
source "$(dirname "$0")/lib.sh"
cat >naps.yaml <<'Y'
description: {name: naps, description: one step ignores SIGTERM and one exits 0 on it}
study:
  - name: nap
    run:
      cmd: |
        echo $$ > $(MERLIN_WORKSPACE)/../pid.$(V)
        if [ $(V) = stubborn ]; then
          trap '' TERM
          sleep 30
        else
          trap 'echo bye; exit 0' TERM
          sleep 30 &
          wait
        fi
merlin:
  resources:
    workers:
      w: {args: --concurrency 2, steps: [all]}
  samples:
    file: $(SPECROOT)/two.csv
    column_labels: [V]
Y
printf 'stubborn\npolite\n' >two.csv
both_running() { [ -s pid.stubborn ] && [ -s pid.polite ]; }
# A step process is gone when no process has its pid (or only a zombie nobody reaped).
gone() { ! [ -e /proc/$1 ] || grep -q '^[0-9]* (.*) Z' /proc/$1/stat; }
interrupt_twice() {  # pid log: the first interrupt, acknowledged, then the second
  kill -"$3" "$1"
  wait_until 10 grep -q "$4" "$2"
  kill -"$3" "$1"
}

# --- local run -----------------------------------------------------------------------------
"$MERLIN" run --local --no-progress -j 2 --kill-wait 2 naps.yaml >run.out 2>run.err &
pid=$!
CLEANUP+=("kill -9 $pid")
check "local: both steps run" wait_until 20 both_running
interrupt_twice $pid run.err INT "stopping: running steps finish first"
SECONDS=0
set +e
wait_until 25 bash -c "! kill -0 $pid 2>/dev/null"
wait $pid
rc=$?
set -e
took=$SECONDS
expect_eq "local: the run ends with 1" 1 "$rc"
check "local: it ends after the kill wait, not when the stubborn step's 30 s sleep does (${took}s)" \
  test "$took" -lt 20
check "local: the second interrupt says SIGKILL follows" \
  grep -q "ending running steps: SIGTERM now, SIGKILL in 2 s to those still running" run.err
check "local: the stubborn step is logged as killed by SIGKILL" grep -q \
  "step was killed by SIGKILL (still running when the grace period after SIGTERM ended) after the run was interrupted step=nap sample=0" \
  run.err
check "local: the polite step is logged as exiting 0" \
  grep -q "step exited with code 0 after the run was interrupted step=nap sample=1" run.err
check "local: no step logged as terminated that was not" bash -c "! grep -q 'step terminated' run.err"
check "local: the stubborn step's processes are gone" wait_until 5 gone "$(cat pid.stubborn)"
check "local: the polite step's processes are gone" wait_until 5 gone "$(cat pid.polite)"
ws=$(ls -d naps_2*)
expect_eq "local: nothing committed" "nap,1,2,0,0,0,2" \
  "$("$MERLIN" status "$ws" --format csv | tail -1 | cut -d, -f1-7)"
rm -rf naps_2* pid.*

# --- bad input, and batch jobs inherit the setting -------------------------------------------
set +e
"$MERLIN" run --local --kill-wait -1 naps.yaml >/dev/null 2>bad.err
rc=$?
set -e
expect_eq "a negative --kill-wait exits 2" 2 "$rc"
check "and names the option" grep -q -- "--kill-wait" bad.err
sed 's/^merlin:/batch: {type: slurm}\nmerlin:/' naps.yaml >slurmy.yaml
"$MERLIN" run-workers slurmy.yaml --echo --kill-wait 3 >echo3.txt
"$MERLIN" run-workers slurmy.yaml --echo >echo.txt
check "a worker job runs with the same --kill-wait" grep -q "run-workers .* --kill-wait 3" echo3.txt
check "and without it when it is the default" bash -c "! grep -q -- --kill-wait echo.txt"

# --- run-workers ---------------------------------------------------------------------------
if ! command -v redis-server >/dev/null; then
  echo "SKIP run-workers part: redis-server not found"
  finish
  exit $?
fi
start_redis
ws=$("$MERLIN" run naps.yaml 2>/dev/null)
"$MERLIN" run-workers naps.yaml --kill-wait 2 >w.out 2>w.err &
pid=$!
CLEANUP+=("kill -9 $pid")
check "workers: both steps run" wait_until 20 both_running
interrupt_twice $pid w.err TERM "draining: running tasks finish and commit"
SECONDS=0
set +e
wait_until 25 bash -c "! kill -0 $pid 2>/dev/null"
wait $pid
rc=$?
set -e
took=$SECONDS
expect_eq "workers: the process exits 0 (its tasks went back to the queue)" 0 "$rc"
check "workers: it ends after the kill wait (${took}s)" test "$took" -lt 20
check "workers: the second signal says SIGKILL follows" \
  grep -q "second signal: ending running steps (SIGTERM now, SIGKILL in 2 s" w.err
check "workers: the stubborn step is logged as killed by SIGKILL" \
  grep -q "step was killed by SIGKILL .* after the run was interrupted step=nap sample=0" w.err
check "workers: the polite step is logged as exiting 0" \
  grep -q "step exited with code 0 after the run was interrupted step=nap sample=1" w.err
check "workers: the stubborn step's processes are gone" wait_until 5 gone "$(cat pid.stubborn)"
expect_eq "workers: nothing committed, both tasks queued again" "nap,1,2,0,0,0,2" \
  "$("$MERLIN" status "$ws" --format csv | tail -1 | cut -d, -f1-7)"
expect_eq "workers: nothing left reserved" "0" \
  "$("$MERLIN" queue-info naps.yaml --format csv | tail -1 | cut -d, -f4)"
finish
