# Sourced by tests that need a private rabbitmq-server (tests/integration/rabbitmq_run.sh,
# tests/bench/rabbitmq_bench.sh). Needs WORK (a directory of the caller's) and a CLEANUP
# array (commands the caller runs at exit).

# A private rabbitmq-server for this test, as tests/fakes/rabbitmq_server.cc starts one: its
# own node name, free loopback ports (AMQP, and AMQP over TLS with a CA of its own made here),
# its own dirs, started as its own session. Exports RABBIT_PORT, RABBIT_TLS_PORT and
# RABBIT_CA (the CA certificate to verify it with; the server's name is localhost); stopped
# at exit. Without rabbitmq-server the test skips (exit 77) and says why. RABBIT_NETNS (a
# network namespace) and RABBIT_ADDR (its address there) put the server on another "node"
# (tests/cluster/netns_lib.sh); guest may then log in from other hosts.
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
  echo '[].' >"$RABBIT_DIR/enabled_plugins"
  CLEANUP+=("stop_rabbitmq")
  # Free ports from the kernel, and a few tries: another test's server may take one of them
  # between here and the node's start (Erlang then fails with 'nodistribution').
  local attempt ports
  for attempt in 1 2 3 4 5; do
    ports=$(python3 -c 'import socket
ss = [socket.socket() for _ in range(4)]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))')
    read -r RABBIT_PORT RABBIT_TLS_PORT RABBIT_DIST RABBIT_EPMD <<<"$ports"
    cat >"$RABBIT_DIR/rabbitmq.conf" <<C
listeners.tcp.default = ${RABBIT_ADDR:-127.0.0.1}:$RABBIT_PORT
listeners.ssl.default = ${RABBIT_ADDR:-127.0.0.1}:$RABBIT_TLS_PORT
ssl_options.cacertfile = $t/ca.pem
ssl_options.certfile = $t/server.pem
ssl_options.keyfile = $t/server.key
ssl_options.verify = verify_none
ssl_options.fail_if_no_peer_cert = false
loopback_users.guest = $([ -n "${RABBIT_ADDR:-}" ] && echo false || echo true)
C
    rm -rf "$RABBIT_DIR/mnesia" && mkdir -p "$RABBIT_DIR/mnesia"
    if rabbit_launch; then
      export RABBIT_PORT RABBIT_TLS_PORT RABBIT_CA=$t/ca.pem
      return 0
    fi
    stop_rabbitmq
  done
  echo "FAIL rabbitmq-server did not start in 5 tries; its log:"; tail -20 "$RABBIT_DIR/console.log"
  exit 1
}
# Starts the node configured by start_rabbitmq (its database kept) and waits until the AMQP
# port answers the protocol header with a method frame (type 1); 1 if it does not.
rabbit_launch() {
  local in=()
  [ -n "${RABBIT_NETNS:-}" ] && in=(ip netns exec "$RABBIT_NETNS")
  # Every node (an Erlang VM and its epmd) in one namespace: the node registers with the epmd
  # on its own loopback.
  (export HOME=$RABBIT_DIR/home RABBITMQ_NODENAME=merlin_$RABBIT_PORT@localhost \
     RABBITMQ_NODE_IP_ADDRESS=${RABBIT_ADDR:-127.0.0.1} RABBITMQ_NODE_PORT=$RABBIT_PORT \
     RABBITMQ_DIST_PORT=$RABBIT_DIST ERL_EPMD_PORT=$RABBIT_EPMD ERL_EPMD_ADDRESS=127.0.0.1 \
     RABBITMQ_MNESIA_BASE=$RABBIT_DIR/mnesia RABBITMQ_LOG_BASE=$RABBIT_DIR/log \
     RABBITMQ_CONFIG_FILE=$RABBIT_DIR/rabbitmq \
     RABBITMQ_ENABLED_PLUGINS_FILE=$RABBIT_DIR/enabled_plugins \
     RABBITMQ_PID_FILE=$RABBIT_DIR/pid
   exec "${in[@]}" setsid /usr/lib/rabbitmq/bin/rabbitmq-server) </dev/null >>"$RABBIT_DIR/console.log" 2>&1 &
  RABBIT_PID=$!
  disown "$RABBIT_PID" 2>/dev/null || true
  local i
  for i in $(seq 600); do
    if timeout 1 "${in[@]}" bash -c "exec 3<>/dev/tcp/${RABBIT_ADDR:-127.0.0.1}/$RABBIT_PORT && printf 'AMQP\\0\\0\\11\\1' >&3 && head -c1 <&3 | od -An -tx1 | grep -q 01" 2>/dev/null; then
      return 0
    fi
    kill -0 "$RABBIT_PID" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
# restart_rabbitmq: a clean stop (durable queues and persistent messages are on disk), then
# the same node again on the same ports.
restart_rabbitmq() {
  stop_rabbitmq
  rabbit_launch && return 0
  echo "FAIL rabbitmq-server did not start again; its log:"; tail -20 "$RABBIT_DIR/console.log"
  exit 1
}
stop_rabbitmq() {
  [ -n "${RABBIT_PID:-}" ] || return 0
  kill -TERM -- "-$RABBIT_PID" 2>/dev/null || true
  local i
  for i in $(seq 200); do kill -0 "$RABBIT_PID" 2>/dev/null || break; sleep 0.05; done
  kill -KILL -- "-$RABBIT_PID" 2>/dev/null || true
  local in=()
  [ -n "${RABBIT_NETNS:-}" ] && in=(ip netns exec "$RABBIT_NETNS")
  ERL_EPMD_PORT=$RABBIT_EPMD "${in[@]}" epmd -kill >/dev/null 2>&1 || true
  RABBIT_PID=
}
