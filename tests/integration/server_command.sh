#!/usr/bin/env bash
# `merlin server`: a user-space Redis in ./merlin_server (Merlin's place) with no other setup. With a
# HOME of its own and no broker in the environment, the test configures a free port, starts
# the server (files 0600, directory 0700, the password in no output, app.yaml pointed at it
# with the user's other settings kept), runs the hello example through it with `merlin run` +
# `merlin run-workers --exit-when-done`, stops it, starts it again and finds the study's state
# there; start twice, stop twice, restart; a taken port, a missing redis-server and bad flags
# get clear messages and their exit codes.
source "$(dirname "$0")/lib.sh"
umask 022  # the files merlin writes are private whatever the umask (docs/security.md)
if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
  echo "SKIP: redis-server/redis-cli not found (apt-get install redis-server)"
  exit 77
fi
set +e  # exit codes are what this test checks
export HOME=$WORK/home
mkdir -p "$HOME"
unset MERLIN_BROKER_URL MERLIN_RESULTS_BACKEND_URL MERLIN_SERVER_DIR MERLIN_REDIS_SERVER \
  MERLIN_BROKER_RETRY MERLIN_BROKER_TIMEOUT
SERVER=$WORK/merlin_server  # every `merlin server` command below runs in $WORK
OUT=$WORK/outputs  # every output of merlin, searched for the password at the end
mkdir -p "$OUT"
# m NAME ARGS...: runs merlin, its stdout in $OUT/NAME.out and stderr in $OUT/NAME.err
m() { local name=$1; shift; "$MERLIN" "$@" >"$OUT/$name.out" 2>"$OUT/$name.err"; }
# gone PID: the process has exited (a zombie waiting for its reaper counts as gone)
gone() { local st; st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null); [ -z "$st" ] || [ "$st" == Z ]; }
listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# A port nobody listens on (another test may take it before the server does: start retries).
pick_port() {
  local p
  while :; do
    p=$((20000 + RANDOM % 30000))
    listening "$p" || { echo "$p"; return; }
  done
}
CLEANUP+=("\"$MERLIN\" server stop")

m status0 server status
expect_eq "status before init: exit 1" 1 $?
check "status before init says so" grep -q "has not been initialized" "$OUT/status0.out"

# The user's own app.yaml: a comment and a celery block stay, the old broker is replaced.
mkdir -p "$HOME/.merlin"
printf '# my own settings\ncelery:\n  override:\n    visibility_timeout: 86400\nbroker:\n  name: rabbitmq\n  server: old.example.com\n' \
  >"$HOME/.merlin/app.yaml"  # 0644 under the umask: its .bak must be 0600 all the same

started=1
for try in 1 2 3 4 5; do
  PORT=$(pick_port)
  m config server config --port "$PORT"
  expect_eq "config --port before start: exit 0" 0 $?
  m start server start
  started=$?
  [ $started -eq 0 ] && break
  [ $started -eq 3 ] || break  # another program took the port: retry
done
expect_eq "start: exit 0" 0 $started
check "start says it started" grep -q "Server started with PID" "$OUT/start.out"
check "redis.conf has the configured port" grep -qx "port $PORT" "$SERVER/redis.conf"

m status1 server status
expect_eq "status while running: exit 0" 0 $?
check "status says running" grep -q "Merlin server is running" "$OUT/status1.out"
expect_eq "status names the address" "address:    127.0.0.1:$PORT" "$(grep '^address:' "$OUT/status1.out")"
PID=$(awk '/^parent_pid:/ {print $2}' "$SERVER/merlin_server.pf")
expect_eq "status shows the recorded pid" "pid:        $PID" "$(grep '^pid:' "$OUT/status1.out")"
expect_eq "the pid is a redis-server" "redis-server" "$(cat /proc/"$PID"/comm 2>/dev/null)"
check "status shows uptime, memory and keys" grep -q "^keys:" "$OUT/status1.out"

expect_eq "server directory is 0700" 700 "$(stat -c %a "$SERVER")"
for f in merlin_server.yaml redis.conf redis.pass redis.users merlin_server.pf redis.log app.yaml; do
  expect_eq "$f is 0600" 600 "$(stat -c %a "$SERVER/$f" 2>/dev/null)"
