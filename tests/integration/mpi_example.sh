#!/usr/bin/env bash
# examples/mpi_ensemble under `run --local`: $(LAUNCHER) is `mpirun -np 2` (procs taken from
# an env variable), every sample's MPI run has 2 ranks, and the collecting step sees them all.
source "$(dirname "$0")/lib.sh"
mpi_hello=$(dirname "$MERLIN")/mpi_hello
[ -x "$mpi_hello" ] || { echo "SKIP: $mpi_hello not built (apt-get install libopenmpi-dev)"; exit 77; }
command -v mpirun >/dev/null || { echo "SKIP: mpirun not found (apt-get install openmpi-bin)"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1  # harmless when not root
"$MERLIN" run --local --no-progress "$SRC/examples/mpi_ensemble/mpi_ensemble.yaml" \
  --vars "MPI_HELLO=$mpi_hello" >out.txt 2>err.txt
ws=$(ls -d mpi_ensemble_*)
check "the launcher is mpirun -np 2, then the rank shim" grep -q "^mpirun -np 2 $(dirname "$MERLIN")/merlin-rank-env $mpi_hello 2 ranks.txt$" "$ws"/sim/00/sim.sh
expect_eq "4 samples, each 2 ranks under mpirun" "4" \
  "$(grep -c '^ranks=2 launcher=mpirun$' "$ws/collect/all_ranks.txt")"
expect_eq "every seed collected" "101 102 103 104" \
  "$(sed -n 's/^sample [0-9]* seed //p' "$ws/collect/all_ranks.txt" | sort | paste -sd' ')"
finish
