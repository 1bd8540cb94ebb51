#!/usr/bin/env bash
# Redis ACL users (docs/security.md): a real redis-server whose default user is off; the
# submitter queues under the submitter ACL, two workers run the study under EXACTLY the worker
# ACL of docs/security.md (read from the page), the observer watches under its ACL; the study
# completes and ACL LOG holds no denial. The worker user is refused what it should not do, and
# a wrong password is one clear line, at once.
source "$(dirname "$0")/lib.sh"
command -v openssl >/dev/null || { echo "SKIP: openssl not found (apt-get install openssl)"; exit 77; }
DOC=$SRC/docs/security.md
# The aclfile line of a role, as docs/security.md gives it (the line after its marker).
acl_line() { awk -v m="<!-- acl:$1 -->" '$0 == m { f = 1; next } f && /^user / { print; exit }' "$DOC"; }
for role in worker submitter observer; do
  [ -n "$(acl_line $role)" ] || { echo "FAIL docs/security.md has no '<!-- acl:$role -->' line"; exit 1; }
done
ADMIN_PW=$(openssl rand -hex 16)
W_PW=$(openssl rand -hex 16)
S_PW=$(openssl rand -hex 16)
O_PW=$(openssl rand -hex 16)
{
  echo "user default off"
  echo "user admin on >$ADMIN_PW ~* &* +@all"
  acl_line submitter | sed "s/>PASSWORD/>$S_PW/"
  acl_line observer | sed "s/>PASSWORD/>$O_PW/"
} >users.acl
chmod 600 users.acl
start_redis --aclfile "$WORK/users.acl"
admin() { redis-cli -p "$REDIS_PORT" --user admin --pass "$ADMIN_PW" --no-auth-warning "$@"; }
as_worker() { redis-cli -p "$REDIS_PORT" --user merlin-worker --pass "$W_PW" --no-auth-warning "$@"; }
anonymous_refused() { redis-cli -p "$REDIS_PORT" get x 2>&1 | grep -q NOAUTH; }
check "the default user is off: an anonymous client is refused" anonymous_refused

SUBMIT=redis://merlin-submit:$S_PW@127.0.0.1:$REDIS_PORT/0
OBSERVE=redis://merlin-observer:$O_PW@127.0.0.1:$REDIS_PORT/0
cp "$SRC/tests/integration/specs/acl_study.yaml" "$SRC/tests/integration/specs/acl_samples.csv" .
# Another study on the same Redis, which the worker must not reach.
cat >other.yaml <<'Y'
description: {name: other, description: another study on the same Redis}
study:
  - name: s
    run: {cmd: echo other}
Y
run_rc() { set +e; "$@"; RC=$?; set -e; }

# --- the submitter queues both studies -------------------------------------------------------
run_rc env MERLIN_BROKER_URL="$SUBMIT" "$MERLIN" run other.yaml >other.ws 2>other.err
expect_eq "submitter ACL: run (another study) exits 0" 0 "$RC"
run_rc env MERLIN_BROKER_URL="$SUBMIT" "$MERLIN" run acl_study.yaml >acl.ws 2>acl.err
expect_eq "submitter ACL: run exits 0" 0 "$RC"
ws=$(cat acl.ws)
KEY=$(basename "$ws")
OTHER=$(basename "$(cat other.ws)")
check "run prints the study key" grep -q "queued study $KEY: " acl.err

# --- the worker user, exactly as documented, for this study ----------------------------------
line=$(acl_line worker | sed "s/>PASSWORD/>$W_PW/; s/STUDY/$KEY/g")
read -ra rules <<<"${line#user }"
expect_eq "ACL SETUSER takes the documented worker line" OK "$(admin ACL SETUSER "${rules[@]}")"
# The worker reads app.yaml: Merlin's `username` key and a password file.
export HOME=$WORK/home
mkdir -p "$HOME/.merlin"
printf '%s\n' "$W_PW" >"$HOME/.merlin/worker.pass"
chmod 600 "$HOME/.merlin/worker.pass"
cat >"$HOME/.merlin/app.yaml" <<Y
broker:
  name: redis
  server: 127.0.0.1
  port: $REDIS_PORT
  username: merlin-worker
  password: worker.pass
