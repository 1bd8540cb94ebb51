#!/usr/bin/env bash
# merlin verify (docs/staging.md, "Checking staged outputs"): a staged study verifies clean;
# then its files are damaged one way each (a flipped byte, a truncation, a removal, a link to
# /dev/zero, a FIFO, a directory swapped for a link) and verify names each of them once, with
# exit 1, never reading through a link or blocking on a FIFO; JSON output, --step, a spec as
# the target, two workers' manifests for one sample, a malformed manifest line, a workspace
# with nothing staged and bad input (exit 2).
source "$(dirname "$0")/lib.sh"
need_python json
ulimit -f $((64 * 1024))  # 32 MB in 512-byte blocks: this test writes about 1 MB
export MERLIN_SCRATCH=$WORK/scratch
mkdir -p "$MERLIN_SCRATCH"
N=30
seq 0 $((N - 1)) | awk '{print $1}' >samples.csv
cat >staged.yaml <<'Y'
description:
  name: staged
  description: two outputs per sample, staged from scratch into the workspace
env:
  variables:
    OUTPUT_PATH: ./out
study:
  - name: sim
    run:
      cmd: |
        echo "{\"sample\": $(MERLIN_SAMPLE_ID)}" > result.json
        head -c 20000 /dev/urandom > traj.npy
      scratch: auto
      stage_out: [result.json, traj.npy]
  - name: plain
    run:
      cmd: echo not staged > plain.txt
merlin:
  samples:
    file: $(SPECROOT)/samples.csv
    column_labels: [ID]
Y
"$MERLIN" run --local -j2 staged.yaml >run.out 2>&1
ws=$(find out -maxdepth 1 -type d -name 'staged_*' -print -quit)
ws=$(realpath "$ws")
check "the study ran" test -d "$ws/sim/.merlin_staged"

# verify ARGS...: runs merlin verify (bounded: a read through a link or a FIFO would hang),
# stdout to v.out, stderr to v.err, the exit code in $rc.
verify() {
  set +e
  timeout 60 "$MERLIN" verify "$@" >v.out 2>v.err
  rc=$?
  set -e
}

verify "$ws"
expect_eq "a clean workspace: exit 0" 0 "$rc"
expect_eq "... and nothing on stdout" "" "$(cat v.out)"
check "... the summary counts 60 files of 30 samples in 1 step" \
  grep -q "60 files (.* MB) of 30 samples in 1 step: every one matches its manifest" v.err
verify staged.yaml
expect_eq "a spec: its newest workspace, exit 0" 0 "$rc"

