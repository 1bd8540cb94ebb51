#!/usr/bin/env bash
# Step-requested stops across worker processes, against a real redis-server:
# MERLIN_HARD_FAIL seen by one `run-workers` process stops that queue in every process of the
# study (the others' next task of it is never started; other queues go on; --exit-when-done
# then exits 1 naming restart), and MERLIN_STOP_WORKERS stops every process. Workers started
# after a stop, and `merlin restart`, resume the study.
source "$(dirname "$0")/lib.sh"
start_redis
specs=$SRC/tests/integration/specs
# A stop binds the processes running when it is written (later ones resume the queue), so the
# stopping step waits for $START, opened once both processes serve the study.
serving() { grep -q "serving study" "$1" && grep -q "serving study" "$2"; }

# --- MERLIN_HARD_FAIL in one of two processes ----------------------------------------------------
cp "$specs/dist_hard_fail.yaml" "$specs/dist_hard_samples.csv" .
"$MERLIN" run dist_hard_fail.yaml --vars "START=$WORK/start" "GATE=$WORK/gate" "LOCK=$WORK/lock" \
  >ws.txt 2>run.err
ws=$(cat ws.txt)
"$MERLIN" run-workers dist_hard_fail.yaml --exit-when-done >a.out 2>a.err &
a=$!
"$MERLIN" run-workers dist_hard_fail.yaml --exit-when-done >b.out 2>b.err &
b=$!
CLEANUP+=("kill -9 $a $b" "touch $WORK/start $WORK/gate")
wait_until 60 serving a.err b.err || fail "both processes serve the study"
touch start
# The other samples wait for the gate, so the process that did not see the code is idle or
# inside one sample when the stop reaches it; open the gate only once it says so.
if wait_until 60 grep -q "stops here too" a.err b.err; then
  pass "the other process obeys the hard fail"
else
  fail "the other process obeys the hard fail"; cat a.err b.err
fi
touch gate
set +e
wait $a; ra=$?
wait $b; rb=$?
set -e
expect_eq "both processes exit 1 (work left on a stopped queue)" "1 1" "$ra $rb"
check "the exit names restart" grep -q "merlin restart" a.err
ran=$(find "$ws/work" -name x.txt | wc -l)
check "no sample of the stopped queue started after the stop (ran $ran, at most 1)" \
  test "$ran" -le 1
expect_eq "the other queue went on" other "$(cat "$ws/other/other.txt")"
st=$("$MERLIN" status "$ws" --format csv | grep '^work,')
check "status counts the hard fail (work: $st)" grep -q "^work,1,40,$ran,1," <<<"$st"

# New workers resume the stopped queue (as Merlin's do); the study then completes.
"$MERLIN" run-workers dist_hard_fail.yaml --exit-when-done >c.out 2>c.err
expect_eq "a new process runs the rest of the queue" 39 "$(find "$ws/work" -name x.txt | wc -l)"

# --- MERLIN_STOP_WORKERS in one of two processes -------------------------------------------------
cp "$specs/dist_stop.yaml" .
"$MERLIN" run dist_stop.yaml --vars "START=$WORK/start2" >ws.txt 2>run.err
ws=$(cat ws.txt)
"$MERLIN" run-workers dist_stop.yaml >c.out 2>c.err &
c=$!
"$MERLIN" run-workers dist_stop.yaml >d.out 2>d.err &
d=$!
CLEANUP+=("kill -9 $c $d" "touch $WORK/start2")
wait_until 60 serving c.err d.err || fail "both processes serve the study"
touch start2
set +e
wait $c; rc=$?
wait $d; rd=$?
set -e
expect_eq "both processes stop, without --exit-when-done" "0 0" "$rc $rd"
check "nothing after the stop" test ! -e "$ws/second/second.txt"
"$MERLIN" restart "$ws" >/dev/null 2>restart.err
"$MERLIN" run-workers dist_stop.yaml --exit-when-done >e.out 2>e.err
expect_eq "restart + new workers finish the study" second "$(cat "$ws/second/second.txt")"
finish
