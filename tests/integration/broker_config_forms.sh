#!/usr/bin/env bash
# The broker settings Merlin users have (issue #10), against real redis-servers: a Unix-socket
# Redis through redis+socket:// and through app.yaml (whole runs), the app.yaml that Merlin's
# `config create` writes (rediss results backend, encryption_key, cert_reqs, a celery block)
# read with one note, a percent-encoded password, IPv6 [::1], `merlin config create`/`use`, and
# RabbitMQ refused with the words the docs give, and rediss brokers read and tried.
source "$(dirname "$0")/lib.sh"
if ! command -v redis-server >/dev/null; then echo "SKIP: redis-server not found"; exit 77; fi
set +e  # exit codes are what this test checks
unset MERLIN_BROKER_URL
export HOME=$WORK/home
mkdir -p "$HOME/.merlin" "$WORK/run"
cd "$WORK/run"  # no app.yaml here: Merlin would read one in the working directory first

cat >tiny.yaml <<'Y'
description: {name: tiny, description: one step per value}
env: {variables: {OUTPUT_PATH: ./studies}}
global.parameters:
  X: {values: [1, 2, 3], label: X.%%}
study:
  - name: s
    run: {cmd: echo $(X) > x.txt}
Y
# run_through NAME [URL]: queue tiny.yaml (at URL, else where app.yaml says) and run it to the
# end with one worker.
run_through() {
  local name=$1 flag=()
  [ -n "${2:-}" ] && flag=(--broker "$2")
  rm -rf studies
  "$MERLIN" run tiny.yaml "${flag[@]}" >run.out 2>run.err
  expect_eq "$name: run queues the study" 0 $?
  timeout 60 "$MERLIN" run-workers tiny.yaml "${flag[@]}" --exit-when-done >w.out 2>w.err
  expect_eq "$name: the worker finishes it" 0 $?
  expect_eq "$name: three tasks ran" "1 2 3" "$(cat studies/tiny_*/s/X.*/x.txt 2>/dev/null | sort | tr '\n' ' ' | sed 's/ $//')"
}
# refused NAME CODE MESSAGE command...: the command exits CODE saying MESSAGE (a whole line
# after "merlin: ") and shows no s3cret.
refused() {
  local name=$1 code=$2 message=$3
  shift 3
  "$@" >r.out 2>r.err
  expect_eq "$name: exit $code" "$code" $?
  check "$name: says it" grep -qxF "merlin: $message" r.err
  check "$name: shows no password" bash -c "! grep -q s3cret r.out r.err"
}

# A Redis on a Unix socket only (port 0: no TCP).
sock=$WORK/redis-sock/redis.sock
mkdir -p "$WORK/redis-sock"
(cd "$WORK/redis-sock" && exec setsid redis-server --port 0 --unixsocket "$sock" --unixsocketperm 700 \
  --save '' --appendonly no) </dev/null >"$WORK/redis-sock/log" 2>&1 &
SOCK_PID=$!
CLEANUP+=("kill $SOCK_PID")
wait_until 10 test -S "$sock" || fail "the socket redis did not start"
run_through "redis+socket://" "redis+socket://$sock?virtual_host=2"
check "redis+socket: the study is in database 2" test "$(redis-cli -s "$sock" -n 2 zcard merlin:studies)" -ge 1
# The same server named in app.yaml, as Merlin's redis+socket broker is.
cat >"$HOME/.merlin/app.yaml" <<Y
broker:
    name: redis+socket
    path: $sock
    db_num: 4
Y
run_through "app.yaml redis+socket"
check "app.yaml redis+socket: the study is in database 4" test "$(redis-cli -s "$sock" -n 4 zcard merlin:studies)" -ge 1

# A TCP Redis with a password that needs percent-encoding.
start_redis --requirepass 'p@ss:w/rd'
unset MERLIN_BROKER_URL
run_through "percent-encoded password" "redis://:p%40ss%3Aw%2Frd@127.0.0.1:$REDIS_PORT/0"
"$MERLIN" queue-info --broker "redis://:s3cret@127.0.0.1:$REDIS_PORT/0" >q.out 2>q.err
expect_eq "a wrong password: exit 1" 1 $?
check "a wrong password: the server's refusal, not the password" bash -c "grep -q WRONGPASS q.err && ! grep -q s3cret q.err"
check "... and where that password was given" grep -q "(the password from --broker)" q.err
MERLIN_BROKER_URL="redis://:s3cret@127.0.0.1:$REDIS_PORT/0" "$MERLIN" queue-info >q.out 2>q.err
check "... MERLIN_BROKER_URL named when it gave the password" grep -q "(the password from MERLIN_BROKER_URL)" q.err

