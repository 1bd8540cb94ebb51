#!/usr/bin/env bash
# Fan-out and loops (docs/fanout.md) with RabbitMQ as the broker and Redis as the results
# backend: the successive-halving study (16/8/4 rows, stops after 3 of at most 4 iterations)
# queued, run by two worker processes; every row once, the report once, status from Redis.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/rabbitmq_lib.sh"
start_redis
start_rabbitmq
unset MERLIN_BROKER_URL
cp "$SRC/tests/integration/specs/fanout_loop.yaml" .
printf 'guest\n' >rabbit.pass
chmod 600 rabbit.pass
cat >app.yaml <<Y
broker:
    name: rabbitmq
    username: guest
    password: $WORK/rabbit.pass
    server: localhost
    port: $RABBIT_TLS_PORT
    vhost: /
    cert_reqs: required
    ca_certs: $RABBIT_CA

results_backend:
    name: redis
    server: 127.0.0.1
    port: $REDIS_PORT
    db_num: 0
Y
"$MERLIN" run fanout_loop.yaml >ws.txt 2>run.err
ws=$(cat ws.txt)
check "run queues the study" test -d "$ws/merlin_info"
"$MERLIN" run-workers fanout_loop.yaml --exit-when-done --concurrency 2 >w1.out 2>w1.err &
w1=$!
"$MERLIN" run-workers fanout_loop.yaml --exit-when-done --concurrency 2 >w2.out 2>w2.err &
w2=$!
CLEANUP+=("kill -9 $w1 $w2")
wait $w1; r1=$?
wait $w2; r2=$?
expect_eq "both workers exit 0" "0 0" "$r1 $r2"
expect_eq "iterations 1-3 ran 16, 8 and 4 rows, each once" \
  "$( (seq 1 16 | sed 's/^/1 /'; seq 1 8 | sed 's/^/2 /'; seq 1 4 | sed 's/^/3 /') | sort)" \
  "$(sort trials.log)"
expect_eq "select decided three times" "1 16
2 8
3 4" "$(cat selects.log)"
expect_eq "report ran once, after the loop" 1 "$(grep -c report report.log)"
expect_eq "status from the results backend" \
  "propose,4,3,3,0
trial,4,28,28,0
select,4,3,3,0
report,1,1,1,0" "$("$MERLIN" status "$ws" --format csv | tail -n +2 | cut -d, -f1-5)"
finish