done
expect_eq "no file in the server directory is readable by others" "" \
  "$(find "$SERVER" -type f ! -perm 600; find "$SERVER" -type d ! -perm 700)"
PASSWORD=$(head -1 "$SERVER/redis.pass")
check "the password is 64 hex digits (256 bits)" bash -c "printf %s '$PASSWORD' | grep -qE '^[0-9a-f]{64}\$'"
check "redis refuses a client without the password" \
  bash -c "redis-cli -p $PORT ping 2>&1 | grep -q NOAUTH"

APP=$HOME/.merlin/app.yaml
expect_eq "app.yaml is 0600" 600 "$(stat -c %a "$APP")"
check "app.yaml's broker is the server's port" grep -qx "  port: $PORT" "$APP"
check "app.yaml names the password file, not the password" grep -q "password: \"$SERVER/redis.pass\"" "$APP"
check "app.yaml keeps the user's comment" grep -qx "# my own settings" "$APP"
check "app.yaml keeps the user's celery block" grep -qx "    visibility_timeout: 86400" "$APP"
check "app.yaml's old broker is gone" bash -c "! grep -q old.example.com '$APP'"
check "the old app.yaml is kept as app.yaml.bak" grep -q old.example.com "$APP.bak"
expect_eq "app.yaml.bak is 0600 (the old file may hold a password)" 600 "$(stat -c %a "$APP.bak")"
check "Merlin's own app.yaml in the server directory" grep -qx "  port: $PORT" "$SERVER/app.yaml"
m info info
expect_eq "merlin info reaches the server through app.yaml" 0 $?
check "merlin info: connection ok" grep -q "connection:  ok" "$OUT/info.out"

# A study through the server, with no other broker setup.
"$MERLIN" example hello >/dev/null 2>&1
cd hello
m run --log-level info run hello.yaml
expect_eq "merlin run queues hello on the server" 0 $?
# app.yaml's results_backend is the broker's own server, as Redis brokers use it: no note.
check "merlin run does not call the results_backend it wrote unused" \
  bash -c "! grep -q 'results_backend' '$OUT/run.err'"
timeout 120 "$MERLIN" run-workers hello.yaml --exit-when-done >"$OUT/workers.out" 2>"$OUT/workers.err"
expect_eq "run-workers --exit-when-done: exit 0" 0 $?
ws=$(ls -d hello_2* | head -1)
all_done() {
  "$MERLIN" status "$ws" --format csv 2>/dev/null | tail -n +2 |
    awk -F, '$3 != $4 || $5 != 0 { bad++ } END { print (NR ? bad + 0 : "no rows") }'
}
expect_eq "every step of hello done, none failed" 0 "$(all_done)"
cd "$WORK"

m stop1 server stop
expect_eq "stop: exit 0" 0 $?
check "stop says terminated" grep -q "Merlin server terminated" "$OUT/stop1.out"
check "the redis-server process is gone" gone "$PID"
check "the process file is removed" test ! -e "$SERVER/merlin_server.pf"
m status2 server status
expect_eq "status after stop: exit 1" 1 $?
check "status says not running" grep -q "is not running" "$OUT/status2.out"
m stop2 server stop
expect_eq "stop twice: exit 0" 0 $?
check "stop twice says nothing runs" grep -q "no instance of merlin server running" "$OUT/stop2.out"

# A stale process file whose pid now belongs to another program: not ours to ask or stop.
sleep 300 &
OTHER=$!
CLEANUP+=("kill $OTHER")
printf 'parent_pid: %s\nimage_pid: %s\nhostname: x\nbind: 127.0.0.1\nport: %s\nstarted: 0\n' \
  "$OTHER" "$OTHER" "$PORT" >"$SERVER/merlin_server.pf"
m status3 server status
expect_eq "a stale process file: status exit 1" 1 $?
check "a stale process file: not running" grep -q "is not running" "$OUT/status3.out"
m stop4 server stop
check "a stale process file: stop leaves the other program alone" kill -0 "$OTHER"
kill "$OTHER"

