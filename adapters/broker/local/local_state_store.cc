#include "adapters/broker/local/local_state_store.h"

#include <iterator>
#include <limits>

namespace merlin {

LocalStateStore::LocalStateStore(const std::vector<std::uint64_t>& counts, CommitSink sink,
                                 CountSink count_sink, ValueSink value_sink)
    : entries_(counts.size()),
      sink_(std::move(sink)),
      count_sink_(std::move(count_sink)),
      value_sink_(std::move(value_sink)) {
  for (std::size_t i = 0; i < counts.size(); ++i) {
    auto& p = entries_[i].progress;
    p.count_known = counts[i] != kCountUnknown;
    p.total = p.count_known ? counts[i] : 0;
  }
}

void LocalStateStore::restore_count(InstanceId id, std::uint64_t count) {
  std::lock_guard lock(mu_);
  if (id.v >= entries_.size() || count == kCountUnknown) return;
  auto& e = entries_[id.v];
  if (e.progress.count_known && e.progress.total == count) return;
  e.done = IntervalSet();
  e.progress = InstanceProgress{};
  e.progress.total = count;
  for (auto it = failed_.lower_bound({id.v, 0}); it != failed_.end() && it->first == id.v;)
    it = failed_.erase(it);
}

Result<void> LocalStateStore::forget_count(InstanceId id) {
  std::lock_guard lock(mu_);
  auto& e = entries_[id.v];
  e.done = IntervalSet();
  e.progress = InstanceProgress{};
  e.progress.count_known = false;
  e.released = false;
  for (auto it = failed_.lower_bound({id.v, 0}); it != failed_.end() && it->first == id.v;)
    it = failed_.erase(it);
  return ok();
}

Result<std::uint64_t> LocalStateStore::set_count(InstanceId id, std::uint64_t count) {
  std::lock_guard lock(mu_);
  auto& p = entries_[id.v].progress;
  if (p.count_known) return p.total;
  if (count_sink_) {
    auto r = count_sink_(id, count);
    if (!r) return r.error();
  }
  p.total = count;
  p.count_known = true;
  return count;
}

bool LocalStateStore::record_locked(InstanceId id, SampleId sample, Outcome outcome,
                                    double seconds) {
  auto& e = entries_[id.v];
  if (!e.done.insert(sample)) return false;
  e.progress.done += 1;
  if (is_failure(outcome)) e.progress.failed += 1;
  e.progress.seconds += seconds;
  return true;
}

void LocalStateStore::restore(InstanceId id, SampleId sample, Outcome outcome, double seconds) {
  std::lock_guard lock(mu_);
  if (id.v >= entries_.size()) return;
  bool failure = is_failure(outcome);
  if (record_locked(id, sample, outcome, seconds)) {
    if (failure) failed_.emplace(id.v, sample);
    return;
  }
  // A tuned task: its result record, replayed first, marked it done without its run time and
  // outcome, which are its commit record's.
  if (books_.count(id.v) != 0 && outcome != Outcome::kSkipped) {
    entries_[id.v].progress.seconds += seconds;
    if (failure && failed_.emplace(id.v, sample).second) entries_[id.v].progress.failed += 1;
  }
  auto it = failed_.find({id.v, sample});
  if (!failure && it != failed_.end()) {
    failed_.erase(it);
    entries_[id.v].progress.failed -= 1;
  }
}

void LocalStateStore::set_tuned(InstanceId id, const tune::TuneShape& shape) {
  std::lock_guard lock(mu_);
  if (id.v >= entries_.size()) return;
  auto [it, fresh] = books_.try_emplace(id.v, shape);
  if (!fresh) return;
  for (SampleId k : it->second.skipped_at_start()) record_locked(id, k, Outcome::kSkipped, 0);
}

Result<CommitResult> LocalStateStore::trial_locked(InstanceId id, SampleId task, Outcome outcome,
                                                   double seconds, double value, bool journal) {
  auto& e = entries_[id.v];
  auto& book = books_.at(id.v);
  if (e.done.contains(task) || book.recorded(task))
    return CommitResult{false, e.progress.total - e.progress.done, {}};
  if (journal && value_sink_) {
    auto r = value_sink_(id, task, value);
    if (!r) return r.error();
  }
  if (journal && sink_) {
    auto r = sink_(id, task, outcome, seconds);
    if (!r) return r.error();
  }
  record_locked(id, task, outcome, seconds);
  if (is_failure(outcome)) failed_.emplace(id.v, task);
  auto decision = book.record(task, value);
  for (SampleId k : decision.skipped) {
    if (e.done.contains(k)) continue;
    if (journal && sink_) {
      auto r = sink_(id, k, Outcome::kSkipped, 0);
      if (!r) return r.error();
    }
    record_locked(id, k, Outcome::kSkipped, 0);
  }
  return CommitResult{true, e.progress.total - e.progress.done, std::move(decision.promoted)};
}

Result<CommitResult> LocalStateStore::commit_trial(InstanceId id, SampleId task, Outcome outcome,
                                                   double seconds, double value) {
  std::lock_guard lock(mu_);
  if (books_.count(id.v) == 0) return commit_locked(id, task, outcome, seconds);
  return trial_locked(id, task, outcome, seconds, value, true);
}

void LocalStateStore::restore_trial(InstanceId id, SampleId task, double value) {
  std::lock_guard lock(mu_);
  if (id.v >= entries_.size() || books_.count(id.v) == 0) return;
  (void)trial_locked(id, task, Outcome::kSuccess, 0, value, false);
}

Result<std::vector<SampleId>> LocalStateStore::pending_promotions(InstanceId id) {
  std::lock_guard lock(mu_);
  auto it = books_.find(id.v);
  if (it == books_.end()) return std::vector<SampleId>{};
  std::vector<SampleId> out;
  for (SampleId k : it->second.promoted_pending())
    if (!entries_[id.v].done.contains(k)) out.push_back(k);
  return out;
}

Result<std::vector<tune::TrialStanding>> LocalStateStore::standings(InstanceId id) {
  std::lock_guard lock(mu_);
  auto it = books_.find(id.v);
  if (it == books_.end()) return std::vector<tune::TrialStanding>{};
  return it->second.standings();
}

Result<CommitResult> LocalStateStore::commit(InstanceId id, SampleId sample, Outcome outcome,
                                             double seconds) {
  std::lock_guard lock(mu_);
  if (books_.count(id.v) != 0)  // a tuned task without a result
    return trial_locked(id, sample, outcome, seconds, std::numeric_limits<double>::quiet_NaN(),
                        true);
  return commit_locked(id, sample, outcome, seconds);
}

Result<CommitResult> LocalStateStore::commit_locked(InstanceId id, SampleId sample,
                                                    Outcome outcome, double seconds) {
  if (id.v >= entries_.size())
    return Error::runtime("merlin: instance " + std::to_string(id.v) + " was not initialised");
  auto& e = entries_[id.v];
  if (!e.progress.count_known)
    return Error::runtime("commit of sample " + std::to_string(sample) + " of instance " +
                          std::to_string(id.v) + " before its fan-out count was recorded");
  if (e.done.contains(sample)) return CommitResult{false, e.progress.total - e.progress.done, {}};
  if (sink_) {
    auto r = sink_(id, sample, outcome, seconds);
    if (!r) return r.error();
  }
  record_locked(id, sample, outcome, seconds);
  if (is_failure(outcome)) failed_.emplace(id.v, sample);  // for reset_failed
  return CommitResult{true, e.progress.total - e.progress.done, {}};
}

Result<bool> LocalStateStore::is_done(InstanceId id, SampleId sample) {
  std::lock_guard lock(mu_);
  return entries_[id.v].done.contains(sample);
}

Result<bool> LocalStateStore::is_complete(InstanceId id) {
  std::lock_guard lock(mu_);
  return entries_[id.v].progress.finished();
}

Result<bool> LocalStateStore::claim_release(InstanceId id) {
  std::lock_guard lock(mu_);
  bool first = !entries_[id.v].released;
  entries_[id.v].released = true;
  return first;
}

Result<std::vector<InstanceProgress>> LocalStateStore::progress() {
  std::lock_guard lock(mu_);
  std::vector<InstanceProgress> out;
  out.reserve(entries_.size());
  for (const auto& e : entries_) out.push_back(e.progress);
  return out;
}

void LocalStateStore::clear_releases() {
  std::lock_guard lock(mu_);
  for (auto& e : entries_) e.released = false;
}

std::uint64_t LocalStateStore::reset_failed() {
  std::lock_guard lock(mu_);
  const std::uint64_t n = failed_.size();
  for (auto it = failed_.begin(); it != failed_.end();) {
    const std::uint32_t instance = it->first;
    auto end = failed_.lower_bound({instance + 1, 0});
    auto& e = entries_[instance];
    IntervalSet kept;
    for (SampleId x = 0; x < e.progress.total; ++x)
      if (e.done.contains(x) && failed_.count({instance, x}) == 0) kept.insert(x);
    const auto failures = static_cast<std::uint64_t>(std::distance(it, end));
    e.done = std::move(kept);
    e.progress.done -= failures;
    e.progress.failed -= failures;
    it = end;
  }
  failed_.clear();
  return n;
}

}  // namespace merlin
