#!/usr/bin/env bash
# A tuned step (tune:, docs/tuning.md) on Redis: two worker processes search at once, one is
# killed with SIGKILL (it and every process below it) mid-search; the other finishes, and
# every promotion was decided once, on the server, with promoted trials resumed from their
# checkpoints.
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
ulimit -f 200000  # 100 MB of files at most
SPEC=$SRC/examples/tune_demo/tune_demo.yaml
start_redis

"$MERLIN" run --vars SECONDS_PER_EPOCH=0.02 "$SPEC" >run.log 2>&1
expect_eq "the search is queued" 0 $?
ws=$(ls -d "$WORK"/studies/tune_demo_*)
"$MERLIN" run-workers "$SPEC" --lease 2 >victim.log 2>&1 &
victim=$!
CLEANUP+=("kill -9 $victim")
"$MERLIN" run-workers "$SPEC" --lease 2 --exit-when-done >survivor.log 2>&1 &
survivor=$!
CLEANUP+=("kill -9 $survivor")
promoted() { [ "$(cat "$ws"/search/trial_*/runs.log 2>/dev/null | wc -l || true)" -gt 34 ]; }
check "both workers are past rung 0" wait_until 240 promoted
descendants() {
  local p c
  for c in $(ps -eo pid=,ppid= | awk -v p="$1" '$2 == p { print $1 }'); do echo "$c"; descendants "$c"; done
}
kill -STOP "$victim"
tree=$(descendants "$victim")
kill -9 "$victim" $tree 2>/dev/null || true
{ wait "$victim"; } 2>/dev/null || true
check "the search was not over at the kill" test ! -e "$ws/search/best.json"
set +e
timeout 300 tail --pid="$survivor" -f /dev/null
wait "$survivor"
rc=$?
set -e
expect_eq "the surviving worker finished the study" 0 "$rc"
expect_eq "every task done" "search,1,108,108,0
report,1,1,1,0" "$("$MERLIN" status "$ws" --format csv | grep -E '^(search|report),' | cut -d, -f1-5)"
check "the summary was there before the step after the search" \
  cmp -s "$ws/search/best.json" "$ws/report/report.out"
if python3 "$SRC/tests/integration/tune_local/check_search.py" "$ws" --killed >check.log; then
  pass "ASHA invariants hold after a worker's kill -9 ($(grep -c '^ok' check.log) checks)"
else
  cat check.log; fail "ASHA invariants after a worker's kill -9"
fi
finish
