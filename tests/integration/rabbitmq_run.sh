#!/usr/bin/env bash
# RabbitMQ as the broker and Redis as the results backend, as Merlin's sites run them (issue
# #11), against a real rabbitmq-server (over TLS, its certificate verified) and a real
# redis-server: the app.yaml Merlin's `config create` writes for RabbitMQ, filled in; a sampled
# study queued, run by two worker processes, its outputs equal to a local run's; every
# broker-backed command; a worker killed mid-task; the broker restarted mid-run; bad
# certificates and passwords.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/rabbitmq_lib.sh"
start_redis
start_rabbitmq
unset MERLIN_BROKER_URL
cp "$SRC/tests/integration/specs/psf_samples.csv" .
cp "$SRC/tests/integration/specs/param_samples_funnel.yaml" psf.yaml
printf 'guest\n' >rabbit.pass
chmod 600 rabbit.pass
app_yaml() {  # $1: the CA file the broker is verified with
  cat >app.yaml <<Y
broker:
    name: rabbitmq
    username: guest
    password: $WORK/rabbit.pass
    server: localhost
    port: $RABBIT_TLS_PORT
    vhost: /
    cert_reqs: required
    ca_certs: $1

results_backend:
    name: redis
    server: 127.0.0.1
    port: $REDIS_PORT
    db_num: 0
    encryption_key: ~/.merlin/encrypt_data_key

celery:
    overrides:
Y
}
app_yaml "$RABBIT_CA"

# --- connection checks and bad input ---------------------------------------------------------
"$MERLIN" info >info.txt 2>&1
check "info: both servers answer" grep -q "connection:  ok (RabbitMQ 3.*; results: redis " info.txt
check "info never prints the password" bash -c "! grep -q ':guest@' info.txt"

openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=other-ca -keyout other.key \
  -out other.pem >/dev/null 2>&1
app_yaml "$WORK/other.pem"
set +e
"$MERLIN" run psf.yaml >out.txt 2>err.txt
rc=$?
set -e
expect_eq "a certificate from another CA: exit 1" 1 "$rc"
check "a certificate from another CA: the handshake failed, naming the address" \
  grep -q "amqps://guest@localhost:$RABBIT_TLS_PORT/: the TLS handshake failed" err.txt
check "a certificate from another CA: no workspace left" test ! -e out
app_yaml "$RABBIT_CA"

printf 'wrong\n' >rabbit.pass
set +e
"$MERLIN" run psf.yaml >out.txt 2>err.txt
rc=$?
set -e
expect_eq "wrong password: exit 1" 1 "$rc"
check "wrong password: the broker's words" grep -q "the broker refused the login" err.txt
check "wrong password: never shown" bash -c "! grep -q wrong err.txt"
printf 'guest\n' >rabbit.pass

# --- a study end to end, two worker processes ------------------------------------------------
"$MERLIN" run psf.yaml >ws.txt 2>run.err
ws=$(cat ws.txt)
check "run prints the workspace" test -d "$ws/merlin_info"
check "run says how many tasks it queued" grep -q "queued study psf_.*: 22 tasks in 1 messages" run.err
check "the run record names the broker kind" grep -q "broker=rabbitmq" "$ws/merlin_info/run.env"
"$MERLIN" queue-info psf.yaml --format csv >qi.csv
expect_eq "queue-info: one message waiting in RabbitMQ" "$(basename "$ws"),merlin,1,0,0,0" "$(tail -1 qi.csv)"
"$MERLIN" run-workers psf.yaml --exit-when-done --concurrency 2 >w1.out 2>w1.err &
w1=$!
"$MERLIN" run-workers psf.yaml --exit-when-done --concurrency 2 >w2.out 2>w2.err &
w2=$!
CLEANUP+=("kill -9 $w1 $w2")
wait $w1; r1=$?
wait $w2; r2=$?
expect_eq "both workers exit 0 when done" "0 0" "$r1 $r2"
"$MERLIN" status "$ws" --format csv >status.csv
expect_eq "status from the results backend: every task done" \
  "step,instances,total,done,failed
setup,1,1,1,0
sim,2,10,10,0
post,2,10,10,0
collect,1,1,1,0" "$(cut -d, -f1-5 status.csv)"
mkdir local && (cd local && "$MERLIN" run --local --no-progress ../psf.yaml >/dev/null 2>&1)
lws=$(ls -d local/out/psf_*)
expect_eq "the funnel's output equals a local run's" "$(cat "$lws/collect/all.txt")" "$(cat "$ws/collect/all.txt")"
expect_eq "the workspace tree equals a local run's (but for the task journals)" \
  "$(tree_of "$lws" | grep -v -e merlin.journal -e run.lock)" "$(tree_of "$ws" | grep -v -e '^./merlin_info/tasks')"
executed=$(cat w1.err w2.err | sed -n 's/.* executed=\([0-9]*\) .*/\1/p' | awk '{s+=$1} END {print s}')
expect_eq "each of the 22 tasks ran once over the two workers" 22 "$executed"
"$MERLIN" monitor psf.yaml >mon.out 2>mon.err
expect_eq "monitor: the study is finished (exit 0)" 0 $?

