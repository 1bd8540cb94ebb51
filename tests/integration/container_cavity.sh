#!/usr/bin/env bash
# The container_cavity example (our OpenFOAM-style template), as a user gets it from `merlin
# example`: its setup step builds the solver image with podman from the local Debian base, each
# sample's case is edited with sed and solved in its own container, the runs are combined and a
# surrogate learned. First `run --local`, then on a real Redis with the spec's two worker pools.
# Bad input: a case without a viscosity is refused by the solver with the file's name.
# The image is tagged per run and removed at the end. Skips (77) with the reason when
# MERLIN_TEST_CONTAINERS=0, when not root, when the base image cannot be made or podman cannot
# run containers here.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/container_lib.sh"
need_containers
image=localhost/merlin-cavity-solver:test-${WORK##*.}
CLEANUP+=("podman rmi -f $image")
export PATH="$(dirname "$MERLIN"):$PATH"  # the generate command calls `merlin sample`
vars=("CONTAINER_BUILD=${PODMAN[*]} build ${PODMAN_BUILD_OPTS[*]}"
  "CONTAINER_RUN=${PODMAN[*]} run --rm ${PODMAN_RUN_OPTS[*]}" "BASE_IMAGE=$base" "SOLVER_IMAGE=$image")

"$MERLIN" example container_cavity >/dev/null
cd container_cavity
check "the solver is not on the host: a run that succeeds ran in the container" test ! -e /solver/cavity.py
set +e
"$MERLIN" run --local --no-progress container_cavity.yaml --vars "${vars[@]}" >local.out 2>local.err
rc=$?
set -e
expect_eq "run --local: exit 0" 0 "$rc"
[ "$rc" = 0 ] || { tail -20 local.err; cat studies/*/setup/build.log 2>/dev/null | tail -20; }
ws=$(ls -d studies/container_cavity_*)
"$MERLIN" status "$ws" --format csv >status.csv
expect_eq "run --local: every step done, none failed" \
  "setup,1,1,1,0|sim_runs,1,10,10,0|combine_outputs,1,1,1,0|learn,1,1,1,0" \
  "$(cut -d, -f1-5 status.csv | tail -n +2 | paste -sd'|')"
check "the image was built from the local base" bash -c "podman image inspect $image --format '{{.Labels}}' | grep -q container_cavity"
expect_eq "each sample's case got its own viscosity (10 distinct values)" 10 \
  "$(grep -h '^nu ' "$ws"/sim_runs/*/cavity/constant/transportProperties | sort -u | wc -l)"
expect_eq "and its solver log" 10 "$(ls "$ws"/sim_runs/*/cavity/log.cavity | wc -l)"
expect_eq "combine_outputs: one row per run" 11 "$(wc -l <"$ws/combine_outputs/cavity_data.csv")"
r2=$(/usr/bin/python3 -c "import json; print(json.load(open('$ws/learn/surrogate.json'))['loo_r2'])")
check "learn: the surrogate's leave-one-out R^2 is above 0.99 ($r2)" \
  /usr/bin/python3 -c "import sys; sys.exit(0 if $r2 > 0.99 else 1)"

# --- on workers: the spec's two pools, a real Redis ------------------------------------------------
start_redis
"$MERLIN" run container_cavity.yaml --vars "${vars[@]}" >queue.out 2>queue.err
expect_eq "queued on Redis" 0 $?
set +e
timeout 300 "$MERLIN" run-workers container_cavity.yaml --exit-when-done >workers.out 2>workers.err
rc=$?
set -e
expect_eq "run-workers: both pools exit 0 when the study is done" 0 "$rc"
ws2=$(ls -d studies/container_cavity_* | grep -v "^$ws$")
"$MERLIN" status "$ws2" --format csv >status2.csv
expect_eq "on workers: every step done, none failed" \
  "setup,1,1,1,0|sim_runs,1,10,10,0|combine_outputs,1,1,1,0|learn,1,1,1,0" \
  "$(cut -d, -f1-5 status2.csv | tail -n +2 | paste -sd'|')"
check "on workers: the simulations ran on simworkers" \
  bash -c "'$MERLIN' detailed-status '$ws2' --format csv | grep '^sim_runs,' | cut -d, -f9 | sort -u | grep -qx simworkers"

# --- bad input -----------------------------------------------------------------------------------
cp -r "$ws/sim_runs/00/cavity" bad
sed -i '/^nu /d' bad/constant/transportProperties
set +e
"${PODMAN[@]}" run --rm "${PODMAN_RUN_OPTS[@]}" -v "$PWD/bad:/case" -w /case "$image" python3 /solver/cavity.py >bad.out 2>bad.err
rc=$?
set -e
expect_eq "a case without nu: the solver exits 1" 1 "$rc"
check "and names the file ($(cat bad.err))" grep -q "constant/transportProperties: no 'nu'" bad.err
finish
