#pragma once
/// The collective operations data-parallel training needs, as a small interface: the MPI one
/// is adapters/ml/mpi (the only code that sees MPI), `SingleProcess` is one rank alone (no
/// launcher, and the unit tests). Every rank must make the same calls in the same order.
#include <cstddef>
#include <memory>

#include "merlin/core/util/result.h"

namespace merlin::ml {

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// Element-wise sum over the ranks, in place (every rank gets the sum).
  virtual Result<void> allreduce_sum(float* data, std::size_t n) = 0;
  virtual Result<void> allreduce_sum(double* data, std::size_t n) = 0;
  /// Rank `root`'s values into every rank's buffer.
  virtual Result<void> broadcast(float* data, std::size_t n, int root) = 0;
  /// Returns when every rank has called it.
  virtual Result<void> barrier() = 0;
  /// Ends every rank of the job with exit `code`: for a rank that cannot go on alone while the
  /// others would wait for it in a collective. Returns (doing nothing) for one rank.
  virtual void abort_all(int code) = 0;
};

/// One rank: sums and broadcasts leave the data as it is.
class SingleProcess final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  Result<void> allreduce_sum(float*, std::size_t) override { return ok(); }
  Result<void> allreduce_sum(double*, std::size_t) override { return ok(); }
  Result<void> broadcast(float*, std::size_t, int) override { return ok(); }
  Result<void> barrier() override { return ok(); }
  void abort_all(int) override {}
};

}  // namespace merlin::ml
