#include "merlin/run/task_details.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <ctime>

#include "merlin/run/local_run.h"
#include "merlin/run/status_source.h"
#include "merlin/core/workspace/task_journals.h"

namespace merlin::run {
namespace {

// Merlin's lists (status_constants.py); the ones this build never produces are accepted and
// match nothing: DRY_RUN/DRY_SUCCESS (a dry run runs no task), UNKNOWN/UNRECOGNIZED (an
// unknown exit code is a soft fail here), RESTART/RETRY (not final: the task runs again).
const char* const kStatuses[] = {"INITIALIZED", "RUNNING", "FINISHED", "FAILED",
                                 "CANCELLED",   "DRY_RUN", "UNKNOWN"};
const char* const kReturnCodes[] = {"SUCCESS",      "SOFT_FAIL",    "HARD_FAIL",
                                    "STOP_WORKERS", "RESTART",      "RETRY",
                                    "DRY_SUCCESS",  "UNRECOGNIZED", "TIMED_OUT"};

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

template <std::size_t N>
Result<std::set<std::string>> parse_names(const std::vector<std::string>& given,
                                          const char* const (&valid)[N], const char* flag,
                                          const char* prefix) {
  std::set<std::string> out;
  for (const auto& g : given) {
    std::string name = upper(g);
    if (prefix && name.rfind(prefix, 0) == 0) name = name.substr(std::string(prefix).size());
    if (std::find(std::begin(valid), std::end(valid), name) == std::end(valid)) {
      std::string list;
      for (const char* v : valid) list += (list.empty() ? "" : ", ") + std::string(v);
      return Error::bad_input(std::string(flag) + ": '" + g + "' is none of " + list);
    }
    out.insert(name);
  }
  return out;
}

}  // namespace

const char* state_name(TaskState s) {
  switch (s) {
    case TaskState::kInitialized:
      return "INITIALIZED";
    case TaskState::kRunning:
      return "RUNNING";
    case TaskState::kFinished:
      return "FINISHED";
    case TaskState::kFailed:
      return "FAILED";
    case TaskState::kCancelled:
      return "CANCELLED";
  }
  return "UNKNOWN";
}

const char* return_code_name(Outcome o) {
  switch (o) {
    case Outcome::kSuccess:
      return "MERLIN_SUCCESS";
    case Outcome::kSoftFail:
      return "MERLIN_SOFT_FAIL";
    case Outcome::kHardFail:
      return "MERLIN_HARD_FAIL";
    case Outcome::kStopped:
      return "MERLIN_STOP_WORKERS";
    case Outcome::kTimedOut:
      return "MERLIN_TIMED_OUT";
    case Outcome::kSkipped:
      return "MERLIN_SKIPPED";
  }
  return "MERLIN_UNRECOGNIZED";
}

TaskLedger::TaskLedger(const std::vector<std::uint64_t>& counts, const std::vector<bool>& wanted)
    : counts_(counts), slots_(counts.size()) {
  for (std::size_t i = 0; i < counts.size(); ++i)
    if (i < wanted.size() && wanted[i]) slots_[i].resize(counts[i]);
}

std::uint16_t TaskLedger::add_worker(const std::string& name) {
  auto it = std::find(workers_.begin(), workers_.end(), name);
  if (it != workers_.end()) return static_cast<std::uint16_t>(it - workers_.begin());
  if (workers_.size() >= 0xffff) return 0;  // more workers than that: shown without a name
  workers_.push_back(name);
  return static_cast<std::uint16_t>(workers_.size() - 1);
}

Result<void> TaskLedger::read(const std::string& path, const std::string& worker) {
  auto w = add_worker(worker);
  auto n = read_journal(
      path, static_cast<std::uint32_t>(counts_.size()), [&](const JournalRecord& r) { add(r, w); },
      true);
  if (!n) return n.error();
  return ok();
}

void TaskLedger::add(const JournalRecord& r, std::uint16_t worker_index) {
  if (r.instance.v >= slots_.size()) return;
  auto& v = slots_[r.instance.v];
  if (r.sample >= v.size()) return;  // not asked for (or not of this study)
  Slot& s = v[r.sample];
  if (r.started) {
    s.starts++;
    if (r.at != 0 && (s.first_started_at == 0 || r.at < s.first_started_at))
      s.first_started_at = r.at;
    if (r.at >= s.started_at) {
      s.started_at = r.at;
      s.worker = worker_index;
    }
    s.last_was_start = 1;
    return;
  }
  // The newest commit tells (a restart's success after a failure); same-second ties go to the
  // one read last, which within a journal is the later one.
  if (r.at >= s.ended_at || s.outcome == kNone) {
    s.ended_at = r.at;
    s.outcome = static_cast<std::uint8_t>(r.outcome);
    s.seconds = r.seconds;
    s.worker = worker_index;
  }
  s.last_was_start = 0;
}

TaskDetail TaskLedger::detail(InstanceId instance, SampleId sample, const SampleBits* bits,
                              bool live) const {
  TaskDetail d;
  const Slot* s = nullptr;
  if (instance.v < slots_.size() && sample < slots_[instance.v].size())
    s = &slots_[instance.v][sample];
  bool running = false;
  std::optional<Outcome> last;
  if (s) {
    d.starts = s->starts;
    d.started_at = s->started_at;
    d.first_started_at = s->first_started_at;
    d.ended_at = s->ended_at;
    d.seconds = s->seconds;
    d.worker = workers_[s->worker];
    if (s->outcome != kNone) last = static_cast<Outcome>(s->outcome);
    running = live && s->starts > 0 &&
              (s->started_at > s->ended_at || (s->started_at == s->ended_at && s->last_was_start));
  }
  auto finished = [&](Outcome o) {
    d.outcome = o;
    d.state = o == Outcome::kSuccess   ? TaskState::kFinished
              : o == Outcome::kStopped || o == Outcome::kSkipped ? TaskState::kCancelled
                                                                  : TaskState::kFailed;
  };
  if (!bits) {  // a local run: its journal is the truth
    if (running)
      d.state = TaskState::kRunning;
    else if (last)
      finished(*last);
    return d;
  }
  if (bits->is_done(sample)) {
    bool failed = bits->is_failed(sample);
    bool agrees = last && is_failure(*last) == failed;
    if (agrees) {
      finished(*last);
    } else {  // no journal saw the commit (its worker died right after it)
      d.state = failed ? TaskState::kFailed : TaskState::kFinished;
      if (!failed) d.outcome = Outcome::kSuccess;
    }
    return d;
  }
  d.state = running ? TaskState::kRunning : TaskState::kInitialized;
  return d;
}

bool TaskFilter::keeps(const TaskDetail& d) const {
  if (statuses.empty() && return_codes.empty() && workers.empty()) return true;
  if (statuses.count(state_name(d.state))) return true;
  if (d.outcome && return_codes.count(std::string(return_code_name(*d.outcome)).substr(7)))
    return true;
  return !d.worker.empty() && workers.count(d.worker);
}

Result<std::vector<TaskRow>> list_tasks(const PreparedStudy& study, const Plan& plan,
                                        const std::vector<bool>& wanted, const TaskFilter& filter,
                                        StateStore* store, bool live) {
  const StudyGraph& graph = *study.graph;
  std::vector<std::uint64_t> counts;
  for (const auto& i : graph.instances()) counts.push_back(i.count);
  // Fan-out instances and later loop iterations (docs/fanout.md): the count recorded at their
  // release (the broker's, or the local journal's), 0 while not released.
  bool any_unknown = false;
  for (const auto& i : graph.instances()) any_unknown |= graph.unknown_at_start(i.id);
  if (any_unknown) {
    auto progress = store ? store->progress() : task_journals_progress(study);
    if (!progress) return progress.error();
    for (const auto& i : graph.instances()) {
      if (!graph.unknown_at_start(i.id)) continue;
      const bool known = i.id.v < progress->size() && (*progress)[i.id.v].count_known;
      counts[i.id.v] = known ? (*progress)[i.id.v].total : 0;
    }
  }
  const int level_max_dirs = graph.spec().samples ? graph.spec().samples->level_max_dirs : 25;
  TaskLedger ledger(counts, wanted);
  auto journals = study_journals(study.tokens.info_dir);
  if (!journals) return journals.error();
  for (const auto& j : *journals) {
    auto r = ledger.read(j, journal_worker(j));
    if (!r) return r.error();
  }
  std::vector<TaskRow> out;
  auto full = [&] { return filter.max_tasks && out.size() >= filter.max_tasks; };
  std::vector<std::vector<InstanceId>> of_step(graph.steps().size());  // loop copies too
  for (const auto& i : graph.instances()) of_step[i.step.v].push_back(i.id);
  for (const auto& node : graph.steps()) {
    for (std::size_t k = 0; k < of_step[node.id.v].size() && !full(); ++k) {
      InstanceId id = of_step[node.id.v][k];
      if (id.v >= wanted.size() || !wanted[id.v]) continue;
      const Instance& inst = graph.instance(id);
      const std::uint64_t count = counts[id.v];
      const SampleHierarchy own =
          node.fanout ? SampleHierarchy(count, level_max_dirs) : SampleHierarchy();
      const SampleHierarchy& h = node.fanout ? own : graph.hierarchy();
      std::optional<SampleBits> bits;
      if (store) {
        auto b = store->sample_bits(id);
        if (!b) return b.error();
        bits = std::move(*b);
      }
      for (SampleId x = 0; x < count && !full(); ++x) {
        TaskDetail d = ledger.detail(id, x, bits ? &*bits : nullptr, live);
        if (!filter.keeps(d)) continue;
        TaskRow row{node.name, inst.rel_dir, plan.queue_of(id), std::move(d), 0, inst.rel_dir, ""};
        if (node.sampled && h.levels() > 0) {
          row.dir += '/';
          h.append_path(row.dir, x);
        }
        row.sample = node.sampled ? x : 0;
        row.err_file = row.dir + "/" + inst.base_name + ".err";
        out.push_back(std::move(row));
      }
    }
  }
  return out;
}

Result<std::set<std::string>> parse_statuses(const std::vector<std::string>& given) {
  return parse_names(given, kStatuses, "--task-status", nullptr);
}

Result<std::set<std::string>> parse_return_codes(const std::vector<std::string>& given) {
  return parse_names(given, kReturnCodes, "--return-code", "MERLIN_");
}

std::string duration_text(double seconds) {
  if (seconds <= 0) return "";
  char buf[48];
  if (seconds < 60) {
    std::snprintf(buf, sizeof buf, seconds < 10 ? "%.3fs" : "%.1fs", seconds);
    return buf;
  }
  auto t = static_cast<long long>(seconds + 0.5);
  long long d = t / 86400, h = t / 3600 % 24, m = t / 60 % 60, s = t % 60;
  if (d > 0)
    std::snprintf(buf, sizeof buf, "%lldd%02lldh%02lldm%02llds", d, h, m, s);
  else if (h > 0)
    std::snprintf(buf, sizeof buf, "%lldh%02lldm%02llds", h, m, s);
  else
    std::snprintf(buf, sizeof buf, "%lldm%02llds", m, s);
  return buf;
}

std::string time_text(std::uint32_t epoch_seconds) {
  if (epoch_seconds == 0) return "";
  std::time_t t = epoch_seconds;
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

}  // namespace merlin::run
