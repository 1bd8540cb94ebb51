#include "merlin/run/worker_fleet.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <system_error>
#include <thread>

#include "merlin/core/batch/scheduler.h"
#include "merlin/core/util/exit_codes.h"
#include "merlin/core/util/files.h"
#include "merlin/core/util/log.h"
#include "merlin/core/workspace/journal.h"
#include "merlin/core/workspace/task_journals.h"
#include "merlin/run/dist_study.h"
#include "merlin/run/fleet_policy.h"
#include "merlin/run/idle_turn.h"
#include "merlin/run/progress.h"
#include "merlin/run/progress_totals.h"
#include "merlin/run/serve_control.h"
#include "merlin/run/status_report.h"
#include "merlin/run/stop_control.h"
#include "merlin/run/study_recovery.h"
#include "workers/journaled_store.h"
#include "workers/process_executor.h"
#include "workers/worker.h"

namespace merlin::run {

std::string batch_job_id() {
  for (const auto* s : batch::schedulers())
    if (const char* v = std::getenv(s->job_id_variable()); *s->job_id_variable() && v && *v)
      return v;
  return "";
}

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "localhost";
  return buf;
}

namespace {

// A worker has reached the server (run-workers checks it first): from then on even a new
// connection rides out an outage within the retry budget instead of ending the worker.
class Fleet {
  struct Running {
    const WorkerPlan* plan;
    std::unique_ptr<Broker> broker;
    std::unique_ptr<StepExecutor> executor;
    std::unique_ptr<JournalWriter> journal;  ///< this worker's task journal in the workspace
    std::unique_ptr<JournaledStore> store;   ///< the study's store, journalling this worker's
    std::unique_ptr<Worker> worker;
    Result<WorkerReport> report = Error::runtime("not run");
  };

 public:
  Fleet(Backend& backend, std::string spec_name, std::vector<WorkerPlan> plans,
        FleetOptions options)
      : backend_(backend),
        spec_name_(std::move(spec_name)),
        plans_(std::move(plans)),
        beats_(plans_.size()),
        options_(options),
        registry_(backend.workers()),
        studies_(backend.studies()),
        stops_(backend.stops()) {}

  int run() {
    // Stops written by steps from now on are ours to obey; older ones were for the
    // processes running then (new workers resume a stopped queue, as Merlin's do).
    auto mark = stops_.clock_mark();
    if (!mark) {
      log::error("{}", mark.error().message);
      return finish(kExitFailed);
    }
    start_mark_ = *mark;
    beat("");  // listed by query-workers from the start
    const bool exit_when_done = options_.given.exit_when_done;
    bool announced_wait = false;
    int status = kExitOk;
    while (!stopping()) {
      auto named = studies_named(studies_, spec_name_);
      if (!named) {
        log::error("{}", named.error().message);
        status = kExitFailed;
        break;
      }
      const StudyRecord* next = nullptr;
      for (const auto& r : *named) {
        std::vector<std::unique_ptr<Running>> none;
        obey_halts(r.key, none);
        if (stopping()) break;
        if (skipped_.count(r.key) || !servable(r.key)) continue;
        auto p = work_left(r.key);
        if (!p) {
          log::error("{}", p.error().message);
          return finish(kExitFailed);
        }
        if (*p > 0) {
          next = &r;
          break;
        }
      }
      if (!next) {
        // No work is success only if the broker lost none: a flushed Redis queues nothing.
        auto lost = report_lost();
        if (!lost) {
          log::error("{}", lost.error().message);
          status = kExitFailed;
          break;
        }
        const IdleTurn turn =
            decide_idle_turn({exit_when_done, *lost, lost_polls_, announced_wait});
        lost_polls_ = turn.lost_polls;
        if (turn.next == IdleTurn::Next::kFinish) {
          const bool stuck = report_stuck(*named) != kExitOk;
          if (!skipped_.empty()) {
            std::string keys;
            for (const auto& k : skipped_) keys += (keys.empty() ? "" : ", ") + k;
            log::error("studies not served because their workspace could not be opened: {}", keys);
          }
          status = exit_status_when_done(stuck, lost_polls_ > 0, !skipped_.empty());
          if (status == kExitOk && named->empty())
            log::warn(
                "nothing is queued for study name={} in this broker: `merlin run SPEC` "
                "queues it (without --local); exiting",
                spec_name_);
          else if (status == kExitOk)
            log::info("no work left for study name={}: exiting", spec_name_);
          break;
        }
        if (turn.announce && named->empty())
          log::info(
              "nothing is queued for study name={} yet: waiting (`merlin run SPEC`, "
              "without --local, queues it)",
              spec_name_);
        else if (turn.announce)
          log::info("waiting for work on study name={}", spec_name_);
        if (turn.next == IdleTurn::Next::kWait) announced_wait = true;
        if (!idle_second("")) break;
        continue;
      }
      announced_wait = false;
      auto served = serve(*next);
      if (!served) {
        log::error("{}", served.error().message);
        status = exit_code_of(served.error());  // 4 for a full disk
        break;
      }
      // Nothing our workers could take (the work left is on queues a hard fail stopped, or
      // held by other workers): wait a second instead of reopening the study at once.
      if (!*served && !idle_second("")) break;
    }
    return finish(status);
  }