# Two workers staged sample 1 (a redelivery): each wrote its own manifest; the file matches
# one of them, so it is fine.
m=$(ls "$ws"/sim/.merlin_staged/*.tsv | head -1)
awk -F'\t' 'BEGIN {OFS = "\t"} $1 == 1 && $2 ~ /result.json$/ {$3 = 999; $4 = "00000000"; print}' "$m" \
  >"$ws/sim/.merlin_staged/otherhost.4242.tsv"
check "the other worker's manifest has its line" test -s "$ws/sim/.merlin_staged/otherhost.4242.tsv"
verify "$ws"
expect_eq "a file matching one of two workers' manifests: exit 0" 0 "$rc"

# Damage: one way per sample.
dir_of() { dirname "$(grep -P "^$1\t[^\t]*result.json\t" "$m" | cut -f2 | head -1)"; }
d3=$ws/sim/$(dir_of 3); d5=$ws/sim/$(dir_of 5); d7=$ws/sim/$(dir_of 7)
d9=$ws/sim/$(dir_of 9); d11=$ws/sim/$(dir_of 11); d13=$ws/sim/$(dir_of 13)
printf '\x00' | dd of="$d3/traj.npy" bs=1 seek=100 count=1 conv=notrunc status=none
head -c 5 "$d5/result.json" >t && mv t "$d5/result.json"
rm "$d7/result.json"
rm "$d9/traj.npy" && ln -s /dev/zero "$d9/traj.npy"
rm "$d13/result.json" && mkfifo "$d13/result.json"
mv "$d11" "$d11.moved" && ln -s "$d3" "$d11"
verify "$ws"
expect_eq "damaged files: exit 1" 1 "$rc"
expect_eq "one line per damaged file (sample 11's directory is a link: 2 files)" 7 "$(wc -l <v.out)"
check "a flipped byte: the checksums, same size" \
  grep -q "^$d3/traj.npy (sample 3): CRC32C [0-9a-f]\{8\}, the manifest says [0-9a-f]\{8\} (same size, 20000 bytes)$" v.out
check "a truncation: the sizes" grep -q "^$d5/result.json (sample 5): 5 bytes, the manifest says [0-9]*$" v.out
check "a removal: missing" grep -q "^$d7/result.json (sample 7): missing" v.out
check "a link to /dev/zero: named, not read" \
  grep -q "^$d9/traj.npy (sample 9): a symbolic link, not a regular file (not read)$" v.out
check "a FIFO: named, not opened" grep -q "^$d13/result.json (sample 13): a FIFO, not a regular file" v.out
check "a directory swapped for a link: the link on the path" \
  grep -q "^$d11/result.json (sample 11): .* on its path is a symbolic link, not a directory" v.out
check "the summary says how many" grep -q "60 files .* 7 do not match their manifests" v.err

verify "$ws" --format json
expect_eq "--format json: exit 1 too" 1 "$rc"
expect_eq "the JSON: ok false, 7 findings, the kinds" \
  "False 7 checksum differs,missing,not a regular file,size differs" \
  "$(/usr/bin/python3 -c 'import json,sys; d=json.load(open("v.out")); print(d["ok"], len(d["findings"]), ",".join(sorted({f["problem"] for f in d["findings"]})))')"
expect_eq "the JSON: the counts" "60 30 ['sim']" \
  "$(/usr/bin/python3 -c 'import json; d=json.load(open("v.out")); print(d["files"], d["samples"], d["steps"])')"

verify "$ws" --step sim
expect_eq "--step sim: the same findings" 7 "$(wc -l <v.out)"
verify "$ws" --step plain
expect_eq "--step without manifests: exit 2" 2 "$rc"
check "... naming the steps that have some" grep -q "no staging manifest for step 'plain' .*(steps with staged outputs: sim)" v.err

printf 'not\ta manifest line\n' >>"$m"
verify "$ws"
check "a malformed manifest line is reported" grep -q "1 line of the manifests could not be read" v.err

# Lost manifest lines: sample 20's two lines and sample 21's traj.npy line are cut out of
# the manifests. Their tasks succeeded (the journal says so), so verify names them.
for f in "$ws"/sim/.merlin_staged/*.tsv; do
  awk -F'\t' '!($1 == 20 || ($1 == 21 && $2 ~ /traj.npy$/))' "$f" >cut && mv cut "$f"
done
verify "$ws"
expect_eq "lost manifest lines: exit 1" 1 "$rc"
expect_eq "the 7 damaged files and the 2 tasks without lines" 9 "$(wc -l <v.out)"
check "sample 20: its first pattern" \
  grep -q "/sim/[0-9/]* (sample 20): its step succeeded, but no manifest line matches its stage_out pattern 'result.json' (the manifest lines were lost" v.out
check "sample 21: the pattern without a line" \
  grep -q "(sample 21): its step succeeded, but no manifest line matches its stage_out pattern 'traj.npy'" v.out
check "the summary counts them" grep -q "2 tasks of 30 succeeded have no manifest lines" v.err
verify "$ws" --format json
expect_eq "the JSON: not ok, the unrecorded tasks and the tasks checked" "False [20, 21] ['result.json', 'traj.npy'] 30" \
  "$(/usr/bin/python3 -c 'import json; d=json.load(open("v.out")); u=d["unrecorded"]; print(d["ok"], [t["sample"] for t in u], [t["pattern"] for t in u], d["tasks_checked"])')"
rm -r "$ws/sim/.merlin_staged"
verify "$ws"
expect_eq "every manifest removed: exit 1, not 'nothing to check'" 1 "$rc"
check "... every succeeded task named" grep -q "30 tasks of 30 succeeded have no manifest lines" v.err

# A workspace with nothing staged, and what is not a workspace.
"$MERLIN" example hello >/dev/null 2>&1
(cd hello && "$MERLIN" run --local hello.yaml >/dev/null 2>&1)
hws=$(find hello -maxdepth 1 -type d -name 'hello_*' -print -quit)
verify "$hws"
expect_eq "nothing staged: exit 0" 0 "$rc"
check "... saying there was nothing to check" grep -q "nothing to check in" v.err
mkdir notaws
verify notaws
expect_eq "not a workspace: exit 2" 2 "$rc"
verify "$ws" --format xml
expect_eq "an unknown --format: exit 2" 2 "$rc"
finish