m start2 server start
expect_eq "start again: exit 0" 0 $?
check "the password was kept" test "$PASSWORD" == "$(head -1 "$SERVER/redis.pass")"
cd hello
expect_eq "after stop and start the study's state is still on the server" 0 "$(all_done)"
cd "$WORK"
check "the server holds the study's keys" bash -c "! grep -qx 'keys:       0' <('$MERLIN' server status)"
PID2=$(awk '/^parent_pid:/ {print $2}' "$SERVER/merlin_server.pf")
m start3 server start
expect_eq "start twice: exit 0" 0 $?
check "start twice says it runs already" grep -q "already running (pid $PID2)" "$OUT/start3.out"
m restart server restart
expect_eq "restart: exit 0" 0 $?
PID3=$(awk '/^parent_pid:/ {print $2}' "$SERVER/merlin_server.pf")
check "restart started a new process" test "$PID3" != "$PID2"
check "the old process is gone after restart" gone "$PID2"

# Merlin's short flags and bad values.
m ss server config -ss 60 -sc 5
expect_eq "config -ss 60 -sc 5: exit 0" 0 $?
check "redis.conf saves every 60 s after 5 changes" grep -qx "save 60 5" "$SERVER/redis.conf"
check "config on a running server says to restart" grep -q "merlin server restart" "$OUT/ss.out"
m badport server config --port 0
expect_eq "config --port 0: exit 2" 2 $?
check "config --port 0 says why" grep -q "between 1 and 65535" "$OUT/badport.err"
m badmode server config -am sometimes
expect_eq "config -am sometimes: exit 2" 2 $?
check "config -am names the modes" grep -q "always, everysec, no" "$OUT/badmode.err"

# Users of their own (Merlin's --add-user/--remove-user): in redis.users, live after a restart;
# the password is in no output.
USER_PW=u$RANDOM$RANDOM
m adduser server config --add-user new_user "$USER_PW"
expect_eq "config --add-user: exit 0" 0 $?
check "config --add-user: the user is in redis.users" grep -q "^user new_user on " "$SERVER/redis.users"
check "config --add-user: the default user is kept" grep -q "^user default on " "$SERVER/redis.users"
m restart2 server restart
check "after a restart the new user logs in" bash -c \
  "redis-cli -p $PORT --user new_user --pass '$USER_PW' --no-auth-warning ping | grep -qx PONG"
m pw2 server config --password "${PASSWORD}x"
check "a new default password keeps the added user" grep -q "^user new_user on " "$SERVER/redis.users"
check "... and changes the default user's line" grep -qF "user default on >${PASSWORD}x " "$SERVER/redis.users"
m pw3 server config --password "$PASSWORD"
m rmuser server config --remove-user new_user
expect_eq "config --remove-user: exit 0" 0 $?
check "config --remove-user: gone from redis.users" bash -c "! grep -q new_user '$SERVER/redis.users'"
m restart3 server restart
check "after a restart the removed user cannot log in" bash -c \
  "! redis-cli -p $PORT --user new_user --pass '$USER_PW' --no-auth-warning ping | grep -qx PONG"
m rmdefault server config --remove-user default
expect_eq "config --remove-user default: exit 2" 2 $?
expect_eq "no output shows the added user's password" "" "$(grep -rlF "$USER_PW" "$OUT")"

# A port another program holds: a clear message naming it and the fix.
m stop3 server stop
python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
print(s.getsockname()[1], flush=True); time.sleep(120)' >"$WORK/holder.port" &
HOLDER=$!
CLEANUP+=("kill $HOLDER")
wait_until 10 test -s "$WORK/holder.port"
TAKEN=$(cat "$WORK/holder.port")
m config2 server config --port "$TAKEN"
m taken server start
expect_eq "start on a taken port: exit 3 (cannot listen, as monitor --web)" 3 $?
check "the message names the port" grep -q "port $TAKEN is in use" "$OUT/taken.err"
check "the message says how to change it" grep -q "merlin server config --port" "$OUT/taken.err"
kill "$HOLDER" 2>/dev/null

# No redis-server: the apt-get line, exit 1.
PATH=/nonexistent "$MERLIN" server start >"$OUT/missing.out" 2>"$OUT/missing.err"
expect_eq "start without redis-server: exit 1" 1 $?
check "the message gives the apt-get line" grep -q "apt-get install -y redis-server" "$OUT/missing.err"