 private:
  bool stopping() const {
    return stop_requested_ || Interrupts::count() > 0 ||
           past_drain_time(options_.drain_at, std::chrono::steady_clock::now());
  }

  // Messages queued, delayed or in flight on the study's queues that a hard fail has not
  // stopped (work stuck on a stopped queue is nobody's here).
  Result<std::uint64_t> work_left(const std::string& key) {
    const auto& stopped = stopped_queues_[key];
    if (stopped.empty()) return studies_.pending(key);
    auto stats = studies_.queue_stats(key);
    if (!stats) return stats.error();
    return work_outside(*stats, stopped);
  }

  // Exit code for --exit-when-done: 1 if messages are left on queues a hard fail stopped.
  int report_stuck(const std::vector<StudyRecord>& studies) {
    int rc = kExitOk;
    for (const auto& r : studies) {
      if (stopped_queues_[r.key].empty()) continue;
      auto p = studies_.pending(r.key);
      if (!p || *p == 0) continue;
      std::string qs;
      for (const auto& q : stopped_queues_[r.key]) qs += (qs.empty() ? "" : ",") + q;
      log::error(
          "study={} has {} messages left on queues stopped by MERLIN_HARD_FAIL ({}); "
          "`merlin restart {}` queues them again",
          r.key, *p, qs, r.workspace);
      rc = kExitFailed;
    }
    return rc;
  }

  // Logs each study that lost its work in the broker once (again after it was queued again
  // and lost again); true if any is lost now.
  Result<bool> report_lost() {
    auto lost = find_lost_studies(backend_, spec_name_, options_.output_path);
    if (!lost) return lost.error();
    std::set<std::string> now;
    for (const auto& l : *lost) {
      now.insert(l.key);
      if (!reported_lost_.count(l.key)) log::error("{}", l.describe(backend_.location()));
    }
    reported_lost_ = std::move(now);
    return !lost->empty();
  }

  int finish(int status) {
    for (const auto& p : plans_) (void)registry_.remove(p.id);
    return status;
  }

  // A study is worth serving if some worker has a queue there not stopped by a hard fail.
  bool servable(const std::string& key) { return run::servable(plans_, stopped_queues_[key]); }

  // Heartbeats for every worker; false when a stop was asked for. Each recorded beat's send
  // time is the worker's last_beat (fencing: WorkerOptions::last_beat).
  bool beat(const std::string& study) {
    for (std::size_t i = 0; i < plans_.size(); ++i) {
      const auto& p = plans_[i];
      const auto sent = Clock::now();
      WorkerRecord w;
      w.id = p.id;
      w.name = p.name;
      w.host = host_name();
      w.pid = static_cast<int>(::getpid());
      w.spec_name = spec_name_;
      w.study = study;
      w.queues = p.queues;
      w.slots = p.slots;
      w.job = batch_job_id();
      auto b = registry_.beat(w);
      if (!b) {
        log::warn("heartbeat failed worker={} error=\"{}\"", p.name, b.error().message);
        continue;
      }
      beats_[i].store(sent.time_since_epoch().count());
      if (*b) {
        log::info("stop requested by `merlin stop-workers` worker={}", p.name);
        stop_requested_ = true;
      }
    }
    return !stop_requested_;
  }

