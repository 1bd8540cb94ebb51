#pragma once
/// N ranks as N threads of one process, for unit tests of collective code without MPI: each
/// thread takes `rank(r)`, and every collective returns once all N threads have called it
/// (sums in rank order, so results do not depend on which thread came first).
#include <condition_variable>
#include <memory>
#include <mutex>
#include <vector>

#include "merlin/core/ml/communicator.h"

namespace merlin::testing {

class ThreadedCommunicators {
 public:
  explicit ThreadedCommunicators(int ranks);
  ~ThreadedCommunicators();
  ml::Communicator& rank(int r);

  /// One rendezvous: rank r's `in` (n values) goes in; every rank gets the sum over ranks.
  void reduce(int rank, const double* in, double* out, std::size_t n);

 private:
  class Rank;
  int size_;
  std::vector<std::unique_ptr<Rank>> ranks_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::vector<double>> deposits_;
  std::vector<double> result_;
  int arrived_ = 0;
  long generation_ = 0;
};

}  // namespace merlin::testing
