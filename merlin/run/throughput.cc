#include "merlin/run/throughput.h"

#include <algorithm>

namespace merlin::run {

ThroughputHistory::ThroughputHistory(std::size_t max_points)
    : max_points_(std::max<std::size_t>(2, max_points)) {}

void ThroughputHistory::record(std::int64_t at_ms,
                               const std::vector<std::uint64_t>& finished_per_step) {
  if (!samples_.empty() && at_ms < samples_.back().at_ms) return;
  if (!samples_.empty() && samples_.back().finished.size() != finished_per_step.size())
    samples_.clear();  // another study: its history does not continue this one
  samples_.push_back({at_ms, finished_per_step});
  if (samples_.size() > max_points_)
    samples_.erase(samples_.begin(),
                   samples_.begin() + static_cast<std::ptrdiff_t>(samples_.size() - max_points_));
}

double ThroughputHistory::rate(std::size_t step, std::int64_t window_ms) const {
  if (samples_.size() < 2) return 0;
  const Sample& last = samples_.back();
  const Sample* first = &samples_.front();
  for (const auto& s : samples_)
    if (last.at_ms - s.at_ms <= window_ms) {
      first = &s;
      break;
    }
  if (first == &last || step >= last.finished.size()) return 0;
  const double seconds = static_cast<double>(last.at_ms - first->at_ms) / 1000.0;
  if (seconds <= 0) return 0;
  // Counts only grow, except when a restart clears failures: never a negative rate.
  const std::uint64_t now = last.finished[step], then = first->finished[step];
  return now > then ? static_cast<double>(now - then) / seconds : 0;
}

std::optional<double> ThroughputHistory::eta(std::uint64_t remaining, double rate) {
  if (remaining == 0) return 0.0;
  if (rate <= 0) return std::nullopt;
  return static_cast<double>(remaining) / rate;
}

std::vector<ThroughputPoint> ThroughputHistory::series() const {
  std::vector<ThroughputPoint> out;
  out.reserve(samples_.size());
  for (const auto& s : samples_) {
    ThroughputPoint p{s.at_ms, 0};
    for (auto f : s.finished) p.finished += f;
    out.push_back(p);
  }
  return out;
}

}  // namespace merlin::run
