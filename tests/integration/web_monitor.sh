#!/usr/bin/env bash
# `merlin monitor --web` (issue #15): a live distributed study on a real redis-server, watched
# through /api/status (types checked with Debian's python3), the page, /err/ (and its guard
# against leaving the workspace), the token required off loopback, a taken port (exit 3), the
# page rendered by headless Chromium during the run (DOM checked, screenshot kept), and the
# monitor's own verdict once the study is done. A local run's workspace is served too.
source "$(dirname "$0")/lib.sh"
set +e  # exit codes are what this test checks
need_python json
command -v curl >/dev/null || { echo "SKIP: curl not found (apt-get install curl)"; exit 77; }
start_redis

mkdir ran
seq 0 29 >samples.csv
cat >web.yaml <<'Y'
description: {name: webdemo, description: a study to watch}
env:
  variables:
    OUTPUT_PATH: ./studies
study:
  - name: sim
    run:
      cmd: |
        touch $(SPECROOT)/ran/$(X)
        # The first dozen tasks run through; the rest wait while `hold` is there, so the
        # study stays live (some done, some failed, two running) until the test lets it go.
        if [ "$(ls $(SPECROOT)/ran | wc -l)" -gt 12 ]; then
          while [ -e $(SPECROOT)/hold ]; do sleep 0.05; done
        fi
        sleep 0.2
        if [ $(($(X) % 3)) -eq 0 ]; then echo "sample $(X) failed on purpose" >&2; exit $(MERLIN_SOFT_FAIL); fi
        echo $(X)
      task_queue: sim_q
  - name: post
    run: {cmd: 'echo post', depends: [sim_*], task_queue: post_q}
merlin:
  resources:
    workers:
      simmer: {args: --concurrency 2, steps: [sim, post]}
  samples:
    file: $(SPECROOT)/samples.csv
    column_labels: [X]
    level_max_dirs: 10
Y

touch hold
"$MERLIN" run web.yaml >run.out 2>&1
expect_eq "run queues the study" 0 $?
ws=$(ls -d "$WORK"/studies/webdemo_*)
"$MERLIN" run-workers web.yaml --exit-when-done >workers.out 2>&1 &
WPID=$!
CLEANUP+=("rm -f $WORK/hold; kill $WPID")

# The page's URL is the one line on stdout; --port 0 took a free port.
start_monitor() {  # start_monitor NAME ARGS...: $NAME.out/.err, sets MPID and URL
  local name=$1
  shift
  "$MERLIN" monitor --web --port 0 --sleep 1 "$@" >"$name.out" 2>"$name.err" &
  MPID=$!
  CLEANUP+=("kill $MPID")
  URL=
  wait_until 30 grep -q '^merlin monitor: status page at http' "$name.out" &&
    URL=$(grep -o 'http://[^ ]*' "$name.out")
}
start_monitor mon web.yaml
MON=$MPID
check "monitor --web --port 0 prints the page's URL" test -n "$URL"
BASE=$URL
PORT=$(echo "$BASE" | sed -E 's#http://[^:]+:([0-9]+)/.*#\1#')
check "... on loopback, without a token" grep -qx "merlin monitor: status page at http://127.0.0.1:$PORT/" mon.out

live() {
  curl -sf "${BASE}api/status" >status.json && "$PY" - status.json <<'P'
import json, sys
s = json.load(open(sys.argv[1]))
sim = s["steps"][0]
ok = sim["done"] + sim["failed"] >= 8 and sim["failed"] >= 1 and sim["running"] >= 1 and s["workers"]
sys.exit(0 if ok else 1)
P
}
check "the study is live: tasks done and failed, some running, a worker" wait_until 60 live

check "/api/status: the schema's fields with their JSON types" "$PY" - status.json "$ws" <<'P'
import json, sys
s = json.load(open(sys.argv[1]))
ws = sys.argv[2]
num = (int, float)
assert s["schema"] == 1, s["schema"]
assert s["study"]["name"] == "webdemo" and s["study"]["workspace"] == ws, s["study"]
assert s["study"]["distributed"] is True and isinstance(s["study"]["broker"], str)
assert isinstance(s["updated_at"], float) and s["error"] is None
assert [x["step"] for x in s["steps"]] == ["sim", "post"], s["steps"]
for row in s["steps"] + [s["totals"]]:
    for k in ("instances", "total", "done", "failed", "running", "queued", "count_unknown"):
        assert type(row[k]) is int, (k, row)
    for k in ("mean_seconds", "rate_per_second"):
        assert isinstance(row[k], num) and not isinstance(row[k], bool), (k, row)
    assert row["eta_seconds"] is None or isinstance(row["eta_seconds"], num), row