# Another directory, a fresh HOME: init writes ./merlin_server there (Merlin's layout, which its
# suite's tests 12 and 13 read), and leaves ~/.merlin alone.
mkdir -p "$WORK/other" && cd "$WORK/other"
HOME=$WORK/home2 "$MERLIN" server status >"$OUT/status-other.out" 2>"$OUT/status-other.err"
expect_eq "status in a directory without merlin_server: exit 1" 1 $?
check "... it names the directory to run in, or MERLIN_SERVER_DIR" \
  grep -q "directory where it was initialized (or set MERLIN_SERVER_DIR" "$OUT/status-other.out"
mkdir -p "$WORK/home2/.merlin/server" && cp "$SERVER/redis.conf" "$WORK/home2/.merlin/server/"
HOME=$WORK/home2 "$MERLIN" server status >"$OUT/status-old.out" 2>"$OUT/status-old.err"
check "... and a server an earlier build kept in ~/.merlin/server is pointed at" \
  grep -q "MERLIN_SERVER_DIR=$WORK/home2/.merlin/server merlin server" "$OUT/status-old.out"
rm -rf "$WORK/home2/.merlin"
HOME=$WORK/home2 "$MERLIN" server init >"$OUT/init2.out" 2>"$OUT/init2.err"
expect_eq "init in another directory: exit 0" 0 $?
expect_eq "init writes ./merlin_server, 0700" 700 "$(stat -c %a "$WORK/other/merlin_server")"
check "init leaves ~/.merlin alone" test ! -e "$WORK/home2/.merlin"
check "init says 'successful', as Merlin (its suite's test 9 looks for it)" grep -q "initialization successful" "$OUT/init2.out"
HOME=$WORK/home2 "$MERLIN" server init >"$OUT/init3.out" 2>"$OUT/init3.err"
check "init again keeps what is there" grep -q "kept as it is" "$OUT/init3.out"
OTHER_PASS=$(head -1 merlin_server/redis.pass)
check "redis.conf's requirepass is the password (Merlin's line)" \
  grep -qx "requirepass $OTHER_PASS" merlin_server/redis.conf

# Merlin's suite's test 12: a relative data directory stays relative in redis.conf and is read
# from the directory holding merlin_server; requirepass and a quoted appendfilename, as Merlin.
OTHER_PORT=$(pick_port)
HOME=$WORK/home2 "$MERLIN" server config -p "$OTHER_PORT" -pwd new_password -d ./config_dir \
  -sf new_sf -am always -af new_af.aof >"$OUT/cfg-other.out" 2>"$OUT/cfg-other.err"
expect_eq "config with Merlin's test-12 flags: exit 0" 0 $?
check "redis.conf: dir as given" grep -qx "dir ./config_dir" merlin_server/redis.conf
check "redis.conf: the new requirepass" grep -qx "requirepass new_password" merlin_server/redis.conf
check "redis.conf: appendfilename quoted" grep -qx 'appendfilename "new_af.aof"' merlin_server/redis.conf
check "redis.pass follows" test "$(head -1 merlin_server/redis.pass)" == new_password
# A hand edit of requirepass is what the next start uses.
sed -i 's/^requirepass .*/requirepass edited_by_hand/' merlin_server/redis.conf
HOME=$WORK/home2 "$MERLIN" server start >"$OUT/start-other.out" 2>"$OUT/start-other.err"
expect_eq "start in the other directory: exit 0" 0 $?
CLEANUP+=("(cd '$WORK/other' && HOME='$WORK/home2' '$MERLIN' server stop)")
check "start names the data directory" grep -q "data in $WORK/other/config_dir)" "$OUT/start-other.out"
check "a hand-edited requirepass is the password after start" bash -c \
  "redis-cli -p $OTHER_PORT --pass edited_by_hand --no-auth-warning ping | grep -qx PONG"
check "... and redis.pass says so" test "$(head -1 merlin_server/redis.pass)" == edited_by_hand
HOME=$WORK/home2 "$MERLIN" server stop >"$OUT/stop-other.out" 2>"$OUT/stop-other.err"
check "the data is in ./config_dir" test -f config_dir/new_sf -a -d config_dir/appendonlydir
cd "$WORK"

# The password appears in no output of any command.
expect_eq "no output shows the password" "" "$(grep -rlF "$PASSWORD" "$OUT")"
finish
