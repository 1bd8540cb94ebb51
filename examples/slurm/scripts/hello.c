/* One MPI run of the slurm, flux and lsf examples: every rank reports where it runs and the
 * sample it was given; rank 0 writes the report. Exits 1 when the communicator does not hold
 * the ranks the launcher was asked for (MERLIN_PROCS, set by merlin for the step), so that a
 * launcher that started N one-rank jobs instead of one N-rank job is caught. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0, len = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char host[MPI_MAX_PROCESSOR_NAME] = {0};
  MPI_Get_processor_name(host, &len);

  /* Rank 0 gathers every rank's host name. */
  char* all = rank == 0 ? calloc((size_t)size, MPI_MAX_PROCESSOR_NAME) : NULL;
  MPI_Gather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
             MPI_COMM_WORLD);
  int status = 0;
  if (rank == 0) {
    const char* want = getenv("MERLIN_PROCS");
    if (want && atoi(want) > 0 && atoi(want) != size) {
      fprintf(stderr, "hello: %d ranks, but the step asked for %s\n", size, want);
      status = 1;
    }
    printf("ranks=%d args=", size);
    for (int i = 1; i < argc; ++i) printf("%s%s", i > 1 ? "," : "", argv[i]);
    printf("\n");
    for (int r = 0; r < size; ++r) printf("rank %d on %s\n", r, all + (size_t)r * MPI_MAX_PROCESSOR_NAME);
    free(all);
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return status;
}