sim = s["steps"][0]
assert sim["total"] == 30 and sim["queued"] + sim["running"] + sim["done"] + sim["failed"] == 30, sim
assert s["totals"]["total"] == 31, s["totals"]
assert type(s["failed_total"]) is int and s["failed_total"] == sim["failed"]
f = s["failures"]
assert isinstance(f, list) and 1 <= len(f) <= s["failed_total"], f
for x in f:
    assert x["step"] == "sim" and type(x["sample"]) is int and x["sample"] % 3 == 0, x
    assert x["return_code"] in ("MERLIN_SOFT_FAIL", None), x
    assert x["err_file"].endswith("/sim.err") and x["err_url"] == "/err/" + x["err_file"], x
    assert x["logs_command"] is None, x
w = s["workers"]
assert isinstance(w, list) and len(w) >= 1, w
for x in w:
    assert x["name"] == "simmer" and type(x["pid"]) is int and type(x["concurrency"]) is int, x
    assert x["queues"] == ["post_q", "sim_q"] or sorted(x["queues"]) == ["post_q", "sim_q"], x
    assert x["batch_job"] is None, x
    assert isinstance(x["heartbeat_age_seconds"], num) and x["alive"] is True, x
t = s["throughput"]
assert isinstance(t, list) and len(t) >= 1, t
assert all(isinstance(p["time"], float) and type(p["finished"]) is int for p in t), t
P

ERR_URL=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["failures"][0]["err_url"])' status.json)
curl -sf "${BASE%/}$ERR_URL" >err.txt
check "/err/...: the failed sample's stderr" grep -q "failed on purpose" err.txt
code=$(curl -s --path-as-is -o trav.txt -w '%{http_code}' "${BASE}err/../../web.yaml")
expect_eq "/err/ refuses a path out of the workspace (403)" 403 "$code"
check "... and shows nothing of it" bash -c "! grep -q webdemo trav.txt"
code=$(curl -s --path-as-is -o /dev/null -w '%{http_code}' "${BASE}err/%2e%2e/%2e%2e/web.yaml")
expect_eq "... also when the dots are percent-encoded" 403 "$code"
code=$(curl -s -o page.html -w '%{http_code} %{content_type}' "$BASE")
expect_eq "/ serves the page" "200 text/html; charset=utf-8" "$code"
check "... which polls /api/status and fetches nothing from elsewhere" \
  bash -c "grep -q 'api/status' page.html && ! grep -qE 'src=\"https?:|href=\"https?:' page.html"

# Off loopback a token is required: generated, printed once in the URL.
start_monitor any web.yaml --bind 0.0.0.0
ANY=$MPID
check "--bind 0.0.0.0: the URL carries a generated token" bash -c "echo '$URL' | grep -qE '\\?token=[0-9a-f]{64}$'"
APORT=$(echo "$URL" | sed -E 's#http://[^:]+:([0-9]+)/.*#\1#')
TOKEN=${URL##*token=}
WRONG=${TOKEN%?}$([ "${TOKEN: -1}" = 0 ] && echo 1 || echo 0)  # differs in its last digit
expect_eq "... without it: 401" 401 "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$APORT/api/status")"
expect_eq "... with a wrong one: 401" 401 "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$APORT/api/status?token=$WRONG")"
expect_eq "... with it as ?token=: 200" 200 "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$APORT/api/status?token=$TOKEN")"
expect_eq "... with it as a Bearer header: 200" 200 "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$APORT/")"
kill $ANY; wait $ANY 2>/dev/null

"$MERLIN" monitor --web --port "$PORT" web.yaml >taken.out 2>taken.err
expect_eq "a taken port: exit 3" 3 $?
check "... naming the address" grep -q "cannot listen on 127.0.0.1:$PORT: the port is taken" taken.err

