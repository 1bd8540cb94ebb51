#!/usr/bin/env bash
# Node-local scratch and staging (docs/staging.md): a sampled study runs each sample in a
# scratch dir under $MERLIN_SCRATCH; its declared outputs land in the workspace with the right
# bytes, the manifest has one entry per sample and file with the right size and CRC32C, scratch
# is cleaned, and no temp file is left. A run killed with SIGKILL mid-study and restarted leaves
# no duplicate or half file. A pattern matching nothing fails that sample, naming it. Then the
# same study through Redis workers (skipped without redis-server).
source "$(dirname "$0")/lib.sh"
if ! command -v python3 >/dev/null; then
  echo "SKIP: python3 not found (it checks the CRC32C of the staged files)"
  exit 77
fi
N=40
seq 0 $((N - 1)) | awk '{print $1 "," $1 * 3}' >samples.csv
printf 'shared input\n' >table.dat
cat >staged.yaml <<'Y'
description:
  name: staged
  description: each sample writes two files in scratch; they are staged to the workspace
env:
  variables:
    OUTPUT_PATH: ./out
study:
  - name: sim
    run:
      cmd: |
        pwd > where.txt
        cat table.dat > input_seen.txt
        echo "sample=$(MERLIN_SAMPLE_ID) k=$(K)" > result.json
        head -c 300000 /dev/urandom > traj.npy
        echo scratch-only > notes.tmp
        echo $(MERLIN_SAMPLE_ID) >> $(MERLIN_WORKSPACE)/../runs.log
        if [ $(MERLIN_SAMPLE_ID) = 25 ] && [ -f $(MERLIN_WORKSPACE)/../kill_at_25 ]; then
          rm -f $(MERLIN_WORKSPACE)/../kill_at_25
          kill -9 `ps -o ppid= -p $PPID`  # the worker: its step guardian's parent
        fi
      scratch: auto
      stage_out: [result.json, "*.npy", where.txt, input_seen.txt]
      stage_in: [$(SPECROOT)/table.dat]
  - name: collect
    run:
      cmd: cat $(sim.workspace)/$(MERLIN_GLOB_PATH)result.json | sort > all.txt
      depends: [sim_*]
merlin:
  samples:
    file: $(SPECROOT)/samples.csv
    column_labels: [ID, K]
Y

# check_workspace WS SCRATCH LABEL: the staged outputs, manifest, scratch and temp files.
check_workspace() {
  local ws=$1 scratch=$2 label=$3
  expect_eq "$label: every sample's outputs are in the workspace" "$((N * 4))" \
    "$(find "$ws/sim" -path '*/.merlin_staged' -prune -o -type f \( -name result.json -o -name traj.npy -o -name where.txt -o -name input_seen.txt \) -print | wc -l)"
  local bad=0 d id
  for d in $(find "$ws/sim" -name result.json -printf '%h\n'); do
    id=$(sed -n 's/^sample=\([0-9]*\) .*/\1/p' "$d/result.json")
    [ "$(cat "$d/result.json")" = "sample=$id k=$((id * 3))" ] || bad=$((bad + 1))
    [ "$(stat -c %s "$d/traj.npy")" = 300000 ] || bad=$((bad + 1))
    [ "$(cat "$d/input_seen.txt")" = "shared input" ] || bad=$((bad + 1))
    case "$(cat "$d/where.txt")" in "$scratch"/merlin-*/sim/*) ;; *) bad=$((bad + 1)) ;; esac
    [ -f "$d/MERLIN_FINISHED" ] && [ -f "$d/sim.out" ] && [ -f "$d/sim.sh" ] || bad=$((bad + 1))
    [ ! -e "$d/notes.tmp" ] || bad=$((bad + 1))
  done
  expect_eq "$label: outputs have the right content, ran in scratch, undeclared files stay" 0 "$bad"
  expect_eq "$label: the funnel read every staged result" "$N" "$(wc -l <"$ws/collect/all.txt")"
  python3 - "$ws/sim" "$N" >manifest_check.txt <<'PY' || true
import os, sys
step, n = sys.argv[1], int(sys.argv[2])
table = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    table.append(c)
def crc32c(path):
    c = 0xFFFFFFFF
    with open(path, 'rb') as f:
        for b in f.read():
            c = table[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF
entries = {}
mdir = os.path.join(step, '.merlin_staged')
for name in sorted(os.listdir(mdir)):
    for line in open(os.path.join(mdir, name)):
        if not line.endswith('\n'):
            continue
        sample, path, size, crc = line.rstrip('\n').split('\t')
        entries[(int(sample), path)] = (int(size), int(crc, 16))
problems = 0
for (sample, path), (size, crc) in entries.items():
    full = os.path.join(step, path)
    if not os.path.isfile(full) or os.path.getsize(full) != size or crc32c(full) != crc:
        problems += 1
samples = {s for s, _ in entries}
print(len(entries), len(samples), problems)
PY
  expect_eq "$label: manifest: one entry per sample and file, sizes and CRC32C right" \
    "$((N * 4)) $N 0" "$(cat manifest_check.txt)"
  expect_eq "$label: no temp file left in the workspace" "" "$(find "$ws" -name '*.merlin-tmp.*')"
  expect_eq "$label: scratch holds no file but the node's stage_in copy" "" \
    "$(find "$scratch" -type f ! -path '*/stage_in/*')"
  if [ "$label" = "redis workers" ]; then  # other processes of the node may still use it
    check "$label: stage_in copied once per node" test -f "$(echo "$scratch"/merlin-"$(id -u)"/merlin-*/stage_in/table.dat)"
  else
    expect_eq "$label: the local run removed the study's scratch dir, kept the private one" \
      "merlin-$(id -u):" "$(ls "$scratch" | tr '\n' ':')$(ls "$scratch/merlin-$(id -u)")"
  fi
}

