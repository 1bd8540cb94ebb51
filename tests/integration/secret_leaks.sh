#!/usr/bin/env bash
# The broker's password never leaks (docs/security.md): one random secret is the password of
# a Redis ACL user, given once through a password file (app.yaml's username + password) and
# once inline in MERLIN_BROKER_URL. A distributed study at debug level, whose steps print
# their environment, the reporting commands in every format, --dry/--echo, and the error paths
# run; then every channel is searched for the secret, one check each: each command's stdout
# and stderr, the workspace's files, ~/.merlin (but the password file), every Redis key and
# value, the process list while the workers run, and finally every file the test made. The
# secret is never on a command line of the test itself (grep -f reads it from a file).
source "$(dirname "$0")/lib.sh"
command -v openssl >/dev/null || { echo "SKIP: openssl not found (apt-get install openssl)"; exit 77; }
umask 022  # what merlin writes must be private whatever the umask
SECRET=$(openssl rand -hex 24)
ADMIN_PW=$(openssl rand -hex 16)
PAT=$WORK/secret.pattern  # grep -f: the secret stays out of every argv
printf '%s\n' "$SECRET" >"$PAT"
chmod 600 "$PAT"
{
  echo "user default off"
  echo "user admin on >$ADMIN_PW ~* &* +@all"
  # The hash, not the password: the aclfile is no channel to search.
  echo "user leak on #$(printf %s "$SECRET" | sha256sum | cut -d' ' -f1) ~merlin:* &* +@all"
} >users.acl
start_redis --aclfile "$WORK/users.acl"
unset MERLIN_BROKER_URL
admin() { redis-cli -p "$REDIS_PORT" --user admin --pass "$ADMIN_PW" --no-auth-warning "$@"; }
export HOME=$WORK/home
mkdir -p "$HOME/.merlin"
PASSFILE=$HOME/.merlin/leak.pass

# clean FILE...: none of the files holds the secret (a leak names the files).
clean() {
  local hits
  hits=$(grep -lF -f "$PAT" "$@" 2>/dev/null || true)
  [ -z "$hits" ] || { echo "     the secret is in: $hits"; return 1; }
}
# clean_tree DIR [find arguments]: no file under DIR holds the secret.
clean_tree() {
  local dir=$1 hits
  shift
  hits=$(find "$dir" -type f "$@" -exec grep -lF -f "$PAT" {} + 2>/dev/null || true)
  [ -z "$hits" ] || { echo "     the secret is in: $hits"; return 1; }
}
# m NAME ARGS...: merlin at debug level, its stdout and stderr in out/NAME.{out,err}, RC set;
# then one check per channel.
mkdir -p out
m() {
  local name=$1
  shift
  set +e
  "$MERLIN" --log-level debug "$@" >"out/$name.out" 2>"out/$name.err"
  RC=$?
  set -e
  check "$name: stdout" clean "out/$name.out"
  check "$name: stderr" clean "out/$name.err"
}
# Every Redis key and value, read by type; the key names too.
dump_redis() {
  local k t
  admin --scan --pattern '*' | while IFS= read -r k; do
    printf 'key %s\n' "$k"
    t=$(admin TYPE "$k")
    case $t in
      string) admin GET "$k" ;;
      hash) admin HGETALL "$k" ;;
      set) admin SMEMBERS "$k" ;;
      zset) admin ZRANGE "$k" 0 -1 WITHSCORES ;;
      list) admin LRANGE "$k" 0 -1 ;;
      stream) admin XRANGE "$k" - + ;;
      *) echo "unknown type $t" ;;
    esac
  done
}

cat >leak.yaml <<'Y'
description: {name: leak, description: steps that print what they were given}
global.parameters:
  X: {values: [1, 2], label: X.%%}
study:
  - name: show
    run:
      cmd: |
        env > env.txt
        cat /proc/self/environ | tr '\0' '\n' > environ.txt
        tr '\0' '\n' < /proc/$PPID/environ > guardian_environ.txt
        cat /proc/self/environ; env
        echo "$(X)" >&2
  - name: asks
    run:
      cmd: |
        echo "broker url given: ${MERLIN_BROKER_URL:+yes}" > asked.txt
      pass_broker: true
      depends: [show_*]
  - name: after
    run:
      cmd: |
        echo "broker url given: ${MERLIN_BROKER_URL:+yes}" > plain.txt
        env | grep -c MERLIN_ >&2
      depends: [asks]
