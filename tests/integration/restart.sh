#!/usr/bin/env bash
# A local run killed with SIGKILL mid-study; `merlin restart` finishes it from the journal:
# every sample ends finished, finished samples are not re-run (only those in flight may be).
source "$(dirname "$0")/lib.sh"
cp "$SRC/tests/integration/specs/crash.yaml" "$SRC/tests/integration/specs/crash_samples.csv" .
set +e
"$MERLIN" run --local --no-progress -j 2 crash.yaml >/dev/null 2>&1
rc=$?
set -e
expect_eq "the run was killed" 137 "$rc"
ws=$(ls -d crash_2*)
before=$(sort -un runs.log | wc -l)
check "the kill happened mid-study" test "$before" -lt 40
"$MERLIN" status "$ws" --format csv >status_before.csv
rm crash.yaml crash_samples.csv  # restart works from the copies in merlin_info/
"$MERLIN" restart --no-progress -j 2 "$ws" >/dev/null 2>&1
check "restart exits 0" test $? = 0
expect_eq "every sample finished" 40 "$(find "$ws/work" -name MERLIN_FINISHED | wc -l)"
expect_eq "every sample ran" 40 "$(sort -un runs.log | wc -l)"
runs=$(wc -l <runs.log)
check "only in-flight samples re-ran ($runs runs for 40 samples, 2 slots)" test "$runs" -le 43
expect_eq "status after restart" "work,1,40,40,0,0,0" "$("$MERLIN" status "$ws" --format csv | tail -1 | cut -d, -f1-7)"

# Two runs of one spec started in the same second get two workspaces.
mkdir twice && cd twice
"$MERLIN" run --local --no-progress "$SRC/examples/hello/hello.yaml" >/dev/null 2>&1 &
"$MERLIN" run --local --no-progress "$SRC/examples/hello/hello.yaml" >/dev/null 2>&1
wait
expect_eq "two runs, two workspaces" 2 "$(ls -d hello_* | wc -l)"
cd ..
finish
