#!/usr/bin/env bash
# A user's unchanged PyTorch DDP script (env:// initialisation) as a `procs: 2` step, two tasks
# at once (issue 27 §1): $(LAUNCHER) ends with merlin-rank-env, which gives every rank RANK,
# WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, NODE_RANK and MASTER_ADDR; the worker gives each task
# a MASTER_PORT of its own. Under local mpirun, then under srun in a private Slurm. Both tasks'
# process groups are up at the same time (the script waits for the other task's before it
# reduces), so a shared port would fail the run.
source "$(dirname "$0")/lib.sh"
set +e  # exit codes are what this test checks
need_python torch
command -v mpirun >/dev/null || { echo "SKIP: mpirun not found (apt-get install openmpi-bin)"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1  # harmless when not root
export OMPI_MCA_rmaps_base_oversubscribe=1  # 4 ranks on fewer cores
SHIM=$(dirname "$MERLIN")/merlin-rank-env
SPEC=$SRC/tests/integration/torch_ddp/ddp_pair.yaml
ulimit -f 100000  # KiB: the workspaces hold a few lines each

# The shim's own bad input: no command, a launcher flag where the command goes, no such program.
"$SHIM" >/dev/null 2>shim.err
expect_eq "merlin-rank-env without a command: exit 2" 2 $?
"$SHIM" --mpi=pmix ./app 2>shim.err
expect_eq "a launcher flag after \$(LAUNCHER): exit 2" 2 $?
check "... and the message says where the flag belongs" grep -q "slurm:" shim.err
"$SHIM" ./no-such-program 2>shim.err
expect_eq "a command that is not there: exit 127, as the shell's" 127 $?
check "... named in the message" grep -q "cannot run './no-such-program'" shim.err
# Outside any launcher it sets nothing, and it execs: the command's parent is not the shim.
out=$("$SHIM" bash -c 'echo ${RANK:-unset} $(cat /proc/$PPID/comm)')
check "no launcher: nothing set, no process left between ($out)" test "${out% *}" = unset -a "${out#* }" != merlin-rank-env

# check_ranks WS WHAT ADDR: the ranks.txt of both tasks.
check_ranks() {
  local ws=$1 w=$2 addr=$3 t
  for t in a b; do
    local f=$ws/train/TASK.$t/ranks.txt
    expect_eq "$w: task $t, both ranks reduced over 2 (1 + 2)" "sum=3 RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 LOCAL_WORLD_SIZE=2 NODE_RANK=0 MASTER_ADDR=$addr
sum=3 RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 LOCAL_WORLD_SIZE=2 NODE_RANK=0 MASTER_ADDR=$addr" \
      "$(sed -E 's/^task=[a-z]+ //; s/ MASTER_PORT=[0-9]+$//' "$f" | sort)"
    expect_eq "$w: task $t's ranks met on one port" 1 "$(grep -o 'MASTER_PORT=[0-9]*' "$f" | sort -u | wc -l)"
  done
  local pa pb
  pa=$(grep -o 'MASTER_PORT=[0-9]*' "$ws/train/TASK.a/ranks.txt" | head -1)
  pb=$(grep -o 'MASTER_PORT=[0-9]*' "$ws/train/TASK.b/ranks.txt" | head -1)
  check "$w: the two tasks had ports of their own ($pa, $pb)" test -n "$pa" -a "$pa" != "$pb"
}

# run_pair DIR SPEC WHAT SCRIPT LINE: both tasks of SPEC at once in DIR; the launcher line of
# task a's SCRIPT must start with LINE; then the ranks of both (check_ranks).
run_pair() {
  local dir=$1 spec=$2 w=$3 script=$4 line=$5
  mkdir -p "$dir/barrier"
  (cd "$dir" && "$MERLIN" run --local -j 2 --no-progress "$spec" --vars BARRIER="$WORK/$dir/barrier" \
    >out.txt 2>err.txt)
  expect_eq "$w: the study ran" 0 $?
  ws=$(ls -d "$WORK/$dir"/ddp_pair_*)
  check "$w: \$(LAUNCHER) is '$line', then the user's command" \
    grep -q "^$line /usr/bin/python3 .*ddp_allreduce.py a " "$ws/train/TASK.a/$script"
  check_ranks "$ws" "$w" 127.0.0.1
  [ $FAILS = 0 ] || { cat "$dir/err.txt" "$ws"/train/TASK.*/train_TASK.*.err | tail -30; }
}

# --- local: mpirun -np 2 --------------------------------------------------------------------
run_pair local "$SPEC" mpirun train_TASK.a.sh "mpirun -np 2 $SHIM"

# MERLIN_RANK_ENV= (empty) renders $(LAUNCHER) as before, without the shim.
(cd local && MERLIN_RANK_ENV= "$MERLIN" run --local --dry --no-progress "$SPEC" >/dev/null 2>&1)
check "MERLIN_RANK_ENV= leaves the shim out" \
  grep -q "^mpirun -np 2 /usr/bin/python3 " "$(ls -d "$WORK"/local/ddp_pair_* | tail -1)/train/TASK.a/train_TASK.a.sh"

# --- srun in a private Slurm ----------------------------------------------------------------
source "$SRC/tests/integration/slurm_lib.sh"
SLURM_NODES=1 SLURM_CPUS=4 start_slurm
mkdir -p slurm
sed 's/type: local/type: slurm/; s/procs: 2/procs: 2\n      nodes: 1/' "$SPEC" >slurm/ddp_pair.yaml
cp "$(dirname "$SPEC")/ddp_allreduce.py" slurm/
run_pair slurm "$WORK/slurm/ddp_pair.yaml" srun train_TASK.a.slurm.sh "srun -n 2 -N 1 $SHIM"
finish
