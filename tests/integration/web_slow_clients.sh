#!/usr/bin/env bash
# `merlin monitor --web` against clients that hold connections (issue #25, item 10), on a real
# server on loopback: slow clients that send their request head a byte a second (and connect
# again when cut off) and hundreds of idle connections do not keep the page from answering,
# do not delay the exit on SIGTERM, and do not delay the monitor's verdict once the workers
# are done. Also the web messages of item 12: `bearer` in any case, an absolute
# study.workspace, and an empty --bind refused.
source "$(dirname "$0")/lib.sh"
set +e  # exit codes are what this test checks
need_python json
command -v curl >/dev/null || { echo "SKIP: curl not found (apt-get install curl)"; exit 77; }
ulimit -f 1048576  # 512 MiB at most written by anything here
ulimit -n 4096 2>/dev/null || true

TOKEN=0123456789abcdef0123456789abcdef

# hold.py PORT SLOW IDLE SECONDS READY: SLOW clients send a request head one byte a second
# (connecting again when the server cuts them off), IDLE connections send nothing; all for at
# most SECONDS. READY is created once every connection is open.
cat >hold.py <<'P'
import socket, sys, time
port, slow, idle, seconds, ready = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
head = b"GET /api/status HTTP/1.1\r\nHost: x\r\n" + b"X-Slow: " + b"a" * 100000
def connect():
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.setblocking(False)
    return [s, 0]
slows = [connect() for _ in range(slow)]
idles = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(idle)]
open(ready, "w").close()
end = time.monotonic() + seconds
while time.monotonic() < end:
    for c in slows:
        try:
            c[0].send(head[c[1]:c[1] + 1])
            c[1] += 1
        except OSError:  # cut off by the server: come back, as an attacker would
            try:
                c[0].close()
                c[0], c[1] = connect()
            except OSError:
                pass
    time.sleep(1)
P

# A two-sample study, fast.
cat >tiny.yaml <<'Y'
description: {name: webslow, description: a study to watch}
env:
  variables:
    OUTPUT_PATH: ./studies
study:
  - name: sim
    run: {cmd: 'echo $(X)', task_queue: slow_q}
merlin:
  resources:
    workers:
      w: {args: --concurrency 2, steps: [sim]}
  samples:
    file: $(SPECROOT)/samples.csv
    column_labels: [X]
Y
seq 0 1 >samples.csv

start_monitor() {  # start_monitor NAME ARGS...: $NAME.out/.err, sets MPID, URL and PORT
  local name=$1
  shift
  "$MERLIN" monitor --web --port 0 --sleep 1 "$@" >"$name.out" 2>"$name.err" &
  MPID=$!
  CLEANUP+=("kill -9 $MPID")
  URL=
  wait_until 30 grep -q '^merlin monitor: status page at http' "$name.out" &&
    URL=$(grep -o 'http://[^ ]*' "$name.out")
  PORT=$(echo "$URL" | sed -E 's#http://[^:]+:([0-9]+)/.*#\1#')
}
start_hold() {  # start_hold SLOW IDLE SECONDS: hold.py against $PORT, waits until connected
  rm -f ready
  timeout $(($3 + 30)) "$PY" hold.py "$PORT" "$1" "$2" "$3" "$WORK/ready" 2>>hold.err &
  HPID=$!
  CLEANUP+=("kill $HPID")
  wait_until 30 test -e ready
}
# exits_within SECONDS PID: waits at most SECONDS for PID to end; its exit code in $EXITED
exits_within() {
  local i
  for i in $(seq $(($1 * 20))); do
    kill -0 "$2" 2>/dev/null || { wait "$2"; EXITED=$?; return 0; }
    sleep 0.05
  done
  EXITED=
  return 1
}
ms() { date +%s%3N; }

# A local run's workspace, named by a relative path.
"$MERLIN" run --local --no-progress tiny.yaml >local.out 2>&1
expect_eq "the local run succeeds" 0 $?
ws=$(ls -d "$WORK"/studies/webslow_*)
rel=studies/$(basename "$ws")