Y
unset MERLIN_BROKER_URL
admin ACL LOG RESET >/dev/null
"$MERLIN" run-workers acl_study.yaml --exit-when-done --concurrency 2 --lease 1 >w1.out 2>w1.err &
w1=$!
"$MERLIN" run-workers acl_study.yaml --exit-when-done --concurrency 2 --lease 1 >w2.out 2>w2.err &
w2=$!
CLEANUP+=("kill -9 $w1 $w2")
# While they run: the observer sees them.
seen() { env MERLIN_BROKER_URL="$OBSERVE" "$MERLIN" query-workers >qw.out 2>qw.err && grep -q default_worker qw.out; }
check "observer ACL: query-workers sees the running workers" wait_until 60 seen
set +e
wait $w1; r1=$?
wait $w2; r2=$?
set -e
expect_eq "worker ACL: both workers exit 0" "0 0" "$r1 $r2"
check "the slow step (2 s, lease 1 s) finished" test -f "$ws/slow/slept.txt"
once() { test -f "$ws/slow/slow.out" && ! grep -q "==== merlin: attempt" "$ws/slow/slow.out"; }
check "the slow step ran once: its lease was renewed, not lost" once
check "the retried step ran twice" test -f "$ws/retry_once/retried.txt"
check "the retry went through the delayed set" grep -q "attempt 2 (retry" "$ws/retry_once/retry_once.out"

# --- the observer and the submitter's other commands ----------------------------------------
run_rc env MERLIN_BROKER_URL="$OBSERVE" "$MERLIN" status "$ws" --format csv >st.csv 2>st.err
expect_eq "observer ACL: status exits 0" 0 "$RC"
expect_eq "observer ACL: every step done, none failed" 0 \
  "$(tail -n +2 st.csv | awk -F, '$3 != $4 || $5 != 0 { bad++ } END { print bad + 0 }')"
expect_eq "observer ACL: five steps listed" 5 "$(tail -n +2 st.csv | wc -l)"
for c in "status $ws" "detailed-status $ws" "queue-info acl_study.yaml" "queue-info acl_study.yaml --format json" \
  "query-workers" "monitor acl_study.yaml" "info"; do
  run_rc env MERLIN_BROKER_URL="$OBSERVE" "$MERLIN" $c >obs.out 2>obs.err
  expect_eq "observer ACL: $c exits 0" 0 "$RC"
done
for c in "stop-workers" "purge other.yaml -f" "restart $ws" "queue-info other.yaml"; do
  run_rc env MERLIN_BROKER_URL="$SUBMIT" "$MERLIN" $c >sub.out 2>sub.err
  expect_eq "submitter ACL: $c exits 0" 0 "$RC"
done

log=$(admin ACL LOG 100)
expect_eq "ACL LOG: no denial for any role (worker, submitter, observer)" "" "$log"

# --- what the worker user may not do ---------------------------------------------------------
denied() { as_worker "$@" 2>&1 | grep -qE "NOPERM|can't access"; }
check "worker refused: FLUSHALL" denied FLUSHALL
check "worker refused: KEYS *" denied KEYS '*'
check "worker refused: CONFIG GET" denied CONFIG GET requirepass
check "worker refused: another study's keys" denied HGETALL "merlin:$OTHER:meta"
check "worker refused: another study's keys from a script" \
  denied EVAL "return redis.call('HGET', ARGV[1], 'workspace')" 0 "merlin:$OTHER:meta"
check "worker refused: writing the study list" denied ZADD merlin:studies 1 x
own_study() { as_worker HGET "merlin:$KEY:meta" workspace | grep -q "$KEY"; }
check "worker allowed: its own study" own_study
logged() { admin ACL LOG 100 | grep -q merlin-worker; }
check "the refusals are in ACL LOG as merlin-worker" logged

# --- a wrong password: one clear line, at once, never the password -----------------------------
WRONG=wrong-$W_PW
printf '%s\n' "$WRONG" >"$HOME/.merlin/worker.pass"
start=$(date +%s)
run_rc env MERLIN_BROKER_RETRY=60 "$MERLIN" status "$ws" >wp.out 2>wp.err
took=$(($(date +%s) - start))
expect_eq "wrong password: exit 1" 1 "$RC"
expect_eq "wrong password: one line naming the server, the refusal and the user" \
  "merlin: redis 127.0.0.1:$REDIS_PORT: WRONGPASS invalid username-password pair or user is disabled. (user 'merlin-worker', the password from $HOME/.merlin/app.yaml)" \
  "$(cat wp.err)"
check "wrong password: not retried for the 60 s budget (took ${took} s)" test "$took" -lt 20
check "wrong password: shown nowhere" bash -c "! grep -q -- '$WRONG' wp.out wp.err"
printf '%s\n' "$W_PW" >"$HOME/.merlin/worker.pass"
chmod 644 "$HOME/.merlin/worker.pass"
run_rc "$MERLIN" status "$ws" >wr.out 2>wr.err
expect_eq "a password file everyone may read: exit 2" 2 "$RC"
check "a password file everyone may read: says how to fix" grep -q "chmod 600" wr.err
check "a password file everyone may read: not shown" bash -c "! grep -q -- '$W_PW' wr.out wr.err"
finish
