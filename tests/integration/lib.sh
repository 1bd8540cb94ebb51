# Sourced by the integration tests: $1 = merlin binary, $2 = source dir. Each test runs in its
# own temp dir, removed on success, kept (and named) on failure.
set -euo pipefail
MERLIN=$(realpath "$1")
SRC=$(realpath "$2")
WORK=$(mktemp -d /tmp/merlin-it.XXXXXX)
FAILS=0
PASSES=0
cd "$WORK"
CLEANUP=()  # commands run at exit, before the temp dir goes (servers, background workers)
on_exit() {
  local c
  for c in "${CLEANUP[@]}"; do eval "$c" >/dev/null 2>&1 || true; done
  if [ $FAILS -eq 0 ]; then rm -rf "$WORK"; else echo "kept $WORK"; fi
}
trap on_exit EXIT

pass() { PASSES=$((PASSES + 1)); echo "ok   $*"; }
fail() { FAILS=$((FAILS + 1)); echo "FAIL $*"; }
# check "description" command...: passes when the command succeeds
check() { local d=$1; shift; if "$@"; then pass "$d"; else fail "$d"; fi; }
# expect_eq "description" expected actual
expect_eq() {
  if [ "$2" == "$3" ]; then pass "$1"; else fail "$1"; diff <(echo "$2") <(echo "$3") | head -20 || true; fi
}
# workspace tree with the timestamp normalised, relative to the output dir
tree_of() { (cd "$1" && find . -mindepth 1 | sed -E 's/_[0-9]{8}-[0-9]{6}/_TIMESTAMP/' | LC_ALL=C sort); }
finish() {
  echo "$PASSES passed, $FAILS failed"
  [ $FAILS -eq 0 ]
}

# A private redis-server for this test: a free loopback port, its own dir, AOF on (everysec,
# no RDB), started in its own session so it never holds the test's output open. Exports
# REDIS_PORT, REDIS_DIR and MERLIN_BROKER_URL; stopped at exit. Without redis-server the test
# skips (exit 77) and says why.
redis_launch() {
  (cd "$REDIS_DIR" && exec setsid redis-server --port "$REDIS_PORT" --bind 127.0.0.1 \
    --dir "$REDIS_DIR" --appendonly yes --appendfsync everysec --save '' "$@") \
    </dev/null >>"$REDIS_DIR/redis.log" 2>&1 &
  REDIS_PID=$!
  disown "$REDIS_PID" 2>/dev/null || true  # no "Killed" job notice when a test kills it
  local i
  for i in $(seq 100); do
    redis-cli -p "$REDIS_PORT" ping 2>/dev/null | grep -qE 'PONG|NOAUTH' && return 0  # up
    kill -0 "$REDIS_PID" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}
start_redis() {
  if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
    echo "SKIP: redis-server/redis-cli not found (apt-get install redis-server)"
    exit 77
  fi
  REDIS_DIR=$WORK/redis
  mkdir -p "$REDIS_DIR"
  local try
  for try in $(seq 20); do
    REDIS_PORT=$((20000 + RANDOM % 30000))
    if redis_launch "$@"; then
      export REDIS_PORT REDIS_DIR MERLIN_BROKER_URL=redis://127.0.0.1:$REDIS_PORT/0
      CLEANUP+=("stop_redis")
      return 0
    fi
    kill "$REDIS_PID" 2>/dev/null || true
  done
  echo "FAIL could not start redis-server; its log:"; tail -20 "$REDIS_DIR/redis.log"
  exit 1
}
# stop_redis [-9]: SIGTERM (flushes the AOF) or SIGKILL, and wait for it to go.
stop_redis() {
  [ -n "${REDIS_PID:-}" ] || return 0
  kill ${1:--TERM} "$REDIS_PID" 2>/dev/null || true
  local i
  for i in $(seq 200); do kill -0 "$REDIS_PID" 2>/dev/null || break; sleep 0.05; done
  REDIS_PID=
}
# wait_until SECONDS command...: polls (every 0.1 s) until the command succeeds; 1 on timeout.
wait_until() {
  local limit=$(($1 * 10)) i
  shift
  for i in $(seq "$limit"); do "$@" && return 0; sleep 0.1; done
  return 1
}