# --- purge and restart -----------------------------------------------------------------------
"$MERLIN" run psf.yaml >ws2.txt 2>/dev/null
"$MERLIN" purge -f psf.yaml >purge.out 2>purge.err
check "purge says what it removed" grep -q "$(basename "$(cat ws2.txt)"): removed 1 tasks" purge.out
expect_eq "purge empties the study's queue" "$(basename "$(cat ws2.txt)"),merlin,0,0,0,0" \
  "$("$MERLIN" queue-info psf.yaml --format csv | grep "^$(basename "$(cat ws2.txt)"),")"
"$MERLIN" restart "$(cat ws2.txt)" 2>restart.err
check "restart says what it queued" grep -q "re-queued study .*: 0/22 tasks finished are kept (0 of them known by their marker only: their worker died before its commit), 0 failed ones run again, 1 messages queued" restart.err
"$MERLIN" run-workers psf.yaml --exit-when-done >/dev/null 2>&1
expect_eq "the restarted study completes" "22" \
  "$("$MERLIN" status "$(cat ws2.txt)" --format csv | tail -n +2 | cut -d, -f4 | awk '{s+=$1} END {print s}')"

# --- a worker killed mid-task: its reservation is taken over after the lease -----------------
sed -e 's/name: psf/name: slow/' \
    -e 's|cmd: echo "$(X2) $(N_NEW) $(A) $(B)" > result.txt|cmd: echo "$(X2) $(N_NEW) $(A) $(B)" > result.txt; echo x >> '"$WORK"'/runs.txt; sleep 2|' \
    psf.yaml >slow.yaml
"$MERLIN" run slow.yaml >ws3.txt 2>/dev/null
ws3=$(cat ws3.txt)
"$MERLIN" run-workers slow.yaml --concurrency 2 --lease 3 >k.out 2>k.err &
victim=$!
CLEANUP+=("kill -9 $victim")
wait_until 30 test -s "$WORK/runs.txt"
kill -9 $victim
wait $victim 2>/dev/null || true
"$MERLIN" run-workers slow.yaml --exit-when-done --concurrency 2 --lease 3 >k2.out 2>k2.err
expect_eq "after a kill -9 the study completes: 0 lost" "22" \
  "$("$MERLIN" status "$ws3" --format csv | tail -n +2 | cut -d, -f4 | awk '{s+=$1} END {print s}')"
expect_eq "0 failed" "0" \
  "$("$MERLIN" status "$ws3" --format csv | tail -n +2 | cut -d, -f5 | awk '{s+=$1} END {print s}')"
check "the dead worker's tasks were taken over" grep -q "task taken over" k2.err
expect_eq "the funnel's output equals a local run's" "$(cat "$lws/collect/all.txt")" "$(cat "$ws3/collect/all.txt")"

# --- RabbitMQ restarted mid-run: durable queues, the worker reconnects ------------------------
: >"$WORK/runs.txt"
sed 's/name: slow/name: bounce/' slow.yaml >bounce.yaml
"$MERLIN" run bounce.yaml >ws4.txt 2>/dev/null
ws4=$(cat ws4.txt)
"$MERLIN" run-workers bounce.yaml --exit-when-done --concurrency 2 >b.out 2>b.err &
bouncer=$!
CLEANUP+=("kill -9 $bouncer")
wait_until 30 test -s "$WORK/runs.txt"
restart_rabbitmq
wait $bouncer
expect_eq "across a broker restart the worker finishes and exits 0" 0 $?
expect_eq "across a broker restart: 22 done, 0 lost" "22" \
  "$("$MERLIN" status "$ws4" --format csv | tail -n +2 | cut -d, -f4 | awk '{s+=$1} END {print s}')"
expect_eq "across a broker restart: the funnel's output equals a local run's" \
  "$(cat "$lws/collect/all.txt")" "$(cat "$ws4/collect/all.txt")"

# --- plain amqp:// with the results backend named by the environment -------------------------
rm app.yaml
MERLIN_BROKER_URL=amqp://guest:guest@127.0.0.1:$RABBIT_PORT/ \
  MERLIN_RESULTS_BACKEND_URL=redis://127.0.0.1:$REDIS_PORT/0 "$MERLIN" info >info2.txt 2>&1
check "amqp:// and MERLIN_RESULTS_BACKEND_URL: info connects" grep -q "connection:  ok (RabbitMQ" info2.txt
check "info names the results backend and where it came from" \
  grep -qF "results:     redis://127.0.0.1:$REDIS_PORT/0 (from MERLIN_RESULTS_BACKEND_URL)" info2.txt
closed=1  # nothing listens on port 1
set +e
MERLIN_BROKER_URL=amqp://guest:guest@127.0.0.1:$closed/ \
  MERLIN_RESULTS_BACKEND_URL=redis://127.0.0.1:$REDIS_PORT/0 "$MERLIN" run psf.yaml >down.out 2>down.err
rc=$?
set -e
expect_eq "RabbitMQ down: exit 1" 1 "$rc"
check "RabbitMQ down: one line naming the address" \
  grep -q "^merlin: amqp://guest@127.0.0.1:$closed/: cannot connect (refused" down.err
check "RabbitMQ down: no workspace printed" test ! -s down.out
set +e
MERLIN_BROKER_URL=amqp://guest:guest@127.0.0.1:$RABBIT_PORT/ "$MERLIN" run psf.yaml >/dev/null 2>err.txt
rc=$?
set -e
expect_eq "amqp:// without a results backend: exit 2" 2 "$rc"
check "amqp:// without a results backend: says where to name one" grep -q "MERLIN_RESULTS_BACKEND_URL" err.txt
finish