start_monitor local "$rel" --token "$TOKEN"
check "monitor --web serves a local workspace" test -n "$URL"
curl -sf --max-time 5 -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/api/status" >status.json
check "study.workspace is absolute when the workspace was given relative" \
  "$PY" -c 'import json,sys; w=json.load(open(sys.argv[1]))["study"]["workspace"]; assert w == sys.argv[2], (w, sys.argv[2])' \
  status.json "$ws"
for scheme in bearer BEARER; do
  expect_eq "the Authorization scheme is case-insensitive: '$scheme TOKEN' is 200" 200 \
    "$(curl -s --max-time 5 -o /dev/null -w '%{http_code}' -H "Authorization: $scheme $TOKEN" "http://127.0.0.1:$PORT/api/status")"
done

# 4 slow clients and 300 idle connections: the page still answers, with the token, at once.
start_hold 4 300 60
check "4 slow clients and 300 idle connections are connected" test -e ready
sleep 2  # the slow clients are inside their request heads
t0=$(ms)
code=$(curl -s --max-time 10 -o held.json -w '%{http_code}' -H "Authorization: Bearer $TOKEN" \
  "http://127.0.0.1:$PORT/api/status")
t1=$(ms)
echo "/api/status under 4 slow + 300 idle: $code in $((t1 - t0)) ms"
expect_eq "... /api/status answers 200 with the token" 200 "$code"
check "... within 3 s ($((t1 - t0)) ms)" test $((t1 - t0)) -lt 3000
sleep 6  # longer than a request head may take: the slow clients were cut off and came back
t0=$(ms)
code=$(curl -s --max-time 10 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/api/status?token=$TOKEN")
t1=$(ms)
echo "/api/status 6 s later: $code in $((t1 - t0)) ms"
expect_eq "... and still answers while they keep coming back" 200 "$code"
check "... within 3 s ($((t1 - t0)) ms)" test $((t1 - t0)) -lt 3000
code=$(curl -s --max-time 10 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/api/status")
expect_eq "... and still refuses a request without the token (401)" 401 "$code"

# SIGTERM while a slow client is inside its request head (the one that held the monitor 40 s).
kill $HPID 2>/dev/null; wait $HPID 2>/dev/null
start_hold 1 0 60
check "a slow client is connected" test -e ready
sleep 3  # the slow client is inside its request head
t0=$(ms)
kill -TERM $MPID
exits_within 10 $MPID
t1=$(ms)
echo "SIGTERM to exit with the clients connected: $((t1 - t0)) ms"
check "SIGTERM: the monitor exits within 2 s whatever the clients hold ($((t1 - t0)) ms)" \
  test -n "$EXITED" -a $((t1 - t0)) -lt 2000
expect_eq "... with exit 0" 0 "$EXITED"
kill $HPID 2>/dev/null; wait $HPID 2>/dev/null

timeout 20 "$MERLIN" monitor --web --port 0 --bind "" "$rel" >emptybind.out 2>emptybind.err
expect_eq "--bind '': exit 2" 2 $?
check "... saying what to give instead" grep -q -- "--bind: an empty address" emptybind.err
check "... and serving nothing" bash -c "! grep -q 'http://:' emptybind.out"

# A distributed study: a slow client connected when the workers finish does not delay the
# monitor's verdict.
if command -v redis-server >/dev/null && command -v redis-cli >/dev/null; then
  start_redis
  "$MERLIN" run tiny.yaml >run.out 2>&1
  expect_eq "the study is queued" 0 $?
  start_monitor dist tiny.yaml
  check "monitor --web watches the queued study" test -n "$URL"
  start_hold 1 20 60
  check "a slow client and 20 idle connections are connected" test -e ready
  timeout 120 "$MERLIN" run-workers tiny.yaml --exit-when-done >workers.out 2>&1
  expect_eq "the workers finish the study" 0 $?
  t0=$(ms)
  exits_within 30 $MPID
  t1=$(ms)
  echo "workers done to the monitor's verdict: $((t1 - t0)) ms"
  check "the verdict comes within 5 s of the workers' end ($((t1 - t0)) ms; --sleep 1)" \
    test -n "$EXITED" -a $((t1 - t0)) -lt 5000
  expect_eq "... exit 0: the study's work is done" 0 "$EXITED"
  kill $HPID 2>/dev/null; wait $HPID 2>/dev/null
else
  echo "SKIP: redis-server not found: the verdict with a held socket was not checked"
fi
finish
