#!/usr/bin/env bash
# The broker settings Merlin users have (issue #10), against real redis-servers: a Unix-socket
# Redis through redis+socket:// (a whole run), the app.yaml that Merlin's `config create`
# writes (rediss results backend, encryption_key, cert_reqs, a celery block) read with one
# note, a percent-encoded password, IPv6 [::1], and RabbitMQ and TLS said to be missing.
source "$(dirname "$0")/lib.sh"
if ! command -v redis-server >/dev/null; then echo "SKIP: redis-server not found"; exit 77; fi
set +e  # exit codes are what this test checks
unset MERLIN_BROKER_URL
export HOME=$WORK/home
mkdir -p "$HOME/.merlin"

cat >tiny.yaml <<'Y'
description: {name: tiny, description: one step per value}
env: {variables: {OUTPUT_PATH: ./studies}}
global.parameters:
  X: {values: [1, 2, 3], label: X.%%}
study:
  - name: s
    run: {cmd: echo $(X) > x.txt}
Y
# run_through URL NAME: queue tiny.yaml there and run it to the end with one worker.
run_through() {
  rm -rf studies
  "$MERLIN" run tiny.yaml --broker "$1" >run.out 2>run.err
  expect_eq "$2: run queues the study" 0 $?
  timeout 60 "$MERLIN" run-workers tiny.yaml --broker "$1" --exit-when-done >w.out 2>w.err
  expect_eq "$2: the worker finishes it" 0 $?
  expect_eq "$2: three tasks ran" "1 2 3" "$(cat studies/tiny_*/s/X.*/x.txt 2>/dev/null | sort | tr '\n' ' ' | sed 's/ $//')"
}

# A Redis on a Unix socket only (port 0: no TCP).
sock=$WORK/redis-sock/redis.sock
mkdir -p "$WORK/redis-sock"
(cd "$WORK/redis-sock" && exec setsid redis-server --port 0 --unixsocket "$sock" --unixsocketperm 700 \
  --save '' --appendonly no) </dev/null >"$WORK/redis-sock/log" 2>&1 &
SOCK_PID=$!
CLEANUP+=("kill $SOCK_PID")
wait_until 10 test -S "$sock" || fail "the socket redis did not start"
run_through "redis+socket://$sock?virtual_host=2" "redis+socket://"
check "redis+socket: the study is in database 2" test "$(redis-cli -s "$sock" -n 2 zcard merlin:studies)" -ge 1

# A TCP Redis with a password that needs percent-encoding.
start_redis --requirepass 'p@ss:w/rd'
unset MERLIN_BROKER_URL
run_through "redis://:p%40ss%3Aw%2Frd@127.0.0.1:$REDIS_PORT/0" "percent-encoded password"

# app.yaml as Merlin's `merlin config create` writes it, for a Redis broker.
printf 'p@ss:w/rd\n' >"$HOME/.merlin/redis.pass"
chmod 600 "$HOME/.merlin/redis.pass"
cat >"$HOME/.merlin/app.yaml" <<Y
broker:
    name: redis
    username: ''
    password: $HOME/.merlin/redis.pass
    server: 127.0.0.1
    port: $REDIS_PORT
    db_num: 1
    cert_reqs: none

results_backend:
    name: rediss
    username: ''
    password: <path to redis password file>
    server: <server name>
    encryption_key: ~/.merlin/encrypt_data_key
    port: <server port>
    db_num: 0
    cert_reqs: none

celery:
    overrides:
Y
"$MERLIN" info >info.out 2>info.err
expect_eq "Merlin's app.yaml: info reads it" 0 $?
expect_eq "Merlin's app.yaml: one line says what is not used" 1 "$(grep -c 'results_backend is not used.*ignored here: broker.cert_reqs, celery' info.err)"
rm -rf studies
"$MERLIN" run tiny.yaml >run.out 2>run.err
expect_eq "Merlin's app.yaml: run queues in db_num 1" "1" "$(redis-cli -p "$REDIS_PORT" -a 'p@ss:w/rd' --no-auth-warning -n 1 zcard merlin:studies)"

# RabbitMQ, as Merlin's default app.yaml names it, and TLS: said to be missing, exit 1.
cat >"$HOME/.merlin/app.yaml" <<'Y'
broker:
    name: rabbitmq
    username: merlin
    password: ~/.merlin/rabbit.pass
    server: rabbit.example.org
    port: 5671
    vhost: merlin
    cert_reqs: none
Y
"$MERLIN" queue-info >q.out 2>q.err
expect_eq "a rabbitmq broker in app.yaml: exit 1" 1 $?
check "... saying RabbitMQ is not in this build yet" grep -q "is RabbitMQ, which this build does not speak yet" q.err
"$MERLIN" queue-info --broker "amqps://merlin:s3cret@rabbit.example.org:5671//merlin" >q.out 2>q.err
expect_eq "an amqps:// URL: exit 1" 1 $?
check "... without showing the password" bash -c "grep -q RabbitMQ q.err && ! grep -q s3cret q.err"
"$MERLIN" queue-info --broker "rediss://:s3cret@127.0.0.1:6380/0?ssl_cert_reqs=none" >q.out 2>q.err
expect_eq "a rediss:// URL: exit 1" 1 $?
check "... saying TLS comes later, without the password" bash -c "grep -q 'Redis over TLS' q.err && ! grep -q s3cret q.err"
rm "$HOME/.merlin/app.yaml"

# IPv6 loopback, when this machine has it: a Redis bound to ::1 only.
if grep -q '^00000000000000000000000000000001 ' /proc/net/if_inet6 2>/dev/null; then
  port6=$((20000 + RANDOM % 30000))
  mkdir -p "$WORK/redis6"
  (cd "$WORK/redis6" && exec setsid redis-server --port "$port6" --bind ::1 --save '' \
    --appendonly no --requirepass 'p@ss:w/rd') </dev/null >"$WORK/redis6/log" 2>&1 &
  R6_PID=$!
  CLEANUP+=("kill $R6_PID")
  wait_until 10 bash -c "redis-cli -h ::1 -p $port6 ping 2>/dev/null | grep -q NOAUTH" ||
    fail "the IPv6 redis did not start"
  run_through "redis://:p%40ss%3Aw%2Frd@[::1]:$port6/3" "IPv6 [::1]"
else
  echo "SKIP (IPv6): this machine has no IPv6 loopback address"
fi
finish
