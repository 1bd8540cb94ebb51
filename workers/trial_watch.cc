#include "workers/trial_watch.h"

#include <sys/stat.h>

#include <cmath>

#include "merlin/core/study/study_graph.h"
#include "merlin/core/util/log.h"
#include "workers/trial_result.h"

namespace merlin {

std::optional<std::chrono::milliseconds> TrialWatch::period(const StudyGraph& graph) {
  std::optional<std::chrono::milliseconds> out;
  for (const auto& s : graph.steps()) {
    if (!s.tune || !s.spec->run.tune || s.spec->run.tune->prune_every <= 0) continue;
    auto p = std::chrono::milliseconds(
        static_cast<long long>(std::llround(s.spec->run.tune->prune_every * 1000)));
    if (!out || p < *out) out = p;
  }
  return out;
}

TrialWatch::TrialWatch(StateStore& store, const StudyGraph& graph, const TaskRenderer& renderer,
                       StepExecutor& executor)
    : store_(store),
      graph_(graph),
      renderer_(renderer),
      executor_(executor),
      period_(period(graph).value_or(std::chrono::seconds(1))),
      thread_([this] { loop(); }) {}

TrialWatch::~TrialWatch() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void TrialWatch::watch(const RenderedTask& task) {
  const auto& node = graph_.step_of(task.instance);
  if (!node.tune || !node.spec->run.tune || node.spec->run.tune->prune_every <= 0) return;
  if (task.metric_path.empty() || node.tune->budgets.empty()) return;
  std::lock_guard lock(mu_);
  watched_[{task.instance.v, task.sample}] = Watched{task.metric_path, task.metric_key, {}};
}

std::optional<tune::PruneVerdict> TrialWatch::done(const RenderedTask& task) {
  std::lock_guard lock(mu_);
  auto it = watched_.find({task.instance.v, task.sample});
  if (it == watched_.end()) return std::nullopt;
  auto verdict = it->second.verdict;
  watched_.erase(it);
  return verdict;
}

void TrialWatch::loop() {
  std::unique_lock lock(mu_);
  while (!cv_.wait_for(lock, period_, [this] { return stop_; })) {
    if (watched_.empty()) continue;
    lock.unlock();
    auto to_end = look();
    lock.lock();
    for (auto& [key, verdict] : to_end) {
      auto it = watched_.find(key);
      if (it == watched_.end() || it->second.verdict) continue;  // ended meanwhile
      it->second.verdict = verdict;
      // Under the lock: done() cannot have taken the task's verdict yet, so a run that ends
      // now is still recorded as pruned (it was asked to end).
      if (!executor_.end_run(InstanceId{key.first}, key.second)) it->second.verdict.reset();
    }
  }
}

std::vector<std::pair<TrialWatch::Key, tune::PruneVerdict>> TrialWatch::look() {
  std::map<Key, Watched> now;
  {
    std::lock_guard lock(mu_);
    for (const auto& [key, w] : watched_)
      if (!w.verdict) now.emplace(key, w);
  }
  std::map<std::uint32_t, std::vector<tune::TrialStanding>> standings;
  std::vector<std::pair<Key, tune::PruneVerdict>> out;
  for (const auto& [key, w] : now)
    if (auto v = judge(key, w, standings); v && v->prune) out.emplace_back(key, *v);
  return out;
}

std::optional<tune::PruneVerdict> TrialWatch::judge(
    const Key& key, const Watched& w,
    std::map<std::uint32_t, std::vector<tune::TrialStanding>>& standings) {
  const InstanceId instance{key.first};
  const auto& node = graph_.step_of(instance);
  const tune::TuneShape& shape = *node.tune;
  const std::uint32_t trial = shape.trial_of(key.second);
  const std::uint32_t rung = shape.rung_of(key.second);
  const double from = rung == 0 ? 0 : shape.budgets[rung - 1];
  const double to = shape.budgets[rung];
  long long size = 0;
  auto own = read_trial_curve(w.metric_path, w.key, size);
  auto at = tune::newest_between(own, from, to);
  if (!at) return std::nullopt;
  auto it = standings.find(key.first);
  if (it == standings.end()) {
    auto s = store_.standings(instance);
    if (!s) {
      log::warn("pruning: no standings step={}: {}", node.name, s.error().message);
      s = std::vector<tune::TrialStanding>{};
    }
    it = standings.emplace(key.first, std::move(*s)).first;
  }
  std::vector<double> others;
  const std::uint32_t bracket = shape.bracket_of(trial);
  for (const auto& st : it->second) {
    // Those that finished the rung with a result: promoted past it, or stopped there with one
    // (not the failed nor the pruned).
    const bool finished = st.rung > static_cast<int>(rung) ||
                          (st.rung == static_cast<int>(rung) && !std::isnan(st.value));
    if (st.trial == trial || !finished || shape.bracket_of(st.trial) != bracket) continue;
    if (auto v = tune::value_at(curve_of(instance, st.trial, w.key), at->budget))
      others.push_back(*v);
  }
  auto verdict = tune::prune_verdict(*at, std::move(others), shape.eta, shape.maximize);
  if (verdict.prune)
    log::info("pruning step={} trial={} rung={} budget={} value={} cut={} (the best {} of {} "
              "trials that finished the rung were better at that budget)",
              node.name, trial, rung, verdict.budget, verdict.value, verdict.cut, verdict.keep,
              verdict.compared);
  return verdict;
}

const std::vector<data::MetricPoint>& TrialWatch::curve_of(InstanceId instance,
                                                           std::uint32_t trial,
                                                           const std::string& key) {
  const auto id = std::pair{instance.v, trial};
  auto p = paths_.find(id);
  if (p == paths_.end()) {
    const auto& shape = *graph_.step_of(instance).tune;
    // Every rung of a trial shares its directory and so its metric file.
    auto task = renderer_.render(instance, shape.task(trial, shape.start_rung(trial)),
                                 TaskKind::kCmd);
    p = paths_.emplace(id, task.metric_path).first;
  }
  Curve& c = curves_[id];
  // A finished rung's lines do not change: the file is read again only when its size did
  // (the trial went on, or ran again).
  struct stat st {};
  const long long size = ::stat(p->second.c_str(), &st) == 0 ? st.st_size : -1;
  if (size != c.size) c.points = read_trial_curve(p->second, key, c.size);
  return c.points;
}

}  // namespace merlin
