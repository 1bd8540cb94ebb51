#pragma once
/// The MPI Communicator (MPI_COMM_WORLD). Only this folder includes <mpi.h>.
#include <memory>

#include "merlin/core/ml/communicator.h"
#include "merlin/core/util/result.h"

namespace merlin::mpi {

/// Whether this process was started by an MPI launcher (mpirun/mpiexec, srun with PMI/PMIx):
/// one of OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMI_RANK, PMIX_RANK is set.
bool launched_by_mpi();

/// Under an MPI launcher, initialises MPI (finalised when the communicator goes) and returns
/// MPI_COMM_WORLD's; otherwise a SingleProcess, without touching MPI (a plain run needs no
/// orted). Errors (kRuntime) when MPI_Init fails.
Result<std::unique_ptr<ml::Communicator>> make_communicator(int* argc, char*** argv);

}  // namespace merlin::mpi
