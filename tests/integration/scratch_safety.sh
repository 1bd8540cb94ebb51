#!/usr/bin/env bash
# Scratch that another user could have prepared (issue #25, items 1, 2, 11, 12;
# docs/security.md §4). A link planted where the old scratch layout put a study's dir
# (`<root>/merlin-<study>_<timestamp>/sim -> victim`) is never followed: the victim's files
# survive and the run works in the user's private `<root>/merlin-<uid>`. A private dir that is
# a link, another user's, or open to others, and a root others may write to without the
# sticky bit, are refused with one message naming the path and exit 1, the victim untouched.
# A FIFO or a link matching `stage_out` is refused by name without hanging the stager. A full
# scratch (a small tmpfs; root only) stops a local run once with exit 4, fails no sample,
# leaves no probe file, and a restart after space is freed completes the study.
source "$(dirname "$0")/lib.sh"
ulimit -f 100000  # KB: nothing here writes more than a few KB
N=8
seq 1 $N >n.csv
# study NAME STEP_CMD: N samples of a step in scratch that stages out result.json.
study() {
  cat >"$1.yaml" <<Y
description: {name: $1, description: scratch safety}
env:
  variables:
    OUTPUT_PATH: $WORK/out
study:
  - name: sim
    run:
      cmd: $2
      scratch: auto
      stage_out: [result.json]
merlin:
  samples:
    file: $WORK/n.csv
    column_labels: [X]
Y
}
# run_merlin LOG ARGS...: merlin with a bound on its time; sets rc (124 = it hung).
run_merlin() {
  local log=$1
  shift
  set +e
  timeout -k 5 60 "$MERLIN" "$@" >/dev/null 2>"$log"
  rc=$?
  set -e
}
victim_state() { (cd "$WORK/victim" && find . -type f -exec md5sum {} + | LC_ALL=C sort); }
mkdir -p victim/data
for s in $(seq -w 0 99); do mkdir -p "victim/data/$s" "victim/data/00/$s"; echo "work $s" >"victim/data/$s/keep"; echo "w" >"victim/data/00/$s/keep"; done
before=$(victim_state)

# --- 1. links planted at the paths the old layout would use --------------------------------
export MERLIN_SCRATCH=$WORK/shared
mkdir -m 1777 "$MERLIN_SCRATCH"
study hj 'echo $(X) > result.json'
now=$(date +%s)
for i in $(seq 0 40); do  # the study dir of a run starting in the next 40 s, as the old code named it
  ts=$(date -d "@$((now + i))" +%Y%m%d-%H%M%S)
  mkdir -p "$MERLIN_SCRATCH/merlin-hj_$ts"
  ln -s "$WORK/victim/data" "$MERLIN_SCRATCH/merlin-hj_$ts/sim"
done
run_merlin hj.err run --local --no-progress -j 2 hj.yaml
expect_eq "planted links: the run exits 0" 0 "$rc"
expect_eq "planted links: the victim's files are untouched" "$before" "$(victim_state)"
expect_eq "planted links: every sample staged its output" $N "$(find out -path '*hj_*' -name result.json | wc -l)"
check "planted links: the private dir is a 0700 directory of ours" \
  test "$(stat -c '%F %a %u' "$MERLIN_SCRATCH/merlin-$(id -u)")" = "directory 700 $(id -u)"

# --- 1. the private dir or the root fails the checks: refused, once, exit 1 ---------------
# refused LABEL PATTERN: the last run was refused with one message naming PATTERN, nothing ran.
refused() {
  expect_eq "$1: exit 1" 1 "$rc"
  expect_eq "$1: one message names it" 1 "$(grep -c "$2" "$1.err" || true)"
  check "$1: says how to fix it" grep -q "set MERLIN_SCRATCH" "$1.err"
  expect_eq "$1: the victim's files are untouched" "$before" "$(victim_state)"
  expect_eq "$1: no sample was recorded as failed" 0 \
    "$(grep -c 'scratch not usable study=\|step failed' "$1.err" || true)"
}
export MERLIN_SCRATCH=$WORK/linked
mkdir -m 1777 "$MERLIN_SCRATCH"
ln -s "$WORK/victim/data" "$MERLIN_SCRATCH/merlin-$(id -u)"
study linked 'echo $(X) > result.json'
run_merlin linked.err run --local --no-progress -j 2 linked.yaml
refused linked "merlin-$(id -u) refused: it is a symbolic link"

