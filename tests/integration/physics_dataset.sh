#!/usr/bin/env bash
# The dataset path end to end (#12): examples/physics_dataset — Latin-hypercube samples from
# `merlin sample`, a C++ simulation per sample run in node-local scratch with its outputs staged
# back, `merlin collect` into one HDF5 file — locally and with two Redis workers. h5py
# (Debian's python3-h5py) reads the dataset back and finds every row equal, value for value, to
# the files its sample wrote; scratch is left empty and every staged file is in the manifest.
source "$(dirname "$0")/lib.sh"
need_python h5py numpy
command -v c++ >/dev/null || { echo "SKIP: no c++ compiler for the example's build step"; exit 77; }
N=30
# `merlin example NAME` copies one folder, so ml_campaign carries its own copy of the simulator.
check "examples/ml_campaign/projectile.cc is the same file as physics_dataset's" \
  cmp -s "$SRC/examples/physics_dataset/projectile.cc" "$SRC/examples/ml_campaign/projectile.cc"
"$MERLIN" example physics_dataset >/dev/null 2>&1
spec=$WORK/physics_dataset/physics_dataset.yaml
check "example physics_dataset is copied" test -f "$spec"

# every_file_staged WS: each sample's two outputs are in the workspace and in the manifest.
every_file_staged() {
  local ws=$1
  [ "$(find "$ws/simulate" -name result.json | wc -l)" = "$N" ] &&
    [ "$(find "$ws/simulate" -name trajectory.npy | wc -l)" = "$N" ] &&
    [ "$(cat "$ws"/simulate/.merlin_staged/*.tsv | awk '{ print $1, $2 }' | sort -u | wc -l)" = $((2 * N)) ]
}

# --- locally
mkdir -p local scratch_local
set +e
(cd local && MERLIN_SCRATCH=$WORK/scratch_local "$MERLIN" run --local --no-progress "$spec" \
  --vars N_SAMPLES=$N >run.out 2>run.err)
rc=$?
set -e
expect_eq "local: run exits 0" 0 "$rc"
[ "$rc" = 0 ] || tail -20 local/run.err
ws=$(ls -d "$WORK"/local/studies/physics_dataset_* 2>/dev/null | head -1)
check "local: the dataset is written" test -f "$ws/collect/dataset.h5"
check "local: h5py reads every row equal to its sample's files" "$PY" \
  "$SRC/examples/physics_dataset/check_dataset.py" "$ws"
check "local: every output staged and in the manifest" every_file_staged "$ws"
expect_eq "local: no output left in scratch" 0 "$(find scratch_local -type f | wc -l)"
check "local: no half-copied output in the workspace" bash -c "! find '$ws' -name '*.tmp*' | grep -q ."

# --- with two workers on Redis
start_redis
mkdir -p dist scratch_dist
(cd dist && "$MERLIN" run "$spec" --vars N_SAMPLES=$N >run.out 2>run.err)
expect_eq "workers: the study is queued" 0 $?
for w in 1 2; do
  (cd dist && MERLIN_SCRATCH=$WORK/scratch_dist timeout 300 "$MERLIN" run-workers "$spec" \
    --exit-when-done >"workers$w.out" 2>"workers$w.err") &
done
set +e
wait %1; rc1=$?
wait %2; rc2=$?
set -e
expect_eq "workers: both exit 0" "0 0" "$rc1 $rc2"
ws=$(ls -d "$WORK"/dist/studies/physics_dataset_* 2>/dev/null | head -1)
check "workers: h5py reads every row equal to its sample's files" "$PY" \
  "$SRC/examples/physics_dataset/check_dataset.py" "$ws"
check "workers: every output staged and in the manifest" every_file_staged "$ws"
expect_eq "workers: no output left in scratch" 0 "$(find scratch_dist -type f | wc -l)"
finish
