#include "merlin/run/study_watch.h"

#include <algorithm>
#include <tuple>

#include "merlin/run/local_run.h"
#include "merlin/run/run_record.h"
#include "merlin/run/search_board.h"
#include "merlin/run/status_report.h"
#include "merlin/run/task_details.h"

namespace merlin::run {

StudyWatch::StudyWatch(std::unique_ptr<PreparedStudy> study, std::string workspace,
                       Backend* backend, std::string broker_display, StudyWatchOptions options)
    : study_(std::move(study)),
      workspace_(std::move(workspace)),
      backend_(backend),
      broker_display_(std::move(broker_display)),
      options_(options),
      plan_(*study_->graph),
      history_(options.max_points) {}

bool StudyWatch::lean() const { return study_->spec.layout == spec::WorkspaceLayout::kLean; }

Result<std::vector<FailureSnapshot>> StudyWatch::failures() {
  TaskFilter filter;
  filter.statuses = {"FAILED"};
  std::vector<bool> wanted(study_->graph->instances().size(), true);
  std::unique_ptr<StateStore> store;
  bool live = true;
  if (backend_ != nullptr)
    store = backend_->store(study_key_of(workspace_));
  else
    live = !live_running(*study_).empty();
  auto tasks = list_tasks(*study_, plan_, wanted, filter, store.get(), live);
  if (!tasks) return tasks.error();
  // Newest first; tasks whose end no journal recorded (0) last, in spec order.
  std::stable_sort(tasks->begin(), tasks->end(), [](const TaskRow& a, const TaskRow& b) {
    return a.detail.ended_at > b.detail.ended_at;
  });
  if (tasks->size() > options_.max_failures) tasks->resize(options_.max_failures);
  std::vector<FailureSnapshot> out;
  for (const auto& t : *tasks) {
    FailureSnapshot f;
    f.step = t.step;
    f.sample = t.sample;
    f.dir = t.dir;
    f.instance = t.instance_dir;
    f.return_code = t.detail.outcome ? return_code_name(*t.detail.outcome) : "";
    f.ended_at = t.detail.ended_at;
    f.worker = t.detail.worker;
    if (lean())
      f.logs_command = "merlin logs " + workspace_ + " " + t.instance_dir + " " +
                       std::to_string(t.sample) + " --err";
    else
      f.err_file = t.err_file;
    out.push_back(std::move(f));
  }
  return out;
}

Result<StudySnapshot> StudyWatch::refresh(std::int64_t now_ms) {
  const StudyGraph& graph = *study_->graph;
  std::vector<InstanceProgress> progress;
  std::vector<std::uint32_t> running;
  std::unique_ptr<StateStore> store;  // also the searches' standings
  if (backend_ != nullptr) {
    const std::string key = study_key_of(workspace_);
    store = backend_->store(key);
    auto p = store->progress();
    if (!p) return p.error();
    if (p->empty())
      return Error::runtime("study " + key + " is not in the broker at " + broker_display_ +
                            " (another server, or the broker lost it)");
    progress = std::move(*p);
    // Tasks in flight; a snapshot without them is still a snapshot (as `merlin status`).
    auto r = backend_->studies().running(key, graph.instances().size());
    if (r) running = std::move(*r);
  } else {
    auto st = journal_store(*study_);
    if (!st) return st.error();
    store = std::move(*st);
    auto p = store->progress();
    if (!p) return p.error();
    progress = std::move(*p);
    running = live_running(*study_);
  }

  StudySnapshot snap;
  snap.study_name = study_->tokens.study_name;
  snap.workspace = workspace_;
  snap.distributed = backend_ != nullptr;
  snap.lean = lean();
  snap.broker = broker_display_;
  snap.taken_at_ms = now_ms;
  auto rows = step_status(graph, progress, running);
  // The leaderboards are not worth the counts: a store that cannot give them leaves them out.
  if (auto boards = search_boards(graph, *store))
    for (const auto& b : *boards) snap.searches.push_back(search_object(b, options_.search_trials));
  std::vector<std::uint64_t> finished;
  for (const auto& r : rows) finished.push_back(r.done + r.failed);
  history_.record(now_ms, finished);

  StepStatus& total = snap.totals.status;
  total.step = "total";
  double total_seconds = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    StepSnapshot s;
    s.status = rows[i];
    s.rate = history_.rate(i, options_.rate_window_ms);
    if (rows[i].count_unknown == 0)
      s.eta = ThroughputHistory::eta(rows[i].queued + rows[i].running, s.rate);
    total.instances += rows[i].instances;
    total.total += rows[i].total;
    total.done += rows[i].done;
    total.failed += rows[i].failed;
    total.running += rows[i].running;
    total.queued += rows[i].queued;
    total.count_unknown += rows[i].count_unknown;
    total_seconds += rows[i].mean_seconds * static_cast<double>(rows[i].done + rows[i].failed);
    snap.totals.rate += s.rate;
    snap.steps.push_back(std::move(s));
  }
  const std::uint64_t total_finished = total.done + total.failed;
  total.mean_seconds = total_finished ? total_seconds / static_cast<double>(total_finished) : 0;
  if (total.count_unknown == 0)
    snap.totals.eta = ThroughputHistory::eta(total.queued + total.running, snap.totals.rate);
  snap.failed_total = total.failed;

  // Read again on the refresh after a change too: a worker journals a task after its commit
  // reaches the broker, so the first read may miss the newest failure's return code and time.
  const bool changed = failures_read_at_ != total.failed;
  // The list is not worth the counts: when it cannot be read (a journal is damaged, a store
  // that keeps no per-sample bits) the snapshot says why and keeps the last list.
  if (changed || reread_) {
    auto f = failures();
    if (f) {
      failures_ = std::move(*f);
      failures_error_.clear();
    } else {
      failures_error_ = f.error().message;
    }
    failures_read_at_ = total.failed;
    reread_ = changed;
  }
  snap.failures = failures_;
  snap.failures_error = failures_error_;

  if (backend_ != nullptr) {
    auto list = backend_->workers().list();
    if (!list) return list.error();
    for (const auto& w : *list) {
      if (w.spec_name != snap.study_name) continue;
      WorkerSnapshot ws;
      ws.name = w.name;
      ws.host = w.host;
      ws.pid = w.pid;
      ws.queues = w.queues;
      ws.concurrency = w.slots;
      ws.batch_job = w.job;
      ws.study = w.study;
      const std::int64_t age_ms = std::max<std::int64_t>(0, now_ms - w.seen_ms);
      ws.heartbeat_age = static_cast<double>(age_ms) / 1000.0;
      ws.alive = is_alive(w.seen_ms, now_ms, options_.dead_after);
      snap.workers.push_back(std::move(ws));
    }
    std::sort(snap.workers.begin(), snap.workers.end(),
              [](const WorkerSnapshot& a, const WorkerSnapshot& b) {
                return std::tie(a.host, a.pid, a.name) < std::tie(b.host, b.pid, b.name);
              });
  }
  snap.throughput = history_.series();
  return snap;
}

}  // namespace merlin::run
