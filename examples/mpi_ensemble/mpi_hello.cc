// A small MPI program for the mpi_ensemble example and the Slurm tests: every rank reports
// in, rank 0 writes "ranks=<size> launcher=<srun|mpirun|none>" to the file named by argv[2]
// and exits 1 if the communicator does not hold argv[1] ranks (a launcher that silently
// started N one-rank jobs is caught here).
#include <mpi.h>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int want = argc > 1 ? std::atoi(argv[1]) : size;
  int one = 1, sum = 0;
  MPI_Reduce(&one, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  int rc = 0;
  if (rank == 0) {
    const char* launcher = std::getenv("SLURM_STEP_ID")          ? "srun"
                           : std::getenv("OMPI_COMM_WORLD_SIZE") ? "mpirun"
                                                                 : "none";
    std::printf("ranks=%d reported=%d launcher=%s\n", size, sum, launcher);
    if (argc > 2) {
      if (FILE* f = std::fopen(argv[2], "w")) {
        std::fprintf(f, "ranks=%d launcher=%s\n", size, launcher);
        std::fclose(f);
      }
    }
    if (size != want || sum != size) {
      std::fprintf(stderr, "expected %d ranks, the communicator has %d\n", want, size);
      rc = 1;
    }
  }
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return rc;
}
