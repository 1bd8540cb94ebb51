#include "merlin/run/local_run.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <optional>
#include <sstream>
#include <system_error>
#include <thread>

#include "adapters/broker/local/local_broker.h"
#include "adapters/broker/local/local_state_store.h"
#include "merlin/core/plan/plan.h"
#include "merlin/run/progress.h"
#include "merlin/run/progress_totals.h"
#include "merlin/run/status_report.h"
#include "merlin/run/stop_control.h"
#include "merlin/core/util/files.h"
#include "merlin/core/util/log.h"
#include "merlin/core/workspace/journal.h"
#include "merlin/core/workspace/task_journals.h"
#include "workers/file_stager.h"

namespace merlin::run {
namespace {

std::string journal_path(const PreparedStudy& s) { return local_journal_path(s.tokens.info_dir); }
std::string live_path(const PreparedStudy& s) { return s.tokens.info_dir + "/status.live"; }

// One run per workspace at a time: an flock on merlin_info/run.lock, released at exit or death.
class WorkspaceLock {
 public:
  Result<void> acquire(const std::string& path) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) return Error::runtime("cannot open " + path);
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0)
      return Error::runtime("another merlin process is running this workspace (" + path +
                            " is locked); wait for it or stop it first");
    return ok();
  }
  ~WorkspaceLock() {
    if (fd_ >= 0) ::close(fd_);
  }

 private:
  int fd_ = -1;
};

// Progress lines and the live-status file, once a second until stopped.
class Reporter {
 public:
  Reporter(PreparedStudy& s, LocalStateStore& store, Worker& worker, bool print,
           std::chrono::milliseconds kill_wait)
      : s_(s), store_(store), worker_(worker), kill_wait_(kill_wait) {
    // On a terminal: one line rewritten each second; in a log: a line every 10 s.
    if (print)
      progress_ = progress_on(stderr, "", std::chrono::seconds(1), std::chrono::seconds(10));
    thread_ = std::thread([this] { loop(); });
  }
  ~Reporter() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
    if (progress_) progress_->finish();
    std::remove(live_path(s_).c_str());
  }

 private:
  void loop() {
    std::unique_lock lock(mu_);
    StopControl control;
    auto last_report = Clock::now();
    while (!cv_.wait_for(lock, std::chrono::milliseconds(200), [this] { return stop_; })) {
      auto steps = control.advance(Interrupts::count(), false);
      if (steps.drain && !steps.abort) {
        worker_.request_stop();
        fprintf(stderr, "\nstopping: running steps finish first (interrupt again to end them)\n");
      }
      if (steps.abort) {
        fprintf(stderr,
                "\nending running steps: SIGTERM now, SIGKILL in %.0f s to those still "
                "running; their tasks run again on restart\n",
                std::chrono::duration<double>(kill_wait_).count());
        worker_.abort();
      }
      if (Clock::now() - last_report < std::chrono::seconds(1)) continue;
      last_report = Clock::now();
      auto p = store_.progress();
      if (!p) continue;
      const auto totals = totals_of(*p);  // fan-out counts appear as they are released
      if (progress_) progress_->update(totals.done, totals.total);
      std::ostringstream live;
      live << "pid=" << ::getpid() << "\n";
      auto running = worker_.running();
      for (std::size_t i = 0; i < running.size(); ++i)
        if (running[i]) live << i << " " << running[i] << "\n";
      (void)files::write_atomic(live_path(s_), live.str());
    }
  }

  PreparedStudy& s_;
  LocalStateStore& store_;
  Worker& worker_;
  std::unique_ptr<Progress> progress_;
  std::chrono::milliseconds kill_wait_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

// Tuned instances (docs/tuning.md) decide their promotions in the store: it needs their shape
// before any commit or replay.
void mark_tuned(LocalStateStore& store, const StudyGraph& graph) {
  for (const auto& inst : graph.instances())
    if (const auto& shape = graph.step_of(inst.id).tune) store.set_tuned(inst.id, *shape);
}

}  // namespace

Result<std::unique_ptr<StateStore>> journal_store(const PreparedStudy& s) {
  auto owned = std::make_unique<LocalStateStore>(s.graph->start_counts());
  LocalStateStore& store = *owned;
  mark_tuned(store, *s.graph);
  auto n = read_journal(
      journal_path(s), static_cast<std::uint32_t>(s.graph->instances().size()),
      [&](const JournalRecord& r) { store.restore(r.instance, r.sample, r.outcome, r.seconds); },
      false, [&](InstanceId i, std::uint64_t count) { store.restore_count(i, count); },
      [&](InstanceId i, SampleId task, double value) { store.restore_trial(i, task, value); });
  if (!n) return n.error();
  return std::unique_ptr<StateStore>(std::move(owned));
}

Result<std::vector<InstanceProgress>> journal_progress(const PreparedStudy& s) {
  auto store = journal_store(s);
  if (!store) return store.error();
  return (*store)->progress();
}

