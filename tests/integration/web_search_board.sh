#!/usr/bin/env bash
# A search's leaderboard on `merlin monitor --web`'s page (docs/web-status.md, "The page"),
# rendered by headless Chromium: the ASHA demo run locally and watched while it runs, then once
# done, its first row best.json's trial; a search whose choices are HTML shows them as text;
# a study without a search shows no panel. Local runs only: no broker needed.
source "$(dirname "$0")/lib.sh"
set +e  # exit codes are what this test checks
need_python json
command -v curl >/dev/null || { echo "SKIP: curl not found (apt-get install curl)"; exit 77; }
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || { echo "SKIP: chromium not found (apt-get install chromium)"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
ulimit -f 200000  # 100 MB of files at most
SPEC=$SRC/examples/tune_demo/tune_demo.yaml

# serve NAME WORKSPACE: monitor --web on a free port; sets MPID and URL.
serve() {
  "$MERLIN" monitor --web --port 0 --refresh 1 "$2" >"$1.out" 2>"$1.err" &
  MPID=$!
  CLEANUP+=("kill $MPID")
  URL=
  wait_until 30 grep -q '^merlin monitor: status page at http' "$1.out" &&
    URL=$(grep -o 'http://[^ ]*' "$1.out")
}
# render NAME: the page's DOM once its script has run, without the script itself (whose
# source names the same classes).
render() {
  timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$WORK/chromium-$1" --virtual-time-budget=5000 --dump-dom "$URL" \
    2>>"$WORK/chromium.log" | sed '/<script>/,/<\/script>/d' >"$1.html"
}
rows() { grep -o '<tr class="search-row"[^>]*>' "$1" | wc -l; }

# --- the ASHA demo, watched while it runs --------------------------------------------------
"$MERLIN" run --local -j2 --no-progress --vars SECONDS_PER_EPOCH=0.02 "$SPEC" >run.log 2>&1 &
RUN=$!
CLEANUP+=("kill $RUN")
wait_until 60 bash -c 'ls -d studies/tune_demo_*/merlin_info >/dev/null 2>&1'
ws=$(ls -d "$WORK"/studies/tune_demo_*)
serve demo "$ws"
check "monitor --web serves the running demo" test -n "$URL"
has_board() {
  curl -sf "${URL}api/status" >live.json &&
    "$PY" -c 'import json,sys; s=json.load(open(sys.argv[1]))["searches"]; sys.exit(0 if s and s[0]["best_trial"] is not None else 1)' live.json
}
check "/api/status has the search, with a leader, during the run" wait_until 120 has_board
render live
check "while it runs: a panel titled with the step, its counts and its leader" \
  grep -qE 'class="card search-board" data-instance="search"><h2>Search · search</h2><p class="note search-title">asha, lowest first: 27 trials, [0-9]+ at the full budget \(27\), .*, best [0-9.e+-]+ \(trial [0-9]+\)</p>' live.html
expect_eq "... and its best 10 trials" 10 "$(rows live.html)"

wait $RUN
expect_eq "the demo ran" 0 $?
best=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["trial"])' "$ws/search/best.json")
# The monitor refreshes every second: wait for its snapshot of the finished study.
done_board() {
  curl -sf "${URL}api/status" >final.json &&
    "$PY" -c 'import json,sys; s=json.load(open(sys.argv[1]))["searches"][0]; sys.exit(0 if s["waiting"] + s["running"] == 0 and s["completed"] else 1)' final.json
}
check "/api/status: the finished search" wait_until 30 done_board
render final
first=$(grep -o '<tr class="search-row"[^>]*>\(<td[^>]*>[^<]*</td>\)\{6\}' final.html | head -1 |
  sed -E 's/<[^>]*>/ /g' | xargs)
expect_eq "once done: its first row is best.json's trial, rank 1, at the full budget, completed" \
  "1 $best 3 27 completed" "$(echo "$first" | awk '{print $1, $2, $3, $4, $6}')"
check "... the title names the same leader" grep -qE "best [0-9.e+-]+ \(trial $best\)</p>" final.html
check "... the configuration columns X and Y" grep -q '<th>state</th><th>X</th><th>Y</th>' final.html
check "... and a line saying how many more" grep -q '17 more; <code>merlin status --trials 0</code>' final.html
kill $MPID; wait $MPID 2>/dev/null

# --- configuration values are text, never HTML --------------------------------------------
cat >hostile.yaml <<'Y'
description: {name: hostile, description: choices that are HTML}
env: {variables: {OUTPUT_PATH: ./studies}}
study:
  - name: pick
    run:
      cmd: |
        echo "{\"value\": $(MERLIN_TRIAL)}" >>$(TRIAL_DIR)/m.jsonl
      tune:
        method: random
        trials: 3
        seed: 5
        space:
          C: {choice: ['<img src=x onerror=alert(1)>', '<b class="pwned">bold</b>']}
        metric: {file: m.jsonl, key: value, mode: min}
Y
"$MERLIN" run --local -j1 --no-progress hostile.yaml >hostile.log 2>&1
expect_eq "the hostile study ran" 0 $?
hws=$(ls -d "$WORK"/studies/hostile_*)
serve hostile "$hws"
curl -sf "${URL}api/status" >hostile.json
check "/api/status carries the choices as they were written" "$PY" - hostile.json <<'P'
import json, sys
(s,) = json.load(open(sys.argv[1]))["searches"]
vals = {r["C"] for r in s["leaderboard"]}
assert len(s["leaderboard"]) == 3 and vals <= {'<img src=x onerror=alert(1)>', '<b class="pwned">bold</b>'}, s
P
render hostile
expect_eq "the page shows its 3 trials" 3 "$(rows hostile.html)"
check "... each choice as text in its row" \
  grep -qE '<tr class="search-row".*<td class="mono">&lt;(img src=x onerror=alert\(1\)|b class="pwned"&gt;bold&lt;/b)&gt;</td></tr>' hostile.html
check "... and no element made of one" bash -c '! grep -qE "<img|<b class=\"pwned" hostile.html'
kill $MPID; wait $MPID 2>/dev/null

# --- no search, no panel ------------------------------------------------------------------
cat >plain.yaml <<'Y'
description: {name: plain, description: no tune step}
env: {variables: {OUTPUT_PATH: ./studies}}
study:
  - name: hello
    run: {cmd: echo hello}
Y
"$MERLIN" run --local --no-progress plain.yaml >plain.log 2>&1
pws=$(ls -d "$WORK"/studies/plain_*)
serve plain "$pws"
curl -sf "${URL}api/status" >plain.json
expect_eq "a study without a search: searches is []" "[]" \
  "$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["searches"])' plain.json)"
render plain
check "... the page draws its step and no search panel" \
  bash -c 'grep -q "data-step=\"hello\"" plain.html && grep -q "<div id=\"searches\"[^>]*hidden" plain.html && ! grep -q search-board plain.html'
kill $MPID; wait $MPID 2>/dev/null
finish
