#!/usr/bin/env bash
# A search's leaderboard in `merlin status` (docs/tuning.md, "Watching a search"): after the
# ASHA demo runs locally, the text leaderboard's first row, and the JSON's first trial, are the
# trial best.json names; --trials N shows N rows; CSV stays the step table. Then the same
# demo queued on Redis: every trial waiting before a worker starts, best.json's leader after.
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
ulimit -f 200000  # 100 MB of files at most
SPEC=$SRC/examples/tune_demo/tune_demo.yaml

timeout 300 "$MERLIN" run --local -j2 --vars SECONDS_PER_EPOCH=0.005 "$SPEC" >run.log 2>&1 \
  || { cat run.log; fail "the tune demo ran"; finish; }
ws=$(ls -d "$WORK"/studies/tune_demo_*)
best=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["trial"])' \
  "$ws/search/best.json")
# Trials at the full budget: promotions are asynchronous and never taken back, so 1 or more.
full=$(awk -F, 'NR > 1 && $2 == 3' "$ws/search/trials.csv" | wc -l)

# The text: the step table, a blank line, the search's title, its table of 10.
"$MERLIN" status "$ws" >status.txt
check "the title names the step, its trials and the best trial" \
  grep -qE "^search: 27 trials, $full at the full budget \(27\), [0-9]+ stopped, best [0-9.e-]+ \(trial $best\)$" status.txt
header=$(grep -n '^RANK  TRIAL  RUNG  BUDGET' status.txt | cut -d: -f1)
check "the leaderboard's columns: rank ... state, then X and Y" \
  grep -qE '^RANK +TRIAL +RUNG +BUDGET +VALUE +STATE +X +Y$' status.txt
first=$(sed -n "$((header + 1))p" status.txt)
expect_eq "its first row is best.json's trial, at the full budget, completed" \
  "1 $best 3 27 completed" "$(echo "$first" | awk '{print $1, $2, $3, $4, $6}')"
expect_eq "10 rows by default" 10 \
  "$(sed -n "$((header + 1)),\$p" status.txt | grep -cE '^ +[0-9]+ +[0-9]+ ')"
check "... and a line saying how many more" grep -qx '(17 more; --trials 0 shows every trial)' status.txt

"$MERLIN" status "$ws" --trials 3 >three.txt
expect_eq "--trials 3: 3 rows" 3 \
  "$(sed -n '/^RANK/,$p' three.txt | grep -cE '^ +[0-9]+ +[0-9]+ ')"
"$MERLIN" status "$ws" --trials 0 >all.txt
expect_eq "--trials 0: every trial" 27 "$(sed -n '/^RANK/,$p' all.txt | grep -cE '^ +[0-9]+ +[0-9]+ ')"
check "... and no line about more" bash -c "! grep -q 'more;' all.txt"

# JSON: the step rows as ever; --searches: the search, its first trial best.json's.
"$MERLIN" status "$ws" --format json >steps.json
expect_eq "JSON without --searches: the step rows, an array as before" "search report" \
  "$(python3 -c 'import json; print(*[r["step"] for r in json.load(open("steps.json"))])')"
"$MERLIN" status "$ws" --searches --format json >status.json
if python3 - "$ws/search/best.json" status.json "$full" >json.log 2>&1 <<'PY'
import json, sys
best = json.load(open(sys.argv[1]))
(s,) = json.load(open(sys.argv[2]))
assert s["best_trial"] == best["trial"] and s["best_value"] == best["value"], (s, best)
assert s["trials"] == 27 and s["full_budget"] == int(sys.argv[3]) and s["budget"] == 27, s
board = s["leaderboard"]
assert len(board) == 10, board
top = board[0]
assert (top["rank"], top["trial"], top["rung"], top["budget"], top["value"], top["state"]) == \
    (1, best["trial"], best["rung"], best["budget"], best["value"], "completed"), (top, best)
assert {"X": top["X"], "Y": top["Y"]} == best["config"], (top, best)
PY
then pass "the JSON parses; its first trial is best.json's"; else cat json.log; fail "the JSON"; fi
"$MERLIN" status "$ws" --searches --format json --trials 3 >three.json
expect_eq "--trials 3 in JSON: 3 trials" 3 \
  "$(python3 -c 'import json; print(len(json.load(open("three.json"))[0]["leaderboard"]))')"
"$MERLIN" status "$ws" --searches >only.txt
check "--searches: the leaderboards without the step table" \
  bash -c "grep -q '^search: 27 trials' only.txt && ! grep -q '^STEP' only.txt"
set +e
"$MERLIN" status "$ws" --searches --format csv >/dev/null 2>csv.err
rc=$?
set -e
expect_eq "--searches --format csv: bad input, exit 2" 2 "$rc"

# CSV: the step table only.
"$MERLIN" status "$ws" --format csv >status.csv
expect_eq "CSV: the step table, nothing more" \
  "step,instances,total,done,failed,running,queued,mean_seconds search report" \
  "$(head -1 status.csv) $(tail -n +2 status.csv | cut -d, -f1 | tr '\n' ' ' | sed 's/ $//')"
rm -rf "$WORK/studies"

# On Redis: the standings come from the broker's store.
start_redis
"$MERLIN" run --vars SECONDS_PER_EPOCH=0.005 "$SPEC" >queued.log 2>&1
expect_eq "the search is queued on Redis" 0 $?
ws=$(ls -d "$WORK"/studies/tune_demo_*)
"$MERLIN" status "$ws" >queued.txt 2>&1
check "queued, no worker yet: 27 trials waiting" \
  grep -qx 'search: 27 trials, 0 at the full budget (27), 0 stopped, 27 waiting, no result yet' queued.txt
timeout 300 "$MERLIN" run-workers "$SPEC" --exit-when-done >worker.log 2>&1 \
  || { cat worker.log; fail "a worker finished the queued search"; }
best=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["trial"])' \
  "$ws/search/best.json")
"$MERLIN" status "$ws" --trials 3 >redis.txt
check "Redis: the title names best.json's trial" \
  grep -qE "^search: 27 trials, [1-9][0-9]* at the full budget \(27\), [0-9]+ stopped, best [0-9.e-]+ \(trial $best\)$" redis.txt
expect_eq "Redis: the first row is best.json's trial, completed" "1 $best completed" \
  "$(sed -n '/^RANK/{n;p;}' redis.txt | awk '{print $1, $2, $6}')"
expect_eq "Redis: --trials 3 gives 3 rows" 3 \
  "$(sed -n '/^RANK/,$p' redis.txt | grep -cE '^ +[0-9]+ +[0-9]+ ')"
"$MERLIN" status "$ws" --searches --format json >redis.json
expect_eq "Redis: the JSON's leader is best.json's" "$best $best" \
  "$(python3 -c 'import json; s = json.load(open("redis.json"))[0]; print(s["best_trial"], s["leaderboard"][0]["trial"])')"
finish