  // Waits one second between polls for new work, heartbeating; false if stopped.
  bool idle_second(const std::string& study) {
    if (!beat(study)) return false;
    for (int i = 0; i < 5 && !stopping(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    return !stopping();
  }

  static std::pair<std::uint64_t, std::uint64_t> done_total(StateStore& store) {
    auto p = store.progress();
    if (!p) return {0, 0};
    const auto totals = totals_of(*p);
    return {totals.done, totals.total};
  }

  /// The task journal of worker `p` in the study's workspace, for detailed-status; none (with
  /// a warning) when it cannot be opened: the worker runs without it.
  static std::unique_ptr<JournalWriter> open_journal(const PreparedStudy& s, const WorkerPlan& p) {
    const std::string& info = s.tokens.info_dir;
    auto path = worker_journal_path(info, p.name, host_name() + "." + std::to_string(::getpid()));
    auto j = std::make_unique<JournalWriter>();
    auto made = files::make_dirs(info + "/tasks");
    auto opened =
        made ? j->open(path, static_cast<std::uint32_t>(s.graph->instances().size())) : made;
    if (opened) return j;
    log::warn(
        "cannot open the task journal {} error=\"{}\"; detailed-status will not show {}'s "
        "tasks",
        path, opened.error().message, p.name);
    return nullptr;
  }

  /// Runs the workers on one study until it has no work for them; true if they did any.
  Result<bool> serve(const StudyRecord& rec) {
    auto s = reopen_study(rec.workspace, true, options_.app_scratch);
    if (!s) {
      log::error("cannot open the workspace of study={} workspace={} error=\"{}\"; skipping it",
                 rec.key, rec.workspace, s.error().message);
      skipped_.insert(rec.key);
      return false;
    }
    log::info("serving study={} workspace={}", rec.key, rec.workspace);
    Plan plan(*(*s)->graph, &(*s)->renderer->fanout());
    auto owned_store = backend_.store(rec.key);
    StateStore& store = *owned_store;
    auto all_queues = study_queues(*(*s)->graph);
    auto& stopped = stopped_queues_[rec.key];

    std::vector<std::unique_ptr<Running>> fleet;
    for (const auto& p : plans_) {
      auto options = worker_options_for(p, all_queues, stopped, options_.given);
      if (!options) continue;  // a hard fail stopped all its queues
      WorkerOptions& wo = *options;
      wo.on_stop = [this, &rec, id = p.id](const std::string& q, const std::string& step,
                                           bool all) {
        auto h = stops_.halt(rec.key, StudyHalt{q, step, id, all});
        if (!h)
          log::error("could not tell other workers to stop queue={} error=\"{}\"", q,
                     h.error().message);
      };
      wo.on_stop_notices = [this, &rec, &fleet] { obey_halts(rec.key, fleet); };
      wo.fence = LeaseTerms{options_.given.lease(), options_.given.dead_after()};
      wo.last_beat = [this, i = static_cast<std::size_t>(&p - plans_.data())] {
        const auto t = beats_[i].load();
        return t == 0 ? std::nullopt : std::optional(Clock::time_point(Clock::duration(t)));
      };
      auto r = std::make_unique<Running>();
      r->plan = &p;
      r->broker = backend_.broker(rec.key, p.id, options_.given.lease());
      r->executor = for_layout(options_.executor(options_.given.kill_wait_ms()), **s);
      r->journal = open_journal(**s, p);
      StateStore* used = &store;
      if (r->journal) {
        r->store = std::make_unique<JournaledStore>(store, *r->journal);
        wo.on_start = [js = r->store.get()](InstanceId i, SampleId x) { js->started(i, x); };
        used = r->store.get();
      }
      r->worker =
          std::make_unique<Worker>(*r->broker, *used, plan, *(*s)->renderer, *r->executor, wo);
      fleet.push_back(std::move(r));
    }
    std::vector<std::thread> threads;
    std::atomic<int> left{static_cast<int>(fleet.size())};
    try {
      for (auto& r : fleet)
        threads.emplace_back([&r, &left] {
          r->report = r->worker->run();
          left--;
        });
    } catch (const std::system_error& e) {
      for (auto& r : fleet) r->worker->request_stop();  // those started drain at once
      for (auto& t : threads) t.join();
      return Error::runtime(std::string("cannot start a thread for each worker: ") + e.what());
    }
    // Control: signals, stop requests, halts, heartbeats and progress lines while the
    // workers run; ServeControl decides each turn, this loop acts.
    ServeControl control;
    // "progress study=K 4520/100000 tasks (4.5%)  1234.5/s  ETA 1m17s (x/y done in all)": the
    // rate is the study's over this process's time on it (every worker's commits count).
    auto done_before = done_total(store).first;
    std::pair<std::uint64_t, std::uint64_t> all;
    std::unique_ptr<Progress> progress;
    if (options_.progress_every.count() > 0)
      progress = log_progress(
          "study=" + rec.key + " ",
          [&all](const std::string& line) {
            log::info("progress {} ({}/{} done in all)", line, all.first, all.second);
          },
          options_.progress_every);
    while (left.load() > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      const ServeTurn turn = control.advance(
          {Clock::now(), Interrupts::count(), stop_requested_.load(), options_.drain_at});
      if (turn.drain) {
        if (turn.drain_for_allocation)
          log::warn("the allocation ends soon: draining before its time limit");
        log::info("draining: running tasks finish and commit, reserved ones go back to the queue");
        for (auto& r : fleet) r->worker->request_stop();
      }
      if (turn.abort) {
        log::warn(
            "second signal: ending running steps (SIGTERM now, SIGKILL in {:g} s to those still "
            "running); their tasks go back uncommitted",
            std::chrono::duration<double>(options_.given.kill_wait_ms()).count());
        for (auto& r : fleet) r->worker->abort();
      }
      if (turn.beat) {
        beat(rec.key);
        obey_halts(rec.key, fleet);
      }
      if (progress && progress->due()) {
        all = done_total(store);
        if (all.second > 0)
          progress->update(all.first - std::min(all.first, done_before),
                           all.second - std::min(all.second, done_before));
      }
    }
    for (auto& t : threads) t.join();
    std::vector<WorkerReport> reports;
    for (auto& r : fleet) {
      if (!r->report) return r->report.error();
      const auto& w = *r->report;
      reports.push_back(w);
      log::info(
          "worker={} study={} executed={} succeeded={} failed={} requeued={} skipped={} "
          "splits={}",
          r->plan->name, rec.key, w.executed, w.succeeded, w.failed, w.requeued, w.skipped,
          w.splits);
      if (w.stopped_by_step) log::warn("MERLIN_STOP_WORKERS: this process stops");
    }
    const ServeTally t = tally(reports);
    stopped.insert(t.stopped_queues.begin(), t.stopped_queues.end());
    if (t.stopped_by_step) stop_requested_ = true;
    return t.worked;
  }

  // Applies the halts other processes (or our own workers) wrote since `mark` to every
  // worker here: the stopped queue's reserved tasks go back, MERLIN_STOP_WORKERS drains all.
  // Called by the control loop with every heartbeat, and by a worker's slot before it starts
  // a task delivered with a new stop count.
  void obey_halts(const std::string& key, std::vector<std::unique_ptr<Running>>& fleet) {
    std::lock_guard lock(halts_mu_);
    auto m = marks_.find(key);
    if (m == marks_.end()) m = marks_.emplace(key, start_mark_).first;
    auto halts = stops_.halts_since(key, m->second);
    if (!halts) {
      log::warn("cannot read the stops of study={} error=\"{}\"", key, halts.error().message);
      return;
    }
    for (const auto& h : *halts) {
      if (h.all) {
        if (!stop_requested_)
          log::warn("MERLIN_STOP_WORKERS from step={} (worker {}): stopping", h.step, h.by);
        stop_requested_ = true;
        for (auto& r : fleet) r->worker->request_stop();
        continue;
      }
      const bool ours = std::any_of(plans_.begin(), plans_.end(),
                                    [&](const WorkerPlan& p) { return p.id == h.by; });
      if (stopped_queues_[key].insert(h.queue).second && !ours)
        log::error("hard fail in step={} (worker {}): queue={} stops here too", h.step, h.by,
                   h.queue);
      for (auto& r : fleet) r->worker->stop_queue(h.queue);
    }
  }

  Backend& backend_;
  std::string spec_name_;
  std::vector<WorkerPlan> plans_;
  /// Per plan: the send time (Clock ticks) of its last heartbeat the broker recorded; 0 for
  /// none yet.
  std::vector<std::atomic<Clock::rep>> beats_;
  FleetOptions options_;
  WorkerRegistry& registry_;
  StudyRegistry& studies_;
  StopChannel& stops_;
  std::atomic<bool> stop_requested_{false};
  std::string start_mark_;                    ///< the broker's clock when this process started
  std::mutex halts_mu_;                       ///< guards marks_ and stopped_queues_ in serve
  std::map<std::string, std::string> marks_;  ///< per study: the last halt obeyed
  std::set<std::string> skipped_;
  std::set<std::string> reported_lost_;  ///< studies whose lost work was logged
  int lost_polls_ = 0;                   ///< consecutive idle polls that found lost work
  std::map<std::string, std::set<std::string>> stopped_queues_;
};

}  // namespace

int run_fleet(Backend& backend, const std::string& spec_name, const std::vector<WorkerPlan>& plans,
              const FleetOptions& options) {
  Fleet fleet(backend, spec_name, plans, options);
  return fleet.run();
}

}  // namespace merlin::run
