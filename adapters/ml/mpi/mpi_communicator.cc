#include "adapters/ml/mpi/mpi_communicator.h"

#include <mpi.h>

#include <cstdlib>
#include <string>

namespace merlin::mpi {
namespace {

Result<void> check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return ok();
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  return Error::runtime(std::string(what) + " failed: " + std::string(text, len));
}

class MpiCommunicator final : public ml::Communicator {
 public:
  MpiCommunicator() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  ~MpiCommunicator() override { MPI_Finalize(); }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  Result<void> allreduce_sum(float* data, std::size_t n) override {
    return check(
        MPI_Allreduce(MPI_IN_PLACE, data, static_cast<int>(n), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD),
        "MPI_Allreduce");
  }
  Result<void> allreduce_sum(double* data, std::size_t n) override {
    return check(
        MPI_Allreduce(MPI_IN_PLACE, data, static_cast<int>(n), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD),
        "MPI_Allreduce");
  }
  Result<void> broadcast(float* data, std::size_t n, int root) override {
    return check(MPI_Bcast(data, static_cast<int>(n), MPI_FLOAT, root, MPI_COMM_WORLD),
                 "MPI_Bcast");
  }
  Result<void> barrier() override { return check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }
  void abort_all(int code) override { MPI_Abort(MPI_COMM_WORLD, code); }

 private:
  int rank_ = 0, size_ = 1;
};

}  // namespace

bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMI_RANK", "PMIX_RANK"})
    if (std::getenv(v)) return true;
  return false;
}

Result<std::unique_ptr<ml::Communicator>> make_communicator(int* argc, char*** argv) {
  if (!launched_by_mpi()) return std::unique_ptr<ml::Communicator>(new ml::SingleProcess());
  if (auto r = check(MPI_Init(argc, argv), "MPI_Init"); !r) return r.error();
  // Errors come back as codes (turned into values above), not as an abort inside MPI.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  return std::unique_ptr<ml::Communicator>(new MpiCommunicator());
}

}  // namespace merlin::mpi