"$MERLIN" monitor --port 9 web.yaml >/dev/null 2>noweb.err
expect_eq "--port without --web: exit 2" 2 $?
"$MERLIN" monitor --web --token short web.yaml >/dev/null 2>short.err
expect_eq "a --token shorter than 16 characters: exit 2" 2 $?
check "... saying so" grep -q "at least 16 characters" short.err

# Headless Chromium renders the page while the study runs (the JS has run: --virtual-time-budget).
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$CHROMIUM" ]; then
  chrome() {
    timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
      --disable-background-networking --disable-component-update --disable-sync \
      --user-data-dir="$WORK/chromium-$1" --virtual-time-budget=5000 "${@:2}" 2>>"$WORK/chromium.log"
  }
  # The DOM without the page's script, whose source names the same classes and words.
  chrome dom --dump-dom "$BASE" | sed '/<script>/,/<\/script>/d' >dom.html
  check "chromium: the DOM names both steps" \
    bash -c 'grep -q "data-step=\"sim\"" dom.html && grep -q "data-step=\"post\"" dom.html'
  check "chromium: a progress figure" grep -qE 'class="pct"[^>]*>[0-9]+\.[0-9]%<' dom.html
  check "chromium: a worker row" grep -q 'class="worker-row"' dom.html
  check "chromium: a failure row linking its .err" grep -qE 'class="failure-row".*href="/err/' dom.html
  check "chromium: the page says it is live, with the time of its data" \
    bash -c 'grep -q ">live<" dom.html && grep -q "last updated" dom.html'
  chrome shot --screenshot="$WORK/web.png" --window-size=1280,900 "$BASE" >/dev/null
  check "chromium: a 1280x900 screenshot of some substance" "$PY" - "$WORK/web.png" <<'P'
import struct, sys
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
w, h = struct.unpack(">II", data[16:24])
assert (w, h) == (1280, 900), (w, h)
assert len(data) > 20000, len(data)  # a blank page compresses to a few kB
P
  mkdir -p "$(dirname "$MERLIN")/test-artifacts"
  cp "$WORK/web.png" "$(dirname "$MERLIN")/test-artifacts/web_monitor.png" &&
    echo "screenshot: $(dirname "$MERLIN")/test-artifacts/web_monitor.png"
fi

# The study goes on; the monitor gives its verdict as without --web and stops serving.
rm -f hold
wait_until 120 bash -c "! kill -0 $MON 2>/dev/null"
wait $MON
expect_eq "once the study is done the monitor exits 0 (its verdict)" 0 $?
check "... and says so" grep -q "no work left for study webdemo" mon.err
wait $WPID
expect_eq "the workers finished the study" 0 $?

# A local run (lean: no .err per task): monitor --web serves its workspace until interrupted.
"$MERLIN" run --local --lean --no-progress web.yaml >local.out 2>&1
lws=$(ls -td "$WORK"/studies/webdemo_* | head -1)
start_monitor local "$lws"
curl -sf "${URL}api/status" >local.json
check "a local run's workspace: served, from its journal" "$PY" - local.json <<'P'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["study"]["distributed"] is False and s["workers"] == [], s
assert s["totals"]["done"] + s["totals"]["failed"] == 31, s["totals"]
assert s["failed_total"] == 10, s["failed_total"]
f = s["failures"][0]
assert s["study"]["lean"] is True and f["err_file"] is None, f
assert f["err_url"] == "/logs?step=sim&sample=%d" % f["sample"], f
assert f["logs_command"].startswith("merlin logs "), f
P
LERR=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["failures"][0]["err_url"])' local.json)
curl -sf "${URL%/}$LERR" >lean_err.txt
check "... a lean failure's stderr through /logs" grep -q "failed on purpose" lean_err.txt
curl -sf "$URL" >saved.html
kill -TERM $MPID
wait $MPID
expect_eq "... until interrupted (exit 0)" 0 $?
if [ -n "$CHROMIUM" ]; then
  # The page with no server behind it (the monitor has gone): it says so instead of going blank.
  chrome gone --dump-dom "file://$WORK/saved.html" | sed '/<script>/,/<\/script>/d' >gone.html
  check "chromium: a page whose server is gone says it is unreachable" \
    grep -q 'server unreachable' gone.html
fi

if [ -z "$CHROMIUM" ]; then
  echo "SKIP: chromium not found (apt-get install chromium): the page was not rendered"
  [ $FAILS -eq 0 ] && exit 77
fi
finish
