#!/usr/bin/env bash
# Redis over TLS (rediss://, docs/tls.md) against a real `redis-server --tls-port`, with a CA
# made here by openssl (and a second CA nobody trusts; a server certificate for DNS:localhost
# and IP:127.0.0.1; a client certificate):
#  - a study end to end, workers and all, as an ACL user (not the default user) whose password
#    is read from a 0600 file named by app.yaml in Merlin's form (name: rediss, cert_reqs, ...);
#  - refused at once (one connection, not retried for the 30 s budget), with one clear line: a
#    wrong host name, an untrusted CA, a client without a certificate when the server wants
#    one, a key file readable by everyone, a plain redis:// to the TLS port, rediss:// to a
#    plain port;
#  - ssl_cert_reqs=none connects and warns once; the client certificate is accepted;
#  - the server killed and restarted mid-study: the workers reconnect and finish.
source "$(dirname "$0")/lib.sh"
source "$SRC/tests/integration/faults_lib.sh"
for tool in openssl redis-server redis-cli; do
  command -v $tool >/dev/null || { echo "SKIP: $tool not found"; exit 77; }
done
unset MERLIN_BROKER_URL MERLIN_RESULTS_BACKEND_URL

# --- the certificates ----------------------------------------------------------------------------
mkdir -p pki
(
  cd pki
  ec="-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
  openssl req -x509 $ec -keyout ca.key -out ca.crt -days 2 -subj "/CN=Merlin Test CA"
  openssl req -x509 $ec -keyout other-ca.key -out other-ca.crt -days 2 -subj "/CN=Other CA"
  openssl req $ec -keyout server.key -out server.csr -subj "/CN=localhost"
  printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >server.ext
  openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 \
    -extfile server.ext -out server.crt
  openssl req $ec -keyout client.key -out client.csr -subj "/CN=merlin-worker"
  printf 'extendedKeyUsage=clientAuth\n' >client.ext
  openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 \
    -extfile client.ext -out client.crt
  chmod 600 ./*.key
) >pki/openssl.log 2>&1
CA=$WORK/pki/ca.crt

# --- the server: TLS only (--port 0), on 127.0.0.1 and 127.0.0.2 (not in its certificate) -------
TLS_DIR=$WORK/tls-redis
mkdir -p "$TLS_DIR"
ADMIN_PW=admin-$RANDOM$RANDOM
# admin: redis-cli as the test's own user (the default user is switched off below).
admin() {
  redis-cli --tls --cacert "$CA" --cert "$WORK/pki/client.crt" --key "$WORK/pki/client.key" \
    -p "$TLS_PORT" --user admin --pass "$ADMIN_PW" --no-auth-warning "$@"
}
tls_launch() {  # starts redis-server on $TLS_PORT; 0 when it answers
  (cd "$TLS_DIR" && exec setsid redis-server --port 0 --tls-port "$TLS_PORT" \
    --bind 127.0.0.1 127.0.0.2 --tls-cert-file "$WORK/pki/server.crt" \
    --tls-key-file "$WORK/pki/server.key" --tls-ca-cert-file "$CA" --tls-auth-clients no \
    --dir "$TLS_DIR" --appendonly yes --appendfsync always --save '' \
    --aclfile "$TLS_DIR/users.acl") </dev/null >>"$TLS_DIR/redis.log" 2>&1 &
  TLS_PID=$!
  disown "$TLS_PID" 2>/dev/null || true
  local i
  for i in $(seq 100); do
    admin ping 2>/dev/null | grep -q PONG && return 0
    redis-cli --tls --cacert "$CA" -p "$TLS_PORT" ping 2>/dev/null | grep -q PONG && return 0
    kill -0 "$TLS_PID" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}
# The users, kept in an ACL file so that a restarted server has them: the test's admin, the
# study's user `merlin` (its keys merlin:*, its channels, every command but the dangerous
# ones, INFO excepted: commands check the server with it), and the default user off (nothing
# works without logging in).
WORKER_PW=w0rker-$RANDOM$RANDOM
cat >"$TLS_DIR/users.acl" <<ACL
user admin on >$ADMIN_PW ~* &* +@all
user merlin on >$WORKER_PW ~merlin:* &* +@all -@dangerous +info
user default off nopass ~* &* +@all
ACL
started=0
for try in $(seq 20); do
  TLS_PORT=$((20000 + RANDOM % 30000))
  if tls_launch; then started=1; break; fi
  kill "$TLS_PID" 2>/dev/null || true
done
if [ $started = 0 ]; then
  if grep -q "not built with TLS" "$TLS_DIR/redis.log"; then
    echo "SKIP: this redis-server has no TLS: $(grep "TLS" "$TLS_DIR/redis.log" | tail -1)"
    exit 77
  fi
  echo "FAIL could not start redis-server with TLS; its log:"; tail -20 "$TLS_DIR/redis.log"
  exit 1
fi
CLEANUP+=("kill -9 \$TLS_PID")
check "the server takes no client as the default user" \
  bash -c "redis-cli --tls --cacert '$CA' -p $TLS_PORT ping 2>&1 | grep -q NOAUTH"
# connections: how many connections the server has seen, the one asking included: those that
# became clients, and the failed handshakes it logs ("Error accepting a client connection").
connections() {
  local clients failed
  clients=$(admin info stats | tr -d '\r' | sed -n 's/^total_connections_received://p')
  failed=$(grep -c "Error accepting a client connection" "$TLS_DIR/redis.log" || true)
  echo $((clients + failed))
}

# --- app.yaml in Merlin's form, the password in a 0600 file ---------------------------------------
mkdir -p home/.merlin
printf '%s\n' "$WORKER_PW" >home/.merlin/redis.pass
chmod 600 home/.merlin/redis.pass
cat >home/.merlin/app.yaml <<Y
broker:
  name: rediss
  username: merlin
  password: redis.pass
  server: localhost
  port: $TLS_PORT
  db_num: 0
  cert_reqs: required
  ca_certs: $CA
Y
export HOME=$WORK/home

# --- a study end to end over TLS, as the ACL user ---------------------------------------------
cp "$SRC/tests/integration/specs/param_samples_funnel.yaml" psf.yaml
cp "$SRC/tests/integration/specs/psf_samples.csv" .
"$MERLIN" info >info.txt 2>&1
check "info names the rediss broker without its password" grep -qF "broker:      rediss://merlin:***@localhost:$TLS_PORT/0" info.txt
check "info connects over TLS" grep -q "connection:  ok (redis 7" info.txt
"$MERLIN" run psf.yaml >ws.txt 2>run.err
ws=$(cat ws.txt)
check "run queues the study over TLS" grep -q "queued study psf_.*: 22 tasks" run.err
# The workers log in as the minimal worker user of docs/security.md, for this study only.
acl_line() {
  awk -v m="<!-- acl:$1 -->" '$0 == m { f = 1; next } f && /^user / { print; exit }' \
    "$SRC/docs/security.md"
}
WORKER2_PW=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
line=$(acl_line worker | sed "s/>PASSWORD/>$WORKER2_PW/; s/STUDY/$(basename "$ws")/g")
read -ra rules <<<"${line#user }"
expect_eq "the documented worker ACL is taken over TLS" OK "$(admin ACL SETUSER "${rules[@]}")"
mkdir -p "$WORK/whome/.merlin"
printf '%s\n' "$WORKER2_PW" >"$WORK/whome/.merlin/redis.pass"
chmod 600 "$WORK/whome/.merlin/redis.pass"
sed 's/username: merlin$/username: merlin-worker/' home/.merlin/app.yaml >"$WORK/whome/.merlin/app.yaml"
check "the workers' app.yaml names the worker user" grep -q "username: merlin-worker" "$WORK/whome/.merlin/app.yaml"
admin ACL LOG RESET >/dev/null
HOME=$WORK/whome "$MERLIN" run-workers psf.yaml --exit-when-done --concurrency 2 >w1.out 2>w1.err &
w1=$!
HOME=$WORK/whome "$MERLIN" run-workers psf.yaml --exit-when-done --concurrency 2 >w2.out 2>w2.err &
w2=$!
CLEANUP+=("kill -9 $w1 $w2")
set +e
wait $w1; r1=$?
wait $w2; r2=$?
set -e
expect_eq "both TLS workers exit 0 when done" "0 0" "$r1 $r2"
expect_eq "status over TLS: every task done" "setup,1,1,1,0
sim,2,10,10,0
post,2,10,10,0
collect,1,1,1,0" "$("$MERLIN" status "$ws" --format csv | tail -n +2 | cut -d, -f1-5)"
check "the study's outputs are there" test -s "$ws/collect/all.txt"
expect_eq "the worker ACL was refused nothing over TLS (ACL LOG)" 0 "$(admin ACL LOG | grep -c . || true)"
expect_eq "the study's keys are under merlin: (the ACL user's only keys)" "" \
  "$(admin --scan | grep -v '^merlin:' || true)"
check "nothing printed the passwords" bash -c "! grep -rqe '$WORKER_PW' -e '$WORKER2_PW' ./*.out ./*.err ./*.txt '$ws/merlin_info'"

# refused: runs `merlin queue-info` with the broker URL $1, MERLIN_BROKER_RETRY=30; sets rc, err
# and tried (the connections the server accepted for it).
refused_run() {
  local before after
  before=$(connections)
  set +e
  MERLIN_BROKER_RETRY=30 "$MERLIN" "${@:2}" --broker "$1" >r.out 2>r.err
  rc=$?
  set -e
  after=$(connections)
  tried=$((after - before - 1))  # less the `connections` call's own
  err=$(grep -v '^\[' r.err || true)  # the error, without the log's notes
}
url() { echo "rediss://merlin:$WORKER_PW@$1:$TLS_PORT/0?ssl_ca_certs=$2${3:+&$3}"; }

# --- a wrong host name: refused at once, once --------------------------------------------------
refused_run "$(url 127.0.0.2 "$CA")" queue-info psf.yaml
expect_eq "wrong host name: exit 1" 1 "$rc"
expect_eq "wrong host name: one line naming the address and the names in the certificate" \
  "merlin: redis rediss://127.0.0.2:$TLS_PORT: TLS: certificate verify failed: the server's certificate is for \"localhost\", 127.0.0.1, not \"127.0.0.2\"" \
  "$err"
expect_eq "wrong host name: one connection, no retry" 1 "$tried"
# A worker retries a lost server for the budget (30 s here); a certificate is not retried.
refused_run "$(url 127.0.0.2 "$CA")" run-workers psf.yaml --exit-when-done
expect_eq "wrong host name, a worker: exit 1" 1 "$rc"
check "wrong host name, a worker: says so" grep -q "not \"127.0.0.2\"" r.err
expect_eq "wrong host name, a worker: one connection, no retry for the 30 s budget" 1 "$tried"

# --- an untrusted CA ---------------------------------------------------------------------------
refused_run "$(url localhost "$WORK/pki/other-ca.crt")" queue-info psf.yaml
expect_eq "untrusted CA: exit 1" 1 "$rc"
expect_eq "untrusted CA: names the CA file looked in" \
  "merlin: redis rediss://localhost:$TLS_PORT: TLS: certificate verify failed: the server's certificate (issued by CN=Merlin Test CA) is not signed by a CA in $WORK/pki/other-ca.crt (ssl_ca_certs)" \
  "$err"
expect_eq "untrusted CA: one connection" 1 "$tried"
refused_run "$(url localhost "$WORK/pki/nope.crt")" queue-info psf.yaml
expect_eq "a missing CA file: exit 2, before any connection" "2 0" "$rc $tried"
check "a missing CA file: says which" grep -q "TLS: cannot read $WORK/pki/nope.crt (ssl_ca_certs): no such file or directory" r.err
# No ssl_ca_certs: the system's CAs, which do not know the test's CA.
set +e
MERLIN_BROKER_RETRY=30 "$MERLIN" queue-info psf.yaml \
  --broker "rediss://merlin:$WORKER_PW@localhost:$TLS_PORT/0" >r.out 2>r.err
rc=$?
set -e
expect_eq "no ssl_ca_certs: the system's CAs, which refuse it" 1 "$rc"
check "no ssl_ca_certs: says so" grep -q "is not signed by a CA in the system's trusted CAs" r.err

# --- ssl_cert_reqs=none: connects, and warns once ----------------------------------------------
"$MERLIN" queue-info psf.yaml \
  --broker "rediss://merlin:$WORKER_PW@127.0.0.2:$TLS_PORT/0?ssl_cert_reqs=CERT_NONE" >none.out 2>none.err
check "ssl_cert_reqs=none: connects (a name and a CA that would not do)" grep -q "psf_" none.out
expect_eq "ssl_cert_reqs=none: one warning line" 1 "$(grep -c 'ssl_cert_reqs is none: the server.s certificate is NOT verified' none.err)"

# --- a plain redis:// to the TLS port ----------------------------------------------------------
set +e
MERLIN_BROKER_RETRY=1 "$MERLIN" queue-info psf.yaml \
  --broker "redis://merlin:$WORKER_PW@127.0.0.1:$TLS_PORT/0" >plain.out 2>plain.err
rc=$?
set -e
expect_eq "plain redis:// to the TLS port: exit 1" 1 "$rc"
check "plain redis:// to the TLS port: says the server closed the connection and to try rediss://" \
  grep -q "redis 127.0.0.1:$TLS_PORT: .* before its first reply (if it is a TLS port, use rediss://)" plain.err

# --- rediss:// to a plain port --------------------------------------------------------------------
start_redis  # lib.sh's plain server, in $WORK/redis
unset MERLIN_BROKER_URL
set +e
MERLIN_BROKER_RETRY=30 "$MERLIN" queue-info psf.yaml \
  --broker "rediss://127.0.0.1:$REDIS_PORT/0?ssl_ca_certs=$CA" >r.out 2>r.err
rc=$?
set -e
expect_eq "rediss:// to a plain port: exit 1" 1 "$rc"
check "rediss:// to a plain port: says it is no TLS port" grep -q "redis rediss://127.0.0.1:$REDIS_PORT: TLS: .*is this a plain Redis port? use redis:// for it" r.err
stop_redis

# --- the server wants client certificates (tls-auth-clients yes) ------------------------------
admin config set tls-auth-clients yes >/dev/null
refused_run "$(url localhost "$CA")" queue-info psf.yaml
expect_eq "no client certificate: exit 1" 1 "$rc"
expect_eq "no client certificate: one line saying what to give" \
  "merlin: redis rediss://localhost:$TLS_PORT: TLS: the server requires a client certificate: give ssl_certfile and ssl_keyfile (app.yaml: certfile, keyfile)" \
  "$err"
expect_eq "no client certificate: one connection" 1 "$tried"
cat >>home/.merlin/app.yaml <<Y
  certfile: $WORK/pki/client.crt
  keyfile: $WORK/pki/client.key
Y
"$MERLIN" queue-info psf.yaml >cert.out 2>cert.err
check "the client certificate is accepted" grep -q "psf_" cert.out
chmod 644 pki/client.key
set +e
"$MERLIN" queue-info psf.yaml >key.out 2>key.err
rc=$?
"$MERLIN" info >keyinfo.out 2>keyinfo.err
info_rc=$?
set -e
chmod 600 pki/client.key
# Issue #25: `info` agreed with nothing: it exited 1 where every other command exits 2.
expect_eq "a key readable by everyone: info exits 2 too, as run and queue-info do" 2 "$info_rc"
check "a key readable by everyone: info says why" \
  grep -qF "ssl_keyfile $WORK/pki/client.key is readable by everyone (mode 0644); run: chmod 600" keyinfo.out
expect_eq "a key readable by everyone: exit 2" 2 "$rc"
expect_eq "a key readable by everyone: refused as a password file is" \
  "merlin: redis rediss://localhost:$TLS_PORT: TLS: ssl_keyfile $WORK/pki/client.key is readable by everyone (mode 0644); run: chmod 600 $WORK/pki/client.key" \
  "$(grep -v '^\[' key.err)"

# --- the server killed and restarted mid-study --------------------------------------------------
N=200
many_study $N
ws=$("$MERLIN" run many.yaml 2>/dev/null)
"$MERLIN" run-workers many.yaml --exit-when-done --lease 3 >k.out 2>k.err &
worker=$!
CLEANUP+=("kill -9 $worker")
wait_until 60 bash -c "[ \$('$MERLIN' status '$ws' --format csv | tail -1 | cut -d, -f4) -ge 20 ]"
kill -9 "$TLS_PID"
for i in $(seq 100); do kill -0 "$TLS_PID" 2>/dev/null || break; sleep 0.05; done
check "the worker is still there with the server gone" kill -0 $worker
check "the server is back on its port" tls_launch
set +e
wait_until 120 bash -c "! kill -0 $worker 2>/dev/null"
wait $worker
rc=$?
set -e
expect_eq "restart: the worker reconnects over TLS and exits 0" 0 "$rc"
expect_eq "restart: every sample done, none failed" "sim,1,$N,$N,0" \
  "$("$MERLIN" status "$ws" --format csv | tail -1 | cut -d, -f1-5)"
expect_eq "restart: every sample ran" "$N" "$(sort -u "$ws/runs.log" | wc -l)"
finish