# --- a local run ---------------------------------------------------------------------------
export MERLIN_SCRATCH=$WORK/scratch
"$MERLIN" run --local --no-progress -j 2 staged.yaml >/dev/null 2>run.err
check "local run exits 0" test $? = 0
ws=$(ls -d out/staged_*)
check_workspace "$ws" "$MERLIN_SCRATCH" "local"
check "the worker logged its staging summary" grep -q "staging: tasks=$N failed=0" run.err

# --- scratch: auto without MERLIN_SCRATCH takes app.yaml's scratch: before $TMPDIR ----------
mkdir appcfg && cd appcfg && cp ../staged.yaml ../samples.csv ../table.dat .
printf 'scratch: %s/appscratch\n' "$WORK" >app.yaml
mkdir tmpdir
env -u MERLIN_SCRATCH TMPDIR="$WORK/appcfg/tmpdir" "$MERLIN" run --local --no-progress staged.yaml >/dev/null 2>run.err
check "app.yaml scratch: the run exits 0" test $? = 0
expect_eq "app.yaml scratch: every sample ran under it" "$N" \
  "$(find out -name where.txt -exec cat {} + | grep -c "^$WORK/appscratch/merlin-$(id -u)/merlin-staged_")"
cd ..

# --- killed with SIGKILL mid-study, restarted -------------------------------------------------
rm -rf out runs.log "$MERLIN_SCRATCH"
mkdir -p out && touch out/kill_at_25
set +e
"$MERLIN" run --local --no-progress -j 2 staged.yaml >/dev/null 2>kill.err
rc=$?
set -e
expect_eq "the run was killed" 137 "$rc"
ws=$(ls -d out/staged_*)
check "the kill happened mid-study" test "$(find "$ws/sim" -name MERLIN_FINISHED | wc -l)" -lt $N
"$MERLIN" restart --no-progress -j 2 "$ws" >/dev/null 2>restart.err
check "restart exits 0" test $? = 0
check_workspace "$ws" "$MERLIN_SCRATCH" "after kill -9 and restart"

# --- a declared pattern that matches nothing fails that sample -------------------------------
sed -e 's/name: staged$/name: sparse/' \
  -e 's|echo "sample=$(MERLIN_SAMPLE_ID) k=$(K)" > result.json|[ $(MERLIN_SAMPLE_ID) = 3 ] \|\| echo "sample=$(MERLIN_SAMPLE_ID) k=$(K)" > result.json|' \
  staged.yaml >sparse.yaml
set +e
"$MERLIN" run --local --no-progress sparse.yaml >/dev/null 2>sparse.err
rc=$?
set -e
check "a failed sample makes the run exit non-zero ($rc)" test "$rc" != 0
check "the log names the pattern and the sample" \
  grep -q "staging failed study=sparse step=sim sample=3 .*stage_out pattern 'result.json' matched no file" sparse.err
sws=$(ls -d out/sparse_*)
expect_eq "status: one sample failed" "sim,1,$N,$((N - 1)),1" "$("$MERLIN" status "$sws" --format csv | grep '^sim,' | cut -d, -f1-5)"
check "the failed sample's scratch is kept and named in the log" \
  test -d "$(sed -n 's/.*staging failed.* scratch=\([^ ]*\) .*/\1/p' sparse.err | head -1)"

# --- the same study through Redis workers ------------------------------------------------------
if command -v redis-server >/dev/null && command -v redis-cli >/dev/null; then
  start_redis
  rm -rf "$MERLIN_SCRATCH"
  mkdir dist && cd dist && cp ../staged.yaml ../samples.csv ../table.dat .
  "$MERLIN" run staged.yaml >ws.txt 2>run.err
  dws=$(cat ws.txt)
  "$MERLIN" run-workers staged.yaml --exit-when-done --concurrency 2 >w1.out 2>w1.err &
  w1=$!
  "$MERLIN" run-workers staged.yaml --exit-when-done --concurrency 2 >w2.out 2>w2.err &
  w2=$!
  CLEANUP+=("kill -9 $w1 $w2")
  wait $w1; r1=$?
  wait $w2; r2=$?
  expect_eq "redis: both workers exit 0" "0 0" "$r1 $r2"
  check_workspace "$dws" "$MERLIN_SCRATCH" "redis workers"
  check "redis: a manifest per worker process" test "$(ls "$dws"/sim/.merlin_staged/*.tsv | wc -l)" -ge 1
  cd ..
else
  echo "skip redis part: redis-server/redis-cli not found"
fi
finish
