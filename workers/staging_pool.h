#pragma once
/// The bounded queue and threads that stage outputs while slots run their next tasks
/// (docs/staging.md). A slot hands a job over and goes on; when `capacity` jobs wait, it blocks
/// (backpressure: staging cannot fall ever further behind the steps).
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace merlin {

class StagingPool {
 public:
  /// Starts `threads` (at least 1) threads. Throws std::system_error as std::thread does (the
  /// Worker catches it where it starts its threads).
  StagingPool(int threads, std::size_t capacity);
  /// drain().
  ~StagingPool();
  StagingPool(const StagingPool&) = delete;
  StagingPool& operator=(const StagingPool&) = delete;

  /// Queues `job`, blocking while `capacity` jobs wait. False (the job is not run) once
  /// drain() has begun. Thread-safe.
  bool submit(std::function<void()> job);
  /// Runs every job queued, then ends the threads; returns when they have. Idempotent.
  void drain();
  /// Time the threads spent in jobs, summed, and the jobs run (for the report).
  double busy_seconds() const;
  std::uint64_t jobs_run() const;

 private:
  void loop();

  const std::size_t capacity_;
  mutable std::mutex mu_;
  std::condition_variable has_job_, has_room_;
  std::deque<std::function<void()>> jobs_;
  bool closing_ = false;
  double busy_ = 0;
  std::uint64_t run_ = 0;
  std::vector<std::thread> threads_;
};

}  // namespace merlin
