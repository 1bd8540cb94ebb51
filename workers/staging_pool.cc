#include "workers/staging_pool.h"

#include <algorithm>

namespace merlin {

StagingPool::StagingPool(int threads, std::size_t capacity)
    : capacity_(std::max<std::size_t>(1, capacity)) {
  const int n = std::max(1, threads);
  try {
    for (int i = 0; i < n; ++i) threads_.emplace_back([this] { loop(); });
  } catch (...) {
    drain();
    throw;
  }
}

StagingPool::~StagingPool() { drain(); }

bool StagingPool::submit(std::function<void()> job) {
  std::unique_lock lock(mu_);
  has_room_.wait(lock, [this] { return closing_ || jobs_.size() < capacity_; });
  if (closing_) return false;
  jobs_.push_back(std::move(job));
  has_job_.notify_one();
  return true;
}

void StagingPool::drain() {
  {
    std::lock_guard lock(mu_);
    closing_ = true;
  }
  has_job_.notify_all();
  has_room_.notify_all();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
}

double StagingPool::busy_seconds() const {
  std::lock_guard lock(mu_);
  return busy_;
}

std::uint64_t StagingPool::jobs_run() const {
  std::lock_guard lock(mu_);
  return run_;
}

void StagingPool::loop() {
  std::unique_lock lock(mu_);
  for (;;) {
    has_job_.wait(lock, [this] { return closing_ || !jobs_.empty(); });
    if (jobs_.empty()) return;  // closing, and every job has run
    auto job = std::move(jobs_.front());
    jobs_.pop_front();
    has_room_.notify_one();
    lock.unlock();
    auto start = std::chrono::steady_clock::now();
    job();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    lock.lock();
    busy_ += s;
    ++run_;
  }
}

}  // namespace merlin
