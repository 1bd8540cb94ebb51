#!/usr/bin/env bash
# The broker password never shows: app.yaml's `password:` that names no file is the password
# itself, as in Merlin (with a warning that does not show it); malformed URLs are masked
# whatever their shape; a password without a host is refused rather than sent to the default
# address. Bad input exits 2.
source "$(dirname "$0")/lib.sh"
SECRET=s3cret-Pw9
start_redis --requirepass "$SECRET"
unset MERLIN_BROKER_URL
export HOME=$WORK/home
mkdir -p "$HOME/.merlin"
cat >"$HOME/.merlin/app.yaml" <<Y
broker:
  name: redis
  server: 127.0.0.1
  port: $REDIS_PORT
  password: $SECRET
Y
no_secret() { ! grep -q -- "$SECRET" "$@"; }
# runs merlin with the rest of the arguments; its exit code in RC, output in o.out and o.err
run() { set +e; "$MERLIN" "$@" >o.out 2>o.err; RC=$?; set -e; }

run info
expect_eq "inline password: info connects" 0 "$RC"
check "inline password: the connection is checked" grep -q "connection:  ok" o.out
check "inline password: a warning says it is taken as the password" \
  grep -q "broker.password names no file, so its value is used as the password itself" o.err
check "inline password: shown nowhere" no_secret o.out o.err
# Issue #25: a world-readable app.yaml holding the password: the warning names its mode and
# the command that fixes it; once it is 0600 the warning no longer speaks of a mode.
chmod 644 "$HOME/.merlin/app.yaml"
run info
check "inline password in a 0644 app.yaml: the warning names the mode and the chmod" \
  grep -qF "$HOME/.merlin/app.yaml is mode 0644, readable by everyone: run chmod 600 $HOME/.merlin/app.yaml" o.err
chmod 600 "$HOME/.merlin/app.yaml"
run info
check "inline password in a 0600 app.yaml: no mode to fix" bash -c "! grep -q 'is mode 0' o.err"
check "inline password in a 0600 app.yaml: still the warning that it is the password itself" \
  grep -q "names no file, so its value is used as the password itself" o.err

cat >one.yaml <<'Y'
description: {name: one, description: one step}
study:
  - name: s
    run: {cmd: echo hi}
Y
ws=$("$MERLIN" run one.yaml 2>run.err) || true
run status "$ws" --format csv
expect_eq "inline password: status of a queued study" 0 "$RC"
expect_eq "inline password: warned once per command" 1 "$(grep -c 'names no file' o.err)"
check "inline password: not in run's or status's output" no_secret run.err o.out o.err

sed -i "s/password: .*/password: wrong-$SECRET/" "$HOME/.merlin/app.yaml"
run info
expect_eq "wrong inline password: info exits 1" 1 "$RC"
check "wrong inline password: the server's refusal is shown" grep -qi "WRONGPASS\|invalid" o.out
check "wrong inline password: shown nowhere" no_secret o.out o.err

for url in "redis:/:$SECRET@127.0.0.1" "redis//:$SECRET@127.0.0.1" "redis://$SECRET@127.0.0.1:port" \
  "redis://:$SECRET" "redis://u:$SECRET@127.0.0.1:1/db"; do
  run info --broker "$url"
  expect_eq "malformed URL exits 2: ${url//$SECRET/PW}" 2 "$RC"
  check "malformed URL: the password is masked: ${url//$SECRET/PW}" no_secret o.out o.err
  check "malformed URL: the message says what is wrong" grep -q "merlin: --broker: broker URL '" o.err
done

run info --broker "redis://:$SECRET@"
expect_eq "a password without a host exits 2" 2 "$RC"
check "a password without a host: says why" grep -q "no host" o.err
check "a password without a host: not shown" no_secret o.out o.err
MERLIN_BROKER_URL="redis://:$SECRET@:$REDIS_PORT/0" run info
expect_eq "MERLIN_BROKER_URL without a host exits 2" 2 "$RC"
check "MERLIN_BROKER_URL without a host: names the variable" grep -q "merlin: MERLIN_BROKER_URL: " o.err
check "MERLIN_BROKER_URL without a host: not shown" no_secret o.out o.err
finish
