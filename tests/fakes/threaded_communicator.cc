#include "tests/fakes/threaded_communicator.h"

namespace merlin::testing {

class ThreadedCommunicators::Rank final : public ml::Communicator {
 public:
  Rank(ThreadedCommunicators& all, int rank) : all_(all), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return all_.size_; }
  Result<void> allreduce_sum(double* data, std::size_t n) override {
    all_.reduce(rank_, data, data, n);
    return ok();
  }
  Result<void> allreduce_sum(float* data, std::size_t n) override {
    std::vector<double> d(data, data + n);
    all_.reduce(rank_, d.data(), d.data(), n);
    for (std::size_t i = 0; i < n; ++i) data[i] = static_cast<float>(d[i]);
    return ok();
  }
  Result<void> broadcast(float* data, std::size_t n, int root) override {
    // The root's values plus zeros from the others: exactly the root's values.
    std::vector<double> d(n, 0.0);
    if (rank_ == root) d.assign(data, data + n);
    all_.reduce(rank_, d.data(), d.data(), n);
    for (std::size_t i = 0; i < n; ++i) data[i] = static_cast<float>(d[i]);
    return ok();
  }
  Result<void> barrier() override {
    all_.reduce(rank_, nullptr, nullptr, 0);
    return ok();
  }
  void abort_all(int) override {}

 private:
  ThreadedCommunicators& all_;
  int rank_;
};

ThreadedCommunicators::ThreadedCommunicators(int ranks) : size_(ranks), deposits_(ranks) {
  for (int r = 0; r < ranks; ++r) ranks_.push_back(std::make_unique<Rank>(*this, r));
}

ThreadedCommunicators::~ThreadedCommunicators() = default;

ml::Communicator& ThreadedCommunicators::rank(int r) { return *ranks_[r]; }

void ThreadedCommunicators::reduce(int rank, const double* in, double* out, std::size_t n) {
  std::unique_lock lock(mu_);
  deposits_[rank].assign(in, in + n);
  const long gen = generation_;
  if (++arrived_ == size_) {
    result_.assign(n, 0.0);
    for (const auto& d : deposits_)
      for (std::size_t i = 0; i < n && i < d.size(); ++i) result_[i] += d[i];
    arrived_ = 0;
    ++generation_;
    cv_.notify_all();
  } else {
    cv_.wait(lock, [&] { return generation_ != gen; });
  }
  // result_ stays until every rank of this generation has copied it: the next round cannot
  // complete without this rank arriving.
  std::copy(result_.begin(), result_.begin() + static_cast<std::ptrdiff_t>(n), out);
}

}  // namespace merlin::testing
