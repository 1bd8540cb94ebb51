#!/usr/bin/env bash
# Our counterparts of Merlin's slurm, flux, lsf and remote_feature_demo examples, as a user gets
# them from `merlin example NAME`:
#  - remote_feature_demo on a real Redis: `run-workers` without --exit-when-done returns by
#    itself once the study's stop_workers step has run, verify having passed;
#  - slurm_par through `run-workers` on a private two-node Slurm: the worker job (2 nodes, a
#    worker on each) compiles the MPI program, runs each sample with 4 ranks under srun, and
#    ends with the study. One node per run (NODES=1): the two nodes are one host, where Open
#    MPI's shared-memory set-up fails for a run across two of them;
#    slurm_par_restart by `merlin run --local` inside an salloc allocation, each run started by
#    its step's restart command;
#  - flux and lsf, which these machines lack: every sample's launcher line and the batch
#    scripts `run-workers --echo` prints.
source "$(dirname "$0")/lib.sh"
export PATH="$(dirname "$MERLIN"):$PATH"  # the specs' generate commands call `merlin sample`
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1  # OpenMPI as root (tests run so)

list=$("$MERLIN" example list)
for ex in slurm flux lsf remote_feature_demo; do
  check "example list offers $ex" grep -q "^$ex " <<<"$list"
  "$MERLIN" example "$ex" >/dev/null
done
check "the flux and lsf examples carry the program (scripts/hello.c), not a link" \
  bash -c "[ -f flux/scripts/hello.c ] && [ ! -L flux/scripts ] && [ -f lsf/scripts/hello.c ] && [ ! -L lsf/scripts ]"
check "remote_feature_demo carries feature_demo's scripts" test -f remote_feature_demo/scripts/simulate.py

# --- flux and lsf: rendered ------------------------------------------------------------------
# The sample lines of a dry run's `runs` scripts, with the workspace and values taken out.
launcher_lines() {  # spec
  local ws
  ws=$("$MERLIN" run --local --dry "$1" 2>/dev/null | tail -1)
  find "$ws/runs" -name 'runs.*.sh' -exec grep -h 'mpi_hello' {} + |
    sed -E "s#$ws#WS#g; s#$(dirname "$MERLIN")#BIN#g; s# [0-9.e-]+ [0-9.e-]+ > # V1 V2 > #" | sort | uniq -c
}
cd "$WORK/flux"
expect_eq "flux: each of the 10 samples runs 4 ranks with flux run" \
  "     10 flux run -n 4 -N 1 -c 1 BIN/merlin-rank-env WS/build/mpi_hello V1 V2 > flux_run.out" \
  "$(launcher_lines flux_par.yaml)"
"$MERLIN" run-workers flux_par.yaml --echo >echo.txt 2>&1
check "flux: run-workers --echo prints a flux batch script of one node" grep -q '^#flux: -N 1' echo.txt
check "flux: whose worker serves runs and data" grep -q 'run-workers .*flux_par.yaml --worker simworkers' echo.txt
cd "$WORK/lsf"
expect_eq "lsf: each sample runs 4 ranks with jsrun" \
  "     10 jsrun --np 4 --nrs 1 -b rs -d plane:4 -X 1 BIN/merlin-rank-env WS/build/mpi_hello V1 V2 > lsf_run.out" \
  "$(launcher_lines lsf_par.yaml)"
expect_eq "lsf-srun: each sample runs 4 ranks on 2 nodes with srun" \
  "     10 srun -n 4 -N 2 BIN/merlin-rank-env WS/build/mpi_hello V1 V2 > lsf_run.out" \
  "$(launcher_lines lsf_par_srun.yaml)"
"$MERLIN" run-workers lsf_par.yaml --echo >echo.txt 2>&1
check "lsf: run-workers --echo prints a #BSUB script" grep -q '^#BSUB' echo.txt

# --- remote_feature_demo on a real Redis ---------------------------------------------------------
start_redis
cd "$WORK/remote_feature_demo"
"$MERLIN" run remote_feature_demo.yaml >run.out 2>run.err
expect_eq "remote_feature_demo: queued" 0 $?
set +e
timeout 240 "$MERLIN" run-workers remote_feature_demo.yaml >workers.out 2>workers.err
rc=$?
set -e
expect_eq "remote_feature_demo: run-workers returns by itself, exit 0 (stop_workers ran)" 0 "$rc"
check "remote_feature_demo: the workers say why they stopped" grep -q "MERLIN_STOP_WORKERS" workers.err
ws=$(ls -d studies/feature_demo_*)
check "remote_feature_demo: verify passed" bash -c "ls $ws/verify/*/FINISHED >/dev/null"
"$MERLIN" status "$ws" --format csv >status.csv
expect_eq "remote_feature_demo: every simulate sample done, none failed" "simulate,1,10,10,0" \
  "$(grep '^simulate,' status.csv | cut -d, -f1-5)"

# --- slurm on a real Slurm ---------------------------------------------------------------------
source "$(dirname "$0")/slurm_lib.sh"
if ! command -v mpicc >/dev/null; then
  fail "mpicc not found (apt-get install libopenmpi-dev): the slurm example needs it"
  finish
  exit
fi
start_slurm  # two nodes of 4 CPUs
job_state() { squeue -h -t all -j "$1" -o %T 2>/dev/null | sort -u; }
job_over() { local s; s=$(job_state "$1"); [ -n "$s" ] && ! grep -qvE '^(COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL)$' <<<"$s"; }
cd "$WORK/slurm"
"$MERLIN" run slurm_par.yaml --vars NODES=1 >run.out 2>run.err
expect_eq "slurm_par: queued" 0 $?
"$MERLIN" run-workers slurm_par.yaml >submit.out 2>submit.err
job=$(sed -n 's/^worker [^:]*: slurm job \([0-9]*\) .*/\1/p' submit.out)
check "slurm_par: run-workers submitted a job ($(cat submit.out submit.err))" test -n "$job"
expect_eq "slurm_par: one job, for simworkers: build and stop_workers share its queue" 1 \
  "$(grep -c 'slurm job' submit.out)"
if wait_until 240 job_over "$job"; then pass "slurm_par: the worker job ends by itself"
else fail "slurm_par: the worker job ends by itself ($(job_state "$job"))"; cat merlin_workers/*.out; fi
expect_eq "slurm_par: completed, giving its 2 nodes back" COMPLETED "$(job_state "$job")"
ws=$(ls -d studies/slurm_par_*)
expect_eq "slurm_par: 10 runs of 4 ranks" 10 "$(grep -c '^ranks=4 args=' "$ws/data/data.out")"
"$MERLIN" status "$ws" --format csv >status.csv
expect_eq "slurm_par: every step done, none failed" "build,1,1,1,0|runs,1,10,10,0|data,1,1,1,0|stop_workers,1,1,1,0" \
  "$(cut -d, -f1-5 status.csv | tail -n +2 | paste -sd'|')"

set +e
timeout 240 salloc -N 2 --exclusive -Q "$MERLIN" run --local --no-progress slurm_par_restart.yaml >restart.out 2>restart.err
rc=$?
set -e
expect_eq "slurm_par_restart: run --local inside salloc -N 2 exits 0" 0 "$rc"
ws=$(ls -d studies/slurm_par_restart_*)
expect_eq "slurm_par_restart: 10 runs of 4 ranks, each by its restart command" 10 \
  "$(grep -c '^ranks=4 args=' "$ws/data/data.out")"
expect_eq "slurm_par_restart: a restart script per sample" 10 "$(find "$ws/runs" -name 'runs.restart.slurm.sh' | wc -l)"
finish
