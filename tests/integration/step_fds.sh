#!/usr/bin/env bash
# A step inherits stdin, stdout and stderr and nothing else: not the worker's logged-in Redis
# connections (a step could send commands on them with the worker's password, and would break
# the worker's own replies), nor the journal, lock or any descriptor merlin's parent left open.
source "$(dirname "$0")/lib.sh"
start_redis --requirepass s3cret
export MERLIN_BROKER_URL=redis://:s3cret@127.0.0.1:$REDIS_PORT/0
cat >fds.yaml <<'Y'
description: {name: fds, description: each sample lists its open descriptors}
study:
  - name: fds
    run:
      cmd: |
        ls -l --time-style=+T /proc/self/fd > fds.txt  # $(V)
merlin:
  resources:
    workers:
      w: {args: --concurrency 2, steps: [all]}
  samples:
    file: $(SPECROOT)/four.csv
    column_labels: [V]
Y
seq 1 4 >four.csv
# The descriptors a step had, as "0 1 2 ...", without the one `ls` opened to list them.
fds_of() { awk '$8 == "->" && $9 !~ /^\/proc\/[0-9]+\/fd$/ {print $7}' "$1" | sort -n | paste -sd' '; }
all_fds() {  # ws: one line per sample
  local f
  for f in "$1"/fds/*/fds.txt; do fds_of "$f"; done | sort | uniq -c | sed 's/^ *//'
}

# A descriptor left open (no close-on-exec) by whoever started merlin.
exec 7</dev/null

ws=$("$MERLIN" run fds.yaml 2>/dev/null)
"$MERLIN" run-workers fds.yaml --exit-when-done >w.out 2>w.err
check "run-workers: the study completes" grep -q "succeeded=4 failed=0" w.err
expect_eq "run-workers: every step saw only 0 1 2" "4 0 1 2" "$(all_fds "$ws")"
check "run-workers: no step saw a socket" bash -c "! grep -l socket: $ws/fds/*/fds.txt"

"$MERLIN" run --local --no-progress fds.yaml >/dev/null 2>local.err
ws=$(sed -n 's|: 4/4 tasks finished.*||p' local.err)
check "local run: the study completes" test -d "$ws/fds"
expect_eq "local run: every step saw only 0 1 2" "4 0 1 2" "$(all_fds "$ws")"
check "local run: no step saw the journal or the lock" \
  bash -c "! grep -lE 'merlin.journal|run.lock' $ws/fds/*/fds.txt"
exec 7<&-
finish
