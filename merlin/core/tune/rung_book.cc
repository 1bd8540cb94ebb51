#include "merlin/core/tune/rung_book.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace merlin::tune {

RungBook::RungBook(TuneShape shape)
    : shape_(std::move(shape)),
      rungs_(std::size_t{shape_.brackets()} * shape_.rungs),
      done_(shape_.trials, 0),
      last_value_(shape_.trials, std::numeric_limits<double>::quiet_NaN()),
      stopped_(shape_.trials, 0) {
  open_ = shape_.tasks();
  for (std::uint32_t t = 0; t < shape_.trials; ++t) open_ -= shape_.start_rung(t);
}

std::vector<std::uint64_t> RungBook::skipped_at_start() const {
  std::vector<std::uint64_t> out;
  for (std::uint32_t k = 0; k < shape_.rungs; ++k)
    for (std::uint32_t t = 0; t < shape_.trials; ++t)
      if (k < shape_.start_rung(t)) out.push_back(shape_.task(t, k));
  return out;
}

bool RungBook::recorded(std::uint64_t task) const {
  if (task >= shape_.tasks()) return false;
  return (done_[shape_.trial_of(task)] >> shape_.rung_of(task)) & 1u;
}

void RungBook::promote(std::uint32_t bracket, std::uint32_t k, std::uint32_t trial,
                       RungDecision& out) {
  if (!rung(bracket, k).promoted.insert(trial).second) return;
  out.promoted.push_back(shape_.task(trial, k + 1));
}

RungDecision RungBook::record(std::uint64_t task, double value) {
  RungDecision out;
  if (task >= shape_.tasks() || recorded(task)) return out;
  const std::uint32_t t = shape_.trial_of(task), k = shape_.rung_of(task);
  const std::uint32_t b = shape_.bracket_of(t);
  if (k < shape_.start_rung(t)) return out;
  out.newly = true;
  done_[t] |= std::uint64_t{1} << k;
  last_value_[t] = value;
  --open_;
  Rung& r = rung(b, k);
  r.finished += 1;
  r.members.push_back(t);
  if (!std::isnan(value)) r.ranked.emplace(key(value), t);
  if (k + 1 < shape_.rungs) {
    // The best floor(n / eta) (a little slack: 9 / 3 is 3, not 2.99..).
    const auto top = static_cast<std::size_t>(std::floor(r.finished / shape_.eta + 1e-9));
    std::size_t i = 0;
    for (auto it = r.ranked.begin(); it != r.ranked.end() && i < top; ++it, ++i)
      promote(b, k, it->second, out);
  }
  close_from(b, k, out);
  std::sort(out.promoted.begin(), out.promoted.end());
  std::sort(out.skipped.begin(), out.skipped.end());
  return out;
}

void RungBook::close_from(std::uint32_t b, std::uint32_t k, RungDecision& out) {
  const std::uint32_t first = b;  // bracket b starts at rung b
  for (; k < shape_.rungs; ++k) {
    Rung& r = rung(b, k);
    if (r.closed) continue;
    if (k > first && !rung(b, k - 1).closed) return;
    const std::uint32_t entered =
        k == first ? shape_.bracket_size(b) : static_cast<std::uint32_t>(rung(b, k - 1).promoted.size());
    if (r.finished < entered) return;
    r.closed = true;
    const bool last = k + 1 == shape_.rungs;
    if (!last && r.promoted.empty() && !r.ranked.empty()) promote(b, k, r.ranked.begin()->second, out);
    for (std::uint32_t t : r.members) {
      if (!last && r.promoted.count(t)) continue;
      stopped_[t] = 1;
      for (std::uint32_t above = k + 1; above < shape_.rungs; ++above) {
        out.skipped.push_back(shape_.task(t, above));
        --open_;
      }
    }
  }
}

std::vector<std::uint64_t> RungBook::promoted_pending() const {
  std::vector<std::uint64_t> out;
  for (std::uint32_t b = 0; b < shape_.brackets(); ++b)
    for (std::uint32_t k = 0; k + 1 < shape_.rungs; ++k)
      for (std::uint32_t t : rung(b, k).promoted) {
        const std::uint64_t next = shape_.task(t, k + 1);
        if (!recorded(next)) out.push_back(next);
      }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<TrialStanding> RungBook::standings() const {
  std::vector<TrialStanding> out(shape_.trials);
  for (std::uint32_t t = 0; t < shape_.trials; ++t) {
    auto& s = out[t];
    s.trial = t;
    s.rung = done_[t] == 0 ? -1 : 63 - __builtin_clzll(done_[t]);
    s.value = last_value_[t];
    s.stopped = stopped_[t] != 0;
    s.running = !s.stopped;
  }
  return out;
}

std::optional<TrialStanding> RungBook::best() const {
  std::optional<TrialStanding> best;
  for (const auto& s : standings()) {
    if (s.rung < 0 || std::isnan(s.value)) continue;
    if (!best || s.rung > best->rung ||
        (s.rung == best->rung && key(s.value) < key(best->value)))
      best = s;
  }
  return best;
}

}  // namespace merlin::tune
