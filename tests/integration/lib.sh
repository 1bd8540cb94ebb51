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
  local rc=$? c
  # A command that failed outside a check ended the test (set -e): never silently.
  if [ $rc != 0 ] && [ $rc != 77 ] && [ $FAILS -eq 0 ]; then
    fail "the test stopped at an unexpected error (exit $rc) after $PASSES checks: $BASH_COMMAND"
  fi
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
# need_python MODULE...: sets PY to Debian's /usr/bin/python3 (the python3 first on PATH may be
# another one, without Debian's packages) and skips (exit 77) unless it imports every MODULE.
# two_workers DIR SPEC SECONDS [merlin run args...]: queues SPEC from DIR, then runs two
# `run-workers --exit-when-done` at once there (each bounded by SECONDS, output in
# DIR/workersN.out/.err); checks both steps and says how long the workers took.
two_workers() {
  local dir=$1 spec=$2 secs=$3; shift 3
  mkdir -p "$dir"
  (cd "$dir" && "$MERLIN" run "$spec" "$@" >run.out 2>run.err)
  expect_eq "workers: the study is queued" 0 $?
  local start rc1 rc2
  start=$(date +%s)
  (cd "$dir" && timeout "$secs" "$MERLIN" run-workers "$spec" --exit-when-done >workers1.out 2>workers1.err) &
  local w1=$!
  (cd "$dir" && timeout "$secs" "$MERLIN" run-workers "$spec" --exit-when-done >workers2.out 2>workers2.err) &
  local w2=$!
  wait $w1; rc1=$?
  wait $w2; rc2=$?
  expect_eq "workers: both exit 0 (in $(( $(date +%s) - start )) s)" "0 0" "$rc1 $rc2"
}

need_python() {
  PY=/usr/bin/python3
  local m
  for m in "$@"; do
    "$PY" -c "import $m" 2>/dev/null && continue
    echo "SKIP: $PY cannot import $m (apt-get install $(printf 'python3-%s ' "$@"| sed 's/ $//'))"
    exit 77
  done
}
# need_merlin_train: sets TRAIN to the merlin-train beside $MERLIN, or skips (exit 77).
need_merlin_train() {
  TRAIN=$(dirname "$MERLIN")/merlin-train
  [ -x "$TRAIN" ] && return 0
  echo "SKIP: $TRAIN not built (needs libtorch-dev and MPI: apt-get install libtorch-dev libopenmpi-dev, then reconfigure)"
  exit 77
}
# wait_until SECONDS command...: polls (every 0.1 s) until the command succeeds; 1 on timeout.
wait_until() {
  local limit=$(($1 * 10)) i
  shift
  for i in $(seq "$limit"); do "$@" && return 0; sleep 0.1; done
  return 1
}