merlin:
  resources:
    workers:
      leakers: {args: --concurrency 2, steps: [all]}
  samples:
    column_labels: [V]
    file: $(MERLIN_INFO)/samples.csv
    generate:
      cmd: env > $(MERLIN_INFO)/generate_env.txt; printf '1\n2\n' > $(MERLIN_INFO)/samples.csv
Y
cat >bad.yaml <<'Y'
description: {name: bad, description: a run key misspelt}
study:
  - name: s
    run: {cmd: echo hi, depnds: [x]}
Y
cat >batch.yaml <<'Y'
description: {name: batchleak, description: a worker in a Slurm job (for --echo)}
batch: {type: slurm, bank: b, queue: q}
study:
  - name: s
    run: {cmd: echo hi}
merlin:
  resources:
    workers:
      injob: {args: --concurrency 1, steps: [all], nodes: 1}
Y

# round NAME ASKED: everything, with the broker configured as the caller set it up; ASKED is
# what the pass_broker step finds ("yes": the workers had MERLIN_BROKER_URL).
round() {
  local r=$1 asked=$2 ws w1 w2 i
  m "$r info" info
  expect_eq "$r: info connects" 0 "$RC"
  m "$r run --dry" run leak.yaml --dry
  m "$r run" run leak.yaml
  expect_eq "$r: run queues" 0 "$RC"
  ws=$(tail -1 "out/$r run.out")
  m "$r run-workers --echo" run-workers leak.yaml --echo
  m "$r run-workers --echo (batch job script)" run-workers batch.yaml --echo
  check "$r: --echo printed the job script" grep -q '#SBATCH' "out/$r run-workers --echo (batch job script).out"
  "$MERLIN" --log-level debug run-workers leak.yaml --exit-when-done >"out/$r w1.out" 2>"out/$r w1.err" &
  w1=$!
  "$MERLIN" --log-level debug run-workers leak.yaml --exit-when-done >"out/$r w2.out" 2>"out/$r w2.err" &
  w2=$!
  CLEANUP+=("kill -9 $w1 $w2")
  : >"out/$r ps.txt"
  for i in $(seq 600); do  # the process list, each 0.1 s while the workers run
    ps -eo args >>"out/$r ps.txt"
    kill -0 "$w1" 2>/dev/null || kill -0 "$w2" 2>/dev/null || break
    [ $((i % 10)) -eq 5 ] && m "$r query-workers (running)" query-workers
    sleep 0.1
  done
  set +e
  wait "$w1"; local r1=$?
  wait "$w2"; local r2=$?
  set -e
  expect_eq "$r: the workers exit 0" "0 0" "$r1 $r2"
  check "$r: workers' stdout" clean "out/$r w1.out" "out/$r w2.out"
  check "$r: workers' stderr (debug level)" clean "out/$r w1.err" "out/$r w2.err"
  check "$r: the workers were seen in the process list" grep -q "run-workers leak.yaml" "out/$r ps.txt"
  check "$r: process list (every argument of every process while the workers ran)" clean "out/$r ps.txt"
  expect_eq "$r: a step that asks (pass_broker) is given what its worker had" \
    "broker url given: $asked" "$(cat "$ws/asks/asked.txt" 2>/dev/null)"
  expect_eq "$r: a step that does not ask is not" "broker url given: " "$(cat "$ws/after/plain.txt" 2>/dev/null)"
  check "$r: the samples' generate.cmd printed its environment" test -s "$ws/merlin_info/generate_env.txt"
  check "$r: the step printed its environment" test -s "$ws/show/X.1/environ.txt"
  check "$r: the step's environment has no MERLIN_BROKER_URL" \
    bash -c "! grep -q '^MERLIN_BROKER_URL=' '$ws/show/X.1/env.txt'"
  check "$r: the step's guardian (its parent) was read" test -e "$ws/show/X.1/guardian_environ.txt"
  check "$r: the guardian's environment has no MERLIN_BROKER_URL (it is given none)" \
    bash -c "! grep -q '^MERLIN_BROKER_URL=' '$ws/show/X.1/guardian_environ.txt'"
  if [ "$asked" = yes ]; then
    check "$r: the step is told what was withheld (names only)" \
      grep -qx "MERLIN_CREDENTIALS_WITHHELD=MERLIN_BROKER_URL" "$ws/show/X.1/env.txt"
  fi
  for f in table json csv; do
    m "$r status --format $f" status "$ws" --format "$f"
    m "$r queue-info --format $f" queue-info leak.yaml --format "$f"
  done
  m "$r detailed-status" detailed-status "$ws"
  m "$r query-workers" query-workers
  m "$r monitor" monitor leak.yaml
  m "$r missing spec" run nosuch.yaml
  expect_eq "$r: a missing spec exits 2" 2 "$RC"
  m "$r bad spec" run bad.yaml
  expect_eq "$r: a bad spec exits 2" 2 "$RC"
  check "$r: workspace files (scripts, .out/.err, merlin_info, journals, logs)" clean_tree "$ws"
  check "$r: merlin_workers and other files run-workers wrote here" clean_tree . -path './merlin_workers/*'
  check "$r: ~/.merlin but the password file" clean_tree "$HOME/.merlin" ! -path "$PASSFILE"
  dump_redis >"redis-$r.txt"
  check "$r: Redis has keys to search" grep -q "^key merlin:studies" "redis-$r.txt"
  check "$r: every Redis key and value" clean "redis-$r.txt"
}

