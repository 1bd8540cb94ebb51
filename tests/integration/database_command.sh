#!/usr/bin/env bash
# `merlin database info|get|delete` (Merlin 2.0's command) on a real Redis: two runs of hello
# (one study), the worker its spec defines (a logical worker) and a live worker's heartbeat (a
# physical worker); entries found by id, workspace path or name; a missing id exits 1, misplaced
# ids and `delete` exit 2 before any server is asked.
source "$(dirname "$0")/lib.sh"
start_redis
set +e  # exit codes are what this test checks
"$MERLIN" example hello >/dev/null 2>&1
ws1=$("$MERLIN" run hello/hello.yaml 2>/dev/null)
ws2=$("$MERLIN" run hello/hello.yaml 2>/dev/null)
"$MERLIN" run-workers hello/hello.yaml --exit-when-done >w.out 2>w.err
expect_eq "the two runs finish (exit 0)" 0 $?

"$MERLIN" database info >info.out 2>info.err
expect_eq "database info: exit 0" 0 $?
check "info: the broker's kind" grep -qx -- "- Database Type: redis" info.out
check "info: its version, as Merlin shows it" grep -qE -- "^- Database Version: [0-9]+\.[0-9]+" info.out
check "info: its address, no password" grep -qx -- "- Connection String: redis://127.0.0.1:$REDIS_PORT/0" info.out
expect_eq "info: 1 study, 2 runs, 1 logical worker, 0 physical" "1 2 1 0" \
  "$(awk '/^- Total:/ { printf "%s%s", sep, $3; sep = " " }' info.out)"

"$MERLIN" database get all-runs >runs.out 2>runs.err
expect_eq "get all-runs: exit 0" 0 $?
expect_eq "get all-runs: both runs, complete" "2 2" \
  "$(grep -c '^Run with ID hello_' runs.out) $(grep -c '^Run Complete: True$' runs.out)"
"$MERLIN" database get run "$ws2" >run.out 2>run.err
expect_eq "get run by workspace path: exit 0" 0 $?
expect_eq "... that run only" "Run with ID $(basename "$ws2")" "$(grep '^Run with ID' run.out)"
"$MERLIN" database get study hello >study.out 2>study.err
check "get study hello: both runs listed with their workspaces" \
  bash -c "grep -qx '    Workspace: $ws1' study.out && grep -qx '    Workspace: $ws2' study.out"
"$MERLIN" database get logical-worker demo_worker >lw.out 2>lw.err
expect_eq "get logical-worker by name: exit 0" 0 $?
check "... the worker hello's spec defines, on its queue" grep -qx "Queues: \['merlin'\]" lw.out

# A live worker: its heartbeat is a physical worker of that logical one, serving the study.
"$MERLIN" run-workers hello/hello.yaml >live.out 2>live.err &
live=$!
CLEANUP+=("kill $live")
has_physical() { "$MERLIN" database get all-physical-workers 2>/dev/null | grep -q '^Physical Worker with ID'; }
check "a running worker appears as a physical worker" wait_until 30 has_physical
"$MERLIN" database get physical-worker demo_worker >pw.out 2>pw.err
expect_eq "get physical-worker by name: exit 0" 0 $?
check "... with its logical worker's id" grep -qx "Logical Worker ID: demo_worker \[merlin\]" pw.out
check "... and its process id" grep -qx "Process ID: $live" pw.out
"$MERLIN" database get logical-worker demo_worker >lw2.out 2>lw2.err
check "the logical worker lists it" grep -q "^  - ID: .*\.$live\.demo_worker$" lw2.out
"$MERLIN" stop-workers >stop.out 2>stop.err
gone() { ! kill -0 "$live" 2>/dev/null || grep -q . <(ps -o stat= -p "$live" | grep Z); }
check "the worker stops when asked" wait_until 30 gone
kill "$live" 2>/dev/null; wait "$live" 2>/dev/null

# Bad input and misses.
"$MERLIN" database get run no_such_run >miss.out 2>miss.err
expect_eq "a missing id: exit 1" 1 $?
check "... named, with the broker's address" grep -q "no entry 'no_such_run' (at redis://127.0.0.1:$REDIS_PORT/0)" miss.err
"$MERLIN" database get all-runs x --broker redis://127.0.0.1:1 >bad.out 2>bad.err
expect_eq "ids given to all-runs: exit 2, before any server is asked" 2 $?
check "... pointing at the single form" grep -q "database get run ID" bad.err
"$MERLIN" database get runs >bad2.out 2>bad2.err
expect_eq "an unknown kind: exit 2" 2 $?
"$MERLIN" database delete run x >del.out 2>del.err
expect_eq "database delete: exit 2" 2 $?
check "... naming the commands that remove each kind of record" grep -q "merlin purge SPEC" del.err
finish