std::vector<std::uint32_t> live_running(const PreparedStudy& s) {
  std::vector<std::uint32_t> out;
  auto text = files::read(live_path(s));
  if (!text) return out;
  std::istringstream in(*text);
  std::string line;
  std::getline(in, line);
  if (line.rfind("pid=", 0) != 0) return out;
  pid_t pid = static_cast<pid_t>(std::atol(line.c_str() + 4));
  if (pid <= 0 || ::kill(pid, 0) != 0) return out;  // the run is gone: nothing is running
  out.assign(s.graph->instances().size(), 0);
  std::uint64_t i = 0, n = 0;
  while (in >> i >> n)
    if (i < out.size()) out[i] = static_cast<std::uint32_t>(n);
  return out;
}

Result<LocalRunResult> run_local(PreparedStudy& s, const LocalRunOptions& o) {
  const auto& graph = *s.graph;
  auto instances = static_cast<std::uint32_t>(graph.instances().size());
  WorkspaceLock lock;
  auto locked = lock.acquire(s.tokens.info_dir + "/run.lock");
  if (!locked) return locked.error();
  JournalWriter journal;
  auto opened = journal.open(journal_path(s), instances);
  if (!opened) return opened.error();
  LocalStateStore store(
      graph.start_counts(),
      [&](InstanceId i, SampleId x, Outcome out, double sec) {
        return journal.append({i, x, out, static_cast<float>(sec)});
      },
      [&](InstanceId i, std::uint64_t count) {  // a fan-out count, before it is used
        JournalRecord r{i, count};
        r.count = true;
        return journal.append(r);
      },
      [&](InstanceId i, SampleId task, double value) {  // a trial's result, before its commit
        JournalRecord r{i, task};
        r.trial = true;
        r.value = value;
        return journal.append(r);
      });
  mark_tuned(store, graph);
  if (o.resume) {
    // Failed samples are run again: restart finishes the study, as Merlin's re-runs every
    // task without MERLIN_FINISHED. A fan-out instance whose file could not be read (no copy)
    // is forgotten altogether: it is expanded again, from the file as it is now.
    // (A count of 0 is a loop iteration that was skipped, not a failed expansion.)
    const FanoutTables& fanout = s.renderer->fanout();
    std::vector<bool> again(instances, false);
    std::uint64_t kept = 0;
    auto n = read_journal(
        journal_path(s), instances,
        [&](const JournalRecord& r) {
          if (is_failure(r.outcome)) return;
          if (again[r.instance.v]) return;
          store.restore(r.instance, r.sample, r.outcome, r.seconds);
          ++kept;
        },
        false,
        [&](InstanceId i, std::uint64_t count) {
          again[i.v] = graph.step_of(i).fanout && count > 0 && !fanout.expanded(i);
          if (!again[i.v]) store.restore_count(i, count);
        },
        // A trial's result decides promotions again, in the order it did (a failed trial's
        // result, none, has decided them too: it stays failed).
        [&](InstanceId i, SampleId task, double value) { store.restore_trial(i, task, value); });
    if (!n) return n.error();
    log::info("restart: {} finished tasks kept from the journal, failed ones run again", kept);
  }

  LocalBroker broker;
  Plan plan(graph, &s.renderer->fanout());
  auto ready = plan.ready_at_start(store);
  if (!ready) return ready.error();
  for (const auto& r : *ready) {
    auto p = broker.publish(r.queue, {r.message});
    if (!p) return p.error();
  }

  auto executor = for_layout(o.executor(o.kill_wait), s);
  WorkerOptions wo;
  wo.slots = o.slots;
  std::atomic<bool> start_warned{false};
  wo.on_start = [&](InstanceId i, SampleId x) {  // for detailed-status's RUNNING
    JournalRecord r{i, x};
    r.started = true;
    auto a = journal.append(r);
    if (!a && !start_warned.exchange(true))
      log::warn("cannot record a task's start in the journal error=\"{}\"", a.error().message);
  };
  Worker worker(broker, store, plan, *s.renderer, *executor, wo);
  auto start = Clock::now();
  Interrupts::install({SIGINT, SIGTERM});
  Result<WorkerReport> report = Error::runtime("not run");
  {
    // The reporter owns status.live: its destructor removes the file on every way out.
    std::optional<Reporter> reporter;
    try {
      reporter.emplace(s, store, worker, o.progress, o.kill_wait);
    } catch (const std::system_error& e) {
      report = Error::runtime(std::string("cannot start the progress thread: ") + e.what());
    }
    if (reporter) report = worker.run();
  }
  Interrupts::uninstall({SIGINT, SIGTERM});
  if (!report) return report.error();
  // This process was the study's only one on the node: its stage_in copies and the empty
  // scratch dirs go; failed tasks' scratch dirs stay (their paths were logged).
  for (const auto& dir : s.renderer->study_scratch_dirs())
    if (!tidy_study_scratch(dir)) log::info("scratch kept for inspection: {}", dir);

  LocalRunResult result;
  result.report = *report;
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  auto p = store.progress();
  if (!p) return p.error();
  result.progress = *p;
  const auto totals = totals_of(result.progress);
  result.total = totals.total;
  result.done = totals.done;
  result.failed = totals.failed;
  return result;
}

}  // namespace merlin::run
