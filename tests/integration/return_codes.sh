#!/usr/bin/env bash
# The return-code protocol through the real binary: success, soft fail, retry, restart,
# retries exhausted, unknown codes, hard fail stopping one queue, stop-workers and restart.
source "$(dirname "$0")/lib.sh"
specs=$SRC/tests/integration/specs
set +e
"$MERLIN" run --local --no-progress -j 2 "$specs/return_codes.yaml" >out.txt 2>err.txt
rc=$?
set -e
expect_eq "a study with failures exits 1" 1 "$rc"
ws=$(ls -d rc_*)
st=$("$MERLIN" status "$ws" --format csv)
row() { echo "$st" | awk -F, -v s="$1" '$1 == s {print $4 "/" $3 " failed=" $5}'; }
expect_eq "ok done" "1/1 failed=0" "$(row ok)"
expect_eq "soft fail recorded" "0/1 failed=1" "$(row soft)"
expect_eq "soft fail lets dependents run" "ran" "$(cat "$ws/after_soft/ran.txt")"
expect_eq "retry ran twice then succeeded" "2 failed=0" "$(wc -l <"$ws/retry/runs.txt" | tr -d ' ') $(row retry | cut -d' ' -f2)"
check "retry wrote MERLIN_FINISHED" test -f "$ws/retry/MERLIN_FINISHED"
expect_eq "restart ran the restart command" "restarted" "$(cat "$ws/restart/restarted.txt")"
check "restart script written" test -f "$ws/restart/restart.restart.sh"
expect_eq "exhausted retries: 1 + max_retries runs" "3" "$(wc -l <"$ws/exhaust/runs.txt" | tr -d ' ')"
expect_eq "exhausted retries soft-fail" "0/1 failed=1" "$(row exhaust)"
expect_eq "unknown non-zero code is a soft fail" "0/1 failed=1" "$(row other_code)"
check "failure logged with the step" grep -q 'step=soft' err.txt

set +e
"$MERLIN" run --local --no-progress -j 1 "$specs/hard_fail.yaml" >/dev/null 2>err.txt
rc=$?
set -e
expect_eq "hard fail exits 1" 1 "$rc"
ws=$(ls -d hard_*)
check "hard fail stopped its queue: dependent not run" test ! -e "$ws/after_hard/after_hard.out"
expect_eq "the other queue went on" "other" "$(cat "$ws/other/other.txt")"
check "hard fail names the queue" grep -q "queue 'q1' stopped" err.txt

set +e
"$MERLIN" run --local --no-progress "$specs/stop_workers.yaml" >/dev/null 2>err.txt
rc=$?
set -e
expect_eq "stop workers exits 1" 1 "$rc"
ws=$(ls -d stop_*)
check "nothing after the stop" test ! -e "$ws/second/second.txt"
"$MERLIN" restart --no-progress "$ws" >/dev/null 2>&1
expect_eq "restart finishes the study" "second" "$(cat "$ws/second/second.txt")"
finish
