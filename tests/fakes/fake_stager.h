#pragma once
// A Stager that touches no file: it records calls, can hold stage_out until released (to see
// what a worker does while staging waits) and fails the samples it is told to. Thread-safe.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <vector>

#include "workers/stager.h"

namespace merlin::testing {

class FakeStager : public Stager {
 public:
  Result<void> prepare(const RenderedTask& task) override {
    std::lock_guard lock(mu_);
    prepared_.push_back(task.sample);
    if (on_prepare_) on_prepare_(task.sample);
    cv_.notify_all();
    if (node_failures_ > 0) {
      node_failures_--;
      return Error{node_error_,
                   "scratch not usable: cannot write " + task.scratch_dir +
                       "/.merlin-probe: No space left on device",
                   false};
    }
    if (fail_prepare_.count(task.sample))
      return Error::runtime("stage_in: cannot read /spec/missing.dat: No such file or directory");
    return {};
  }
  Result<StageOutReport> stage_out(const RenderedTask& task) override {
    std::unique_lock lock(mu_);
    started_.push_back(task.sample);
    cv_.notify_all();
    cv_.wait(lock, [this] { return !held_; });
    if (fail_stage_.count(task.sample))
      return Error::runtime("stage_out pattern 'out.txt' matched no file in " + task.scratch_dir);
    staged_.push_back(task.sample);
    StageOutReport r;
    r.bytes = 10;
    return r;
  }
  Result<void> clean(const RenderedTask& task) override {
    std::lock_guard lock(mu_);
    cleaned_.push_back(task.sample);
    return {};
  }

  Result<void> record_success(const RenderedTask& task, double seconds,
                              bool write_finished) override {
    std::lock_guard lock(mu_);
    records_[task.sample] = SuccessRecord{"boot", seconds, write_finished};
    return {};
  }
  std::optional<SuccessRecord> success_record(const RenderedTask& task) override {
    std::lock_guard lock(mu_);
    auto it = records_.find(task.sample);
    if (it == records_.end()) return std::nullopt;
    return it->second;
  }
  void drop_success_record(const RenderedTask& task) override {
    std::lock_guard lock(mu_);
    records_.erase(task.sample);
  }
  /// A record as a worker that died during staging leaves it.
  void leave_success_record(std::uint64_t sample, double seconds) {
    std::lock_guard lock(mu_);
    records_[sample] = SuccessRecord{"boot", seconds, true};
  }
  bool has_success_record(std::uint64_t sample) const {
    std::lock_guard lock(mu_);
    return records_.count(sample) > 0;
  }

  void hold() {
    std::lock_guard lock(mu_);
    held_ = true;
  }
  void release() {
    std::lock_guard lock(mu_);
    held_ = false;
    cv_.notify_all();
  }
  void fail_prepare(std::uint64_t sample) {
    std::lock_guard lock(mu_);
    fail_prepare_.insert(sample);
  }
  /// The next `n` prepares fail for a reason of the node (`code`: kNoSpace, kUnavailable).
  void fail_node_scratch(int n, ErrorCode code = ErrorCode::kNoSpace) {
    std::lock_guard lock(mu_);
    node_failures_ = n;
    node_error_ = code;
  }
  /// Called (under the fake's lock) with each prepared sample: a test reads its clock there.
  void on_prepare(std::function<void(std::uint64_t)> f) {
    std::lock_guard lock(mu_);
    on_prepare_ = std::move(f);
  }
  void fail_stage_out(std::uint64_t sample) {
    std::lock_guard lock(mu_);
    fail_stage_.insert(sample);
  }
  /// Waits (at most `bound`) until `n` prepares, or `n` stage_outs, have begun.
  bool wait_prepared(std::size_t n, std::chrono::seconds bound) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, bound, [&] { return prepared_.size() >= n; });
  }
  bool wait_started(std::size_t n, std::chrono::seconds bound) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, bound, [&] { return started_.size() >= n; });
  }
  std::vector<std::uint64_t> prepared() const { return get(prepared_); }
  std::vector<std::uint64_t> started() const { return get(started_); }
  std::vector<std::uint64_t> staged() const { return get(staged_); }
  std::vector<std::uint64_t> cleaned() const { return get(cleaned_); }

 private:
  std::vector<std::uint64_t> get(const std::vector<std::uint64_t>& v) const {
    std::lock_guard lock(mu_);
    return v;
  }
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool held_ = false;
  int node_failures_ = 0;
  ErrorCode node_error_ = ErrorCode::kNoSpace;
  std::function<void(std::uint64_t)> on_prepare_;
  std::set<std::uint64_t> fail_prepare_, fail_stage_;
  std::map<std::uint64_t, SuccessRecord> records_;
  std::vector<std::uint64_t> prepared_, started_, staged_, cleaned_;
};

}  // namespace merlin::testing