# --- round 1: app.yaml with Merlin's username and a password file -----------------------------
printf '%s\n' "$SECRET" >"$PASSFILE"
chmod 600 "$PASSFILE"
cat >"$HOME/.merlin/app.yaml" <<Y
broker:
  name: redis
  server: 127.0.0.1
  port: $REDIS_PORT
  username: leak
  password: leak.pass
Y
round file ""
# Error paths: another host, a wrong password (no retrying: MERLIN_BROKER_RETRY=0).
export MERLIN_BROKER_RETRY=0
sed -i "s/port: $REDIS_PORT/port: 1/" "$HOME/.merlin/app.yaml"
m "file wrong host" status leak.yaml
# Issue #25: the study finished, so with another broker configured (here a port where nothing
# listens) status answers from its task journals, with a note naming both brokers (masked).
expect_eq "file: status of the finished study, another host configured: from its journals" 0 "$RC"
m "file wrong host (queue-info)" queue-info leak.yaml
expect_eq "file: wrong host exits 1" 1 "$RC"
sed -i "s/port: 1\$/port: $REDIS_PORT/" "$HOME/.merlin/app.yaml"
printf 'x%s\n' "$SECRET" >"$PASSFILE"
m "file wrong password" queue-info leak.yaml
expect_eq "file: wrong password exits 1" 1 "$RC"
rm "$HOME/.merlin/app.yaml" "$PASSFILE"

# --- round 2: MERLIN_BROKER_URL (exported: an environment, never an argument) ------------------
export MERLIN_BROKER_URL="redis://leak:$SECRET@127.0.0.1:$REDIS_PORT/0"
unset MERLIN_BROKER_RETRY
round url yes
export MERLIN_BROKER_RETRY=0
export MERLIN_BROKER_URL="redis://leak:$SECRET@127.0.0.1:1/0"
m "url wrong host" status leak.yaml
expect_eq "url: status of the finished study, another host configured: from its journals" 0 "$RC"
m "url wrong host (queue-info)" queue-info leak.yaml
expect_eq "url: wrong host exits 1" 1 "$RC"
export MERLIN_BROKER_URL="redis://leak:x$SECRET@127.0.0.1:$REDIS_PORT/0"
m "url wrong password" status leak.yaml
expect_eq "url: wrong password exits 1" 1 "$RC"
export MERLIN_BROKER_URL="redis://leak:$SECRET@127.0.0.1:notaport/0"
m "url malformed" info
expect_eq "url: malformed exits 2" 2 "$RC"
unset MERLIN_BROKER_URL MERLIN_BROKER_RETRY

# --- the files merlin writes with credentials in them are private, whatever the umask ----------
m "config create" config create
expect_eq "config create under umask 022: app.yaml is 0600" 600 "$(stat -c %a "$HOME/.merlin/app.yaml")"

# --- and the catch-all: no file the test or merlin made holds it, but the password file ---------
check "every file under the test's directory" clean_tree "$WORK" ! -path "$PAT" ! -path "$PASSFILE"
finish