# A private rabbitmq-server for this test, as tests/fakes/rabbitmq_server.cc starts one: its
# own node name, free loopback ports (AMQP, and AMQP over TLS with a CA of its own made here),
# its own dirs, started as its own session. Exports RABBIT_PORT, RABBIT_TLS_PORT and
# RABBIT_CA (the CA certificate to verify it with; the server's name is localhost); stopped
# at exit. Without rabbitmq-server the test skips (exit 77) and says why.
start_rabbitmq() {
  local bin=/usr/lib/rabbitmq/bin/rabbitmq-server
  if [ ! -x "$bin" ] || ! command -v openssl >/dev/null; then
    echo "SKIP: rabbitmq-server or openssl not found (containers/install-deps.sh installs them)"
    exit 77
  fi
  RABBIT_DIR=$WORK/rabbit
  mkdir -p "$RABBIT_DIR"/{mnesia,log,home,tls}
  local t=$RABBIT_DIR/tls
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=merlin-test-ca \
    -keyout "$t/ca.key" -out "$t/ca.pem" >/dev/null 2>&1
  openssl req -newkey rsa:2048 -nodes -subj /CN=localhost -keyout "$t/server.key" \
    -out "$t/server.csr" >/dev/null 2>&1
  printf 'subjectAltName=DNS:localhost\n' >"$t/san.ext"
  openssl x509 -req -in "$t/server.csr" -CA "$t/ca.pem" -CAkey "$t/ca.key" -CAcreateserial \
    -days 2 -extfile "$t/san.ext" -out "$t/server.pem" >/dev/null 2>&1
  chmod 644 "$t"/*
  RABBIT_PORT=$((20000 + RANDOM % 30000))
  RABBIT_TLS_PORT=$((RABBIT_PORT + 1))
  local dist=$((RABBIT_PORT + 2)) epmd=$((RABBIT_PORT + 3))
  cat >"$RABBIT_DIR/rabbitmq.conf" <<C
listeners.tcp.default = 127.0.0.1:$RABBIT_PORT
listeners.ssl.default = 127.0.0.1:$RABBIT_TLS_PORT
ssl_options.cacertfile = $t/ca.pem
ssl_options.certfile = $t/server.pem
ssl_options.keyfile = $t/server.key
ssl_options.verify = verify_none
ssl_options.fail_if_no_peer_cert = false
loopback_users.guest = true
C
  echo '[].' >"$RABBIT_DIR/enabled_plugins"
  (export HOME=$RABBIT_DIR/home RABBITMQ_NODENAME=merlin_$RABBIT_PORT@localhost \
     RABBITMQ_NODE_IP_ADDRESS=127.0.0.1 RABBITMQ_NODE_PORT=$RABBIT_PORT \
     RABBITMQ_DIST_PORT=$dist ERL_EPMD_PORT=$epmd ERL_EPMD_ADDRESS=127.0.0.1 \
     RABBITMQ_MNESIA_BASE=$RABBIT_DIR/mnesia RABBITMQ_LOG_BASE=$RABBIT_DIR/log \
     RABBITMQ_CONFIG_FILE=$RABBIT_DIR/rabbitmq \
     RABBITMQ_ENABLED_PLUGINS_FILE=$RABBIT_DIR/enabled_plugins \
     RABBITMQ_PID_FILE=$RABBIT_DIR/pid
   exec setsid "$bin") </dev/null >>"$RABBIT_DIR/console.log" 2>&1 &
  RABBIT_PID=$!
  RABBIT_EPMD=$epmd
  disown "$RABBIT_PID" 2>/dev/null || true
  CLEANUP+=("stop_rabbitmq")
  # Ready when the AMQP port answers the protocol header with a method frame (type 1).
  local i
  for i in $(seq 600); do
    if timeout 1 bash -c "exec 3<>/dev/tcp/127.0.0.1/$RABBIT_PORT && printf 'AMQP\\0\\0\\11\\1' >&3 && head -c1 <&3 | od -An -tx1 | grep -q 01" 2>/dev/null; then
      export RABBIT_PORT RABBIT_TLS_PORT RABBIT_CA=$t/ca.pem
      return 0
    fi
    kill -0 "$RABBIT_PID" 2>/dev/null || break
    sleep 0.1
  done
  echo "FAIL rabbitmq-server did not start; its log:"; tail -20 "$RABBIT_DIR/console.log"
  exit 1
}
stop_rabbitmq() {
  [ -n "${RABBIT_PID:-}" ] || return 0
  kill -TERM -- "-$RABBIT_PID" 2>/dev/null || true
  local i
  for i in $(seq 200); do kill -0 "$RABBIT_PID" 2>/dev/null || break; sleep 0.05; done
  kill -KILL -- "-$RABBIT_PID" 2>/dev/null || true
  ERL_EPMD_PORT=$RABBIT_EPMD epmd -kill >/dev/null 2>&1 || true
  RABBIT_PID=
}
