#pragma once
/// The finished counts of a watched study over time, as `merlin monitor --web` samples them at
/// each refresh: a step's rate over the last minute, its ETA, and the series the page plots.
/// Pure: the caller passes the time of each sample. Not thread-safe (one refresher owns it).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "merlin/core/report/study_snapshot.h"

namespace merlin::run {

using report::ThroughputPoint;

class ThroughputHistory {
 public:
  /// Keeps at most `max_points` samples (the oldest go first); at least 2.
  explicit ThroughputHistory(std::size_t max_points = 1800);

  /// Records the finished (done + failed) count of each step at `at_ms`. A sample older than
  /// the newest one is ignored (a clock step back); the number of steps must not change.
  void record(std::int64_t at_ms, const std::vector<std::uint64_t>& finished_per_step);

  /// Finished per second of `step` between the newest sample and the oldest one not older
  /// than `window_ms` before it (the whole history when it is shorter); 0 with fewer than two
  /// samples or no time between them.
  double rate(std::size_t step, std::int64_t window_ms = 60'000) const;

  /// Seconds until `remaining` tasks are finished at `rate` per second: none when the rate is
  /// 0 and work remains, 0 when nothing remains.
  static std::optional<double> eta(std::uint64_t remaining, double rate);

  /// The samples, oldest first, with the steps summed.
  std::vector<ThroughputPoint> series() const;

 private:
  struct Sample {
    std::int64_t at_ms;
    std::vector<std::uint64_t> finished;
  };
  std::size_t max_points_;
  std::vector<Sample> samples_;  ///< oldest first
};

}  // namespace merlin::run
