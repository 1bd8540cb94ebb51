#pragma once
/// Per-task status for `merlin detailed-status`, in Merlin's words (INITIALIZED, RUNNING,
/// FINISHED, FAILED, CANCELLED; MERLIN_SUCCESS, MERLIN_SOFT_FAIL, ...). Two sources: the
/// study's task journals (who ran each task, when it started and ended, its run time and
/// outcome, how often it started) and, for a study queued in a broker, the broker's done and
/// failed bits, which stay the truth of what is done (a restart clears failures there; a
/// journal may miss a commit whose worker died just after it). Memory: 20 bytes per task of
/// the instances asked for.
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "merlin/core/broker/state_store.h"
#include "merlin/core/plan/plan.h"
#include "merlin/run/prepared_study.h"
#include "merlin/core/util/result.h"
#include "merlin/core/workspace/journal.h"

namespace merlin::run {

enum class TaskState : std::uint8_t { kInitialized, kRunning, kFinished, kFailed, kCancelled };

/// Merlin's status names: "INITIALIZED" ... "CANCELLED".
const char* state_name(TaskState s);
/// Merlin's return codes: "MERLIN_SUCCESS", "MERLIN_SOFT_FAIL", "MERLIN_HARD_FAIL",
/// "MERLIN_STOP_WORKERS".
const char* return_code_name(Outcome o);

struct TaskDetail {
  TaskState state = TaskState::kInitialized;
  std::optional<Outcome> outcome;  ///< a finished task's, when a journal recorded it
  float seconds = 0;               ///< its run time
  std::uint32_t starts = 0;        ///< times started (restarts = starts - 1)
  std::uint32_t started_at = 0, ended_at = 0;  ///< seconds since the epoch; 0 = unknown
  /// Its first start's (of every attempt: retries and restarts), for Merlin's elapsed_time.
  std::uint32_t first_started_at = 0;
  std::string worker;                          ///< who ran it last; "" for a local run
  /// Merlin's elapsed_time: from the first start to the end, in whole seconds (journal times
  /// are seconds); unknown (nullopt) until the task ends or when a time is missing.
  std::optional<std::uint32_t> elapsed() const {
    if (!outcome || first_started_at == 0 || ended_at < first_started_at) return std::nullopt;
    return ended_at - first_started_at;
  }
};

/// What the journals say of each task of the instances asked for.
class TaskLedger {
 public:
  /// `counts[i]`: samples of instance i; `wanted[i]`: keep instance i's tasks.
  TaskLedger(const std::vector<std::uint64_t>& counts, const std::vector<bool>& wanted);

  /// Reads the journal at `path` (kept by `worker`), started records included.
  Result<void> read(const std::string& path, const std::string& worker);
  /// Adds one record, as read from a journal kept by worker `worker_index` (add_worker).
  void add(const JournalRecord& r, std::uint16_t worker_index);
  std::uint16_t add_worker(const std::string& name);

  /// The task's detail. `bits`: the broker's truth for this instance; none for a local run,
  /// where the journal's last commit of the task is the truth. `live`: something may be
  /// running it (false for a local run no process runs any more: a task it started and never
  /// finished was interrupted, and is INITIALIZED again: restart runs it).
  TaskDetail detail(InstanceId instance, SampleId sample, const SampleBits* bits, bool live) const;

 private:
  struct Slot {
    std::uint32_t started_at = 0, ended_at = 0, first_started_at = 0;
    float seconds = 0;
    std::uint16_t worker = 0;
    std::uint8_t outcome = kNone;
    std::uint8_t last_was_start = 0;
    std::uint32_t starts = 0;
  };
  static constexpr std::uint8_t kNone = 0xff;
  std::vector<std::uint64_t> counts_;
  std::vector<std::vector<Slot>> slots_;  ///< per wanted instance, by sample
  std::vector<std::string> workers_{""};  ///< index 0: none / the local run
};

/// Merlin's detailed-status filters. Steps and queues choose the steps; the task status,
/// return code and worker filters then keep a task matching any of them (as Merlin does);
/// `max_tasks` (0: all) stops the listing.
struct TaskFilter {
  std::set<std::string> statuses;      ///< "FAILED" ...
  std::set<std::string> return_codes;  ///< "SOFT_FAIL" ... (without MERLIN_)
  std::set<std::string> workers;
  std::uint64_t max_tasks = 0;
  bool keeps(const TaskDetail& d) const;
};

/// One task as detailed-status lists it.
struct TaskRow {
  std::string step, dir, queue;  ///< dir: relative to the workspace
  TaskDetail detail;
  SampleId sample = 0;       ///< the sample of a sampled step; 0 otherwise
  std::string instance_dir;  ///< its step instance's directory, relative to the workspace
  std::string err_file;      ///< its `.err`, relative to the workspace (Merlin's layout)
};

/// The tasks of `study` in spec order (steps, instances, samples) that `filter` keeps, at most
/// `filter.max_tasks`: the instances `wanted` (by step and queue), from the study's task
/// journals and, when `store` is given (a broker study), its done and failed bits, which decide
/// what is done. `live`: whether something may still run the study (see TaskLedger::detail).
Result<std::vector<TaskRow>> list_tasks(const PreparedStudy& study, const Plan& plan,
                                        const std::vector<bool>& wanted, const TaskFilter& filter,
                                        StateStore* store, bool live);

/// Checks and normalises `--task-status` values (any case): kBadInput naming the valid ones.
Result<std::set<std::string>> parse_statuses(const std::vector<std::string>& given);
/// `--return-code` values, any case, with or without MERLIN_.
Result<std::set<std::string>> parse_return_codes(const std::vector<std::string>& given);

/// "1h02m03s", "42.5s", "4.250s", "" for 0.
std::string duration_text(double seconds);
/// "2026-11-24 10:15:02" (local time); "" for 0.
std::string time_text(std::uint32_t epoch_seconds);

}  // namespace merlin::run