export MERLIN_SCRATCH=$WORK/theirs
mkdir -p "$MERLIN_SCRATCH/merlin-$(id -u)"
chmod 700 "$MERLIN_SCRATCH/merlin-$(id -u)"
if chown 4321 "$MERLIN_SCRATCH/merlin-$(id -u)" 2>/dev/null; then
  study theirs 'echo $(X) > result.json'
  run_merlin theirs.err run --local --no-progress -j 2 theirs.yaml
  refused theirs "refused: it is owned by uid 4321"
else
  echo "skip the other owner's dir: chown needs root"
fi

export MERLIN_SCRATCH=$WORK/open
mkdir -m 0777 "$MERLIN_SCRATCH"
chmod 0777 "$MERLIN_SCRATCH"  # whatever the umask
study open 'echo $(X) > result.json'
run_merlin open.err run --local --no-progress -j 2 open.yaml
refused open "open refused: mode 0777 lets others write to it without the sticky bit"

# --- 2 and 12: a FIFO or a link where an output should be ----------------------------------
export MERLIN_SCRATCH=$WORK/shared
study fifo 'if [ $(X) = 3 ]; then mkfifo result.json; else echo $(X) > result.json; fi'
run_merlin fifo.err run --local --no-progress -j 2 fifo.yaml
check "a FIFO output: the run ends (exit $rc), it does not hang" test "$rc" != 124
expect_eq "a FIFO output: that sample fails, exit 1" 1 "$rc"
check "a FIFO output: the log says it is a FIFO and not staged" \
  grep -q "result.json is a FIFO: only regular files are staged" fifo.err
study link 'if [ $(X) = 3 ]; then ln -s '"$WORK"'/victim/data/00/keep result.json; else echo $(X) > result.json; fi'
run_merlin link.err run --local --no-progress -j 2 link.yaml
expect_eq "a linked output: that sample fails, exit 1" 1 "$rc"
check "a linked output: the log says it is a link, not staged" \
  grep -q "result.json is a symbolic link: links are not staged" link.err
check "a linked output: 'matched no file' is not all it says" \
  grep -q "stage_out pattern 'result.json' matched no file in .*: result.json is a symbolic link" link.err

# --- 11. a full scratch: one clear stop, no failed sample, no probe left --------------------
if [ "$(id -u)" != 0 ]; then
  echo "skip the full scratch: mounting a small tmpfs needs root"
elif mkdir -p "$WORK/disk" && mount -t tmpfs -o size=1m,mode=1777 tmpfs "$WORK/disk" 2>mount.err; then
  CLEANUP+=("umount -l $WORK/disk")
  export MERLIN_SCRATCH=$WORK/disk
  mkdir -m 700 "$MERLIN_SCRATCH/merlin-$(id -u)"
  dd if=/dev/zero of="$MERLIN_SCRATCH/filler" bs=4k 2>/dev/null || true
  study full 'echo $(X) > result.json'
  run_merlin full.err run --local --no-progress -j 2 full.yaml
  expect_eq "full scratch: exit 4 (a full disk)" 4 "$rc"
  expect_eq "full scratch: one message names the probe and the reason" 1 \
    "$(grep -c 'merlin-probe: No space left on device' full.err || true)"
  expect_eq "full scratch: no probe file left" "" "$(find "$MERLIN_SCRATCH" -name '.merlin-probe*')"
  fws=$(ls -d out/full_*)
  expect_eq "full scratch: no sample ran or failed" "sim,1,$N,0,0" \
    "$("$MERLIN" status "$fws" --format csv | grep '^sim,' | cut -d, -f1-5)"
  rm -f "$MERLIN_SCRATCH/filler"
  run_merlin full-restart.err restart --no-progress -j 2 "$fws"
  expect_eq "full scratch: after freeing space, restart completes the study" 0 "$rc"
  expect_eq "full scratch: every output staged" $N "$(find "$fws" -name result.json | wc -l)"
else
  echo "skip the full scratch: cannot mount a tmpfs here ($(cat mount.err))"
fi
finish