# app.yaml as Merlin's `merlin config create` writes it, filled in for a Redis broker: the
# password file named as Merlin allows (relative to ~/.merlin), the results backend left with
# its placeholders and encryption key.
printf 'p@ss:w/rd\n' >"$HOME/.merlin/redis.pass"
chmod 600 "$HOME/.merlin/redis.pass"
cat >"$HOME/.merlin/app.yaml" <<Y
broker:
    name: redis
    # The username here must stay empty
    username: ''
    password: redis.pass
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
check "Merlin's app.yaml: info names the broker without its password" \
  grep -qF "broker:      redis://:***@127.0.0.1:$REDIS_PORT/1 (from $HOME/.merlin/app.yaml)" info.out
expect_eq "Merlin's app.yaml: one line names what is not used, and why" 1 \
  "$(grep -c "app.yaml: not used here: celery (Celery's own settings.*); broker.cert_reqs (a TLS setting, which a plain (non-TLS) server does not use); results_backend (a Redis broker keeps progress on its own server.*)" info.err)"
MERLIN_BROKER_URL="redis://127.0.0.1:$REDIS_PORT/2" "$MERLIN" info >info.out 2>info.err
expect_eq "MERLIN_BROKER_URL over that app.yaml: no line about the file's unused keys" "" \
  "$(grep 'not used here' info.err)"
MERLIN_BROKER_URL="redis://127.0.0.1:$REDIS_PORT/2" "$MERLIN" --log-level debug info >info.out 2>info.err
check "... unless asked for (--log-level debug)" grep -q "app.yaml: not used here" info.err
run_through "Merlin's app.yaml"
expect_eq "Merlin's app.yaml: the study is in db_num 1" "1" "$(redis-cli -p "$REDIS_PORT" -a 'p@ss:w/rd' --no-auth-warning -n 1 zcard merlin:studies)"

# broker.url, which Merlin uses in place of the other keys.
cat >"$HOME/.merlin/app.yaml" <<Y
broker:
    name: rabbitmq
    url: redis://:p%40ss%3Aw%2Frd@127.0.0.1:$REDIS_PORT/5
Y
"$MERLIN" info >info.out 2>info.err
expect_eq "app.yaml broker.url: info connects" 0 $?
check "app.yaml broker.url: database 5" grep -qF "redis://:***@127.0.0.1:$REDIS_PORT/5" info.out

# RabbitMQ as Merlin's default template names it, placeholders and all: exit 2, naming the
# first placeholder where it is (tests/integration/rabbitmq_run.sh runs it filled in).
cat >"$HOME/.merlin/app.yaml" <<'Y'
broker:
    name: rabbitmq
    username: <username>
    password: <path to rabbitmq password file>
    server: <rabbit server name>
    port: <server port>
    vhost: <vhost>
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
rabbit="$HOME/.merlin/app.yaml:5:13: broker.server is still the placeholder '<rabbit server name>': write the server's host name there"
rm -rf studies
refused "Merlin's rabbitmq template: queue-info" 2 "$rabbit" "$MERLIN" queue-info
refused "Merlin's rabbitmq template: run" 2 "$rabbit" "$MERLIN" run tiny.yaml
check "... and run left no workspace behind" test ! -e studies
"$MERLIN" run tiny.yaml --local >local.out 2>local.err
expect_eq "Merlin's rabbitmq template: run --local needs no broker" 0 $?
"$MERLIN" queue-info --broker "redis://:p%40ss%3Aw%2Frd@127.0.0.1:$REDIS_PORT/0" >q.out 2>q.err
expect_eq "Merlin's rabbitmq template: a --broker URL is used in its place" 0 $?
# A RabbitMQ URL takes app.yaml's results backend, which is Merlin's rediss template here: its
# placeholders are bad input as any block's.
refused "an amqps:// URL with the template's rediss results backend" 2 \
  "$HOME/.merlin/app.yaml:14:13: results_backend.server is still the placeholder '<server name>': write the server's host name there" \
  "$MERLIN" queue-info --broker "amqps://merlin:s3cret@rabbit.example.org:5671//merlin"

# Redis over TLS (docs/tls.md; tests/integration/redis_tls.sh runs it against a TLS server):
# Merlin's app_redis.yaml (a rediss broker), unfilled and filled, and a URL, are read and tried.
cat >"$HOME/.merlin/app.yaml" <<'Y'
broker:
    name: rediss
    username: ''
    password: <path to redis password file>
    server: <server name>
    port: <server port>
    db_num: 0
    cert_reqs: none
Y
refused "Merlin's rediss template" 2 \
  "$HOME/.merlin/app.yaml:5:13: broker.server is still the placeholder '<server name>': write the server's host name there" \
  "$MERLIN" queue-info
closed=$((REDIS_PORT + 1))
cat >"$HOME/.merlin/app.yaml" <<Y
broker:
    name: rediss
    username: ''
    password: s3cret
    server: 127.0.0.1
    port: $closed
    db_num: 0
    cert_reqs: required
Y
refused "a filled-in rediss broker is tried" 1 "redis rediss://127.0.0.1:$closed: connection refused" \
  "$MERLIN" queue-info
refused "a rediss:// URL is tried" 1 "redis rediss://127.0.0.1:$closed: connection refused" \
  "$MERLIN" queue-info --broker "rediss://:s3cret@127.0.0.1:$closed/0?ssl_cert_reqs=CERT_NONE"
refused "a bad ssl_cert_reqs" 2 \
  "--broker: broker URL 'rediss://:***@127.0.0.1:6380/0?ssl_cert_reqs=maybe': ssl_cert_reqs 'maybe' is none of CERT_NONE, CERT_OPTIONAL, CERT_REQUIRED (or none, optional, required) (expected redis://[[user]:password@]host[:port][/db])" \
  "$MERLIN" queue-info --broker "rediss://:s3cret@127.0.0.1:6380/0?ssl_cert_reqs=maybe"
rm "$HOME/.merlin/app.yaml"

# `merlin config create` writes the Redis form, private, and keeps an existing file.
"$MERLIN" config create >cc.out 2>cc.err
expect_eq "config create: exit 0" 0 $?
expect_eq "config create: mode 0600" 600 "$(stat -c %a "$HOME/.merlin/app.yaml")"
echo "# mine" >>"$HOME/.merlin/app.yaml"
"$MERLIN" config create >cc.out 2>cc.err
expect_eq "config create again: exit 0, as Merlin" 0 $?
check "config create again: the file is kept" grep -q '^# mine' "$HOME/.merlin/app.yaml"
check "config create again: says so" grep -q "exists and is left as it is (--force replaces it)" cc.err
"$MERLIN" config create --force >cc.out 2>cc.err
check "config create --force: replaces it" bash -c "! grep -q '^# mine' '$HOME/.merlin/app.yaml'"
"$MERLIN" config create --broker rabbitmq -o "$WORK/rabbit/app.yaml" >cc.out 2>cc.err
expect_eq "config create --broker rabbitmq: exit 0" 0 $?
check "config create --broker rabbitmq: a RabbitMQ broker" grep -q "^    name: rabbitmq" "$WORK/rabbit/app.yaml"
check "config create --broker rabbitmq: a Redis results backend" grep -q "^results_backend:" "$WORK/rabbit/app.yaml"
# A file written elsewhere, pointed at the test's Redis, and chosen with `config use`.
"$MERLIN" config create -o "$WORK/mine/app.yaml" >cc.out 2>cc.err
expect_eq "config create -o: exit 0" 0 $?
sed -i "s/port: 6379/port: $REDIS_PORT/; s|# password: ~/.merlin/redis.pass|password: ~/.merlin/redis.pass|" "$WORK/mine/app.yaml"
"$MERLIN" config use "$HOME/.merlin/app.yaml" >/dev/null 2>&1
"$MERLIN" config use "$WORK/mine/app.yaml" >cu.out 2>cu.err
expect_eq "config use: exit 0" 0 $?
expect_eq "config use: recorded where Merlin records it" "$WORK/mine/app.yaml" "$(cat "$HOME/.merlin/config_path.txt")"
"$MERLIN" info >info.out 2>info.err
expect_eq "config use: info reads that file and connects" 0 $?
check "config use: info names it" grep -qF "app config:  $WORK/mine/app.yaml" info.out
expect_eq "config use: nothing in it goes unused" "" "$(grep 'not used here' info.err)"
rm "$HOME/.merlin/config_path.txt"

# Merlin's own suite's forms (its tests 4-7): --test records config_path.txt beside the file,
# update-broker/update-backend set the block's keys as Merlin 1.13 does.
cfg=./CLI_TEST_MERLIN_CONFIG
"$MERLIN" config --test create -o $cfg/app.yaml >cc.out 2>cc.err
expect_eq "config --test create: exit 0" 0 $?
expect_eq "config --test: config_path.txt beside the file" "$PWD/CLI_TEST_MERLIN_CONFIG/app.yaml" "$(cat $cfg/config_path.txt)"
check "config --test: ~/.merlin/config_path.txt untouched" test ! -e "$HOME/.merlin/config_path.txt"
"$MERLIN" config update-broker -t rabbitmq --cf $cfg/app.yaml -u rabbitmq_user \
  --pf rabbitmq_password_file -s rabbitmq_server -p 5672 -v rabbitmq_vhost >ub.out 2>ub.err
expect_eq "config update-broker: exit 0" 0 $?
expect_eq "config update-broker: the broker block as Merlin writes it" \
  "name: rabbitmq|password: rabbitmq_password_file|port: 5672|server: rabbitmq_server|username: rabbitmq_user|vhost: rabbitmq_vhost" \
  "$(grep -Eo '(name|username|password|server|port|vhost): [a-z_0-9]+' $cfg/app.yaml | grep -E 'rabbitmq|5672' | LC_ALL=C sort | tr '\n' '|' | sed 's/|$//')"
"$MERLIN" config update-backend -t redis --cf $cfg/app.yaml --pf redis_password_file -s redis_server -p 6379 >ub.out 2>ub.err
expect_eq "config update-backend: exit 0" 0 $?
check "config update-backend: rediss, as Merlin writes a Redis" grep -q "name: rediss" $cfg/app.yaml
check "config update-backend: the rest" bash -c "grep -q 'password: redis_password_file' $cfg/app.yaml && grep -q 'server: redis_server' $cfg/app.yaml && grep -q 'port: 6379' $cfg/app.yaml"
check "config update-broker: the broker kept" grep -q "server: rabbitmq_server" $cfg/app.yaml
expect_eq "config update-*: still mode 0600" 600 "$(stat -c %a $cfg/app.yaml)"
set +e
"$MERLIN" config update-broker -t redis --cf $cfg/missing.yaml >ub.out 2>ub.err
rc=$?
set -e
expect_eq "config update-broker on a missing file: exit 2" 2 "$rc"
check "... naming it" grep -q "missing.yaml does not exist" ub.err
set +e
"$MERLIN" config update-broker -t redis --cf $cfg/app.yaml -p sixthousand >ub.out 2>ub.err
rc=$?
set -e
expect_eq "config update-broker with a port that is no number: exit 2" 2 "$rc"
# info with nothing configured (Merlin's test 8): a report, exit 0.
mkdir -p "$WORK/bare_home" "$WORK/bare_cwd"
set +e
(cd "$WORK/bare_cwd" && HOME=$WORK/bare_home MERLIN_BROKER_URL= "$MERLIN" info) >info.out 2>info.err
rc=$?
set -e

expect_eq "info with no broker configured: exit 0, as Merlin" 0 "$rc"
if grep -q "connection:  FAILED" info.out; then
  check "... saying how to configure one" grep -q "no broker is configured" info.out
fi

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
  run_through "IPv6 [::1]" "redis://:p%40ss%3Aw%2Frd@[::1]:$port6/3"
  cat >"$HOME/.merlin/app.yaml" <<Y
broker:
    name: redis
    server: '::1'
    port: $port6
    password: redis.pass
Y
  "$MERLIN" info >info.out 2>info.err
  expect_eq "IPv6 in app.yaml: info connects" 0 $?
  check "IPv6 in app.yaml: shown in brackets" grep -qF "redis://:***@[::1]:$port6/0" info.out
  rm "$HOME/.merlin/app.yaml"
else
  echo "SKIP (IPv6): this machine has no IPv6 loopback address; the [::1] cases did not run"
fi
finish
