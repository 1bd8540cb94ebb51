#!/usr/bin/env bash
# A full disk (#16): when the journal, a task's script or a task's output cannot be written
# (ENOSPC), merlin says which file and why (`merlin: cannot write <path>: No space left on
# device`), exits 4, and leaves a consistent workspace: the journal ends on a whole record,
# `status` works and counts only what was recorded, no task is claimed done whose output was
# not written, and after space is freed `merlin restart` completes the study.
# The workspace is on a small tmpfs the test mounts (root only; skipped otherwise). Steps
# fill it themselves at a chosen moment, with a filler file outside the workspace.
source "$(dirname "$0")/lib.sh"

if [ "$(id -u)" != 0 ]; then
  echo "SKIP: mounting a small tmpfs needs root (this test runs as uid $(id -u))"
  exit 77
fi
DISK=$WORK/disk
mkdir -p "$DISK"
if ! mount -t tmpfs -o size=8m tmpfs "$DISK" 2>mount.err; then
  echo "SKIP: cannot mount a tmpfs here ($(cat mount.err))"
  exit 77
fi
CLEANUP+=("umount -l $DISK")
seq 0 299 >n.csv
# fill: the filler takes every page left on the tmpfs (dd stops at ENOSPC).
cat >fill <<EOF2
#!/bin/sh
dd if=/dev/zero of=$DISK/filler bs=4k 2>/dev/null
exit 0
EOF2
chmod +x fill
free_space() { rm -f "$DISK/filler"; }

# study NAME WHEN [OUTPUT] [extra merlin: lines]: 300 samples of a step that runs ./fill once,
# the first time WHEN (a shell condition on $s, the journal's size, its own start record
# included) holds, then OUTPUT (a command; default: print nothing). The step's logic is in a
# script of its own, so that no shell `$(...)` meets merlin's tokens.
study() {
  cat >"step_$1" <<EOF2
#!/bin/bash
s=\$(stat -c %s "\$1/merlin_info/merlin.journal" 2>/dev/null || echo 0)
N=\$2
if [ ! -f $WORK/$1.filled ] && $2; then touch $WORK/$1.filled; $WORK/fill; fi
${3:-true}
EOF2
  chmod +x "step_$1"
  cat >"$1.yaml" <<EOF2
description: {name: $1, description: a disk that fills up}
env:
  variables:
    OUTPUT_PATH: $DISK
study:
  - name: work
    run:
      cmd: $WORK/step_$1 \$(MERLIN_WORKSPACE) \$(N)
merlin:
  samples:
    file: $WORK/n.csv
    column_labels: [N]
${4:-}
EOF2
}
journal_aligned() { [ $(( ($(stat -c %s "$1/merlin_info/merlin.journal") - 16) % 24 )) = 0 ]; }
# work's counts in status --format csv: total,done,failed
counts() { "$MERLIN" status "$1" --format csv | awk -F, '$1 == "work" {print $3","$4","$5}'; }
# Every sample recorded done has its .out (Merlin's layout): sample dirs are <a>/<b>.
done_have_output() {
  local ws=$1 n
  n=$("$MERLIN" status "$ws" --format csv | awk -F, '$1 == "work" {print $4}')
  [ "$(find "$ws/work" -name work.out | wc -l)" -ge "$n" ]
}

# run_and_check LABEL NAME EXPECTED_FILE_RE [run options]
run_and_check() {
  local label=$1 name=$2 file_re=$3
  shift 3
  local rc=0
  "$MERLIN" run --local --no-progress -j 1 "$@" "$name.yaml" >"$name.out" 2>"$name.err" || rc=$?
  expect_eq "$label: exit 4 (no space)" 4 "$rc"
  check "$label: the message names the file and the cause" \
    grep -qE "^merlin: cannot write $file_re: No space left on device\$" "$name.err"
  ws=$(ls -d "$DISK/${name}_"2* | head -1)
  check "$label: the journal ends on a whole record" journal_aligned "$ws"
  if [ "$name" = journal ]; then  # the record failed where part of it fitted: it was cut
    check "$label: the failed record started mid-page (a short write, rolled back)" \
      test $(( $(stat -c %s "$ws/merlin_info/merlin.journal") % 4096 )) != 0
  fi
  local c
  c=$(counts "$ws")
  check "$label: status works and shows part of the study done, none failed" \
    bash -c "[[ '$c' =~ ^300,([0-9]+),0$ ]] && [ \${BASH_REMATCH[1]} -gt 0 ] && [ \${BASH_REMATCH[1]} -lt 300 ]"
  if [ "$name" != outputs ]; then
    check "$label: every task recorded done has its output file" done_have_output "$ws"
  fi
  free_space
  rc=0
  "$MERLIN" restart "$ws" --no-progress -j 2 >"$name.restart.out" 2>"$name.restart.err" || rc=$?
  expect_eq "$label: restart after freeing space succeeds" 0 "$rc"
  expect_eq "$label: every task done, none failed" "300,300,0" "$(counts "$ws")"
}

# --- the journal: the commit record that needs a new page, only part of it fitting -----------
# Records are 24 bytes after a 16-byte header; the first page boundary that cuts a commit
# record is found by the step (its own start record is already in).
study journal '[ $((s % 4096)) != 0 ] && [ $(( (s + 23) / 4096 )) -gt $(( (s - 1) / 4096 )) ]'
run_and_check "journal" journal '.*/merlin_info/merlin\.journal'

# --- the scripts: the disk fills during task 10; the next script cannot be written -----------
study scripts '[ $(( (s - 16) / 48 )) -ge 10 ]'
run_and_check "scripts" scripts '.*/work\.sh'

# --- the outputs: a lean workspace's logs, written by merlin after the step -----------------
study outputs '[ $(( (s - 16) / 48 )) -ge 10 ]' 'head -c 5000 /dev/zero | tr "\\0" x; echo' \
  '  layout: lean'
run_and_check "outputs (lean logs)" outputs '.*/\.merlin_logs/.*\.out'
ws=$(ls -d "$DISK"/outputs_2*)
for x in 0 10 299; do
  expect_eq "outputs: sample $x's output is whole in the logs after the restart" 5001 \
    "$("$MERLIN" logs "$ws" work $x | wc -c)"
done

# --- a distributed worker (Redis): the disk fills during sample 10; the worker stops, its task
# goes back to the queue, and a worker started once there is space finishes the study --------
start_redis
study queued '[ "$N" -ge 10 ]'
ws=$("$MERLIN" run queued.yaml 2>queued.err)
rc=0
"$MERLIN" run-workers queued.yaml --exit-when-done --concurrency 1 >w1.out 2>w1.err || rc=$?
expect_eq "run-workers: exit 4 (no space)" 4 "$rc"
check "run-workers: the log names the file and the cause" \
  grep -qE "cannot write $DISK/.*/work\.sh: No space left on device" w1.err
c=$(counts "$ws")
check "run-workers: status shows part of the study done, none failed" \
  bash -c "[[ '$c' =~ ^300,([0-9]+),0$ ]] && [ \${BASH_REMATCH[1]} -gt 0 ] && [ \${BASH_REMATCH[1]} -lt 300 ]"
check "run-workers: every task recorded done has its output file" done_have_output "$ws"
free_space
rc=0
"$MERLIN" run-workers queued.yaml --exit-when-done --concurrency 2 >w2.out 2>w2.err || rc=$?
expect_eq "run-workers again after freeing space: exit 0" 0 "$rc"
expect_eq "run-workers again: every task done, none failed" "300,300,0" "$(counts "$ws")"
finish
