#!/usr/bin/env bash
# Re-staging instead of re-running (docs/staging.md): a worker that dies after its step
# succeeded and before the step's outputs are staged leaves a success record in the scratch
# dir; `merlin restart` stages those outputs without running the step again. The death is
# made exact with a file-size limit: the run's soft RLIMIT_FSIZE (2 MB) is below the 3 MB
# output, which the step itself may write (it raises its own soft limit) but the worker's
# copy may not, so the kernel kills the worker (SIGXFSZ) in the middle of the staging.
source "$(dirname "$0")/lib.sh"
ulimit -f $((64 * 1024))  # 64 MB, soft and hard: this test writes about 15 MB
export MERLIN_SCRATCH=$WORK/scratch
mkdir -p "$MERLIN_SCRATCH"
seq 0 3 >samples.csv
cat >restage.yaml <<'Y'
description:
  name: restage
  description: outputs larger than the worker may write, smaller than the step may
env:
  variables:
    OUTPUT_PATH: ./out
study:
  - name: sim
    run:
      cmd: |
        ulimit -S -f $(ulimit -H -f)
        echo $(MERLIN_SAMPLE_ID) >> $(SPECROOT)/runs.log
        head -c 3000000 /dev/urandom > big.bin
        echo "{\"sample\": $(MERLIN_SAMPLE_ID)}" > result.json
      scratch: auto
      stage_out: [result.json, big.bin]
merlin:
  samples:
    file: $(SPECROOT)/samples.csv
    column_labels: [ID]
Y
set +e
(ulimit -S -f 2048; exec "$MERLIN" run --local -j1 restage.yaml) >run.out 2>run.err
rc=$?
set -e
expect_eq "the run was killed by the file-size limit while staging (SIGXFSZ: 128+25)" 153 "$rc"
# The slot takes its next task while the stager copies (docs/staging.md, "Overlap"), so
# sample 1 may have been running when the worker died: it runs again, as a killed step does.
check "sample 0's step ran before that" grep -qx 0 runs.log
ws=$(realpath "$(find out -maxdepth 1 -type d -name 'restage_*' -print -quit)")
# Sample 0's record (sample 1's too when its step also ended before the kill).
rec=$(grep -l '"sample": 0}' $(find "$MERLIN_SCRATCH" -name result.json) | head -1)
rec=$(dirname "$rec")/.merlin_succeeded
check "sample 0's success record is in its scratch dir" test -f "$rec"
check "... beside its outputs" test -s "$(dirname "$rec")/big.bin"
check "... naming this boot" grep -qx "boot $(cat /proc/sys/kernel/random/boot_id)" "$rec"

set +e
"$MERLIN" restart "$ws" -j1 >restart.out 2>restart.err
rc=$?
set -e
expect_eq "restart: exit 0" 0 "$rc"
check "restart says it re-staged sample 0 without running it" \
  grep -q "re-staging step=sim sample=0: its step succeeded in scratch=.* the step is not run again" restart.err
expect_eq "sample 0's step ran once in all: not again" 1 "$(grep -cx 0 runs.log)"
expect_eq "every other sample's step ran" "1 2 3" "$(grep -vx 0 runs.log | sort -nu | tr '\n' ' ' | sed 's/ $//')"
check "the staging summary counts the re-staged task(s)" grep -Eq "staging: tasks=4 failed=0 .* restaged=[12]$" restart.err
expect_eq "every sample's outputs are in the workspace" 8 \
  "$(find "$ws/sim" -path '*/.merlin_staged' -prune -o -type f \( -name big.bin -o -name result.json \) -print | wc -l)"
expect_eq "no temp file of the killed copy is left" "" \
  "$(find "$ws" -name '.*.merlin-tmp.*')"
set +e
"$MERLIN" verify "$ws" >verify.out 2>verify.err
vrc=$?
set -e
expect_eq "merlin verify: every staged file matches its manifest" 0 "$vrc"
check "... all 8 files of 4 samples" grep -q "8 files .* of 4 samples" verify.err
expect_eq "the scratch dirs (and the record) are gone" "" "$(find "$MERLIN_SCRATCH" -name .merlin_succeeded -o -name big.bin)"
check "status: 4 of 4 finished" bash -c "'$MERLIN' status '$ws' --format csv | grep -q '^sim,.*4'"
finish
